// Package outcome is the closed set of codes adsmcp's answers carry: the
// "type" of an error answer and of data_too_large, the kind of each failed
// account (failed_accounts[].kind), and what a tool call came to for metrics
// and logs. Each code is declared and documented once, here (Docs);
// docs/mcp.md's table of codes is generated from the same text and a test
// keeps the two equal, so a new code cannot reach the wire undocumented.
//
// A Code marshals itself (JSON and text) and refuses a value outside the
// set, so a misspelled code fails loudly instead of reaching a client.
package outcome

import "fmt"

// Code is one of the constants below; its string is what clients read.
type Code string

// The codes. Wire strings are part of the contract (docs/contract.md §4):
// never rename one.
const (
	// OK: a data answer (only a call's outcome; never a "type" on the wire).
	OK Code = "ok"
	// DataTooLarge: the summary answer; not an error.
	DataTooLarge Code = "data_too_large"
	// Cancelled: the client cancelled or went away (only a call's outcome).
	Cancelled Code = "cancelled"

	InvalidQuery     Code = "invalid_query"
	TooManyAccounts  Code = "too_many_accounts"
	TooManyRows      Code = "too_many_rows"
	Timeout          Code = "timeout"
	SourceError      Code = "source_error"
	PermissionDenied Code = "permission_denied"
	RateLimited      Code = "rate_limited"
	InternalError    Code = "internal_error"

	// Unavailable and Rejected are kinds of failed accounts only.
	Unavailable Code = "unavailable"
	Rejected    Code = "rejected"
)

// Valid reports whether c is one of the codes.
func (c Code) Valid() bool {
	_, ok := docIndex[c]
	return ok
}

// MarshalText writes the wire string; a value outside the set is an error,
// so it never reaches a client.
func (c Code) MarshalText() ([]byte, error) {
	if !c.Valid() {
		return nil, fmt.Errorf("outcome: %q is not a code", string(c))
	}
	return []byte(c), nil
}

// UnmarshalText reads a wire string, refusing one outside the set.
func (c *Code) UnmarshalText(b []byte) error {
	v := Code(b)
	if !v.Valid() {
		return fmt.Errorf("outcome: %q is not a code", string(b))
	}
	*c = v
	return nil
}

// Report is what an answer says about its call, for metrics and logs. The
// code that builds an answer fills it as it goes, so nothing decodes the
// answer's text back to learn how the call went.
type Report struct {
	// Outcome is OK, DataTooLarge, or the error answer's type.
	Outcome Code
	// Tokens is the answer's _meta.token_estimate (0 when it has none).
	Tokens int
	// SourceCalls is the answer's _meta.source_calls.
	SourceCalls int
	// Optimizations are the types in _meta.optimizations_applied.
	Optimizations []string
}
