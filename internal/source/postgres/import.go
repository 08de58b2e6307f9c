package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/importer"
)

// Imports: report exports (parsed by package importer) written into a
// PostgreSQL warehouse, with exactly the rules of duckdb.Import, so that
// `adsmcp import` means the same thing whichever warehouse it writes:
//
//   - Transactional: every file of one Import is written in one transaction; any
//     error (a conflict, a cancelled context) rolls it all back, the tables it
//     created included (PostgreSQL's DDL is transactional).
//   - Idempotent: a file already imported (table imports, keyed by the file's
//     SHA-256) is skipped, and a file replaces the facts and reach of its
//     accounts from its first to its last date, so overlapping exports never
//     count a day twice.
//   - Demo data (or any data not written by imports) is refused (ErrDemoData)
//     unless ReplaceDemo, which empties the warehouse's tables first.
//   - Campaigns, ad sets and ads are merged by ID.
//
// Unlike DuckDB, PostgreSQL lets other sessions write at the same time. Two
// concurrent imports could each delete the other's not-yet-committed rows'
// days and both insert, counting a day twice; so an import takes a
// transaction-level advisory lock (one import per schema at a time) and locks
// the warehouse's tables against other writers (SHARE ROW EXCLUSIVE: readers,
// such as a running adsmcp serve, go on reading the committed data).

// The options and the report are importer's, shared with duckdb.Import.
type (
	ImportOptions = importer.WriteOptions
	ImportedFile  = importer.WrittenFile
	ImportResult  = importer.WriteResult
)

// ErrDemoData is returned by Import when the warehouse holds the demo dataset.
var ErrDemoData = importer.ErrDemoData

// importDDL is the imports ledger. It is not in schema.sql: that is the schema
// adsmcp reads, and a warehouse filled by other means needs no ledger.
const importDDL = `
CREATE TABLE IF NOT EXISTS imports (
	sha256        text        PRIMARY KEY,
	file_name     text        NOT NULL,
	platform      text        NOT NULL,
	accounts      text        NOT NULL,
	first_date    date        NOT NULL,
	last_date     date        NOT NULL,
	facts         bigint      NOT NULL,
	reach_rows    bigint      NOT NULL,
	skipped_lines bigint      NOT NULL,
	imported_at   timestamptz NOT NULL
);`

// importTables are the tables an import writes (and ReplaceDemo empties).
var importTables = []string{"dataset", "accounts", "campaigns", "adsets", "ads", "facts", "reach", "imports"}

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

// Import writes parsed exports into the warehouse pool connects to (its
// search_path's first schema), creating the tables when missing, all in one
// transaction; see the comment above for the rules.
func Import(ctx context.Context, pool *pgxpool.Pool, exports []*importer.Export, opt ImportOptions) (res *ImportResult, err error) {
	if opt.Now.IsZero() {
		opt.Now = time.Now()
	}
	res = &ImportResult{Target: Describe(pool.Config().ConnConfig), DryRun: opt.DryRun}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres: import into %s: %w", res.Target, err)
	}
	defer func() {
		// A dry run always ends here; a failed import too.
		if rbErr := tx.Rollback(context.Background()); rbErr != nil && !errors.Is(rbErr, pgx.ErrTxClosed) && err != nil {
			err = errors.Join(err, rbErr)
		}
	}()
	im := &importRun{ctx: ctx, tx: tx, opt: opt, res: res}
	if err := im.run(exports); err != nil {
		return nil, err
	}
	if opt.DryRun {
		return res, nil
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("postgres: commit the import: %w", err)
	}
	return res, nil
}

// Describe names the warehouse a connection config reaches, as a postgres://
// URL without its password (for reports and errors).
func Describe(cfg *pgx.ConnConfig) string {
	u := url.URL{Scheme: "postgres", Path: "/" + cfg.Database}
	if cfg.User != "" {
		u.User = url.User(cfg.User)
	}
	q := url.Values{}
	if strings.HasPrefix(cfg.Host, "/") { // a Unix socket directory
		q.Set("host", cfg.Host)
	} else {
		u.Host = net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
	}
	if sp := cfg.RuntimeParams["search_path"]; sp != "" {
		q.Set("search_path", sp)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

type importRun struct {
	ctx context.Context
	tx  pgx.Tx
	opt ImportOptions
	res *ImportResult
	// existing accounts by folded ID
	accounts map[string]ads.Account
}

func (im *importRun) exec(q string, args ...any) (int64, error) {
	tag, err := im.tx.Exec(im.ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

func (im *importRun) run(exports []*importer.Export) error {
	// One import per schema at a time (see above); the lock ends with the transaction.
	if _, err := im.exec(`SELECT pg_advisory_xact_lock(hashtext('adsmcp import ' || coalesce(current_schema(), '')))`); err != nil {
		return fmt.Errorf("postgres: waiting for another import: %w", err)
	}
	if err := im.createTables(); err != nil {
		return err
	}
	if _, err := im.exec(`LOCK TABLE ` + strings.Join(importTables, ", ") + ` IN SHARE ROW EXCLUSIVE MODE`); err != nil {
		return fmt.Errorf("postgres: locking the warehouse's tables: %w", err)
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
	if im.opt.DryRun {
		return nil
	}
	// Fresh statistics, so that the first queries after an import into new (or
	// emptied) tables are planned for the rows they hold.
	if _, err := im.exec(`ANALYZE dataset, accounts, campaigns, adsets, ads, facts, reach`); err != nil {
		return fmt.Errorf("postgres: analyze after the import: %w", err)
	}
	return nil
}

// createTables runs the DDL only when a table is missing: CREATE TABLE IF NOT
// EXISTS still needs the CREATE privilege, which a role that only imports into
// an existing warehouse need not have.
func (im *importRun) createTables() error {
	var n int
	if err := im.tx.QueryRow(im.ctx, `SELECT count(*) FROM unnest($1::text[]) AS t(name) WHERE to_regclass(t.name) IS NOT NULL`,
		importTables).Scan(&n); err != nil {
		return fmt.Errorf("postgres: looking for the warehouse's tables: %w", err)
	}
	if n == len(importTables) {
		return upgradeIfBehind(im.ctx, im.tx)
	}
	if _, err := currentSchema(im.ctx, im.tx); err != nil {
		return err
	}
	if err := ensureSchema(im.ctx, im.tx); err != nil {
		return err
	}
	if _, err := im.exec(importDDL); err != nil {
		return fmt.Errorf("postgres: creating the schema: %w", err)
	}
	return nil
}

// currentSchema is the schema new tables go to: the first of search_path that
// exists, an error with the fix when none does.
func currentSchema(ctx context.Context, tx pgx.Tx) (string, error) {
	var schema *string
	var path string
	if err := tx.QueryRow(ctx, `SELECT current_schema(), current_setting('search_path')`).Scan(&schema, &path); err != nil {
		return "", fmt.Errorf("postgres: current schema: %w", err)
	}
	if schema == nil {
		return "", fmt.Errorf("postgres: no schema of the search_path (%s) exists; fix: create it (CREATE SCHEMA …), or set search_path to one that exists", path)
	}
	return *schema, nil
}

// checkDataset refuses demo data (or replaces it), and notes a new warehouse.
func (im *importRun) checkDataset() error {
	var kind string
	err := im.tx.QueryRow(im.ctx, `SELECT value FROM dataset WHERE key = 'kind'`).Scan(&kind)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("postgres: reading the dataset description: %w", err)
	}
	var nonEmpty bool
	if err := im.tx.QueryRow(im.ctx,
		`SELECT EXISTS (SELECT 1 FROM accounts) OR EXISTS (SELECT 1 FROM facts) OR EXISTS (SELECT 1 FROM dataset)`).Scan(&nonEmpty); err != nil {
		return fmt.Errorf("postgres: reading the warehouse: %w", err)
	}
	switch {
	case !nonEmpty:
		im.res.Created = true
	case kind == "import":
	case !im.opt.ReplaceDemo:
		return demoError(im.res.Target, kind)
	default:
		// TRUNCATE, not DELETE: millions of demo facts go at once. Readers wait
		// for the commit instead of seeing the old rows meanwhile.
		if _, err := im.exec(`TRUNCATE ` + strings.Join(importTables, ", ")); err != nil {
			return fmt.Errorf("postgres: deleting the demo data: %w", err)
		}
		im.res.DemoReplaced = true
	}
	return nil
}

func demoError(target, kind string) error {
	what := "the demo dataset"
	if kind != "demo" {
		what = fmt.Sprintf("data that was not imported (dataset kind %q)", kind)
	}
	return fmt.Errorf("%w: %s holds %s; pass --replace-demo to delete it and import, or --target another database or schema (add ?search_path=SCHEMA to the URL)",
		ErrDemoData, target, what)
}

func (im *importRun) loadAccounts() error {
	rows, err := im.tx.Query(im.ctx, `SELECT account_id, platform, account_name, currency, timezone, status FROM accounts`)
	if err != nil {
		return fmt.Errorf("postgres: reading the accounts: %w", err)
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
	err := im.tx.QueryRow(im.ctx, `SELECT imported_at, file_name FROM imports WHERE sha256 = $1`, ex.SHA256).Scan(&at, &as)
	switch {
	case err == nil:
		f.AlreadyImported, f.ImportedAt, f.ImportedAs = true, at.UTC(), as
		return f, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return f, fmt.Errorf("postgres: reading the imports ledger: %w", err)
	}

	// Accounts: the warehouse's spelling of a known ID; platform and currency must agree.
	ids := map[string]string{} // the file's account ID → the warehouse's
	for _, a := range ex.Accounts {
		old, known := im.accounts[ads.FoldID(a.AccountID)]
		if !known {
			if _, err := im.exec(`INSERT INTO accounts (account_id, platform, account_name, currency, timezone, status)
				VALUES ($1, $2, $3, $4, $5, $6)`,
				a.AccountID, a.Platform, a.AccountName, a.Currency, a.Timezone, a.Status); err != nil {
				return f, fmt.Errorf("postgres: adding account %s: %w", a.AccountID, err)
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
			if _, err := im.exec(`UPDATE accounts SET account_name = $1, timezone = $2 WHERE account_id = $3`, name, tz, old.AccountID); err != nil {
				return f, fmt.Errorf("postgres: updating account %s: %w", old.AccountID, err)
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
		n, err := im.exec(`DELETE FROM facts WHERE account_id = $1 AND date BETWEEN $2 AND $3`, id, ex.First, ex.Last)
		if err != nil {
			return f, fmt.Errorf("postgres: replacing facts: %w", err)
		}
		f.FactsReplaced += n
		n, err = im.exec(`DELETE FROM reach WHERE account_id = $1 AND (
			grain = 'daily' AND period_start BETWEEN $2::date AND $3::date OR
			grain = 'weekly' AND period_start BETWEEN $4::date - 6 AND $5::date OR
			grain = 'monthly' AND period_start BETWEEN date_trunc('month', $6::date)::date AND $7::date)`,
			id, ex.First, ex.Last, ex.First, ex.Last, ex.First, ex.Last)
		if err != nil {
			return f, fmt.Errorf("postgres: replacing reach: %w", err)
		}
		f.ReachReplaced += n
	}

	if err := im.copyRows(ex, ids); err != nil {
		return f, err
	}
	f.FactsAdded, f.ReachAdded = int64(len(ex.Facts)), int64(len(ex.Reach))
	n, err := im.mergeObjects(ex, ids)
	if err != nil {
		return f, err
	}
	f.NewCampaigns = n

	var accounts []string
	for _, a := range ex.Accounts {
		accounts = append(accounts, ids[a.AccountID])
	}
	_, err = im.exec(`INSERT INTO imports (sha256, file_name, platform, accounts, first_date, last_date, facts, reach_rows, skipped_lines, imported_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, ex.SHA256, filepath.Base(ex.File), ex.Platform,
		strings.Join(accounts, ","), ex.First, ex.Last, len(ex.Facts), len(ex.Reach), ex.SkippedLines(), im.opt.Now.UTC())
	if err != nil {
		return f, fmt.Errorf("postgres: recording the import: %w", err)
	}
	return f, nil
}

// droppedCampaigns are the campaigns of account with facts between first and
// last that the file does not have, by name then ID in byte order (as DuckDB
// sorts), whatever the server's collation.
func (im *importRun) droppedCampaigns(account string, first, last time.Time, inFile map[string]bool) ([]string, error) {
	rows, err := im.tx.Query(im.ctx, `
		SELECT f.campaign_id, coalesce(min(c.campaign_name), f.campaign_id)
		FROM facts f LEFT JOIN campaigns c ON c.campaign_id = f.campaign_id AND c.account_id = f.account_id
		WHERE f.account_id = $1 AND f.date BETWEEN $2 AND $3 AND f.campaign_id IS NOT NULL
		GROUP BY f.campaign_id`, account, first, last)
	if err != nil {
		return nil, fmt.Errorf("postgres: reading the replaced campaigns: %w", err)
	}
	defer rows.Close()
	var out []importer.DroppedCampaign
	for rows.Next() {
		var c importer.DroppedCampaign
		if err := rows.Scan(&c.ID, &c.Name); err != nil {
			return nil, err
		}
		if !inFile[account+"\x00"+c.ID] {
			out = append(out, c)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return importer.DroppedNames(out), nil
}

// copyRows appends the file's facts and reach through COPY, with the
// warehouse's spelling of each account ID.
func (im *importRun) copyRows(ex *importer.Export, ids map[string]string) error {
	_, err := im.tx.CopyFrom(im.ctx, pgx.Identifier{"facts"}, columns["facts"], pgx.CopyFromSlice(len(ex.Facts), func(i int) ([]any, error) {
		f := &ex.Facts[i]
		var link any = f.LinkClicks
		if f.LinkClicks == ads.NotReported {
			link = nil
		}
		return []any{f.Date, ids[f.AccountID], null(f.CampaignID), null(f.AdSetID), null(f.AdID),
			null(f.Country), null(f.Device), null(f.PublisherPlatform), f.SpendMicros, f.Impressions, f.Clicks,
			link, f.Conversions, f.ConversionValueMicros, f.VideoViews}, nil
	}))
	if err != nil {
		return fmt.Errorf("postgres: copy into facts: %w", err)
	}
	_, err = im.tx.CopyFrom(im.ctx, pgx.Identifier{"reach"}, columns["reach"], pgx.CopyFromSlice(len(ex.Reach), func(i int) ([]any, error) {
		r := ex.Reach[i]
		r.AccountID = ids[r.AccountID]
		if r.Level == "account" {
			r.ObjectID = r.AccountID
		}
		return []any{r.Level, r.ObjectID, r.AccountID, r.Grain, r.PeriodStart, r.Reach}, nil
	}))
	if err != nil {
		return fmt.Errorf("postgres: copy into reach: %w", err)
	}
	return nil
}

// mergeObjects merges the file's campaigns, ad sets and ads, and returns how
// many campaigns were new.
func (im *importRun) mergeObjects(ex *importer.Export, ids map[string]string) (newCampaigns int64, err error) {
	merge := func(what string, sql [2]string, args ...any) (int64, error) {
		if _, err := im.exec(sql[0], args...); err != nil {
			return 0, fmt.Errorf("postgres: merging %s: %w", what, err)
		}
		n, err := im.exec(sql[1], args...)
		if err != nil {
			return 0, fmt.Errorf("postgres: merging %s: %w", what, err)
		}
		return n, nil
	}
	if len(ex.Campaigns) > 0 {
		n := len(ex.Campaigns)
		id, account, name, objective, status := make([]string, n), make([]string, n), texts(n), texts(n), texts(n)
		start := make([]pgtype.Date, n)
		for i, c := range ex.Campaigns {
			id[i], account[i], name[i], objective[i], status[i] = c.CampaignID, ids[c.AccountID], text(c.Name), text(c.Objective), text(c.Status)
			start[i] = pgtype.Date{Time: c.StartDate, Valid: !c.StartDate.IsZero()}
		}
		if newCampaigns, err = merge("campaigns", mergeCampaigns, id, account, name, objective, status, start); err != nil {
			return 0, err
		}
	}
	if len(ex.AdSets) > 0 {
		n := len(ex.AdSets)
		id, campaign, account, name := make([]string, n), make([]string, n), make([]string, n), texts(n)
		for i, s := range ex.AdSets {
			id[i], campaign[i], account[i], name[i] = s.AdSetID, s.CampaignID, ids[s.AccountID], text(s.Name)
		}
		if _, err := merge("ad sets", mergeAdSets, id, campaign, account, name); err != nil {
			return 0, err
		}
	}
	if len(ex.Ads) > 0 {
		n := len(ex.Ads)
		id, adset, campaign, account, name := make([]string, n), make([]string, n), make([]string, n), make([]string, n), texts(n)
		for i, a := range ex.Ads {
			id[i], adset[i], campaign[i], account[i], name[i] = a.AdID, a.AdSetID, a.CampaignID, ids[a.AccountID], text(a.Name)
		}
		if _, err := merge("ads", mergeAds, id, adset, campaign, account, name); err != nil {
			return 0, err
		}
	}
	return newCampaigns, nil
}

func texts(n int) []pgtype.Text { return make([]pgtype.Text, n) }

// text is s as a nullable text: the empty string, the producers' NULL, is NULL.
func text(s string) pgtype.Text { return pgtype.Text{String: s, Valid: s != ""} }

// writeDataset labels a new warehouse as imported data, complete, and keeps
// first_date and last_date current.
func (im *importRun) writeDataset() error {
	kv := [][2]string{{"kind", "import"}, {"label", importer.Label}, {"complete", "true"}}
	// Per account, min and max come from the (account_id, date) index instead
	// of a scan of every fact.
	var first, last pgtype.Date
	if err := im.tx.QueryRow(im.ctx, `SELECT min(m.lo), max(m.hi) FROM accounts a CROSS JOIN LATERAL (SELECT
			(SELECT min(date) FROM facts f WHERE f.account_id = a.account_id) AS lo,
			(SELECT max(date) FROM facts f WHERE f.account_id = a.account_id) AS hi) m`).Scan(&first, &last); err != nil {
		return fmt.Errorf("postgres: reading the imported dates: %w", err)
	}
	if first.Valid {
		kv = append(kv, [2]string{"first_date", first.Time.Format(time.DateOnly)}, [2]string{"last_date", last.Time.Format(time.DateOnly)})
	}
	for _, p := range kv {
		if _, err := im.exec(`INSERT INTO dataset (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, p[0], p[1]); err != nil {
			return fmt.Errorf("postgres: writing the dataset description: %w", err)
		}
	}
	return nil
}
