package answer

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/outcome"
	"github.com/adsmcp/adsmcp/internal/query"
)

// timeoutSuggestion is a narrower query to run instead: complete arguments.
type timeoutSuggestion struct {
	Description string      `json:"description"`
	Query       *query.Args `json:"query"`
}

// Timeout answers a query that ran out of time: how long it ran, and concrete
// narrower queries built from the normalized query. It never touches the
// source: accounts are those the caller may query as last known. Like every
// answer it fits the caller's budget (the echo and the suggestions, which
// repeat the query's IN lists, are shed first).
func (e *Engine) Timeout(req Request, accounts []ads.Account, started time.Time, deadline time.Duration) *Result {
	q, err := query.ParseAndNormalize(req.Args, query.Options{Accounts: accounts, Now: e.Now, MaxAccounts: e.MaxAccounts})
	if err != nil {
		q = nil
	}
	detail := fmt.Sprintf("The query did not finish within the %s deadline and was cancelled. ", deadline)
	extra := map[string]any{"deadline_seconds": deadline.Seconds(), "elapsed_ms": time.Since(started).Milliseconds()}
	if sugg := narrowerQueries(q); len(sugg) > 0 {
		detail += "Run one of the narrower queries below (each is complete), or ask the user to narrow the question."
		extra["suggestions"] = cutList[timeoutSuggestion]{items: sugg, noun: "suggestions"}
	} else {
		detail += "Ask for less: a shorter date range, fewer dimensions, a coarser time_granularity, or fewer accounts."
	}
	return e.errorAnswer(started, e.errorBudget(req, q), q, outcome.Timeout, detail, extra, 0)
}

// narrowerQueries are cheaper versions of q: a shorter date range, without its
// most detailed dimensions, a coarser grain, one account. nil when q is nil.
func narrowerQueries(q *query.Query) []timeoutSuggestion {
	if q == nil {
		return nil
	}
	var out []timeoutSuggestion
	add := func(desc string, n fit.Narrowing) {
		out = append(out, timeoutSuggestion{Description: desc, Query: Narrow(q, n)})
	}
	if days := q.Days(); days > 7 {
		keep := max(7, (days+3)/4)
		from := q.End.AddDate(0, 0, -(keep - 1))
		add(fmt.Sprintf("The last %d days only (%s to %s) instead of %d days", keep,
			from.Format(time.DateOnly), q.End.Format(time.DateOnly), days), fit.Narrowing{From: from, To: q.End})
	}
	if kept, dropped := withoutFinest(q.Dimensions); len(dropped) > 0 {
		desc := "Without " + strings.Join(dropped, ", ")
		if len(kept) > 0 {
			desc += " (grouped by " + strings.Join(kept, ", ") + ")"
		}
		add(desc, fit.Narrowing{Dimensions: kept})
	}
	if i := slices.Index(fit.Grains, q.Grain); i >= 0 && i < len(fit.Grains)-1 {
		to := fit.Grains[i+1]
		add(fmt.Sprintf("%s instead of %s", to, q.Grain), fit.Narrowing{Grain: to})
	}
	if len(q.Accounts) > 1 {
		a := q.Accounts[0]
		n := Narrow(q, fit.Narrowing{})
		n.AccountIDs = []string{a.AccountID}
		out = append(out, timeoutSuggestion{
			Description: fmt.Sprintf("One account at a time, starting with %s (%s), instead of %d accounts", a.AccountID, a.AccountName, len(q.Accounts)),
			Query:       n,
		})
	}
	return out
}

// withoutFinest drops the dimensions of the most detailed level (breakdowns
// such as country, then ad, ad set, campaign): they multiply rows the most.
// currency stays: a result spanning currencies always has it.
func withoutFinest(dims []string) (kept, dropped []string) {
	finest := catalog.LevelAccount
	for _, d := range dims {
		if f, ok := catalog.Lookup(d); ok && f.Level > finest {
			finest = f.Level
		}
	}
	for _, d := range dims {
		if f, ok := catalog.Lookup(d); ok && f.Level == finest && d != "currency" {
			dropped = append(dropped, d)
		} else {
			kept = append(kept, d)
		}
	}
	if kept == nil {
		kept = []string{}
	}
	return kept, dropped
}
