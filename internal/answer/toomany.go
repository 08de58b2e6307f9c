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
	n := len(accounts)
	res := build(n)
	counter := e.counter()
	for n > 0 {
		t := counter.Exact(res.Blocks[0])
		if t <= b.Effective {
			break
		}
		n = max(0, min(n-1, n*b.Effective/t)) // shrink in proportion, at least one at a time
		res = build(n)
	}
	return res
}

func (e *Engine) counter() fit.TokenCounter {
	if e.Counter != nil {
		return e.Counter
	}
	return fit.NewO200k()
}
