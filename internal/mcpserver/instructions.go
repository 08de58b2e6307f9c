package mcpserver

import (
	"strings"

	"github.com/adsmcp/adsmcp/internal/catalog"
)

// Instructions are sent at initialize. Claude Code keeps only their first 2,048
// characters (anthropics/claude-code#87650) and other clients may keep less, so
// they hold only what a model needs before its first call: the first 512
// characters say on their own what the server is for, the order of the tools,
// that time is never a dimension, that _meta comes first and where the rest is;
// then the rules for numbers and, in short, what to tell the user. What each
// _meta entry, data_too_large and each error mean is in queryDescription, read
// when the query tool is used (TestInstructions, TestEveryRuleIsRead).
var Instructions = `adsmcp answers questions about advertising data (` + catalog.PlatformLabels("and") + ` Ads: spend, clicks, conversions, CTR, ROAS…). Use list_accounts to find accounts, list_fields for valid dimensions, metrics and filters, then query. Time is never a dimension: set time_granularity (daily, weekly, monthly, quarterly, total). Every answer is complete or says in _meta what was changed: read _meta first. What each _meta entry and error means: the query tool's description; all of it: adsmcp://guide.

Numbers: money is in each account's currency and never summed, ranked or compared across currencies (a currency column appears; a sort or top-N on money is per currency). Ratios (ctr, cpc, cpm, cpa, roas, conversion_rate) are recomputed from their parts; reach is never summed. Use limit only for an explicit top-N, with sort. Dates are inclusive, in each account's timezone; the default period is last_30d. Conversions: _meta.definitions says what they count and under which attribution window; accounts under different windows get an attribution_window column. Breakdowns come in groups a platform reports together (age with gender; placement with publisher_platform and device; conversion_action with conversions and conversion_value only): an invalid_query names the groups that work.

Tell the user what _meta reports: a granularity_change (coarser than asked), a partial_period, every warning. no_rows means no data, not zeros. data_too_large: answer from its summary or run one of its suggestions as is. Errors: fix invalid_query and retry; source_error or permission_denied: say which accounts failed and why.`

// queryDescription is the query tool's description: how to read every kind of
// answer. It is read when the tool is used, and it stays under the 2 KB
// Claude Code keeps of a tool description (TestQueryDescriptionLength).
const queryDescription = `Query advertising metrics (spend, impressions, clicks, conversions, ctr, roas…) by dimensions and time. The answer always fits your context and never silently drops rows: a _meta JSON block first (read it), then CSV.
_meta.optimizations_applied says what was changed: granularity_change (the complete data, coarser in time than asked, e.g. weekly because daily did not fit: say so); validation_filter (rows attributed to no dimension value removed; removed_totals is what they carried); the others (field_renamed, dimension_sanitized, currency_column_added…) say how your arguments were read.
_meta.warnings: all_zero_metrics (the account answers but every metric is zero: its access token likely lacks the reporting scopes; tell the user); no_rows (no data for those dates and filters: say there is no data, not zeros; the detail says where the data is or which filter matched nothing); partial_period (a first or last week, month or quarter cut by the date range); metric_unavailable_at_grain (a metric such as reach left out at this grain). The other warnings each explain a gap or a blank cell (an account without rows, data ending early, empty cells, a filter that looks wrong, a ranking per currency): pass them on.
data_too_large: even the coarsest grain did not fit. Its summary describes all of the data (each dimension's values, each metric's range and total): answer from it when enough, else run one of requery_instructions.suggestions as is (each is complete and fits).
Errors (isError): invalid_query lists each problem with the valid values and closest matches: fix and retry. too_many_accounts: pick account_ids from the accounts it lists. timeout: run one of its narrower suggestions. source_error or permission_denied: tell the user which accounts failed, why and the fix; its suggestion runs without them: say the answer then covers only the others.`

// guide is the adsmcp://guide resource: the instructions and every tool's
// description in one document, for clients that let the user attach it.
// Built from them, so it never says something else.
func (s *server) guide() string {
	var b strings.Builder
	b.WriteString("# adsmcp\n\n" + Instructions + "\n")
	for _, t := range s.tools() {
		b.WriteString("\n## " + t.def.Name + "\n\n" + t.def.Description + "\n")
	}
	return b.String()
}
