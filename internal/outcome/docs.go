package outcome

import "slices"

// Use is where a code appears; a code may have several.
type Use uint8

const (
	// AnswerType: the "type" member of a tool's answer (an isError answer,
	// or data_too_large).
	AnswerType Use = 1 << iota
	// AccountKind: the kind of one account a source could not read
	// (failed_accounts[].kind; source.AccountError.Kind).
	AccountKind
	// CallOutcome: what a tool call came to, in the metrics'
	// outcome label, the log line and the client's log.
	CallOutcome
)

// Doc is a code's one description: what it means and what the model (or the
// person reading the log) should do about it.
type Doc struct {
	Code    Code
	Uses    Use
	Meaning string
	Action  string
}

// All describes every code, in the order docs/mcp.md lists them.
func All() []Doc { return slices.Clone(docs) }

var docs = []Doc{
	{OK, CallOutcome,
		"The call answered with data: complete, possibly coarser in time than asked (`_meta` says what was changed).",
		"Read `_meta`, then the CSV."},
	{DataTooLarge, AnswerType | CallOutcome,
		"Even the coarsest grain did not fit the budget: a summary of all of the data (each dimension's values, each metric's range and total) and complete narrower queries (`requery_instructions.suggestions`). Not an error.",
		"Answer from the summary when it is enough, else run one of the suggestions as is."},
	{Cancelled, CallOutcome,
		"The client cancelled the call or went away; no answer was sent and the work was stopped.",
		"Nothing: nobody reads an answer."},
	{InvalidQuery, AnswerType | CallOutcome,
		"The arguments have problems; `problems` lists each, with the valid values and the closest matches.",
		"Fix them and call again."},
	{TooManyAccounts, AnswerType | CallOutcome,
		"The query spans more accounts than one query may (`max`, `requested`); `accounts` lists those the caller may choose from.",
		"Pick `account_ids` from the list and call again."},
	{TooManyRows, AnswerType | CallOutcome,
		"The source's rows ran into the server's row bound, so reading stopped and no data is returned. `scope` is `call` (this call needs more rows than one call may read) or `server` (other calls hold the server's rows; `retry_after_seconds`).",
		"Run one of the narrower `suggestions`, or, for scope `server`, retry after `retry_after_seconds`."},
	{Timeout, AnswerType | CallOutcome,
		"The call did not finish within the deadline (`deadline_seconds`) and was cancelled.",
		"Run one of the narrower `suggestions` (each is complete), or ask the user to narrow the question; without suggestions (a list tool), try again in a minute."},
	{SourceError, AnswerType | CallOutcome,
		"The source failed; `failed_accounts` names each account it could not read, with its kind, cause and fix, when the source says. No partial data is returned.",
		"Tell the user which accounts failed, why and the fix; the suggestion, when other accounts answered, runs the same query without the failed ones (say it then covers only the others)."},
	{PermissionDenied, AnswerType | AccountKind | CallOutcome,
		"The credentials cannot read the account (expired or revoked token, missing scope, no access); as an answer's type: every failed account is so.",
		"Tell the user to re-authorize or grant access (see `fix`); as with `source_error`, the suggestion runs without those accounts."},
	{RateLimited, AnswerType | AccountKind | CallOutcome,
		"Too many calls for this API key or user right now, and nothing was run (`retry_after_seconds`); as an account's kind: the platform throttled the requests.",
		"Wait `retry_after_seconds`, then call again, fewer calls at once."},
	{InternalError, AnswerType | CallOutcome,
		"adsmcp itself failed while answering (a panic or a bug; the details are in the server's log, not in the answer).",
		"Try the call again, or a different query; tell the user if it keeps failing."},
	{Unavailable, AccountKind,
		"The platform failed or did not answer in time, after retries.",
		"Retry later (see `fix`)."},
	{Rejected, AccountKind,
		"The platform refused the request itself (a bad parameter, too much data asked at once).",
		"Ask for less (see `fix`): a shorter date range or fewer dimensions."},
}

// docIndex finds a code's Doc.
var docIndex = func() map[Code]Doc {
	m := make(map[Code]Doc, len(docs))
	for _, d := range docs {
		m[d.Code] = d
	}
	return m
}()

// Describe is c's Doc (false when c is not a code).
func (c Code) Describe() (Doc, bool) {
	d, ok := docIndex[c]
	return d, ok
}
