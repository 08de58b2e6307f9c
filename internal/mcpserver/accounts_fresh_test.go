package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/googleads"
	"github.com/adsmcp/adsmcp/internal/source/googleads/googleadstest"
	"github.com/adsmcp/adsmcp/internal/source/live"
)

// googleFake is the Google Ads fake behind the real connector, the live
// source and the server, with the demo's 50 Google customers (scale 10, one
// day of data: only the listing matters here).
type googleFake struct {
	api *googleadstest.Server
	s   *server
	// clock is the account list's: the fake answers over loopback, which
	// a synctest bubble cannot wait for, so the clock is moved by hand.
	clock *fakeClock
}

func startGoogleFake(t *testing.T, scale float64) *googleFake {
	t.Helper()
	demo := duckdbtest.Config
	demo.Scale, demo.Days = scale, 1
	api := googleadstest.Start(t, googleadstest.Config{Demo: demo})
	gc, err := googleads.New(googleads.Options{BaseURL: api.URL, TokenURL: api.TokenURL, ClientID: googleadstest.ClientID,
		ClientSecret: googleadstest.ClientSecret, RefreshToken: googleadstest.RefreshToken, RequestsPerSecond: -1, RetryBaseDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	clock := &fakeClock{t: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)}
	s := newServer(Config{Source: live.New(nil, gc), Now: duckdbtest.Now})
	setAccountsClock(s, clock.Now)
	return &googleFake{api: api, s: s, clock: clock}
}

// listings counts the requests of account listings the fake received:
// listAccessibleCustomers and the GAQL reading customer, customer_client or
// conversion_action without metrics (googleads.Connector.Accounts: 1 + 2N
// for N customers; a report at account level also reads FROM customer, with
// metrics).
func (g *googleFake) listings() int {
	n := 0
	for _, r := range g.api.Requests() {
		q := strings.ToLower(r.Query)
		listing := !strings.Contains(q, "metrics.") && (strings.Contains(q, " from customer") || strings.Contains(q, " from conversion_action"))
		if listing || strings.Contains(r.Path, "listAccessibleCustomers") {
			n++
		}
	}
	return n
}

// ask calls the query tool as a client would, without a principal.
func (g *googleFake) ask(t *testing.T, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	r, err := g.s.query(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Arguments: raw}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return r.toolResult()
}

// TestAccountListsDoNotCostAQuestion: ten questions a minute and a bit apart
// (over the old one-minute reuse) list the 50 customers once — 1 + 2×50
// requests — not once per question (1010 requests when the list was reused
// for a minute). With -v it logs the count.
func TestAccountListsDoNotCostAQuestion(t *testing.T) {
	g := startGoogleFake(t, 10)
	n := len(g.api.Accounts())
	perListing := 1 + 2*n
	id := g.api.Accounts()[0].AccountID
	for i := range 10 {
		if i > 0 {
			g.clock.Advance(61 * time.Second)
		}
		res := g.ask(t, map[string]any{"account_ids": []string{id}, "metrics": []string{"spend"}, "date_preset": "yesterday"})
		if res.IsError {
			t.Fatalf("question %d: %v", i, res.Content[0].(*mcp.TextContent).Text)
		}
	}
	got := g.listings()
	t.Logf("10 questions over %v with %d Google customers: %d account-listing requests", 9*61*time.Second, n, got)
	if got != perListing {
		t.Errorf("10 questions over %v with %d customers: %d listing requests, want %d (one listing)", 9*61*time.Second, n, got, perListing)
	}
}
