package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/source/migration"
)

// Imports: report exports (parsed by package importer) written into a warehouse
// file, new or holding earlier imports.
//
//   - Transactional: every file of one Import is written in one transaction; any
//     error (a conflict, a cancelled context) rolls it all back.
//   - Idempotent, two ways. A file already imported (the same bytes: table imports
//     is keyed by the file's SHA-256) is skipped. And a file *replaces* what the
//     warehouse holds for its accounts over the dates it covers — facts and reach
//     of each account it names, from its first to its last date — so a re-export
//     of the same period, or an overlapping one, never duplicates a fact: the
//     newest import wins on the days it covers.
//   - Demo data is never mixed with real data: a warehouse holding the demo
//     dataset is refused (ErrDemoData) unless ReplaceDemo, which deletes it first.
//   - Campaigns, ad sets and ads are merged by ID: new ones are added, known
//     ones get the file's names, objective and status.

// The options and the report are importer's, shared by every warehouse that
// imports (see importer.WriteOptions); these names keep duckdb's API.
type (
	ImportOptions = importer.WriteOptions
	ImportedFile  = importer.WrittenFile
	ImportResult  = importer.WriteResult
)

// ErrDemoData is returned by Import when the warehouse holds the demo dataset.
var ErrDemoData = importer.ErrDemoData

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

// ImportLabel is the dataset label of a warehouse filled by imports.
const ImportLabel = importer.Label

// Import writes parsed exports into the warehouse at path (created when missing),
// all in one transaction; see the comment above for the rules.
func Import(ctx context.Context, path string, exports []*importer.Export, opt ImportOptions) (*ImportResult, error) {
	if path == "" {
		path = DefaultPath()
	}
	if opt.Now.IsZero() {
		opt.Now = time.Now()
	}
	res := &ImportResult{Target: path, DryRun: opt.DryRun}
	_, statErr := os.Stat(path)
	exists := statErr == nil
	if exists && !opt.ReplaceDemo {
		// Refuse demo data without taking the write lock (a server may be reading
		// the file); the transaction checks again.
		if err := refuseDemoReadOnly(ctx, path); err != nil {
			return nil, err
		}
	}
	dsn := path
	if opt.DryRun && !exists {
		dsn = "" // a dry run into a new file: nothing on disk
	} else if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create warehouse directory: %w", err)
	}
	db, err := sql.Open("duckdb", dsn)
	if err != nil {
		return nil, openError(path, err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, openError(path, err)
	}
	defer conn.Close()
	im := &importRun{ctx: ctx, conn: conn, opt: opt, res: res}
	if err := im.run(exports); err != nil {
		return nil, err
	}
	if !opt.DryRun {
		if _, err := conn.ExecContext(ctx, "CHECKPOINT"); err != nil {
			return nil, fmt.Errorf("duckdb: checkpoint after the import: %w", err)
		}
	}
	return res, nil
}

// refuseDemoReadOnly returns ErrDemoData when the warehouse at path holds data
// that was not imported; it opens the file read-only.
func refuseDemoReadOnly(ctx context.Context, path string) error {
	db, err := sql.Open("duckdb", path+"?access_mode=read_only")
	if err != nil {
		return nil // the read-write open reports it
	}
	defer db.Close()
	var kind string
	err = db.QueryRowContext(ctx, `SELECT value FROM dataset WHERE key = 'kind'`).Scan(&kind)
	if err != nil || kind == "import" {
		return nil // no dataset yet, or imports: the transaction decides
	}
	return demoError(path, kind)
}

func demoError(path, kind string) error {
	what := "the demo dataset"
	if kind != "demo" {
		what = fmt.Sprintf("data that was not imported (dataset kind %q)", kind)
	}
	return fmt.Errorf("%w: %s holds %s; pass --replace-demo to delete it and import, or --db to import into another (new) file",
		ErrDemoData, path, what)
}

// openError explains a warehouse that cannot be opened for writing.
func openError(path string, err error) error {
	if strings.Contains(strings.ToLower(err.Error()), "lock") {
		return fmt.Errorf("the warehouse %s is open in another process (adsmcp serve?): stop it, import, then start it again: %w", path, err)
	}
	return fmt.Errorf("open warehouse %s: %w", path, err)
}

type importRun struct {
	ctx  context.Context
	conn *sql.Conn
	opt  ImportOptions
	res  *ImportResult
	// existing accounts by folded ID
	accounts map[string]ads.Account
}

func (im *importRun) exec(q string, args ...any) (int64, error) {
	r, err := im.conn.ExecContext(im.ctx, q, args...)
	if err != nil {
		return 0, err
	}
	n, _ := r.RowsAffected()
	return n, nil
}

func (im *importRun) run(exports []*importer.Export) (err error) {
	if _, err := im.exec("BEGIN TRANSACTION"); err != nil {
		return openError(im.res.Target, err)
	}
	committed := false
	defer func() {
		if !committed {
			if _, rbErr := im.conn.ExecContext(context.Background(), "ROLLBACK"); rbErr != nil && err != nil {
				err = errors.Join(err, rbErr)
			}
		}
	}()
	if err := ensureSchema(im.ctx, migration.SQL(im.conn)); err != nil {
		return err
	}
	if _, err := im.exec(importDDL); err != nil {
		return fmt.Errorf("duckdb: creating the schema: %w", err)
	}
	if err := im.checkDataset(); err != nil {
		return err
	}
	if err := im.loadAccounts(); err != nil {
		return err
	}
	for _, ex := range exports {
		f, err := im.importFile(ex)
		if err != nil {
			return err
		}
		im.res.Files = append(im.res.Files, f)
	}
	if err := im.writeDataset(); err != nil {
		return err
	}
	if _, err := im.exec(dropImportStaging); err != nil {
		return err
	}
	if im.opt.DryRun {
		return nil // rolled back by the deferred ROLLBACK
	}
	if _, err := im.exec("COMMIT"); err != nil {
		return fmt.Errorf("duckdb: commit the import: %w", err)
	}
	committed = true
	return nil
}

// checkDataset refuses demo data (or replaces it), and notes a new warehouse.
func (im *importRun) checkDataset() error {
	var kind sql.NullString
	err := im.conn.QueryRowContext(im.ctx, `SELECT value FROM dataset WHERE key = 'kind'`).Scan(&kind)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	var rows int64
	if err := im.conn.QueryRowContext(im.ctx,
		`SELECT (SELECT count(*) FROM accounts) + (SELECT count(*) FROM facts) + (SELECT count(*) FROM dataset)`).Scan(&rows); err != nil {
		return err
	}
	switch {
	case rows == 0:
		im.res.Created = true
	case kind.String == "import":
	case !im.opt.ReplaceDemo:
		return demoError(im.res.Target, kind.String)
	default:
		for _, t := range []string{"dataset", "accounts", "campaigns", "adsets", "ads", "facts", "reach", "imports"} {
			if _, err := im.exec("DELETE FROM " + t); err != nil {
				return fmt.Errorf("duckdb: deleting the demo data: %w", err)
			}
		}
		im.res.DemoReplaced = true
	}
	return nil
}

func (im *importRun) loadAccounts() error {
	rows, err := im.conn.QueryContext(im.ctx, `SELECT account_id, platform, account_name, currency, timezone, status FROM accounts`)
	if err != nil {
		return err
	}
	defer rows.Close()
	im.accounts = map[string]ads.Account{}
	for rows.Next() {
		var a ads.Account
		if err := rows.Scan(&a.AccountID, &a.Platform, &a.AccountName, &a.Currency, &a.Timezone, &a.Status); err != nil {
			return err
		}
		im.accounts[ads.FoldID(a.AccountID)] = a
	}
	return rows.Err()
}

func (im *importRun) importFile(ex *importer.Export) (ImportedFile, error) {
	f := ImportedFile{File: ex.File, SHA256: ex.SHA256}
	var at time.Time
	var as string
	err := im.conn.QueryRowContext(im.ctx, `SELECT imported_at, file_name FROM imports WHERE sha256 = ?`, ex.SHA256).Scan(&at, &as)
	switch {
	case err == nil:
		f.AlreadyImported, f.ImportedAt, f.ImportedAs = true, at, as
		return f, nil
	case !errors.Is(err, sql.ErrNoRows):
		return f, err
	}

	// Accounts: the warehouse's spelling of a known ID; platform and currency must agree.
	ids := map[string]string{} // the file's account ID → the warehouse's
	for _, a := range ex.Accounts {
		old, known := im.accounts[ads.FoldID(a.AccountID)]
		if !known {
			if _, err := im.exec(`INSERT INTO accounts VALUES (?, ?, ?, ?, ?, ?)`,
				a.AccountID, a.Platform, a.AccountName, a.Currency, a.Timezone, a.Status); err != nil {
				return f, fmt.Errorf("duckdb: adding account %s: %w", a.AccountID, err)
			}
			im.accounts[ads.FoldID(a.AccountID)] = a.Account
			ids[a.AccountID] = a.AccountID
			f.NewAccounts = append(f.NewAccounts, a.AccountID)
			continue
		}
		if old.Platform != a.Platform {
			return f, fmt.Errorf("%s: account %s is a %s account in the warehouse, and this is a %s export; fix: check --account-id, or --platform",
				ex.File, old.AccountID, old.Platform, a.Platform)
		}
		if old.Currency != a.Currency {
			return f, fmt.Errorf("%s: account %s is in %s in the warehouse, and this file's money is in %s; fix: check --account-id and --currency (an account has one currency)",
				ex.File, old.AccountID, old.Currency, a.Currency)
		}
		ids[a.AccountID] = old.AccountID
		if a.NameKnown && a.AccountName != old.AccountName || a.TimezoneKnown && a.Timezone != old.Timezone {
			name, tz := old.AccountName, old.Timezone
			if a.NameKnown {
				name = a.AccountName
			}
			if a.TimezoneKnown {
				tz = a.Timezone
			}
			if _, err := im.exec(`UPDATE accounts SET account_name = ?, timezone = ? WHERE account_id = ?`, name, tz, old.AccountID); err != nil {
				return f, err
			}
			old.AccountName, old.Timezone = name, tz
			im.accounts[ads.FoldID(old.AccountID)] = old
		}
	}

	// Replace what the warehouse holds for these accounts on these dates.
	inFile := map[string]bool{}
	for _, c := range ex.Campaigns {
		inFile[ids[c.AccountID]+"\x00"+c.CampaignID] = true
	}
	for _, a := range ex.Accounts {
		id := ids[a.AccountID]
		dropped, err := im.droppedCampaigns(id, ex.First, ex.Last, inFile)
		if err != nil {
			return f, err
		}
		f.Dropped = append(f.Dropped, dropped...)
		n, err := im.exec(`DELETE FROM facts WHERE account_id = ? AND date BETWEEN ? AND ?`, id, ex.First, ex.Last)
		if err != nil {
			return f, fmt.Errorf("duckdb: replacing facts: %w", err)
		}
		f.FactsReplaced += n
		n, err = im.exec(`DELETE FROM reach WHERE account_id = ? AND (
			grain = 'daily' AND period_start BETWEEN ?::DATE AND ?::DATE OR
			grain = 'weekly' AND period_start BETWEEN ?::DATE - 6 AND ?::DATE OR
			grain = 'monthly' AND period_start BETWEEN date_trunc('month', ?::DATE) AND ?::DATE)`,
			id, ex.First, ex.Last, ex.First, ex.Last, ex.First, ex.Last)
		if err != nil {
			return f, fmt.Errorf("duckdb: replacing reach: %w", err)
		}
		f.ReachReplaced += n
	}

	// Stage the dimension rows, append facts and reach.
	if _, err := im.exec(`DELETE FROM temp.main.adsmcp_import_campaigns; DELETE FROM temp.main.adsmcp_import_adsets; DELETE FROM temp.main.adsmcp_import_ads`); err != nil {
		return f, err
	}
	err = im.conn.Raw(func(dc any) error {
		c, ok := dc.(driver.Conn)
		if !ok {
			return fmt.Errorf("duckdb: unexpected driver connection %T", dc)
		}
		return im.append(c, ex, ids)
	})
	if err != nil {
		return f, err
	}
	f.FactsAdded, f.ReachAdded = int64(len(ex.Facts)), int64(len(ex.Reach))
	for i, q := range mergeSQL {
		n, err := im.exec(q)
		if err != nil {
			return f, fmt.Errorf("duckdb: merging campaigns, ad sets and ads: %w", err)
		}
		if i == 1 {
			f.NewCampaigns = n
		}
	}

	var accounts []string
	for _, a := range ex.Accounts {
		accounts = append(accounts, ids[a.AccountID])
	}
	_, err = im.exec(`INSERT INTO imports VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, ex.SHA256, filepath.Base(ex.File), ex.Platform,
		strings.Join(accounts, ","), ex.First, ex.Last, len(ex.Facts), len(ex.Reach), ex.SkippedLines(), im.opt.Now.UTC())
	if err != nil {
		return f, fmt.Errorf("duckdb: recording the import: %w", err)
	}
	return f, nil
}

// droppedCampaigns are the campaigns of account with facts between first and last
// that the file does not have.
func (im *importRun) droppedCampaigns(account string, first, last time.Time, inFile map[string]bool) ([]string, error) {
	rows, err := im.conn.QueryContext(im.ctx, `
		SELECT f.campaign_id, coalesce(any_value(c.campaign_name), f.campaign_id)
		FROM facts f LEFT JOIN campaigns c ON c.campaign_id = f.campaign_id AND c.account_id = f.account_id
		WHERE f.account_id = ? AND f.date BETWEEN ? AND ? AND f.campaign_id IS NOT NULL
		GROUP BY f.campaign_id ORDER BY 2, 1`, account, first, last)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id, name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, err
		}
		if !inFile[account+"\x00"+id] {
			out = append(out, name)
		}
	}
	return out, rows.Err()
}

// append stages the campaigns, ad sets and ads and writes facts and reach through
// DuckDB's appender (and the demo loader's fact staging), on the transaction's
// connection.
func (im *importRun) append(c driver.Conn, ex *importer.Export, ids map[string]string) error {
	app := func(table string, rows int, row func(i int) []driver.Value) error {
		if rows == 0 {
			return nil
		}
		a, err := duckdb.NewAppender(c, "temp", "main", table)
		if err != nil {
			return fmt.Errorf("duckdb: appender for %s: %w", table, err)
		}
		for i := range rows {
			if err := a.AppendRow(row(i)...); err != nil {
				a.Close()
				return fmt.Errorf("duckdb: staging %s: %w", table, err)
			}
		}
		if err := a.Close(); err != nil {
			return fmt.Errorf("duckdb: staging %s: %w", table, err)
		}
		return nil
	}
	err := app("adsmcp_import_campaigns", len(ex.Campaigns), func(i int) []driver.Value {
		r := ex.Campaigns[i]
		return []driver.Value{r.CampaignID, ids[r.AccountID], null(r.Name), null(r.Objective), null(r.Status), date(r.StartDate)}
	})
	if err == nil {
		err = app("adsmcp_import_adsets", len(ex.AdSets), func(i int) []driver.Value {
			r := ex.AdSets[i]
			return []driver.Value{r.AdSetID, r.CampaignID, ids[r.AccountID], null(r.Name)}
		})
	}
	if err == nil {
		err = app("adsmcp_import_ads", len(ex.Ads), func(i int) []driver.Value {
			r := ex.Ads[i]
			return []driver.Value{r.AdID, r.AdSetID, r.CampaignID, ids[r.AccountID], null(r.Name)}
		})
	}
	if err != nil {
		return err
	}

	l := &loader{ctx: im.ctx, conn: c}
	if err := l.exec(im.ctx, stageDDL); err != nil {
		return fmt.Errorf("duckdb: creating the staging tables: %w", err)
	}
	for i := range ex.Facts {
		f := ex.Facts[i]
		f.AccountID = ids[f.AccountID]
		if err := l.Fact(&f); err != nil {
			l.closeAppender()
			return err
		}
	}
	if err := l.copyFacts(); err != nil {
		return err
	}
	for _, r := range ex.Reach {
		r.AccountID = ids[r.AccountID]
		if r.Level == "account" {
			r.ObjectID = r.AccountID
		}
		if err := l.Reach(r); err != nil {
			l.closeAppender()
			return err
		}
	}
	if err := l.closeAppender(); err != nil {
		return err
	}
	return l.exec(im.ctx, "DROP TABLE temp.main."+stageFacts+"; DROP TABLE temp.main."+stageCodes)
}

// writeDataset labels a new warehouse as imported data, complete (so Open does
// not fill it with demo data), and keeps first_date and last_date current.
func (im *importRun) writeDataset() error {
	upsert := `INSERT INTO dataset VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`
	kv := [][2]string{{"kind", "import"}, {"label", ImportLabel}, {CompleteKey, CompleteValue}}
	var first, last sql.NullTime
	if err := im.conn.QueryRowContext(im.ctx, `SELECT min(date), max(date) FROM facts`).Scan(&first, &last); err != nil {
		return err
	}
	if first.Valid {
		kv = append(kv, [2]string{"first_date", first.Time.Format(time.DateOnly)}, [2]string{"last_date", last.Time.Format(time.DateOnly)})
	}
	for _, p := range kv {
		if _, err := im.exec(upsert, p[0], p[1]); err != nil {
			return fmt.Errorf("duckdb: writing the dataset description: %w", err)
		}
	}
	return nil
}
