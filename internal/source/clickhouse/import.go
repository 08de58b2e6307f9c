package clickhouse

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/importer"
)

// Imports of report exports (parsed by package importer) into a ClickHouse
// warehouse, with the meaning duckdb.Import and postgres.Import have:
//
//   - Idempotent: a file already imported (table imports, keyed by the file's
//     SHA-256) is skipped, and a file replaces the facts and reach of its
//     accounts over the dates it covers, so an overlapping re-export never
//     counts a day twice.
//   - Demo data is never mixed with imports (importer.ErrDemoData) unless
//     ReplaceDemo, which drops it first.
//   - All or nothing, as far as ClickHouse allows. It has no transactions, so:
//     every file is parsed and checked against the warehouse (accounts'
//     platform and currency) before anything is written, and a bad file
//     changes nothing; then each file is written delete-first (a mutation
//     adsmcp waits for), then its rows, then its ledger row, last. A write
//     cut short by the server or the network leaves that file without its
//     ledger row, so importing it again replaces whatever part of it was
//     written: running the same import again completes it.
//   - The names of accounts, campaigns, ad sets and ads are stored on each
//     fact (the warehouse is denormalized): rows imported earlier keep the
//     names they were imported with.

// importDDL is the imports ledger.
const importDDL = `CREATE TABLE IF NOT EXISTS imports (
	sha256        String,
	file_name     String,
	platform      String,
	accounts      String,
	first_date    Date,
	last_date     Date,
	facts         Int64,
	reach_rows    Int64,
	skipped_lines Int64,
	imported_at   DateTime
) ENGINE = MergeTree ORDER BY sha256`

// Import writes parsed exports into the warehouse at dsn, creating its
// tables when missing.
func Import(ctx context.Context, dsn string, exports []*importer.Export, opt importer.WriteOptions) (*importer.WriteResult, error) {
	if opt.Now.IsZero() {
		opt.Now = time.Now()
	}
	c, err := newHTTPClient(dsn)
	if err != nil {
		return nil, err
	}
	im := &importRun{ctx: ctx, c: c, opt: opt, res: &importer.WriteResult{Target: Redact(dsn), DryRun: opt.DryRun},
		campaigns: map[string]bool{}, campaignsRead: map[string]bool{}}
	im.db = ch.OpenDB(c.e.native)
	defer im.db.Close()
	if err := im.run(exports); err != nil {
		return nil, err
	}
	return im.res, nil
}

type importRun struct {
	ctx      context.Context
	c        *httpClient
	db       *sql.DB
	opt      importer.WriteOptions
	res      *importer.WriteResult
	accounts map[string]ads.Account // by ads.FoldID
	// fresh: a dry run into a database without the warehouse's tables.
	fresh bool
	// campaigns are the campaign IDs known so far: the warehouse's, of the
	// accounts in campaignsRead, and those of the files planned before.
	campaigns     map[string]bool
	campaignsRead map[string]bool
}

// plan is what one file will do, computed before anything is written.
type plan struct {
	ex       *importer.Export
	file     importer.WrittenFile
	accounts []ads.Account // the warehouse's spelling, with the file's names where it knows them
	// newCampaigns are the IDs of the file's campaigns not known before it.
	newCampaigns map[string]bool
}

func (im *importRun) run(exports []*importer.Export) error {
	n, err := im.tablesPresent()
	if err != nil {
		return err
	}
	switch {
	case n == len(tables)+1:
		if !im.opt.DryRun {
			if err := upgradeIfBehind(im.ctx, im.c); err != nil {
				return err
			}
		}
	case im.opt.DryRun && n == 0:
		// Nothing to read, and a dry run creates nothing.
		im.fresh, im.res.Created = true, true
	default:
		if err := im.createTables(); err != nil {
			return err
		}
	}
	if !im.fresh {
		if err := im.checkDataset(); err != nil {
			return err
		}
		if err := im.loadAccounts(); err != nil {
			return err
		}
	} else {
		im.accounts = map[string]ads.Account{}
	}
	var plans []*plan
	seen := map[string]bool{}
	for _, ex := range exports {
		p, err := im.plan(ex, seen)
		if err != nil {
			return err
		}
		plans = append(plans, p)
		im.res.Files = append(im.res.Files, p.file)
	}
	if im.opt.DryRun {
		return nil
	}
	if im.res.DemoReplaced {
		if err := dropTables(im.ctx, im.c); err != nil {
			return err
		}
		if err := im.createTables(); err != nil {
			return err
		}
	}
	for _, p := range plans {
		if p.file.AlreadyImported {
			continue
		}
		if err := im.write(p); err != nil {
			return fmt.Errorf("%s: %w (importing it again completes it)", p.ex.File, err)
		}
	}
	return im.writeDataset()
}

// tablesPresent counts the warehouse's tables (and the ledger) that exist,
// 0 when the database itself does not.
func (im *importRun) tablesPresent() (int, error) {
	names := make([]string, 0, len(tables)+1)
	for _, t := range append(slices.Clone(tables), "imports") {
		names = append(names, literal(t))
	}
	out, err := im.c.server().do(im.ctx, "SELECT count() FROM system.tables WHERE database = "+literal(im.c.e.database)+
		" AND name IN ("+strings.Join(names, ", ")+")", nil)
	if err != nil {
		return 0, fmt.Errorf("clickhouse: looking for the warehouse's tables: %w", err)
	}
	var n int
	if _, err := fmt.Sscan(out, &n); err != nil {
		return 0, fmt.Errorf("clickhouse: looking for the warehouse's tables: %q", out)
	}
	return n, nil
}

func (im *importRun) createTables() error {
	if err := ensureSchema(im.ctx, im.c); err != nil {
		return err
	}
	if _, err := im.c.do(im.ctx, importDDL, nil); err != nil {
		return fmt.Errorf("clickhouse: create schema: %w", err)
	}
	return nil
}

func (im *importRun) query(q string, args ...any) (*sql.Rows, error) {
	return im.db.QueryContext(im.ctx, q, bindArgs(args)...)
}

func (im *importRun) queryRow(q string, args ...any) *sql.Row {
	return im.db.QueryRowContext(im.ctx, q, bindArgs(args)...)
}

func (im *importRun) checkDataset() error {
	var kind string
	err := im.db.QueryRowContext(im.ctx, `SELECT value FROM dataset WHERE key = 'kind' LIMIT 1`).Scan(&kind)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("clickhouse: reading the dataset description: %w", err)
	}
	var rows uint64
	if err := im.db.QueryRowContext(im.ctx, `SELECT (SELECT count() FROM accounts) + (SELECT count() FROM facts) + (SELECT count() FROM dataset)`).Scan(&rows); err != nil {
		return fmt.Errorf("clickhouse: reading the warehouse: %w", err)
	}
	switch {
	case rows == 0:
		im.res.Created = true
	case kind == "import":
	case !im.opt.ReplaceDemo:
		what := "the demo dataset"
		if kind != "demo" {
			what = fmt.Sprintf("data that was not imported (dataset kind %q)", kind)
		}
		return fmt.Errorf("%w: %s holds %s; pass --replace-demo to delete it and import, or --target another database",
			importer.ErrDemoData, im.res.Target, what)
	default:
		im.res.DemoReplaced, im.res.Created = true, true
	}
	return nil
}

func (im *importRun) loadAccounts() error {
	im.accounts = map[string]ads.Account{}
	if im.res.DemoReplaced {
		return nil
	}
	rows, err := im.query(`SELECT account_id, platform, account_name, currency, timezone, status FROM accounts`)
	if err != nil {
		return fmt.Errorf("clickhouse: reading the accounts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var a ads.Account
		if err := rows.Scan(&a.AccountID, &a.Platform, &a.AccountName, &a.Currency, &a.Timezone, &a.Status); err != nil {
			return err
		}
		im.accounts[ads.FoldID(a.AccountID)] = a
	}
	return rows.Err()
}

// plan checks a file against the warehouse and says what importing it does.
// seen holds the files of this import already planned (a file given twice is
// imported once).
func (im *importRun) plan(ex *importer.Export, seen map[string]bool) (*plan, error) {
	p := &plan{ex: ex, file: importer.WrittenFile{File: ex.File, SHA256: ex.SHA256}}
	if seen[ex.SHA256] {
		p.file.AlreadyImported, p.file.ImportedAt, p.file.ImportedAs = true, im.opt.Now.UTC(), filepath.Base(ex.File)
		return p, nil
	}
	seen[ex.SHA256] = true
	if !im.res.DemoReplaced && !im.fresh {
		var at time.Time
		var as string
		err := im.queryRow(`SELECT imported_at, file_name FROM imports WHERE sha256 = ? LIMIT 1`, ex.SHA256).Scan(&at, &as)
		switch {
		case err == nil:
			p.file.AlreadyImported, p.file.ImportedAt, p.file.ImportedAs = true, at.UTC(), as
			return p, nil
		case !errors.Is(err, sql.ErrNoRows):
			return nil, fmt.Errorf("clickhouse: reading the imports ledger: %w", err)
		}
	}
	for _, a := range ex.Accounts {
		old, known := im.accounts[ads.FoldID(a.AccountID)]
		if !known {
			im.accounts[ads.FoldID(a.AccountID)] = a.Account
			p.accounts = append(p.accounts, a.Account)
			p.file.NewAccounts = append(p.file.NewAccounts, a.AccountID)
			continue
		}
		if old.Platform != a.Platform {
			return nil, fmt.Errorf("%s: account %s is a %s account in the warehouse, and this is a %s export; fix: check --account-id, or --platform",
				ex.File, old.AccountID, old.Platform, a.Platform)
		}
		if old.Currency != a.Currency {
			return nil, fmt.Errorf("%s: account %s is in %s in the warehouse, and this file's money is in %s; fix: check --account-id and --currency (an account has one currency)",
				ex.File, old.AccountID, old.Currency, a.Currency)
		}
		if a.NameKnown {
			old.AccountName = a.AccountName
		}
		if a.TimezoneKnown {
			old.Timezone = a.Timezone
		}
		im.accounts[ads.FoldID(a.AccountID)] = old
		p.accounts = append(p.accounts, old)
	}
	p.file.FactsAdded, p.file.ReachAdded = int64(len(ex.Facts)), int64(len(ex.Reach))
	if !im.res.DemoReplaced && !im.fresh {
		if err := im.countReplaced(p); err != nil {
			return nil, err
		}
		if err := im.readCampaigns(p.accounts); err != nil {
			return nil, err
		}
	}
	p.newCampaigns = map[string]bool{}
	for _, c := range ex.Campaigns {
		if !im.campaigns[c.CampaignID] {
			im.campaigns[c.CampaignID], p.newCampaigns[c.CampaignID] = true, true
		}
	}
	p.file.NewCampaigns = int64(len(p.newCampaigns))
	return p, nil
}

// countReplaced says what importing p replaces: its accounts' facts and
// reach over its dates, and the campaigns there that the file lacks.
func (im *importRun) countReplaced(p *plan) error {
	ex := p.ex
	inFile := map[string]bool{}
	for _, c := range ex.Campaigns {
		inFile[c.CampaignID] = true
	}
	for _, a := range p.accounts {
		var facts, reach uint64
		if err := im.queryRow(`SELECT count() FROM facts WHERE account_id = ? AND date BETWEEN toDate(?) AND toDate(?)`,
			a.AccountID, ex.First, ex.Last).Scan(&facts); err != nil {
			return fmt.Errorf("clickhouse: counting the facts to replace: %w", err)
		}
		if err := im.queryRow(`SELECT count() FROM reach WHERE `+reachRange, reachArgs(a.AccountID, ex.First, ex.Last)...).Scan(&reach); err != nil {
			return fmt.Errorf("clickhouse: counting the reach to replace: %w", err)
		}
		p.file.FactsReplaced += int64(facts)
		p.file.ReachReplaced += int64(reach)
		dropped, err := im.droppedCampaigns(a.AccountID, ex.First, ex.Last, inFile)
		if err != nil {
			return err
		}
		p.file.Dropped = append(p.file.Dropped, dropped...)
	}
	return nil
}

// readCampaigns adds the warehouse's campaigns of accounts not read yet to
// im.campaigns.
func (im *importRun) readCampaigns(accounts []ads.Account) error {
	var ids []string
	for _, a := range accounts {
		if !im.campaignsRead[a.AccountID] {
			im.campaignsRead[a.AccountID] = true
			ids = append(ids, a.AccountID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	rows, err := im.query(`SELECT DISTINCT campaign_id FROM campaigns WHERE has(?, account_id)`, ids)
	if err != nil {
		return fmt.Errorf("clickhouse: reading the known campaigns: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		im.campaigns[id] = true
	}
	return rows.Err()
}

// reachRange selects the stored reach an import of [first, last] replaces:
// days in it, ISO weeks and months overlapping it (reach is stored per period).
const reachRange = `account_id = ? AND (
	grain = 'daily' AND period_start BETWEEN toDate(?) AND toDate(?) OR
	grain = 'weekly' AND period_start BETWEEN toDate(?) - 6 AND toDate(?) OR
	grain = 'monthly' AND period_start BETWEEN toStartOfMonth(toDate(?)) AND toDate(?))`

func reachArgs(account string, first, last time.Time) []any {
	return []any{account, first, last, first, last, first, last}
}

func accountIDs(accounts []ads.Account) []string {
	out := make([]string, len(accounts))
	for i, a := range accounts {
		out[i] = a.AccountID
	}
	return out
}

// droppedCampaigns are the campaigns of account with facts between first and
// last that the file does not have, by name then ID in byte order.
func (im *importRun) droppedCampaigns(account string, first, last time.Time, inFile map[string]bool) ([]string, error) {
	rows, err := im.query(`SELECT assumeNotNull(campaign_id), ifNull(any(campaign_name), assumeNotNull(campaign_id)) FROM facts
		WHERE account_id = ? AND date BETWEEN toDate(?) AND toDate(?) AND campaign_id IS NOT NULL
		GROUP BY campaign_id`, account, first, last)
	if err != nil {
		return nil, fmt.Errorf("clickhouse: reading the replaced campaigns: %w", err)
	}
	defer rows.Close()
	var out []importer.DroppedCampaign
	for rows.Next() {
		var c importer.DroppedCampaign
		if err := rows.Scan(&c.ID, &c.Name); err != nil {
			return nil, err
		}
		if !inFile[c.ID] {
			out = append(out, c)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return importer.DroppedNames(out), nil
}

// write replaces the file's accounts' facts and reach on its dates, writes
// its rows, and records it in the ledger, last.
func (im *importRun) write(p *plan) error {
	ex := p.ex
	ids := accountIDs(p.accounts)
	for _, a := range p.accounts {
		if err := im.mutate(`ALTER TABLE facts DELETE WHERE account_id = ? AND date BETWEEN toDate(?) AND toDate(?)`, a.AccountID, ex.First, ex.Last); err != nil {
			return fmt.Errorf("clickhouse: replacing facts: %w", err)
		}
		if err := im.mutate(`ALTER TABLE reach DELETE WHERE `+reachRange, reachArgs(a.AccountID, ex.First, ex.Last)...); err != nil {
			return fmt.Errorf("clickhouse: replacing reach: %w", err)
		}
	}
	if err := im.mutate(`ALTER TABLE accounts DELETE WHERE has(?, account_id)`, ids); err != nil {
		return fmt.Errorf("clickhouse: updating accounts: %w", err)
	}
	if err := im.waitMutations(); err != nil {
		return err
	}
	l := newLoader(im.ctx, im.c)
	for i, a := range ex.Accounts {
		l.Account(p.accounts[i]) //nolint:errcheck // never fails
		l.accounts[a.AccountID] = p.accounts[i]
	}
	for _, c := range ex.Campaigns {
		if i := slices.IndexFunc(ex.Accounts, func(a importer.Account) bool { return a.AccountID == c.AccountID }); i >= 0 {
			c.AccountID = p.accounts[i].AccountID // the warehouse's spelling
		}
		l.Campaign(c) //nolint:errcheck // never fails
	}
	l.newCampaigns = slices.DeleteFunc(l.newCampaigns, func(c ads.Campaign) bool { return !p.newCampaigns[c.CampaignID] })
	for _, s := range ex.AdSets {
		l.AdSet(s) //nolint:errcheck // never fails
	}
	for _, a := range ex.Ads {
		l.Ad(a) //nolint:errcheck // never fails
	}
	for i := range ex.Facts {
		if err := l.Fact(&ex.Facts[i]); err != nil {
			l.abort(err)
			return err
		}
	}
	for _, r := range ex.Reach {
		if err := l.Reach(r); err != nil {
			l.abort(err)
			return err
		}
	}
	if err := l.finishRows(); err != nil {
		return err
	}
	var accounts [][]string
	for _, a := range p.accounts {
		accounts = append(accounts, []string{a.AccountID, a.Platform, a.AccountName, a.Currency, a.Timezone, a.Status})
	}
	if err := im.insertRows("accounts", accounts); err != nil {
		return err
	}
	return im.insertRows("imports", [][]string{{ex.SHA256, filepath.Base(ex.File), ex.Platform, strings.Join(ids, ","),
		ex.First.Format(time.DateOnly), ex.Last.Format(time.DateOnly), fmt.Sprint(len(ex.Facts)), fmt.Sprint(len(ex.Reach)),
		fmt.Sprint(ex.SkippedLines()), im.opt.Now.UTC().Format(time.DateTime)}})
}

// writeDataset labels the warehouse as imported data, complete, with its
// first_date and last_date; complete=true is written last.
func (im *importRun) writeDataset() error {
	if !im.res.Created && !slices.ContainsFunc(im.res.Files, func(f importer.WrittenFile) bool { return !f.AlreadyImported }) {
		return nil
	}
	rows := [][]string{{"kind", "import"}, {"label", importer.Label}}
	var n uint64
	var first, last time.Time
	if err := im.db.QueryRowContext(im.ctx, `SELECT count(), min(date), max(date) FROM facts`).Scan(&n, &first, &last); err != nil {
		return fmt.Errorf("clickhouse: reading the imported dates: %w", err)
	}
	if n > 0 {
		rows = append(rows, []string{"first_date", first.Format(time.DateOnly)}, []string{"last_date", last.Format(time.DateOnly)})
	}
	if err := im.mutate(`ALTER TABLE dataset DELETE WHERE 1`); err != nil {
		return fmt.Errorf("clickhouse: updating the dataset description: %w", err)
	}
	if err := im.waitMutations(); err != nil {
		return err
	}
	if err := im.insertRows("dataset", rows); err != nil {
		return err
	}
	return im.insertRows("dataset", [][]string{{"complete", "true"}})
}

func (im *importRun) insertRows(table string, rows [][]string) error {
	return insertCSV(im.ctx, im.c, table, rows)
}

// mutate starts a mutation (ALTER … DELETE); waitMutations waits for it.
func (im *importRun) mutate(q string, args ...any) error {
	_, err := im.db.ExecContext(im.ctx, q, bindArgs(args)...)
	return err
}

// waitMutations waits until the database's mutations are done: ClickHouse
// applies them in the background, and rows written before they finish would
// be deleted by them.
func (im *importRun) waitMutations() error {
	for {
		var pending uint64
		if err := im.db.QueryRowContext(im.ctx, `SELECT count() FROM system.mutations WHERE database = currentDatabase() AND is_done = 0`).Scan(&pending); err != nil {
			return fmt.Errorf("clickhouse: waiting for deletes: %w", err)
		}
		if pending == 0 {
			return nil
		}
		select {
		case <-im.ctx.Done():
			return im.ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
