package importer

import "github.com/adsmcp/adsmcp/internal/ads"

// Rows is a query's result as database/sql and pgx both give it, for a
// Store to read the rows the engine asks for with the helpers below (each
// reads rows to the end; the caller closes them).
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// ScanAccounts reads rows of account_id, platform, account_name, currency,
// timezone, status, attribution_window, conversion_actions (Store.Accounts;
// the last two "" where NULL: select them with coalesce).
func ScanAccounts(rows Rows) ([]ads.Account, error) {
	return scanAll(rows, func(a *ads.Account) []any {
		return []any{&a.AccountID, &a.Platform, &a.AccountName, &a.Currency, &a.Timezone, &a.Status,
			&a.AttributionWindow, &a.ConversionActions}
	})
}

// ScanCampaignKeys reads rows of account_id, campaign_id (Store.Campaigns).
func ScanCampaignKeys(rows Rows) ([]CampaignKey, error) {
	return scanAll(rows, func(k *CampaignKey) []any { return []any{&k.AccountID, &k.CampaignID} })
}

// ScanCampaigns reads rows of campaign_id, name (Replacement.Campaigns).
func ScanCampaigns(rows Rows) ([]DroppedCampaign, error) {
	return scanAll(rows, func(c *DroppedCampaign) []any { return []any{&c.ID, &c.Name} })
}

func scanAll[T any](rows Rows, fields func(*T) []any) ([]T, error) {
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(fields(&v)...); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
