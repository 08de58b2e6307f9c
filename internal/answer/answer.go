// Package answer runs one call of the query tool end to end: parse and normalize
// the arguments, apply the guardrails, ask the source, and fit the result to the
// client's budget. The MCP tool and `adsmcp query` both call it, so the command
// line prints exactly what an AI client receives.
package answer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/budget"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/outcome"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/rowbudget"
	"github.com/adsmcp/adsmcp/internal/source"
)

// ZeroDetail is what an all-zero account means, for the model to pass on.
const ZeroDetail = "the connection looks healthy but the access token likely lacks the right scopes (ads_read / reporting permissions) for these accounts"

// Engine answers query tool calls against one source.
type Engine struct {
	Source source.Source
	// MaxAccounts per query (query.DefaultMaxAccounts when 0).
	MaxAccounts int
	// Now is the clock for date presets (time.Now when nil).
	Now func() time.Time
	// Counter counts tokens (fit's default o200k counter when nil).
	Counter fit.TokenCounter
	// Demo, when set, is the label of the synthetic demo dataset the source
	// holds: every data answer then says in _meta.warnings that its figures
	// are generated, so they never pass for an advertiser's real ones.
	Demo string
	// Rows bounds the rows the calls in flight read from the source (nil: no
	// bound); shared by every call of a server.
	Rows *rowbudget.Budget
	// BudgetOverrides are the configured budgets per client name ("*" for
	// all) and client size limits.
	BudgetOverrides budget.Overrides
	// SizeFirstAbove is the number of stored facts a query reads above which
	// a source that can count its rows (source.Sizer) is asked their number
	// first (DefaultSizeFirstAbove when 0).
	SizeFirstAbove int
	// LargeWork admits the calls that count and summarize a large result in
	// the warehouse (nil: no bound); shared by every call of a server.
	LargeWork *Gate
}

// Request is one call.
type Request struct {
	// Args are the tool's JSON arguments.
	Args []byte
	// Client is the MCP client's name (clientInfo.name), or "name/version".
	Client string
	// ClientVersion is its clientInfo.version: a client's limits may differ
	// between versions.
	ClientVersion string
	// Budget, when positive, replaces the client's budget (the CLI's --budget,
	// an API key's budget); BudgetSource then names where it came from
	// (default flag:--budget).
	Budget       int
	BudgetSource string
	// Progress, when set, is told what the call is doing at each step (for MCP
	// progress notifications). It must not block.
	Progress func(stage string)
}

// client is the caller for budget.Resolve.
func (r Request) client() budget.Client {
	c := budget.ParseClient(r.Client)
	if r.ClientVersion != "" {
		c.Version = r.ClientVersion
	}
	return c
}

func (r Request) progress(format string, args ...any) {
	if r.Progress != nil {
		r.Progress(fmt.Sprintf(format, args...))
	}
}

// Result is what the tool returns: the text blocks in order, and whether they
// describe an error the model can fix.
type Result struct {
	Blocks   []string
	IsError  bool
	Response *fit.Response
	// Report is how the call went (its outcome, tokens, source calls and
	// optimizations), for metrics and logs: the same facts as the blocks'
	// _meta, without decoding them.
	Report outcome.Report
}

// Query answers one call. Problems the model can fix (invalid arguments, too many
// accounts, a source failure) are results with IsError set; the returned error is
// only for a cancelled context.
func (e *Engine) Query(ctx context.Context, req Request) (*Result, error) {
	started := time.Now()
	calls := &source.Calls{}
	ctx = source.WithCalls(ctx, calls)
	ctx = source.WithProvenance(ctx, &source.ProvenanceNotes{})
	// What a source keeps for this call (a live source's fetched rows, which
	// answer its re-queries) is released when the call ends.
	ctx, scope := source.WithScope(ctx)
	defer scope.Close()
	// The rows this call reads stay held until its answer is built.
	lease := e.Rows.Lease()
	defer lease.Release()
	ctx = rowbudget.With(ctx, lease)
	accounts, err := e.Source.Accounts(ctx)
	if err != nil {
		return e.errorAnswer(started, e.errorBudget(req, nil), nil, outcome.SourceError, "listing the accounts failed: "+err.Error(), nil, 0), ctx.Err()
	}
	q, err := query.ParseAndNormalize(req.Args, query.Options{Accounts: accounts, Now: e.Now, MaxAccounts: e.MaxAccounts})
	var invalid *query.Error
	var tooMany *query.TooManyAccountsError
	switch {
	case errors.As(err, &invalid):
		return e.errorAnswer(started, e.errorBudget(req, nil), nil, outcome.InvalidQuery, "The query has problems; fix them and call query again.",
			map[string]any{"problems": problemList(invalid.Problems)}, 0), nil
	case errors.As(err, &tooMany):
		return e.tooManyAccounts(started, req, tooMany, accounts), nil
	case err != nil:
		return nil, err
	}
	b := e.budgetFor(req, q)
	req.progress("querying %d account(s), %s to %s", len(q.Accounts), q.Start.Format(time.DateOnly), q.End.Format(time.DateOnly))
	opts := e.fitOptions(q, b, started, req)
	opts.Report.SourceCallsSoFar = calls.N
	if q.Compare != nil {
		return e.compare(ctx, started, q, b, opts, calls, req)
	}
	cov := e.coverage(ctx, q)
	if resp, ok, err := e.answerLarge(ctx, q, b, opts, cov); ok || err != nil {
		if err != nil {
			return e.failed(ctx, started, b, q, err, calls)
		}
		return dataResult(resp), nil
	}
	tab, err := e.Source.Query(ctx, q)
	if err != nil {
		return e.failed(ctx, started, b, q, err, calls)
	}
	notices, withData := e.diagnose(ctx, q, tab, cov)
	tab.Notices = append(tab.Notices, notices...)
	req.progress("fitting %d rows to a budget of %d tokens", tab.Len(), b.Tokens)
	e.zeroPartitions(ctx, q, tab, withData, &opts.Partitions)
	return e.fitted(ctx, started, b, q, tab, opts, calls)
}

// fitted is fit's answer from tab, or the source error a re-query met.
func (e *Engine) fitted(ctx context.Context, started time.Time, b budget.Budget, q *query.Query, tab *fit.Table, opts fit.Options, calls *source.Calls) (*Result, error) {
	opts.Provenance = provenanceOf(ctx)
	resp, err := fit.Fit(ctx, tab, opts)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return e.sourceError(started, LimitsOf(b), q, err, calls.N()), nil
	}
	return dataResult(resp), nil
}

// failed is the answer to a call whose source query failed: the model's
// error to fix, or the source's.
func (e *Engine) failed(ctx context.Context, started time.Time, b budget.Budget, q *query.Query, err error, calls *source.Calls) (*Result, error) {
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var qe *query.Error
	if errors.As(err, &qe) {
		return e.errorAnswer(started, LimitsOf(b), q, outcome.InvalidQuery, "The query has problems; fix them and call query again.",
			map[string]any{"problems": problemList(qe.Problems)}, calls.N()), nil
	}
	return e.sourceError(started, LimitsOf(b), q, err, calls.N()), nil
}

func (e *Engine) budgetFor(req Request, q *query.Query) budget.Budget {
	if req.Budget > 0 {
		b := budget.Resolve(req.client(), budget.Overrides{Tokens: map[string]int{"*": req.Budget}, Sizes: e.BudgetOverrides.Sizes}, q.TokenBudget)
		if b.Source == "config:*" {
			b.Source = "flag:--budget"
			if req.BudgetSource != "" {
				b.Source = req.BudgetSource
			}
		}
		return b
	}
	return budget.Resolve(req.client(), e.BudgetOverrides, q.TokenBudget)
}

// fitOptions wires the pipeline to this query: re-queries at coarser grains go
// back to the source, narrower queries are expressed as query arguments.
func (e *Engine) fitOptions(q *query.Query, b budget.Budget, started time.Time, req Request) fit.Options {
	mainMetric := "spend"
	if !slices.Contains(q.Metrics, "spend") {
		mainMetric = ""
	}
	var opts []fit.Optimization
	for _, c := range q.Changes {
		opts = append(opts, fit.Optimization{Type: c.Type, Field: c.Field, From: c.From, To: c.To, Detail: c.Detail})
	}
	warnings := demoWarnings(e.Demo)
	for _, w := range q.Warnings {
		warnings = append(warnings, fit.Warning{Type: w.Type, Detail: w.Detail, Fields: []string{w.Field}})
	}
	return fit.Options{
		Budget:   b.Effective,
		MaxBytes: b.Bytes,
		MaxLines: b.Lines,
		Measure:  LimitsOf(b).Measure,
		Counter:  e.Counter,
		Requery: func(ctx context.Context, g fit.Grain) (*fit.Table, error) {
			req.progress("too large at %s; asking the source at %s grain", q.Grain, g)
			q2 := *q
			q2.Grain = g
			return e.Source.Query(ctx, &q2)
		},
		Definitions: definitionsOf(q),
		Query:       q,
		Suggest:     func(n fit.Narrowing) any { return Narrow(q, n) },
		Start:       q.Start,
		End:         q.End,
		Sort:        sortKeys(q),
		MainMetric:  mainMetric,
		Selection:   selectionOf(q),
		Report: fit.Report{
			AnnouncedBudget: b.Tokens,
			BudgetSource:    b.Source,
			Optimizations:   opts,
			Warnings:        warnings,
			SourceCalls:     1,
			Started:         started,
		},
		Partitions: fit.Partitions{Column: "account_id", Keys: q.AccountIDs(), ZeroDetail: ZeroDetail},
		Dialect:    fit.Dialect{Echoes: Echoes, Operators: opNames(), LimitPartition: limitPartition(q)},
	}
}

// zeroWarning is what an all_zero_metrics warning says and, when the answer has
// no account_id column, which accounts it names. An account whose every metric
// is zero in a healthy connection points at the token's scopes — but only
// when nothing narrowed the rows: with dimension filters, zeros are what the
// filtered rows hold, and no account can be named (the rows do not say which
// accounts they come from).
func zeroWarning(q *query.Query, withData []string) (keys []string, detail string) {
	var dims []query.Filter
	for _, f := range q.Filters {
		if !f.Metric {
			dims = append(dims, f)
		}
	}
	if len(dims) > 0 {
		return nil, "the rows that match " + filterText("the filters ", dims) + " have zero for every metric asked; report zeros for them. This alone does not show a permissions problem"
	}
	// Only accounts whose platform reports one of the metrics can be all zero:
	// a Google account's reach is empty, not zero.
	for _, id := range withData {
		i := slices.IndexFunc(q.Accounts, func(a ads.Account) bool { return a.AccountID == id })
		if i >= 0 && slices.ContainsFunc(q.Metrics, func(m string) bool { return catalog.MustLookup(m).HasPlatform(q.Accounts[i].Platform) }) {
			keys = append(keys, id)
		}
	}
	return keys, ZeroDetail
}

// limitPartition is the column a limit applies within: currency, when money
// is ranked over several currencies.
func limitPartition(q *query.Query) string {
	if q.LimitPerCurrency {
		return "currency"
	}
	return ""
}

// selectionOf describes, for the reader, how the rows were selected at the
// requested grain: the metric filters (HAVING semantics) and the top-N limit.
// Empty when every row of the grain is returned.
func selectionOf(q *query.Query) string {
	var parts []string
	for _, f := range q.Filters {
		if f.Metric {
			parts = append(parts, f.String())
		}
	}
	if q.Limit > 0 {
		var keys []string
		for _, k := range q.Sort {
			dir := "asc"
			if k.Desc {
				dir = "desc"
			}
			keys = append(keys, k.Field+" "+dir)
		}
		within := ""
		if q.LimitPerCurrency {
			within = " within each currency"
		}
		parts = append(parts, fmt.Sprintf("limit %d%s (sort %s)", q.Limit, within, strings.Join(keys, ", ")))
	}
	return strings.Join(parts, " and ")
}

// sortKeys is the query's sort for the pipeline: the time column's name at the
// requested grain is the table's time column whatever the grain returned.
func sortKeys(q *query.Query) []fit.SortKey {
	var out []fit.SortKey
	for _, k := range q.Sort {
		out = append(out, fit.SortKey{Column: k.Field, Desc: k.Desc})
	}
	return out
}

func opNames() []string {
	out := make([]string, len(query.Operators))
	for i, o := range query.Operators {
		out[i] = string(o)
	}
	return out
}

type accountInfo struct {
	AccountID   string `json:"account_id"`
	Platform    string `json:"platform"`
	AccountName string `json:"account_name"`
	Currency    string `json:"currency"`
}

func accountList(accts []ads.Account) []accountInfo {
	out := make([]accountInfo, len(accts))
	for i, a := range accts {
		out[i] = accountInfo{a.AccountID, a.Platform, a.AccountName, a.Currency}
	}
	return out
}
