package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/internal/mcpserver"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/googleads/googleadstest"
	"github.com/adsmcp/adsmcp/internal/source/meta/metatest"
	"github.com/adsmcp/adsmcp/test/skipreport"
)

// liveConfig starts the Meta and Google Ads fakes (both serving the shared
// test warehouse's data) and writes a config file whose sources point at them,
// answered live (sync: off: the tests of a syncing server are sync_test.go's).
func liveConfig(t *testing.T) (string, *metatest.Server, *googleadstest.Server) {
	t.Helper()
	m := metatest.New(t)
	g := googleadstest.Start(t, googleadstest.Config{})
	t.Setenv("TEST_META_TOKEN", m.Token())
	t.Setenv("TEST_GADS_SECRET", googleadstest.ClientSecret)
	t.Setenv("TEST_GADS_REFRESH", googleadstest.RefreshToken)
	return writeConfig(t, `
sources:
  meta:
    access_token: ${TEST_META_TOKEN}
    base_url: `+m.URL+`
  google_ads:
    client_id: `+googleadstest.ClientID+`
    client_secret: ${TEST_GADS_SECRET}
    refresh_token: ${TEST_GADS_REFRESH}
    base_url: `+g.URL+`
    token_url: `+g.TokenURL+`
sync:
  every: off
`), m, g
}

// csvBlock is the data block of the query command's output.
func csvBlock(out string) string {
	_, data, _ := strings.Cut(out, "\n\n")
	return data
}

// TestLiveSourcesFromTheConfig: with sources: in the config, accounts and
// query read the platforms' APIs (here their local fakes), and answer exactly
// what the warehouse holding the same data answers.
func TestLiveSourcesFromTheConfig(t *testing.T) {
	if testing.Short() {
		skipreport.Skip(t, "starts the API fakes")
	}
	cfg, _, _ := liveConfig(t)
	out, stderr, err := runCLI("accounts", "--config", cfg)
	if err != nil || strings.Count(out, "meta_ads,") != 6 || strings.Count(out, "google_ads,") != 5 || strings.Contains(out, "tiktok") {
		t.Fatalf("accounts: %v\n%s\n%s", err, out, stderr)
	}
	wh := duckdbtest.Open(t).Path()
	for _, args := range [][]string{
		{"-m", "spend,clicks,ctr,conversions", "-d", "platform,account_name", "-a", "617-204-8851,725-118-6403,act_1015823746512093,act_2284619037465520", "--preset", "last_30d"},
		{"-m", "spend,reach,frequency", "-d", "campaign_name", "-p", "meta_ads", "-g", "monthly", "--start", "2025-12-01", "--end", "2026-02-28"},
		{"-m", "spend,cpc", "-d", "campaign_name", "-p", "google_ads", "-g", "weekly", "--start", "2026-01-05", "--end", "2026-02-22"},
		// Comparisons: each window fetched from the APIs, joined as the warehouse's.
		{"-m", "spend,ctr,reach", "-d", "campaign_name", "-p", "meta_ads", "-g", "monthly", "--start", "2025-12-01", "--end", "2026-02-28", "--compare", "previous_period"},
		{"-m", "spend,cpc", "-d", "campaign_name", "-p", "google_ads", "-g", "weekly", "--start", "2026-01-05", "--end", "2026-02-22", "--compare", "previous_period", "--sort", "spend_change", "--limit", "5"},
	} {
		base := append([]string{"query", "--today", "2026-03-15"}, args...)
		live, stderr, err := runCLI(append(base, "--config", cfg)...)
		if err != nil {
			t.Fatalf("%v: %v\n%s\n%s", args, err, live, stderr)
		}
		want, _, err := runCLI(append(base, "--db", wh)...)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(args, "--compare") && !strings.Contains(live, `"comparison":{`) {
			t.Errorf("%v: not a comparison:\n%.600s", args, live)
		}
		if csvBlock(live) != csvBlock(want) || csvBlock(live) == "" {
			t.Errorf("%v: live differs from the warehouse:\n%s\n---\n%s", args, live, want)
		}
		if strings.Contains(live, `"source_calls":1,`) {
			t.Errorf("%v: source_calls should count the API requests: %.300s", args, live)
		}
	}
}

// TestLiveFailureOverMCP: an account the token cannot read fails the query
// over MCP with permission_denied naming it, and the suggested query without
// it answers.
func TestLiveFailureOverMCP(t *testing.T) {
	if testing.Short() {
		skipreport.Skip(t, "starts the API fakes")
	}
	path, m, _ := liveConfig(t)
	g := &globals{configPath: path}
	root := newRootCommand()
	if err := g.loadConfig(root); err != nil {
		t.Fatal(err)
	}
	src, err := g.openSource(context.Background(), &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	today, _ := clockFor("2026-03-15")
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(mcpserver.Config{Source: src, Now: today}).Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "claude-ai"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	m.Scenario(metatest.PermissionDenied("act_1015823746512093"))
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "query",
		Arguments: json.RawMessage(`{"metrics":["spend"],"dimensions":["account_name"],"platforms":["meta_ads"],"date_preset":"last_7d"}`)})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	var body struct {
		Type        string
		Suggestions []struct{ Query json.RawMessage }
	}
	if !res.IsError || json.Unmarshal([]byte(text), &body) != nil || body.Type != "permission_denied" ||
		!strings.Contains(text, "act_1015823746512093") || len(body.Suggestions) != 1 {
		t.Fatalf("got %s", text)
	}
	again, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "query", Arguments: body.Suggestions[0].Query})
	if err != nil || again.IsError || len(again.Content) != 2 || !strings.Contains(again.Content[1].(*mcp.TextContent).Text, "Lumen Outdoor EU") {
		t.Errorf("the suggestion: %v %v", err, again)
	}
}
