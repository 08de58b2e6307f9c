package answer

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/outcome"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
)

// failedAccount is one account of a source_error or permission_denied answer.
type failedAccount struct {
	AccountID         string       `json:"account_id"`
	Platform          string       `json:"platform"`
	Kind              outcome.Code `json:"kind"`
	Cause             string       `json:"cause"`
	Fix               string       `json:"fix,omitempty"`
	RetryAfterSeconds float64      `json:"retry_after_seconds,omitempty"`
}

// sourceError answers a failed source call. When the source says which
// accounts failed, the answer names each with its cause and fix — type
// permission_denied when every failure is one, source_error otherwise — and,
// when other accounts answered, offers the same query without the failed ones:
// never their rows passed off as the complete answer.
func (e *Engine) sourceError(started time.Time, limit Limits, q *query.Query, err error, calls int) *Result {
	if ex, ok := rowBound(err); ok {
		return e.tooManyRows(started, limit, q, ex, calls)
	}
	var many *source.AccountsError
	var one *source.AccountError
	switch {
	case errors.As(err, &many):
	case errors.As(err, &one):
		many = &source.AccountsError{Failed: []*source.AccountError{one}}
		for _, a := range q.Accounts {
			if a.AccountID != one.AccountID {
				many.Succeeded = append(many.Succeeded, a.AccountID)
			}
		}
	default:
		return e.errorAnswer(started, limit, q, outcome.SourceError, err.Error(), nil, calls)
	}
	typ := outcome.SourceError
	if many.Kind() == outcome.PermissionDenied {
		typ = outcome.PermissionDenied
	}
	failed := make([]failedAccount, len(many.Failed))
	var names []string
	for i, f := range many.Failed {
		failed[i] = failedAccount{f.AccountID, f.Platform, f.Kind, f.Cause, f.Fix, f.RetryAfter.Seconds()}
		names = append(names, f.AccountID)
	}
	detail := fmt.Sprintf("%d of %d accounts could not be read (%s); no partial data is returned. Tell the user which accounts failed and what to do (see fix).",
		len(many.Failed), len(q.Accounts), strings.Join(names, ", "))
	extra := map[string]any{"failed_accounts": cutList[failedAccount]{items: failed, noun: "failed accounts"}}
	if len(many.Succeeded) > 0 {
		a := q.Args()
		a.AccountIDs = slices.Clone(many.Succeeded)
		a.Platforms = nil
		desc := fmt.Sprintf("The same query without the failed accounts (%d of %d accounts): complete for those accounts only — say so", len(many.Succeeded), len(q.Accounts))
		sugg := map[string]any{"description": desc, "query": &a}
		if b, _ := fit.MarshalText(a); e.counter().Estimate(string(b)) > limit.Tokens/3 {
			// Its IN lists would crowd out the rest: abbreviated, and said how to run it.
			if short, ok := Abbreviate(&a); ok {
				sugg["query"] = short
				sugg["query_note"] = fmt.Sprintf("The query is abbreviated to fit the client's budget (long IN/NOT_IN lists as {first, count}): run the arguments sent with account_ids %s.", strings.Join(many.Succeeded, ", "))
			}
		}
		extra["suggestions"] = cutList[map[string]any]{items: []map[string]any{sugg}, noun: "suggestions",
			more: fmt.Sprintf("%s: run the arguments sent with account_ids %s.", desc, strings.Join(many.Succeeded, ", "))}
		detail += " The suggestion runs the same query on the accounts that answered."
	}
	return e.errorAnswer(started, limit, q, typ, detail, extra, calls)
}
