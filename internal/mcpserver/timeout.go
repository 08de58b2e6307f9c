package mcpserver

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/answer"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
)

// timeoutSuggestion is a narrower query to run instead: complete arguments.
type timeoutSuggestion struct {
	Description string      `json:"description"`
	Query       *query.Args `json:"query"`
}

// queryTimeout answers a query that ran out of time: how long it ran, and
// concrete narrower queries built from the normalized query (the account list
// comes from the last time the source answered, so nothing here waits on it).
func (s *server) queryTimeout(req *mcp.CallToolRequest, started time.Time) *mcp.CallToolResult {
	q, err := query.ParseAndNormalize(req.Params.Arguments, query.Options{
		Accounts: principalOf(req.Extra).Filter(s.accounts.known()), Now: s.cfg.Now, MaxAccounts: s.cfg.MaxAccounts})
	if err != nil {
		q = nil
	}
	elapsed := time.Since(started).Milliseconds()
	detail := fmt.Sprintf("The query did not finish within the %s deadline and was cancelled. ", s.cfg.Deadline)
	extra := []kv{{"deadline_seconds", s.cfg.Deadline.Seconds()}, {"elapsed_ms", elapsed}}
	if sugg := narrowerQueries(q); len(sugg) > 0 {
		detail += "Run one of the narrower queries below (each is complete), or ask the user to narrow the question."
		extra = append(extra, kv{"suggestions", sugg})
	} else {
		detail += "Ask for less: a shorter date range, fewer dimensions, a coarser time_granularity, or fewer accounts."
	}
	meta := callMeta{ElapsedMS: elapsed}
	if q != nil {
		meta.Query = q
	}
	return errorBlock("timeout", detail, extra, meta)
}

// narrowerQueries are cheaper versions of q: a shorter date range, without its
// most detailed dimensions, a coarser grain, one account. nil when q is nil.
func narrowerQueries(q *query.Query) []timeoutSuggestion {
	if q == nil {
		return nil
	}
	var out []timeoutSuggestion
	add := func(desc string, n fit.Narrowing) {
		out = append(out, timeoutSuggestion{Description: desc, Query: answer.Narrow(q, n)})
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
		n := answer.Narrow(q, fit.Narrowing{})
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
