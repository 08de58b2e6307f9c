package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/importer"
)

// importDDL is the imports ledger and the staging tables of an import.
const importDDL = `
CREATE TABLE IF NOT EXISTS imports (
	sha256        VARCHAR PRIMARY KEY,
	file_name     VARCHAR   NOT NULL,
	platform      VARCHAR   NOT NULL,
	accounts      VARCHAR   NOT NULL,
	first_date    DATE      NOT NULL,
	last_date     DATE      NOT NULL,
	facts         BIGINT    NOT NULL,
	reach_rows    BIGINT    NOT NULL,
	skipped_lines BIGINT    NOT NULL,
	imported_at   TIMESTAMP NOT NULL
);
CREATE TEMP TABLE IF NOT EXISTS adsmcp_import_campaigns (
	campaign_id VARCHAR, account_id VARCHAR, campaign_name VARCHAR, campaign_objective VARCHAR,
	campaign_status VARCHAR, start_date DATE
);
CREATE TEMP TABLE IF NOT EXISTS adsmcp_import_adsets (adset_id VARCHAR, campaign_id VARCHAR, account_id VARCHAR, adset_name VARCHAR);
CREATE TEMP TABLE IF NOT EXISTS adsmcp_import_ads (ad_id VARCHAR, adset_id VARCHAR, campaign_id VARCHAR, account_id VARCHAR, ad_name VARCHAR);
`

const dropImportStaging = `
DROP TABLE IF EXISTS temp.main.adsmcp_import_campaigns;
DROP TABLE IF EXISTS temp.main.adsmcp_import_adsets;
DROP TABLE IF EXISTS temp.main.adsmcp_import_ads;
`

// importTables are the tables an import writes (and ReplaceDemo empties).
var importTables = []string{"dataset", "accounts", "campaigns", "adsets", "ads", "facts", "reach", "imports", "sync_state"}

// mergeSQL merges the staged campaigns, ad sets and ads into their tables: known
// IDs get the file's non-empty values, new ones are inserted.
var mergeSQL = []string{
	`UPDATE campaigns SET
		campaign_name = coalesce(s.campaign_name, campaigns.campaign_name),
		campaign_objective = coalesce(s.campaign_objective, campaigns.campaign_objective),
		campaign_status = coalesce(s.campaign_status, campaigns.campaign_status),
		start_date = least(coalesce(campaigns.start_date, s.start_date), coalesce(s.start_date, campaigns.start_date))
	FROM temp.main.adsmcp_import_campaigns s
	WHERE campaigns.campaign_id = s.campaign_id AND campaigns.account_id = s.account_id`,
	`INSERT INTO campaigns
	SELECT s.campaign_id, s.account_id, s.campaign_name, s.campaign_objective, s.campaign_status, s.start_date, NULL
	FROM temp.main.adsmcp_import_campaigns s
	WHERE NOT EXISTS (SELECT 1 FROM campaigns c WHERE c.campaign_id = s.campaign_id AND c.account_id = s.account_id)
	ORDER BY s.account_id, s.campaign_id`,
	`UPDATE adsets SET adset_name = coalesce(s.adset_name, adsets.adset_name)
	FROM temp.main.adsmcp_import_adsets s
	WHERE adsets.adset_id = s.adset_id AND adsets.account_id = s.account_id`,
	`INSERT INTO adsets
	SELECT s.adset_id, s.campaign_id, s.account_id, s.adset_name FROM temp.main.adsmcp_import_adsets s
	WHERE NOT EXISTS (SELECT 1 FROM adsets a WHERE a.adset_id = s.adset_id AND a.account_id = s.account_id)
	ORDER BY s.account_id, s.adset_id`,
	`UPDATE ads SET ad_name = coalesce(s.ad_name, ads.ad_name)
	FROM temp.main.adsmcp_import_ads s
	WHERE ads.ad_id = s.ad_id AND ads.account_id = s.account_id`,
	`INSERT INTO ads
	SELECT s.ad_id, s.adset_id, s.campaign_id, s.account_id, s.ad_name FROM temp.main.adsmcp_import_ads s
	WHERE NOT EXISTS (SELECT 1 FROM ads a WHERE a.ad_id = s.ad_id AND a.account_id = s.account_id)
	ORDER BY s.account_id, s.ad_id`,
}

// importStore is the import engine's importer.Store over one transaction on
// conn (see Import).
type importStore struct {
	conn *sql.Conn
	path string
}

func (s *importStore) exec(ctx context.Context, q string, args ...any) error {
	_, err := s.conn.ExecContext(ctx, q, args...)
	return err
}

func (s *importStore) Target() importer.Target {
	return importer.Target{Name: s.path, Elsewhere: elsewhere, Transactional: true}
}

func (s *importStore) State(ctx context.Context) (importer.State, error) {
	var kind, label sql.NullString
	err := s.conn.QueryRowContext(ctx, `SELECT max(CASE WHEN key = 'kind' THEN value END), max(CASE WHEN key = 'label' THEN value END) FROM dataset`).Scan(&kind, &label)
	if err != nil {
		return importer.State{}, fmt.Errorf("duckdb: reading the dataset description: %w", err)
	}
	var rows int64
	if err := s.conn.QueryRowContext(ctx,
		`SELECT (SELECT count(*) FROM accounts) + (SELECT count(*) FROM facts) + (SELECT count(*) FROM dataset)`).Scan(&rows); err != nil {
		return importer.State{}, fmt.Errorf("duckdb: reading the warehouse: %w", err)
	}
	return importer.State{Empty: rows == 0, Kind: kind.String, Label: label.String}, nil
}

func (s *importStore) Accounts(ctx context.Context) ([]ads.Account, error) {
	rows, err := s.conn.QueryContext(ctx, `SELECT account_id, platform, account_name, currency, timezone, status,
		coalesce(attribution_window, ''), coalesce(conversion_actions, '') FROM accounts`)
	if err != nil {
		return nil, fmt.Errorf("duckdb: reading the accounts: %w", err)
	}
	defer rows.Close()
	return importer.ScanAccounts(rows)
}

func (s *importStore) Imported(ctx context.Context, sha256 string) (importer.LedgerEntry, bool, error) {
	e := importer.LedgerEntry{SHA256: sha256}
	err := s.conn.QueryRowContext(ctx, `SELECT imported_at, file_name FROM imports WHERE sha256 = ?`, sha256).Scan(&e.ImportedAt, &e.FileName)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return e, false, nil
	case err != nil:
		return e, false, fmt.Errorf("duckdb: reading the imports ledger: %w", err)
	}
	return e, true, nil
}

func (s *importStore) Campaigns(ctx context.Context, accountIDs []string) ([]importer.CampaignKey, error) {
	var out []importer.CampaignKey
	for _, id := range accountIDs {
		rows, err := s.conn.QueryContext(ctx, `SELECT account_id, campaign_id FROM campaigns WHERE account_id = ?`, id)
		if err != nil {
			return nil, fmt.Errorf("duckdb: reading the known campaigns: %w", err)
		}
		keys, err := importer.ScanCampaignKeys(rows)
		rows.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, keys...)
	}
	return out, nil
}

// reachWhere selects the reach rows of r.
func reachWhere(r importer.Range) (string, []any) {
	return r.ReachWhere(func(int, bool) string { return "?" })
}

// factWhere selects the facts of r: its account, dates and breakdown sets.
func factWhere(r importer.Range, alias string) (string, []any) {
	return r.FactWhere(alias, func(int, bool) string { return "?" })
}

func (s *importStore) Replaced(ctx context.Context, r importer.Range) (importer.Replacement, error) {
	var rep importer.Replacement
	where, args := factWhere(r, "")
	if err := s.conn.QueryRowContext(ctx, `SELECT count(*) FROM facts WHERE `+where, args...).Scan(&rep.Facts); err != nil {
		return rep, fmt.Errorf("duckdb: counting the facts to replace: %w", err)
	}
	if r.HasReach() {
		where, args := reachWhere(r)
		if err := s.conn.QueryRowContext(ctx, `SELECT count(*) FROM reach WHERE `+where, args...).Scan(&rep.Reach); err != nil {
			return rep, fmt.Errorf("duckdb: counting the reach to replace: %w", err)
		}
	}
	fwhere, fargs := factWhere(r, "f.")
	rows, err := s.conn.QueryContext(ctx, `
		SELECT f.campaign_id, coalesce(any_value(c.campaign_name), f.campaign_id)
		FROM facts f LEFT JOIN campaigns c ON c.campaign_id = f.campaign_id AND c.account_id = f.account_id
		WHERE `+fwhere+` AND f.campaign_id IS NOT NULL
		GROUP BY f.campaign_id`, fargs...)
	if err != nil {
		return rep, fmt.Errorf("duckdb: reading the replaced campaigns: %w", err)
	}
	defer rows.Close()
	rep.Campaigns, err = importer.ScanCampaigns(rows)
	return rep, err
}

func (s *importStore) FactDates(ctx context.Context) (first, last time.Time, ok bool, err error) {
	var lo, hi sql.NullTime
	if err := s.conn.QueryRowContext(ctx, `SELECT min(date), max(date) FROM facts`).Scan(&lo, &hi); err != nil {
		return first, last, false, fmt.Errorf("duckdb: reading the imported dates: %w", err)
	}
	return lo.Time, hi.Time, lo.Valid, nil
}

func (s *importStore) ClearDemo(ctx context.Context) error {
	for _, t := range importTables {
		if err := s.exec(ctx, "DELETE FROM "+t); err != nil {
			return fmt.Errorf("duckdb: deleting the demo data: %w", err)
		}
	}
	return nil
}

func (s *importStore) WriteFile(ctx context.Context, p *importer.FilePlan) error {
	for _, r := range p.Ranges {
		where, args := factWhere(r, "")
		if err := s.exec(ctx, `DELETE FROM facts WHERE `+where, args...); err != nil {
			return fmt.Errorf("duckdb: replacing facts: %w", err)
		}
		if !r.HasReach() {
			continue
		}
		where, args = reachWhere(r)
		if err := s.exec(ctx, `DELETE FROM reach WHERE `+where, args...); err != nil {
			return fmt.Errorf("duckdb: replacing reach: %w", err)
		}
	}
	for _, a := range p.Accounts {
		switch {
		case a.New:
			if err := s.exec(ctx, `INSERT INTO accounts (account_id, platform, account_name, currency, timezone, status,
				attribution_window, conversion_actions) VALUES (?, ?, ?, ?, ?, ?, NULLIF(?, ''), NULLIF(?, ''))`,
				a.AccountID, a.Platform, a.AccountName, a.Currency, a.Timezone, a.Status, a.AttributionWindow, a.ConversionActions); err != nil {
				return fmt.Errorf("duckdb: adding account %s: %w", a.AccountID, err)
			}
		case a.Changed:
			if err := s.exec(ctx, `UPDATE accounts SET account_name = ?, timezone = ?, status = ?, attribution_window = NULLIF(?, ''),
				conversion_actions = NULLIF(?, '') WHERE account_id = ?`,
				a.AccountName, a.Timezone, a.Status, a.AttributionWindow, a.ConversionActions, a.AccountID); err != nil {
				return fmt.Errorf("duckdb: updating account %s: %w", a.AccountID, err)
			}
		}
	}
	if err := s.exec(ctx, `DELETE FROM temp.main.adsmcp_import_campaigns; DELETE FROM temp.main.adsmcp_import_adsets; DELETE FROM temp.main.adsmcp_import_ads`); err != nil {
		return err
	}
	err := s.conn.Raw(func(dc any) error {
		c, ok := dc.(driver.Conn)
		if !ok {
			return fmt.Errorf("duckdb: unexpected driver connection %T", dc)
		}
		if err := stageObjects(c, p); err != nil {
			return err
		}
		return writeRows(ctx, c, p)
	})
	if err != nil {
		return err
	}
	for _, q := range mergeSQL {
		if err := s.exec(ctx, q); err != nil {
			return fmt.Errorf("duckdb: merging campaigns, ad sets and ads: %w", err)
		}
	}
	e := p.Ledger
	if e.SHA256 == "" {
		return nil // a sync chunk: no ledger row
	}
	if err := s.exec(ctx, `INSERT INTO imports VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, e.SHA256, e.FileName, e.Platform,
		strings.Join(e.Accounts, ","), e.First, e.Last, e.Facts, e.ReachRows, e.SkippedLines, e.ImportedAt); err != nil {
		return fmt.Errorf("duckdb: recording the import: %w", err)
	}
	return nil
}

// stageObjects appends the file's campaigns, ad sets and ads to the staging
// tables that mergeSQL merges.
func stageObjects(c driver.Conn, p *importer.FilePlan) error {
	app := func(table string, rows [][]driver.Value) error {
		if len(rows) == 0 {
			return nil
		}
		a, err := duckdb.NewAppender(c, "temp", "main", table)
		if err != nil {
			return fmt.Errorf("duckdb: appender for %s: %w", table, err)
		}
		for _, row := range rows {
			if err := a.AppendRow(row...); err != nil {
				a.Close()
				return fmt.Errorf("duckdb: staging %s: %w", table, err)
			}
		}
		if err := a.Close(); err != nil {
			return fmt.Errorf("duckdb: staging %s: %w", table, err)
		}
		return nil
	}
	var campaigns, adsets, adRows [][]driver.Value
	for _, r := range p.Campaigns() {
		campaigns = append(campaigns, []driver.Value{r.CampaignID, r.AccountID, null(r.Name), null(r.Objective), null(r.Status), date(r.StartDate)})
	}
	for _, r := range p.AdSets() {
		adsets = append(adsets, []driver.Value{r.AdSetID, r.CampaignID, r.AccountID, null(r.Name)})
	}
	for _, r := range p.Ads() {
		adRows = append(adRows, []driver.Value{r.AdID, r.AdSetID, r.CampaignID, r.AccountID, null(r.Name)})
	}
	if err := app("adsmcp_import_campaigns", campaigns); err != nil {
		return err
	}
	if err := app("adsmcp_import_adsets", adsets); err != nil {
		return err
	}
	return app("adsmcp_import_ads", adRows)
}

// writeRows writes the file's facts and reach through the loader that writes
// the demo data (its fact staging and appenders), on the transaction's
// connection.
func writeRows(ctx context.Context, c driver.Conn, p *importer.FilePlan) error {
	l := &loader{ctx: ctx, conn: c}
	if err := l.exec(ctx, stageDDL); err != nil {
		return fmt.Errorf("duckdb: creating the staging tables: %w", err)
	}
	if err := p.Send(l); err != nil {
		l.closeAppender()
		return err
	}
	if err := l.copyFacts(); err != nil {
		l.closeAppender()
		return err
	}
	if err := l.closeAppender(); err != nil {
		return err
	}
	return l.exec(ctx, "DROP TABLE temp.main."+stageFacts+"; DROP TABLE temp.main."+stageCodes)
}

func (s *importStore) WriteDataset(ctx context.Context, rows [][2]string) error {
	for _, kv := range rows {
		if err := s.exec(ctx, `INSERT INTO dataset VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, kv[0], kv[1]); err != nil {
			return fmt.Errorf("duckdb: writing the dataset description: %w", err)
		}
	}
	return nil
}

func (s *importStore) SyncStates(ctx context.Context) ([]importer.SyncState, error) {
	return readSyncStates(ctx, s.conn)
}

func (s *importStore) WriteSyncState(ctx context.Context, st importer.SyncState) error {
	if err := s.exec(ctx, `INSERT OR REPLACE INTO sync_state (`+importer.SyncStateColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		importer.SyncStateValues(st)...); err != nil {
		return fmt.Errorf("duckdb: writing the sync state of %s: %w", st.AccountID, err)
	}
	return nil
}

// querier is what *sql.DB and *sql.Conn have in common.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// readSyncStates reads sync_state, none when the warehouse has no such table
// (a layout before version 3, read as it is).
func readSyncStates(ctx context.Context, q querier) ([]importer.SyncState, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database()
		AND schema_name = 'main' AND table_name = 'sync_state'`).Scan(&n); err != nil || n == 0 {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, `SELECT `+importer.SyncStateColumns+` FROM sync_state ORDER BY account_id`)
	if err != nil {
		return nil, fmt.Errorf("duckdb: reading the sync state: %w", err)
	}
	defer rows.Close()
	return importer.ScanSyncStates(rows)
}
