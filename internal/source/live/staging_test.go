package live

import (
	"context"
	"errors"
	"testing"

	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
)

// call is one tool call's scope over src, which has answered base.
type call struct {
	ctx   context.Context
	scope *source.Scope
	src   *Source
}

func startCall(t *testing.T, src *Source, base *query.Query) *call {
	t.Helper()
	ctx, sc := source.WithScope(context.Background())
	t.Cleanup(func() { sc.Close() })
	if _, err := src.Query(ctx, base); err != nil {
		t.Fatal(err)
	}
	return &call{ctx: ctx, scope: sc, src: src}
}

// ask answers q within the call, checks the answer is the warehouse's and
// returns the requests it made.
func (c *call) ask(t *testing.T, q *query.Query) int {
	t.Helper()
	calls := &source.Calls{}
	got, err := c.src.Query(source.WithCalls(c.ctx, calls), q)
	if err != nil {
		t.Fatal(err)
	}
	want, err := duckdbtest.Open(t).Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := csv(t, got), csv(t, want); a != b || got.RowsBeforeLimit != want.RowsBeforeLimit {
		t.Errorf("the answer differs from the warehouse's:\n%.600s\n---\n%.600s", a, b)
	}
	return calls.N()
}

// askCovered checks that q is answered exactly from the call's staged rows,
// without a request.
func (c *call) askCovered(t *testing.T, q *query.Query) {
	t.Helper()
	if n := c.ask(t, q); n != 0 {
		t.Errorf("%+v: %d requests, want none (the call's fetch covers it)", q.Args(), n)
	}
}

// TestACallAnswersWhatItFetchedCovers: within one call, the queries the first
// fetch covers — the pipeline's coarser grains (reach included), fewer
// accounts, metrics or dates, extra filters, a limit — make no request and
// answer exactly what the warehouse answers.
func TestACallAnswersWhatItFetchedCovers(t *testing.T) {
	m, g, tt := connectors(t)
	src := New(nil, m, g, tt)
	accounts, _ := src.Accounts(context.Background())
	const base = `"dimensions":["campaign_name"],"date_range":{"start":"2025-12-01","end":"2026-02-28"}`
	c := startCall(t, src, normalize(t, accounts, `{"metrics":["spend","clicks","ctr","reach","frequency"],"time_granularity":"daily",`+base+`}`))
	for _, raw := range []string{
		`{"metrics":["spend","clicks","ctr","reach","frequency"],"time_granularity":"weekly",` + base + `}`,
		`{"metrics":["spend","clicks","ctr","reach","frequency"],"time_granularity":"monthly",` + base + `}`,
		`{"metrics":["spend","clicks","ctr","reach","frequency"],"time_granularity":"total",` + base + `}`,
		`{"metrics":["spend"],"time_granularity":"monthly",` + base + `}`,
		`{"metrics":["impressions","clicks","ctr"],"time_granularity":"weekly","platforms":["meta_ads"],` + base + `}`,
		`{"metrics":["spend","reach"],"time_granularity":"daily","dimensions":["campaign_name"],"date_range":{"start":"2026-01-10","end":"2026-01-20"}}`,
		`{"metrics":["spend","clicks"],"time_granularity":"monthly","filters":[{"field":"campaign_name","operator":"CONTAINS","value":"a"},{"field":"spend","operator":"GREATER_THAN","value":100}],` + base + `}`,
		`{"metrics":["spend","ctr"],"dimensions":["account_name","campaign_name"],"date_range":{"start":"2025-12-01","end":"2026-02-28"},"sort":[{"field":"spend"}],"limit":7}`,
	} {
		c.askCovered(t, normalize(t, accounts, raw))
	}
}

// TestACallFetchesWhatItHasNot: a query the staged rows do not cover fetches
// again, and answers exactly: other accounts, a wider range, another shape, a
// metric not fetched, without a filter fetched with, a finer grain than the
// staged rows.
func TestACallFetchesWhatItHasNot(t *testing.T) {
	m, g, tt := connectors(t)
	src := New(nil, m, g, tt)
	accounts, _ := src.Accounts(context.Background())
	const (
		rng  = `"date_range":{"start":"2025-12-01","end":"2026-02-28"}`
		filt = `"filters":[{"field":"campaign_name","operator":"CONTAINS","value":"a"}]`
	)
	base := normalize(t, accounts, `{"metrics":["spend","clicks"],"dimensions":["campaign_name"],"platforms":["meta_ads"],"time_granularity":"monthly",`+rng+`,`+filt+`}`)
	for _, raw := range []string{
		`{"metrics":["spend","clicks"],"dimensions":["campaign_name"],"time_granularity":"monthly",` + rng + `,` + filt + `}`,
		`{"metrics":["spend","clicks"],"dimensions":["campaign_name"],"platforms":["meta_ads"],"time_granularity":"monthly","date_range":{"start":"2025-11-01","end":"2026-02-28"},` + filt + `}`,
		`{"metrics":["spend","clicks"],"dimensions":["campaign_name","country"],"platforms":["meta_ads"],"time_granularity":"monthly",` + rng + `,` + filt + `}`,
		`{"metrics":["spend","conversions"],"dimensions":["campaign_name"],"platforms":["meta_ads"],"time_granularity":"monthly",` + rng + `,` + filt + `}`,
		`{"metrics":["spend","clicks"],"dimensions":["campaign_name"],"platforms":["meta_ads"],"time_granularity":"monthly",` + rng + `}`,
		`{"metrics":["spend","clicks"],"dimensions":["campaign_name"],"platforms":["meta_ads"],"time_granularity":"weekly",` + rng + `,` + filt + `}`,
		`{"metrics":["spend","clicks"],"dimensions":["campaign_name"],"platforms":["meta_ads"],"time_granularity":"monthly","date_range":{"start":"2025-12-01","end":"2026-01-31"},` + filt + `}`,
	} {
		c := startCall(t, src, base)
		if n := c.ask(t, normalize(t, accounts, raw)); n == 0 {
			t.Errorf("%s: answered from staged rows that do not cover it", raw)
		}
	}
	// The months' total, and the same rows without the dimension the filter
	// still needs (same shape), come from the staged months.
	c := startCall(t, src, base)
	for _, raw := range []string{
		`{"metrics":["clicks"],"dimensions":["campaign_name"],"platforms":["meta_ads"],"time_granularity":"total",` + rng + `,` + filt + `}`,
		`{"metrics":["spend","clicks"],"dimensions":["account_name"],"platforms":["meta_ads"],"time_granularity":"monthly",` + rng + `,` + filt + `}`,
	} {
		c.askCovered(t, normalize(t, accounts, raw))
	}
}

// TestStagedRowsAreReleasedWithTheCall: the staged warehouses live as long as
// the call: at most maxStaged at once, every one released when the call ends,
// and a query after that fetches for itself (nothing crosses calls).
func TestStagedRowsAreReleasedWithTheCall(t *testing.T) {
	m, g, tt := connectors(t)
	src := New(nil, m, g, tt)
	accounts, _ := src.Accounts(context.Background())
	ranges := []string{"2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04", "2026-01-05"}
	q := func(start string) *query.Query {
		return normalize(t, accounts, `{"metrics":["spend"],"dimensions":["account_name"],"date_range":{"start":"`+start+`","end":"2026-01-31"}}`)
	}
	c := startCall(t, src, q(ranges[0]))
	st := src.staging(c.ctx)
	first := st.entries[0]
	for _, start := range ranges[1:] {
		c.ask(t, q(start))
	}
	if len(st.entries) != maxStaged || first.wh != nil {
		t.Errorf("%d warehouses kept, the first released: %v; want %d kept, the oldest released", len(st.entries), first.wh == nil, maxStaged)
	}
	kept := st.entries
	if err := c.scope.Close(); err != nil {
		t.Fatal(err)
	}
	for _, e := range kept {
		if e.wh != nil {
			t.Error("a staged warehouse outlives its call")
		}
		if _, err := e.answer(context.Background(), q(ranges[4])); !errors.Is(err, errReleased) {
			t.Errorf("a released warehouse answered: %v", err)
		}
	}
	if src.staging(c.ctx) != nil {
		t.Error("an ended call still stages")
	}
	if n := c.ask(t, q(ranges[4])); n != len(accounts) {
		t.Errorf("after the call, a query made %d requests, want a fetch of its own (%d)", n, len(accounts))
	}
}

// TestAPassReportsAFailedAccountOnce: an account that fails both the rows and
// the reach of a pass is named once.
func TestAPassReportsAFailedAccountOnce(t *testing.T) {
	m, _, _ := connectors(t)
	src := New(nil, m)
	accounts, _ := src.Accounts(context.Background())
	q := normalize(t, accounts, `{"metrics":["spend","reach"],"dimensions":["campaign_name"],"time_granularity":"daily","date_range":{"start":"2025-12-01","end":"2026-02-28"}}`)
	bad := q.Accounts[0].AccountID
	m.fail = map[string]*source.AccountError{bad: {AccountID: bad, Platform: "meta_ads", Kind: source.PermissionDenied, Cause: "denied"}}
	ctx, sc := source.WithScope(context.Background())
	defer sc.Close()
	_, err := src.Query(ctx, q)
	var ae *source.AccountsError
	if !errors.As(err, &ae) || len(ae.Failed) != 1 || ae.Failed[0].AccountID != bad || len(ae.Succeeded) != len(q.Accounts)-1 {
		t.Fatalf("err = %v", err)
	}
}
