package answer

import (
	"context"
	"log/slog"
	"slices"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
)

// zeroPartitions sets what the all_zero_metrics warning of q's answer says
// and names (zeroWarning), and judges each account itself when tab, the
// source's answer (nil when none is in hand), has no account_id column:
// whether an account's every metric is zero is a fact of the account, the
// same whether rows are by account_id, account_name, campaign or nothing.
func (e *Engine) zeroPartitions(ctx context.Context, q *query.Query, tab *fit.Table, withData []string, p *fit.Partitions) {
	p.Keys, p.ZeroDetail = zeroWarning(q, withData)
	if zero, ok := e.zeroAccounts(ctx, q, tab); ok {
		p.Judged, p.Zero = true, zero
	}
}

// zeroAccounts are the accounts of q whose every metric is zero
// (fit.AllZeroPartitions by account_id), judged per account when tab cannot
// say it by itself: by account_name when no two queried accounts share one,
// else from the source's answer to q by account_id. ok is false when no
// judgement is needed or allowed: tab has an account_id column (fit judges
// it), q has one account (the whole table is it), or the rows were selected
// (a metric filter, a limit) or narrowed by a dimension filter, where zeros
// say nothing of an account (see zeroWarning).
func (e *Engine) zeroAccounts(ctx context.Context, q *query.Query, tab *fit.Table) (keys []string, ok bool) {
	if len(q.Accounts) < 2 || selectionOf(q) != "" || slices.ContainsFunc(q.Filters, func(f query.Filter) bool { return !f.Metric }) {
		return nil, false
	}
	var names *fit.Column
	if tab != nil {
		if tab.Column("account_id") != nil {
			return nil, false
		}
		names = tab.Column("account_name")
	}
	if names != nil && names.Role == fit.RoleDimension && uniqueNames(q) {
		zero, _ := fit.AllZeroPartitions(tab, "account_name")
		for _, a := range q.Accounts {
			if slices.Contains(zero, a.AccountName) {
				keys = append(keys, a.AccountID)
			}
		}
		slices.Sort(keys)
		return keys, true
	}
	// Asked as the answer split by account_id too would be: the same
	// metrics and range, the rows split by account besides. The same
	// dimensions keep a live source's fetch (its shape) answering it without
	// a request to the platform; with no rows in hand (an answer too large to
	// read) only the account and the describing columns (currency,
	// attribution_window: one per account, they split nothing) are asked. A
	// sum or a ratio is zero over the range exactly when it is in every
	// period, so they are asked in total; reach is asked at the grain asked
	// (in total too for an answer too large to read, which never reads its
	// finest rows).
	byAccount := *q
	byAccount.Dimensions = []string{"account_id"}
	for _, d := range q.Dimensions {
		if d != "account_id" && (tab != nil || catalog.MustLookup(d).Describes) {
			byAccount.Dimensions = append(byAccount.Dimensions, d)
		}
	}
	if tab == nil || !slices.ContainsFunc(q.Metrics, func(m string) bool { return catalog.MustLookup(m).Aggregation == catalog.NonAdditive }) {
		byAccount.Grain = fit.Total
	}
	byAccount.Sort, byAccount.Limit, byAccount.LimitPerCurrency, byAccount.Compare = nil, 0, false, nil
	t, err := e.Source.Query(ctx, &byAccount)
	if err != nil {
		// The answer is still right without the warning; it says less.
		slog.WarnContext(ctx, "judging all-zero accounts failed", "err", err)
		return nil, false
	}
	keys, _ = fit.AllZeroPartitions(t, "account_id")
	return keys, true
}

// uniqueNames says no two of q's accounts share an account_name: a row by
// account_name is then one account's.
func uniqueNames(q *query.Query) bool {
	seen := map[string]bool{}
	for _, a := range q.Accounts {
		if seen[a.AccountName] {
			return false
		}
		seen[a.AccountName] = true
	}
	return true
}
