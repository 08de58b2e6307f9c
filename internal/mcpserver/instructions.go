package mcpserver

// Instructions are sent at initialize. Clients may keep only the beginning, so
// the first 512 characters say on their own what the server is for, the order of
// the tools, that time is never a dimension and that _meta comes first
// (TestInstructions checks the length and the key terms).
const Instructions = `adsmcp answers questions about advertising data (Meta, Google and TikTok Ads: spend, impressions, clicks, conversions, CTR, CPC, ROAS…). Use list_accounts to find accounts, list_fields for valid dimensions, metrics and filter operators, then query. Time is never a dimension: set time_granularity (daily, weekly, monthly, total). Every answer fits your context and drops nothing silently: read its _meta block first — it says what was changed and why.

Reading query answers:
- Fits: a _meta JSON block, then CSV. _meta.optimizations_applied lists what was done: granularity_change (the complete data, coarser in time than asked — e.g. weekly instead of daily — because daily did not fit; say so), validation_filter (rows attributed to no dimension value, removed; removed_totals is what they carried), field_renamed, dimension_sanitized, currency_column_added. _meta.warnings: all_zero_metrics (the account answers but every metric is zero: its access token likely lacks the reporting scopes — tell the user), partial_period (a first or last week/month cut by the date range), metric_unavailable_at_grain, no_rows (nothing matched: say there is no data, not zeros); a warning that says "Tell the user" must be passed on.
- data_too_large: even the coarsest grain did not fit. summary describes all of the data (per dimension: unique_count, top values, top by spend with share; per metric: min, max, avg, sum or overall). Answer from it when enough; otherwise run one of requery_instructions.suggestions as is — each is a complete query with expected_rows and token_estimate that fits.
- Errors (isError): invalid_query lists each problem with the valid values and closest matches: fix and retry. too_many_accounts: the error gives the maximum per query and the accounts; pick account_ids from them. timeout: run one of the narrower suggestions. source_error or permission_denied: tell the user which accounts failed, why and the fix (re-authorize, retry after N s); the suggestion runs the query without them — say the answer then covers only those.

Numbers: money is in each account's currency and never summed, ranked or compared across currencies (a currency column appears; top-N is per currency). Ratios (ctr, cpc, cpm, cpa, roas, conversion_rate) are recomputed from their parts; reach is never summed. Use limit only for an explicit top-N, with sort. Dates are inclusive, in each account's timezone; the default period is last_30d.`
