package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/auth"
	"github.com/adsmcp/adsmcp/internal/source"
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

// After an hour, a question is answered from the list it had while one
// refresh runs behind it: two listings in all, the second in the
// background.
func TestAccountListRefreshedInTheBackground(t *testing.T) {
	g := startGoogleFake(t, 0.03)
	perListing := 1 + 2*len(g.api.Accounts())
	id := g.api.Accounts()[0].AccountID
	args := map[string]any{"account_ids": []string{id}, "metrics": []string{"spend"}, "date_preset": "yesterday"}
	g.ask(t, args)
	g.clock.Advance(DefaultAccountsTTL)
	for range 3 {
		if res := g.ask(t, args); res.IsError {
			t.Fatal(res.Content[0].(*mcp.TextContent).Text)
		}
	}
	g.s.accounts.list.Wait()
	if got := g.listings(); got != 2*perListing {
		t.Errorf("after the TTL: %d listing requests, want %d (two listings)", got, 2*perListing)
	}
	if st := g.s.accounts.list.Status(); !st.ListedAt.Equal(g.clock.Now()) {
		t.Errorf("the list's age: listed at %v, now %v", st.ListedAt, g.clock.Now())
	}
	r, err := g.s.listAccounts(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Arguments: json.RawMessage(`{}`)}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if got := metaOf(t, r.toolResult().Content[0].(*mcp.TextContent).Text)["listed_at"]; got != g.clock.Now().Format(time.RFC3339) {
		t.Errorf("list_accounts' listed_at %v, want %s", got, g.clock.Now().Format(time.RFC3339))
	}
}

// A question naming an account the list does not hold refreshes it once,
// and a minute must pass before a miss refreshes it again; the answer is
// still "unknown account" for an account that does not exist.
func TestUnknownAccountRefreshesOnce(t *testing.T) {
	g := startGoogleFake(t, 0.03)
	perListing := 1 + 2*len(g.api.Accounts())
	unknown := map[string]any{"account_ids": []string{"123-456-7890"}, "metrics": []string{"spend"}}
	g.ask(t, map[string]any{"metrics": []string{"spend"}})
	g.clock.Advance(time.Minute)
	for i := range 5 {
		res := g.ask(t, unknown)
		if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "no account with this ID") {
			t.Fatalf("unknown account answered: %v", res.Content)
		}
		if got := g.listings(); got != 2*perListing {
			t.Fatalf("miss %d: %d listing requests, want %d (one refresh)", i, got, 2*perListing)
		}
	}
	g.clock.Advance(time.Minute)
	g.ask(t, unknown)
	if got := g.listings(); got != 3*perListing {
		t.Errorf("a miss a minute later: %d listing requests, want %d", got, 3*perListing)
	}
}

// A tenant naming another tenant's account gets the answer an account that
// does not exist gets, at the same cost; the shared list never shows it.
func TestMissesStayInTheTenantsScope(t *testing.T) {
	g := startGoogleFake(t, 0.03)
	accts := g.api.Accounts()
	mine, theirs := accts[0], accts[1]
	p := &auth.Principal{ID: "key:a", Tenant: "a", Accounts: []string{mine.Platform + ":" + mine.AccountID}}
	ask := func(id string) string {
		raw, _ := json.Marshal(map[string]any{"account_ids": []string{id}, "metrics": []string{"spend"}})
		r, err := g.s.query(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Arguments: raw},
			Extra: &mcp.RequestExtra{TokenInfo: p.TokenInfo()}}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return r.toolResult().Content[0].(*mcp.TextContent).Text
	}
	if text := ask(mine.AccountID); strings.Contains(text, "no account with this ID") {
		t.Fatalf("the tenant's own account: %s", text)
	}
	perListing := g.listings()
	var texts []string
	for _, id := range []string{theirs.AccountID, "123-456-7890"} {
		g.clock.Advance(time.Minute)
		before := g.listings()
		text := ask(id)
		texts = append(texts, strings.ReplaceAll(text, id, "ID"))
		if g.listings()-before != perListing {
			t.Errorf("asking for %s cost %d listing requests, want %d", id, g.listings()-before, perListing)
		}
		if strings.Contains(text, theirs.AccountName) {
			t.Errorf("another tenant's account shows: %s", text)
		}
	}
	if texts[0] != texts[1] {
		t.Errorf("another tenant's account and none answer differently:\n%s\n%s", texts[0], texts[1])
	}
}

// A query failing for want of permission (an account closed or unshared)
// refreshes the list in the background; when that listing fails too, the
// last good list keeps answering.
func TestPermissionFailureRefreshesAndKeepsTheLastList(t *testing.T) {
	g := startGoogleFake(t, 0.03)
	perListing := 1 + 2*len(g.api.Accounts())
	id := g.api.Accounts()[0].AccountID
	args := map[string]any{"account_ids": []string{id}, "metrics": []string{"spend"}, "date_preset": "yesterday"}
	g.ask(t, args)
	g.clock.Advance(time.Minute)
	g.api.SetScenario(googleadstest.Scenario{Failure: googleadstest.PermissionDenied, Customers: []string{id}})
	if res := g.ask(t, args); !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "permission") {
		t.Fatalf("want a permission failure: %v", res.Content[0].(*mcp.TextContent).Text)
	}
	g.s.accounts.list.Wait()
	st := g.s.accounts.list.Status()
	if g.listings() <= perListing || st.Err == nil {
		t.Fatalf("the failure did not refresh the list (or the refresh did not fail): %d listing requests, %+v", g.listings(), st)
	}
	g.api.SetScenario(googleadstest.Scenario{})
	other := g.api.Accounts()[1].AccountID
	if res := g.ask(t, map[string]any{"account_ids": []string{other}, "metrics": []string{"spend"}, "date_preset": "yesterday"}); res.IsError {
		t.Errorf("the last good list stopped answering: %v", res.Content[0].(*mcp.TextContent).Text)
	}
}

// Concurrent first questions share one listing.
func TestFirstQuestionsShareOneListing(t *testing.T) {
	g := startGoogleFake(t, 0.03)
	perListing := 1 + 2*len(g.api.Accounts())
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { g.ask(t, map[string]any{"metrics": []string{"spend"}, "date_preset": "yesterday"}) })
	}
	wg.Wait()
	if got := g.listings(); got != perListing {
		t.Errorf("8 first questions at once: %d listing requests, want %d", got, perListing)
	}
}

// endlessListing lists only when its context ends, and says when it
// started and ended.
type endlessListing struct {
	source.Source
	started, ended chan struct{}
}

func (b *endlessListing) Accounts(ctx context.Context) ([]ads.Account, error) {
	close(b.started)
	<-ctx.Done()
	close(b.ended)
	return nil, ctx.Err()
}

// The server's stop (shutdown) ends a listing in flight: nothing is left
// running.
func TestStopEndsTheRefresher(t *testing.T) {
	src := &endlessListing{Source: warehouse(t), started: make(chan struct{}), ended: make(chan struct{})}
	srv, stop := Open(Config{Source: src, Now: now})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	called := make(chan struct{})
	go func() {
		defer close(called)
		cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_accounts", Arguments: map[string]any{}})
	}()
	<-src.started
	cancel() // the caller leaves; the listing it started goes on for others
	<-called
	cs.Close()
	ss.Wait()
	if err := stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-src.ended:
	default:
		t.Error("the listing in flight still runs after stop")
	}
}
