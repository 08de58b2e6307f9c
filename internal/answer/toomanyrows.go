package answer

import (
	"errors"
	"fmt"
	"time"

	"github.com/adsmcp/adsmcp/internal/outcome"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/rowbudget"
)

// tooManyRows answers a call whose source result ran into the server's row
// bound (rowbudget): reading stopped at the bound, so there is no complete
// data to fit or summarize — the answer says which bound, that nothing was
// returned, and gives narrower queries. A bound of the server (other calls
// hold its rows) is worth a retry; one of the call is not.
func (e *Engine) tooManyRows(started time.Time, lim Limits, q *query.Query, ex *rowbudget.ExceededError, calls int) *Result {
	extra := map[string]any{"scope": ex.Scope, "max_rows": ex.Limit}
	var detail string
	if ex.Scope == "call" {
		detail = fmt.Sprintf("This call needs more than %d rows from the source (its answer, with any re-query at a coarser grain), the most this server reads for one call, so reading stopped and no data is returned (nothing was summarized or cut). ", ex.Limit)
	} else {
		detail = fmt.Sprintf("The server is holding its limit of %d rows for the calls in flight, so this call stopped after %d rows and no data is returned. Retry in a few seconds, or ", ex.Limit, ex.Read)
		extra["retry_after_seconds"] = 5
	}
	if sugg := narrowerQueries(q); len(sugg) > 0 {
		detail += "Run one of the narrower queries below, or ask the user to narrow the question (a shorter date range, fewer dimensions, a coarser time_granularity, fewer accounts)."
		extra["suggestions"] = cutList[timeoutSuggestion]{items: sugg, noun: "suggestions"}
	} else {
		detail += "Ask for less: a shorter date range, fewer dimensions, a coarser time_granularity, or fewer accounts."
	}
	return e.errorAnswer(started, lim, q, outcome.TooManyRows, detail, extra, calls)
}

// rowBound is the row bound err ran into, if any.
func rowBound(err error) (*rowbudget.ExceededError, bool) {
	var ex *rowbudget.ExceededError
	return ex, errors.As(err, &ex)
}
