package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/importer"
)

// mergeCampaigns, mergeAdSets and mergeAds merge the file's objects, passed as
// parallel arrays (no temporary tables: an importing role needs no TEMP
// privilege): known IDs get the file's non-empty values, new ones are inserted.
// Campaigns and the rest have no key in schema.sql, so no ON CONFLICT.
var (
	mergeCampaigns = [2]string{
		`UPDATE campaigns SET
			campaign_name = coalesce(s.campaign_name, campaigns.campaign_name),
			campaign_objective = coalesce(s.campaign_objective, campaigns.campaign_objective),
			campaign_status = coalesce(s.campaign_status, campaigns.campaign_status),
			start_date = least(campaigns.start_date, s.start_date)
		FROM ` + campaignsIn + `
		WHERE campaigns.campaign_id = s.campaign_id AND campaigns.account_id = s.account_id`,
		`INSERT INTO campaigns (campaign_id, account_id, campaign_name, campaign_objective, campaign_status, start_date, end_date)
		SELECT s.campaign_id, s.account_id, s.campaign_name, s.campaign_objective, s.campaign_status, s.start_date, NULL
		FROM ` + campaignsIn + `
		WHERE NOT EXISTS (SELECT 1 FROM campaigns c WHERE c.campaign_id = s.campaign_id AND c.account_id = s.account_id)
		ORDER BY s.account_id, s.campaign_id`,
	}
	mergeAdSets = [2]string{
		`UPDATE adsets SET adset_name = coalesce(s.adset_name, adsets.adset_name)
		FROM ` + adsetsIn + `
		WHERE adsets.adset_id = s.adset_id AND adsets.account_id = s.account_id`,
		`INSERT INTO adsets (adset_id, campaign_id, account_id, adset_name)
		SELECT s.adset_id, s.campaign_id, s.account_id, s.adset_name FROM ` + adsetsIn + `
		WHERE NOT EXISTS (SELECT 1 FROM adsets a WHERE a.adset_id = s.adset_id AND a.account_id = s.account_id)
		ORDER BY s.account_id, s.adset_id`,
	}
	mergeAds = [2]string{
		`UPDATE ads SET ad_name = coalesce(s.ad_name, ads.ad_name)
		FROM ` + adsIn + `
		WHERE ads.ad_id = s.ad_id AND ads.account_id = s.account_id`,
		`INSERT INTO ads (ad_id, adset_id, campaign_id, account_id, ad_name)
		SELECT s.ad_id, s.adset_id, s.campaign_id, s.account_id, s.ad_name FROM ` + adsIn + `
		WHERE NOT EXISTS (SELECT 1 FROM ads a WHERE a.ad_id = s.ad_id AND a.account_id = s.account_id)
		ORDER BY s.account_id, s.ad_id`,
	}
)

const (
	campaignsIn = `unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::date[])
		AS s(campaign_id, account_id, campaign_name, campaign_objective, campaign_status, start_date)`
	adsetsIn = `unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS s(adset_id, campaign_id, account_id, adset_name)`
	adsIn    = `unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS s(ad_id, adset_id, campaign_id, account_id, ad_name)`
)

// importStore is the import engine's importer.Store over one transaction
// (see Import).
type importStore struct {
	tx     pgx.Tx
	target string
}

func (s *importStore) exec(ctx context.Context, q string, args ...any) (int64, error) {
	tag, err := s.tx.Exec(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

func (s *importStore) Target() importer.Target {
	return importer.Target{Name: s.target, Transactional: true,
		Elsewhere: "--target another database or schema (add ?search_path=SCHEMA to the URL)"}
}

func (s *importStore) State(ctx context.Context) (importer.State, error) {
	var kind, label *string
	err := s.tx.QueryRow(ctx, `SELECT max(value) FILTER (WHERE key = 'kind'), max(value) FILTER (WHERE key = 'label') FROM dataset`).Scan(&kind, &label)
	if err != nil {
		return importer.State{}, fmt.Errorf("postgres: reading the dataset description: %w", err)
	}
	var nonEmpty bool
	if err := s.tx.QueryRow(ctx,
		`SELECT EXISTS (SELECT 1 FROM accounts) OR EXISTS (SELECT 1 FROM facts) OR EXISTS (SELECT 1 FROM dataset)`).Scan(&nonEmpty); err != nil {
		return importer.State{}, fmt.Errorf("postgres: reading the warehouse: %w", err)
	}
	return importer.State{Empty: !nonEmpty, Kind: deref(kind), Label: deref(label)}, nil
}

func (s *importStore) Accounts(ctx context.Context) ([]ads.Account, error) {
	rows, err := s.tx.Query(ctx, `SELECT account_id, platform, account_name, currency, timezone, status,
		coalesce(attribution_window, ''), coalesce(conversion_actions, '') FROM accounts`)
	if err != nil {
		return nil, fmt.Errorf("postgres: reading the accounts: %w", err)
	}
	defer rows.Close()
	return importer.ScanAccounts(rows)
}

func (s *importStore) Imported(ctx context.Context, sha256 string) (importer.LedgerEntry, bool, error) {
	e := importer.LedgerEntry{SHA256: sha256}
	err := s.tx.QueryRow(ctx, `SELECT imported_at, file_name FROM imports WHERE sha256 = $1`, sha256).Scan(&e.ImportedAt, &e.FileName)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return e, false, nil
	case err != nil:
		return e, false, fmt.Errorf("postgres: reading the imports ledger: %w", err)
	}
	return e, true, nil
}

func (s *importStore) Campaigns(ctx context.Context, accountIDs []string) ([]importer.CampaignKey, error) {
	rows, err := s.tx.Query(ctx, `SELECT account_id, campaign_id FROM campaigns WHERE account_id = ANY($1::text[])`, accountIDs)
	if err != nil {
		return nil, fmt.Errorf("postgres: reading the known campaigns: %w", err)
	}
	defer rows.Close()
	return importer.ScanCampaignKeys(rows)
}

// reachWhere selects the reach rows of r.
func reachWhere(r importer.Range) (string, []any) {
	return r.ReachWhere(func(n int, date bool) string {
		if date {
			return fmt.Sprintf("$%d::date", n)
		}
		return fmt.Sprintf("$%d", n)
	})
}

// factWhere selects the facts of r: its account, dates and breakdown sets.
func factWhere(r importer.Range, alias string) (string, []any) {
	return r.FactWhere(alias, func(n int, date bool) string {
		if date {
			return fmt.Sprintf("$%d::date", n)
		}
		return fmt.Sprintf("$%d", n)
	})
}

// Replaced reads the replaced campaigns' names as stored; the engine sorts
// them in byte order, whatever the server's collation.
func (s *importStore) Replaced(ctx context.Context, r importer.Range) (importer.Replacement, error) {
	var rep importer.Replacement
	where, args := factWhere(r, "")
	if err := s.tx.QueryRow(ctx, `SELECT count(*) FROM facts WHERE `+where, args...).Scan(&rep.Facts); err != nil {
		return rep, fmt.Errorf("postgres: counting the facts to replace: %w", err)
	}
	if r.HasReach() {
		where, args := reachWhere(r)
		if err := s.tx.QueryRow(ctx, `SELECT count(*) FROM reach WHERE `+where, args...).Scan(&rep.Reach); err != nil {
			return rep, fmt.Errorf("postgres: counting the reach to replace: %w", err)
		}
	}
	fwhere, fargs := factWhere(r, "f.")
	rows, err := s.tx.Query(ctx, `
		SELECT f.campaign_id, coalesce(min(c.campaign_name), f.campaign_id)
		FROM facts f LEFT JOIN campaigns c ON c.campaign_id = f.campaign_id AND c.account_id = f.account_id
		WHERE `+fwhere+` AND f.campaign_id IS NOT NULL
		GROUP BY f.campaign_id`, fargs...)
	if err != nil {
		return rep, fmt.Errorf("postgres: reading the replaced campaigns: %w", err)
	}
	defer rows.Close()
	rep.Campaigns, err = importer.ScanCampaigns(rows)
	return rep, err
}

// FactDates reads min and max per account, from the (account_id, date) index,
// instead of scanning every fact.
func (s *importStore) FactDates(ctx context.Context) (first, last time.Time, ok bool, err error) {
	var lo, hi pgtype.Date
	if err := s.tx.QueryRow(ctx, `SELECT min(m.lo), max(m.hi) FROM accounts a CROSS JOIN LATERAL (SELECT
			(SELECT min(date) FROM facts f WHERE f.account_id = a.account_id) AS lo,
			(SELECT max(date) FROM facts f WHERE f.account_id = a.account_id) AS hi) m`).Scan(&lo, &hi); err != nil {
		return first, last, false, fmt.Errorf("postgres: reading the imported dates: %w", err)
	}
	return lo.Time, hi.Time, lo.Valid, nil
}

// ClearDemo empties the tables with TRUNCATE, not DELETE: millions of demo
// facts go at once. Readers wait for the commit instead of seeing the old
// rows meanwhile.
func (s *importStore) ClearDemo(ctx context.Context) error {
	if _, err := s.exec(ctx, `TRUNCATE `+strings.Join(importTables, ", ")); err != nil {
		return fmt.Errorf("postgres: deleting the demo data: %w", err)
	}
	return nil
}

func (s *importStore) WriteFile(ctx context.Context, p *importer.FilePlan) error {
	for _, r := range p.Ranges {
		where, args := factWhere(r, "")
		if _, err := s.exec(ctx, `DELETE FROM facts WHERE `+where, args...); err != nil {
			return fmt.Errorf("postgres: replacing facts: %w", err)
		}
		if !r.HasReach() {
			continue
		}
		where, args = reachWhere(r)
		if _, err := s.exec(ctx, `DELETE FROM reach WHERE `+where, args...); err != nil {
			return fmt.Errorf("postgres: replacing reach: %w", err)
		}
	}
	for _, a := range p.Accounts {
		switch {
		case a.New:
			if _, err := s.exec(ctx, `INSERT INTO accounts (account_id, platform, account_name, currency, timezone, status,
				attribution_window, conversion_actions) VALUES ($1, $2, $3, $4, $5, $6, NULLIF($7, ''), NULLIF($8, ''))`,
				a.AccountID, a.Platform, a.AccountName, a.Currency, a.Timezone, a.Status, a.AttributionWindow, a.ConversionActions); err != nil {
				return fmt.Errorf("postgres: adding account %s: %w", a.AccountID, err)
			}
		case a.Changed:
			if _, err := s.exec(ctx, `UPDATE accounts SET account_name = $1, timezone = $2, status = $3, attribution_window = NULLIF($4, ''),
				conversion_actions = NULLIF($5, '') WHERE account_id = $6`,
				a.AccountName, a.Timezone, a.Status, a.AttributionWindow, a.ConversionActions, a.AccountID); err != nil {
				return fmt.Errorf("postgres: updating account %s: %w", a.AccountID, err)
			}
		}
	}
	// Facts and reach through the loader that writes the demo data (COPY).
	l := &loader{ctx: ctx, tx: s.tx}
	if err := p.Send(l); err != nil {
		return err
	}
	if err := l.flush(); err != nil {
		return err
	}
	if err := s.mergeObjects(ctx, p); err != nil {
		return err
	}
	e := p.Ledger
	if e.SHA256 == "" {
		return nil // a sync chunk: no ledger row
	}
	if _, err := s.exec(ctx, `INSERT INTO imports (sha256, file_name, platform, accounts, first_date, last_date, facts, reach_rows, skipped_lines, imported_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, e.SHA256, e.FileName, e.Platform,
		strings.Join(e.Accounts, ","), e.First, e.Last, e.Facts, e.ReachRows, e.SkippedLines, e.ImportedAt); err != nil {
		return fmt.Errorf("postgres: recording the import: %w", err)
	}
	return nil
}

// mergeObjects merges the file's campaigns, ad sets and ads.
func (s *importStore) mergeObjects(ctx context.Context, p *importer.FilePlan) error {
	merge := func(what string, sql [2]string, args ...any) error {
		for _, q := range sql {
			if _, err := s.exec(ctx, q, args...); err != nil {
				return fmt.Errorf("postgres: merging %s: %w", what, err)
			}
		}
		return nil
	}
	if cs := p.Campaigns(); len(cs) > 0 {
		n := len(cs)
		id, account, name, objective, status := make([]string, n), make([]string, n), texts(n), texts(n), texts(n)
		start := make([]pgtype.Date, n)
		for i, c := range cs {
			id[i], account[i], name[i], objective[i], status[i] = c.CampaignID, c.AccountID, text(c.Name), text(c.Objective), text(c.Status)
			start[i] = pgtype.Date{Time: c.StartDate, Valid: !c.StartDate.IsZero()}
		}
		if err := merge("campaigns", mergeCampaigns, id, account, name, objective, status, start); err != nil {
			return err
		}
	}
	if ss := p.AdSets(); len(ss) > 0 {
		n := len(ss)
		id, campaign, account, name := make([]string, n), make([]string, n), make([]string, n), texts(n)
		for i, s := range ss {
			id[i], campaign[i], account[i], name[i] = s.AdSetID, s.CampaignID, s.AccountID, text(s.Name)
		}
		if err := merge("ad sets", mergeAdSets, id, campaign, account, name); err != nil {
			return err
		}
	}
	if as := p.Ads(); len(as) > 0 {
		n := len(as)
		id, adset, campaign, account, name := make([]string, n), make([]string, n), make([]string, n), make([]string, n), texts(n)
		for i, a := range as {
			id[i], adset[i], campaign[i], account[i], name[i] = a.AdID, a.AdSetID, a.CampaignID, a.AccountID, text(a.Name)
		}
		if err := merge("ads", mergeAds, id, adset, campaign, account, name); err != nil {
			return err
		}
	}
	return nil
}

func texts(n int) []pgtype.Text { return make([]pgtype.Text, n) }

// text is s as a nullable text: the empty string, the producers' NULL, is NULL.
func text(s string) pgtype.Text { return pgtype.Text{String: s, Valid: s != ""} }

func (s *importStore) WriteDataset(ctx context.Context, rows [][2]string) error {
	for _, kv := range rows {
		if _, err := s.exec(ctx, `INSERT INTO dataset (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, kv[0], kv[1]); err != nil {
			return fmt.Errorf("postgres: writing the dataset description: %w", err)
		}
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func (s *importStore) SyncStates(ctx context.Context) ([]importer.SyncState, error) {
	return readSyncStates(ctx, s.tx)
}

func (s *importStore) WriteSyncState(ctx context.Context, st importer.SyncState) error {
	if _, err := s.exec(ctx, `INSERT INTO sync_state (`+importer.SyncStateColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (account_id) DO UPDATE SET platform = excluded.platform, synced_from = excluded.synced_from,
		synced_through = excluded.synced_through, backfill_from = excluded.backfill_from, last_success = excluded.last_success,
		last_attempt = excluded.last_attempt, last_error = excluded.last_error`, importer.SyncStateValues(st)...); err != nil {
		return fmt.Errorf("postgres: writing the sync state of %s: %w", st.AccountID, err)
	}
	return nil
}

// readSyncStates reads sync_state, none when the warehouse has no such table
// (a layout before version 3, read as it is).
func readSyncStates(ctx context.Context, q pgQuerier) ([]importer.SyncState, error) {
	present, err := q.Query(ctx, `SELECT 1 WHERE to_regclass('sync_state') IS NOT NULL`)
	if err != nil {
		return nil, fmt.Errorf("postgres: looking for sync_state: %w", err)
	}
	found := present.Next()
	present.Close()
	if err := present.Err(); err != nil || !found {
		return nil, err
	}
	rows, err := q.Query(ctx, `SELECT `+importer.SyncStateColumns+` FROM sync_state ORDER BY account_id`)
	if err != nil {
		return nil, fmt.Errorf("postgres: reading the sync state: %w", err)
	}
	defer rows.Close()
	return importer.ScanSyncStates(rows)
}
