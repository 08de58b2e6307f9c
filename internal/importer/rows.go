package importer

import (
	"fmt"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
)

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

// SyncStateColumns are sync_state's columns in the order ScanSyncStates
// reads and SyncStateValues gives them.
const SyncStateColumns = "account_id, platform, synced_from, synced_through, backfill_from, last_success, last_attempt, last_error"

// ScanSyncStates reads rows of SyncStateColumns (Store.SyncStates); NULL
// days and times are zero.
func ScanSyncStates(rows Rows) ([]SyncState, error) {
	var out []SyncState
	for rows.Next() {
		var st SyncState
		var from, through, backfill, success *time.Time
		if err := rows.Scan(&st.AccountID, &st.Platform, &from, &through, &backfill, &success, &st.LastAttempt, &st.LastError); err != nil {
			return nil, fmt.Errorf("reading sync_state: %w", err)
		}
		for _, p := range []struct {
			from **time.Time
			to   *time.Time
		}{{&from, &st.SyncedFrom}, {&through, &st.SyncedThrough}, {&backfill, &st.BackfillFrom}, {&success, &st.LastSuccess}} {
			if d := *p.from; d != nil {
				*p.to = time.Date(d.Year(), d.Month(), d.Day(), d.Hour(), d.Minute(), d.Second(), d.Nanosecond(), time.UTC)
			}
		}
		st.LastAttempt = st.LastAttempt.UTC()
		out = append(out, st)
	}
	return out, rows.Err()
}

// SyncStateValues are st's values in the order of SyncStateColumns: days
// and times as time.Time, NULL (nil) where zero; times in UTC.
func SyncStateValues(st SyncState) []any {
	orNull := func(t time.Time, utc bool) any {
		if t.IsZero() {
			return nil
		}
		if utc {
			return t.UTC()
		}
		return t
	}
	return []any{st.AccountID, st.Platform, orNull(st.SyncedFrom, false), orNull(st.SyncedThrough, false), orNull(st.BackfillFrom, false),
		orNull(st.LastSuccess, true), st.LastAttempt.UTC(), st.LastError}
}
