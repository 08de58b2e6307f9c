package answer

import (
	"fmt"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/query"
)

// tooManyAccounts answers a query over more accounts than allowed with the
// accounts the caller may choose from, so the model can pick without another
// call. The list is fitted to the client's budget: with hundreds of accounts
// the first ones that fit are listed and the rest counted, with how to see
// them — never a silent cut.
func (e *Engine) tooManyAccounts(started time.Time, req Request, err *query.TooManyAccountsError, accounts []ads.Account) *Result {
	b := e.budgetFor(req, &query.Query{})
	build := func(n int) *Result {
		extra := map[string]any{"max": err.Max, "requested": err.Requested, "accounts": accountList(accounts[:n])}
		if n < len(accounts) {
			extra["accounts_total"] = len(accounts)
			extra["accounts_listed"] = n
			extra["accounts_note"] = fmt.Sprintf("Only the first %d of %d accounts fit the token budget (%d); call list_accounts with platform to see the others.",
				n, len(accounts), b.Tokens)
		}
		return e.errorResult(started, nil, "too_many_accounts", err.Error(), extra, 0)
	}
	counter := e.counter()
	return FitRows(len(accounts), b.Effective, build, func(r *Result) int { return counter.Exact(r.Blocks[0]) })
}

func (e *Engine) counter() fit.TokenCounter {
	if e.Counter != nil {
		return e.Counter
	}
	return fit.NewO200k()
}
