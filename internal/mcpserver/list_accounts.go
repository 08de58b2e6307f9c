package mcpserver

import (
	"context"
	"encoding/csv"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/answer"
	"github.com/adsmcp/adsmcp/internal/budget"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/outcome"
	"github.com/adsmcp/adsmcp/internal/source"
)

// ListAccountsInput are the arguments of list_accounts.
type ListAccountsInput struct {
	Platform string `json:"platform,omitempty" jsonschema:"Only accounts on this platform. Omit for every account."`
}

func listAccountsTool(s *server) tool {
	return tool{
		def: &mcp.Tool{
			Name: "list_accounts",
			Description: "List the ad accounts you can query: platform, account_id, account_name, currency, timezone, status (CSV). " +
				"Call it first to find account_ids for the query tool; money in each account is in its currency.",
			Annotations: readOnly("List ad accounts"),
			Meta:        toolMeta(),
			InputSchema: schemaFor[ListAccountsInput](func(sc *jsonschema.Schema) {
				sc.Properties["platform"].Enum = enum(catalog.AllPlatforms...)
			}),
		},
		handler: s.guard("list_accounts", s.listAccounts, s.listTimeout("Listing the accounts")),
	}
}

func (s *server) listAccounts(ctx context.Context, req *mcp.CallToolRequest, started time.Time) (*reply, error) {
	platforms, problems := platformArgs(req.Params.Arguments)
	if len(problems) > 0 {
		return errorBlock(outcome.InvalidQuery, "The arguments have problems; fix them and call list_accounts again.",
			[]kv{{"problems", problems}}, baseMeta(started)), nil
	}
	accounts, err := s.accountsFor(ctx, principalOf(req.Extra))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		meta := baseMeta(started)
		meta.SourceCalls = 1
		return errorBlock(outcome.SourceError, "Listing the accounts failed: "+err.Error(), nil, meta), nil
	}
	if len(platforms) > 0 {
		accounts = slices.DeleteFunc(slices.Clone(accounts), func(a ads.Account) bool {
			return !slices.Contains(platforms, a.Platform)
		})
	}
	fresh, err := s.freshness(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		meta := baseMeta(started)
		meta.SourceCalls = 1
		return errorBlock(outcome.SourceError, "Reading the accounts' sync state failed: "+err.Error(), nil, meta), nil
	}
	b := s.budgetOf(ctx, principalOf(req.Extra))
	return s.accountsResult(accounts, fresh, strings.Join(platforms, ","), b, started), nil
}

// syncStater is a source that knows its accounts' sync states: a warehouse
// `adsmcp sync` fills, or synced.Source over one (docs/sync.md).
type syncStater interface {
	SyncStates(ctx context.Context) ([]importer.SyncState, error)
}

// dataSourced says where a source's answers come from (synced.Source).
type dataSourced interface{ DataSource() string }

// syncFreshness is list_accounts' view of the sync: each account's state by
// folded ID, and where answers come from.
type syncFreshness struct {
	states     map[string]importer.SyncState
	answerFrom string
}

// freshness reads the sync states when the source keeps them and either
// serves synced data (it says where answers come from) or a sync wrote
// some; nil otherwise (a plain warehouse, the APIs alone).
func (s *server) freshness(ctx context.Context) (*syncFreshness, error) {
	st, ok := s.cfg.Source.(syncStater)
	if !ok {
		return nil, nil
	}
	states, err := st.SyncStates(ctx)
	if err != nil {
		return nil, err
	}
	out := &syncFreshness{states: map[string]importer.SyncState{}}
	if d, ok := s.cfg.Source.(dataSourced); ok {
		out.answerFrom = d.DataSource()
	} else if len(states) == 0 {
		return nil, nil
	}
	for _, x := range states {
		out.states[ads.FoldID(x.AccountID)] = x
	}
	return out, nil
}

// accountsMeta is list_accounts' _meta. When the list does not fit the client's
// budget (hundreds of accounts), the rows that fit are returned and the rest
// counted: never a silent cut.
type accountsMeta struct {
	Count        int    `json:"count"`
	Platform     string `json:"platform,omitempty"`
	ReturnedRows *int   `json:"returned_rows,omitempty"`
	OmittedRows  int    `json:"omitted_rows,omitempty"`
	Detail       string `json:"detail,omitempty"`
	// ListedAt is when the source was asked for this list (RFC 3339, UTC):
	// how fresh it is (package accountlist keeps it).
	ListedAt    string `json:"listed_at,omitempty"`
	SourceCalls int    `json:"source_calls"`
	ElapsedMS   int64  `json:"elapsed_ms"`
	// AnswersFrom says where query answers come from when a sync keeps a
	// warehouse (the columns synced_from … sync_error are its state).
	AnswersFrom string `json:"answers_from,omitempty"`
	// Warnings is demo_data when the accounts are the demo dataset's.
	Warnings []fit.Warning `json:"warnings,omitempty"`
}

func (s *server) accountsResult(accounts []ads.Account, fresh *syncFreshness, platform string, b budget.Budget, started time.Time) *reply {
	meta := accountsMeta{Count: len(accounts), Platform: platform, SourceCalls: 1}
	if fresh != nil {
		meta.AnswersFrom = fresh.answerFrom
	}
	if at := s.accounts.list.Status().ListedAt; !at.IsZero() {
		meta.ListedAt = at.UTC().Format(time.RFC3339)
	}
	if label := source.DemoLabel(s.cfg.Source); label != "" {
		meta.Warnings = []fit.Warning{answer.DemoWarning(label)}
	}
	blocks := func(n int) []string {
		meta.ElapsedMS = time.Since(started).Milliseconds()
		if n < len(accounts) {
			meta.ReturnedRows, meta.OmittedRows = &n, len(accounts)-n
			meta.Detail = fmt.Sprintf("Only the first %d of %d accounts fit the client's budget (%d tokens); call list_accounts with platform to see the others.",
				n, len(accounts), b.Tokens)
		}
		return []string{orderedJSON(kv{"_meta", meta}), accountsCSV(accounts[:n], fresh)}
	}
	lim := answer.LimitsOf(b)
	out := answer.FitRows(len(accounts), lim.Tokens, blocks, func(bl []string) int { return lim.Cost(s.tokens(bl, lim.Tokens), bl, false) })
	return dataReply(meta.SourceCalls, out...)
}

// tokens counts blocks: the fast estimate when the text is surely within the
// limit (fit.MaxTokens, its bytes, is), the exact count otherwise. The estimate
// alone is no proof: it can be a quarter of the exact count (account names in
// Yi or Cherokee), and near the limit even realistic text errs by 10%.
func (s *server) tokens(blocks []string, limit int) int {
	text := strings.Join(blocks, "\n")
	if fit.MaxTokens(text) <= limit {
		return min(s.counter.Estimate(text), fit.MaxTokens(text))
	}
	return s.counter.Exact(text)
}

func accountsCSV(accounts []ads.Account, fresh *syncFreshness) string {
	var b strings.Builder
	w := csv.NewWriter(&b)
	// attribution_window and conversion_actions say how each account's
	// conversions are counted (empty where the source does not say).
	head := []string{"platform", "account_id", "account_name", "currency", "timezone", "status", "attribution_window", "conversion_actions"}
	if fresh != nil {
		// The days the warehouse holds, when a sync last wrote the account
		// (UTC) and why its last attempt failed (empty: none synced yet, or
		// no failure).
		head = append(head, "synced_from", "synced_through", "synced_at", "sync_error")
	}
	w.Write(head)
	for _, a := range accounts {
		row := []string{a.Platform, a.AccountID, a.AccountName, a.Currency, a.Timezone, a.Status, a.AttributionWindow, a.ConversionActions}
		if fresh != nil {
			row = append(row, syncColumns(fresh.states[ads.FoldID(a.AccountID)])...)
		}
		w.Write(row)
	}
	w.Flush()
	return b.String()
}

// syncColumns are an account's synced_from, synced_through, synced_at and
// sync_error.
func syncColumns(st importer.SyncState) []string {
	out := make([]string, 4)
	if !st.SyncedFrom.IsZero() {
		out[0], out[1] = st.SyncedFrom.Format(time.DateOnly), st.SyncedThrough.Format(time.DateOnly)
	}
	if !st.LastAttempt.IsZero() {
		out[2] = st.LastAttempt.UTC().Format(time.RFC3339)
	}
	out[3] = st.LastError
	return out
}

// listTimeout answers a list tool that ran out of time.
func (s *server) listTimeout(what string) timeoutFunc {
	return func(_ *mcp.CallToolRequest, started time.Time) *reply {
		elapsed := time.Since(started).Milliseconds()
		return errorBlock(outcome.Timeout,
			fmt.Sprintf("%s did not finish within the %s deadline: the source is slow or unreachable. Try again in a minute; tell the user if it keeps failing.",
				what, s.cfg.Deadline),
			[]kv{{"deadline_seconds", s.cfg.Deadline.Seconds()}, {"elapsed_ms", elapsed}},
			callMeta{ElapsedMS: elapsed})
	}
}
