package answer

import (
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/outcome"
	"github.com/adsmcp/adsmcp/internal/query"
)

// tooManyAccounts answers a query over more accounts than allowed with the
// accounts the caller may choose from, so the model can pick without another
// call. The list is fitted to the client's budget: with hundreds of accounts
// the first ones that fit are listed and the rest counted, with how to see
// them — never a silent cut.
func (e *Engine) tooManyAccounts(started time.Time, req Request, err *query.TooManyAccountsError, accounts []ads.Account) *Result {
	limit := e.errorBudget(req, nil)
	extra := map[string]any{"max": err.Max, "requested": err.Requested,
		"accounts": cutList[accountInfo]{items: accountList(accounts), noun: "accounts", more: "Call list_accounts with platform to see the others."}}
	return e.errorAnswer(started, limit, nil, outcome.TooManyAccounts, err.Error(), extra, 0)
}

func (e *Engine) counter() fit.TokenCounter {
	if e.Counter != nil {
		return e.Counter
	}
	return fit.NewO200k()
}
