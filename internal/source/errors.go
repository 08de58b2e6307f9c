package source

import (
	"fmt"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/internal/outcome"
)

// Kinds of account failures, as the query tool reports them
// (failed_accounts[].kind): outcome codes, documented there, so that a
// connector cannot invent a kind the client does not know.
const (
	// PermissionDenied: the credentials cannot read the account (expired or
	// revoked token, missing scope, no access to the account).
	PermissionDenied = outcome.PermissionDenied
	// RateLimited: the platform throttled the requests; RetryAfter says when
	// access returns, when the platform says.
	RateLimited = outcome.RateLimited
	// Unavailable: the platform failed or did not answer in time.
	Unavailable = outcome.Unavailable
	// Rejected: the platform refused the request itself (a bad parameter, too
	// much data asked at once).
	Rejected = outcome.Rejected
)

// AccountError is why one account could not be read. Its text names the
// account, the cause and what to do, for the model to pass on.
type AccountError struct {
	AccountID string
	Platform  string
	// Kind is one of PermissionDenied, RateLimited, Unavailable, Rejected.
	Kind outcome.Code
	// Cause is what the platform said, without secrets.
	Cause string
	// Fix is what the user can do: re-authorize, grant a scope, retry later.
	Fix string
	// RetryAfter is when access returns, when known (rate limits).
	RetryAfter time.Duration
	// Err is the underlying error, for logs.
	Err error
}

func (e *AccountError) Error() string {
	s := fmt.Sprintf("%s account %s: %s: %s", e.Platform, e.AccountID, e.Kind, e.Cause)
	if e.Fix != "" {
		s += " (" + e.Fix + ")"
	}
	return s
}

func (e *AccountError) Unwrap() error { return e.Err }

// AccountsError is a query that failed for some of its accounts. A source never
// answers with the other accounts' rows as if they were everything: it fails
// with this, and the query tool offers the query without the failed accounts.
type AccountsError struct {
	Failed []*AccountError
	// Succeeded are the accounts that answered (their rows are not returned).
	Succeeded []string
}

func (e *AccountsError) Error() string {
	parts := make([]string, len(e.Failed))
	for i, f := range e.Failed {
		parts[i] = f.Error()
	}
	return fmt.Sprintf("%d of %d accounts failed: %s", len(e.Failed), len(e.Failed)+len(e.Succeeded), strings.Join(parts, "; "))
}

// Kind is PermissionDenied when every failure is one, else the kind all share,
// else Unavailable.
func (e *AccountsError) Kind() outcome.Code {
	if len(e.Failed) == 0 {
		return Unavailable
	}
	k := e.Failed[0].Kind
	for _, f := range e.Failed[1:] {
		if f.Kind != k {
			return Unavailable
		}
	}
	return k
}
