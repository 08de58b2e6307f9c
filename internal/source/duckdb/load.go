package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/demo"
)

// ErrNotEmpty is returned by Load when the warehouse already holds data: loading on
// top would duplicate every row.
var ErrNotEmpty = errors.New("duckdb: the warehouse already holds data; load the demo data into an empty one")

// CompleteKey = CompleteValue is the dataset row Load writes last, in the same
// transaction as everything else: a warehouse holds a complete dataset exactly when
// the row is there (see Loaded).
const (
	CompleteKey   = "complete"
	CompleteValue = "true"
)

// Load creates the schema and fills the warehouse with the demo dataset described by
// cfg, through DuckDB's bulk Appender (millions of rows in seconds, where INSERTs
// would take minutes).
//
// Everything — the DDL, every row and the final complete=true dataset row — runs
// in one transaction on one connection: on any error, cancellation included, it is
// rolled back and the warehouse is left as it was, never half filled. After the
// commit a CHECKPOINT moves the data from the write-ahead log into the database
// file, so the next open does not replay it.
//
// Facts are staged first (see Staging below) and then copied into facts by one
// INSERT … SELECT in the order they arrived — account by account and, within an
// account, by date: DuckDB's per-row-group min/max (zone maps) then let queries
// filtering by account_id and a date range skip almost all of the table.
//
// progress, if not nil, gets one line updated in place ("\rgenerating demo data:
// 1.2M/3.3M rows (36%)"), ended by a newline and a summary of rows and seconds.
func Load(ctx context.Context, db *sql.DB, cfg demo.Config, progress io.Writer) error {
	start := time.Now()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	l := &loader{ctx: ctx, out: demo.NewProgressLine(progress)}
	err = conn.Raw(func(dc any) error {
		c, ok := dc.(driver.Conn)
		if !ok {
			return fmt.Errorf("duckdb: unexpected driver connection %T", dc)
		}
		l.conn = c
		return l.load(func(ctx context.Context, sink ads.Sink) error {
			return demo.Generate(ctx, cfg, sink, l.out.Update)
		})
	})
	if err != nil {
		l.out.Finish()
		return err
	}
	if _, err := conn.ExecContext(ctx, "CHECKPOINT"); err != nil {
		return fmt.Errorf("duckdb: checkpoint after loading the demo data: %w", err)
	}
	if progress != nil {
		l.out.Line(fmt.Sprintf("loaded demo data: %s facts, %s reach rows, %d accounts, %s campaigns, %s ad sets, %s ads in %.1fs",
			thousands(l.n.facts), thousands(l.n.reach), l.n.accounts, thousands(l.n.campaigns),
			thousands(l.n.adsets), thousands(l.n.ads), time.Since(start).Seconds()))
		fmt.Fprintln(progress)
	}
	return nil
}

// Loaded reports whether the warehouse holds a complete demo (or other) dataset:
// the complete=true row Load writes last. A missing schema counts as not loaded.
func Loaded(ctx context.Context, db *sql.DB) (bool, error) {
	var n int
	err := db.QueryRowContext(ctx,
		`SELECT count(*) FROM duckdb_tables() WHERE table_name = 'dataset' AND schema_name = 'main'`).Scan(&n)
	if err != nil || n == 0 {
		return false, err
	}
	err = db.QueryRowContext(ctx, `SELECT count(*) FROM dataset WHERE key = ? AND value = ?`,
		CompleteKey, CompleteValue).Scan(&n)
	return n > 0, err
}

// counts are the rows appended per table.
type counts struct {
	dataset, accounts, campaigns, adsets, ads, facts, reach int64
}

// loader is a demo.Sink that appends each row to its table. The generator sends one
// table at a time, so one appender is open at a time; switching tables closes it.
type loader struct {
	ctx   context.Context
	conn  driver.Conn
	table string
	app   *duckdb.Appender
	row   []driver.Value // reused for every row
	n     counts

	codes    codes        // the strings of staged facts
	lastDate time.Time    // the date of the previous fact,
	lastDay  driver.Value // and its day number since 1970-01-01, boxed

	out *demo.ProgressLine // the progress line (shows nothing without a writer)
}

func (l *loader) exec(ctx context.Context, q string) error {
	_, err := l.conn.(driver.ExecerContext).ExecContext(ctx, q, nil)
	return err
}

func (l *loader) load(produce func(context.Context, ads.Sink) error) (err error) {
	if err := l.exec(l.ctx, "BEGIN TRANSACTION"); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			if l.app != nil {
				l.app.Close() // its error is the one we already have, or a consequence
				l.app = nil
			}
			// The context may be what failed: roll back regardless.
			if rbErr := l.exec(context.Background(), "ROLLBACK"); rbErr != nil {
				err = errors.Join(err, rbErr)
			}
		}
	}()
	if err := ensureSchema(l.ctx, driverExecutor{l.conn}); err != nil {
		return err
	}
	if err := l.ensureEmpty(); err != nil {
		return err
	}
	if err := l.exec(l.ctx, stageDDL); err != nil {
		return fmt.Errorf("duckdb: creating the staging tables: %w", err)
	}
	if err := produce(l.ctx, l); err != nil {
		return err
	}
	if err := l.copyFacts(); err != nil {
		return err
	}
	if err := l.Dataset(CompleteKey, CompleteValue); err != nil {
		return err
	}
	if err := l.closeAppender(); err != nil {
		return err
	}
	if err := l.exec(l.ctx, "DROP TABLE temp.main."+stageFacts+"; DROP TABLE temp.main."+stageCodes); err != nil {
		return err
	}
	return l.exec(l.ctx, "COMMIT")
}

func (l *loader) ensureEmpty() error {
	rows, err := l.conn.(driver.QueryerContext).QueryContext(l.ctx,
		`SELECT (SELECT count(*) FROM dataset) + (SELECT count(*) FROM accounts) + (SELECT count(*) FROM facts)`, nil)
	if err != nil {
		return err
	}
	defer rows.Close()
	v := make([]driver.Value, 1)
	if err := rows.Next(v); err != nil {
		return err
	}
	if n, ok := v[0].(int64); !ok || n != 0 {
		return ErrNotEmpty
	}
	return nil
}

// appendRow appends the first n values of l.row to table (a staging table if its
// name is one of theirs).
func (l *loader) appendRow(table string, n int) error {
	if l.table != table {
		if err := l.closeAppender(); err != nil {
			return err
		}
		catalog := ""
		if table == stageFacts || table == stageCodes {
			catalog = "temp"
		}
		app, err := duckdb.NewAppender(l.conn, catalog, "main", table)
		if err != nil {
			return fmt.Errorf("duckdb: appender for %s: %w", table, err)
		}
		l.app, l.table = app, table
	}
	return l.app.AppendRow(l.row[:n]...)
}

func (l *loader) closeAppender() error {
	if l.app == nil {
		return nil
	}
	err := l.app.Close()
	l.app, l.table = nil, ""
	if err != nil {
		return fmt.Errorf("duckdb: appending: %w", err)
	}
	return nil
}

// set fills l.row with vals, for the small tables.
func (l *loader) set(vals ...driver.Value) int {
	if cap(l.row) < len(vals) {
		l.row = make([]driver.Value, 16)
	}
	l.row = l.row[:cap(l.row)]
	return copy(l.row, vals)
}

// null maps the empty string, the demo's NULL, to SQL NULL.
func null(s string) driver.Value {
	if s == "" {
		return nil
	}
	return s
}

// date maps the zero time, the demo's NULL date, to SQL NULL.
func date(t time.Time) driver.Value {
	if t.IsZero() {
		return nil
	}
	return t
}

func (l *loader) Dataset(key, value string) error {
	l.n.dataset++
	return l.appendRow("dataset", l.set(key, value))
}

func (l *loader) Account(a ads.Account) error {
	l.n.accounts++
	return l.appendRow("accounts", l.set(a.AccountID, a.Platform, a.AccountName, a.Currency, a.Timezone, a.Status,
		null(a.AttributionWindow), null(a.ConversionActions)))
}

func (l *loader) Campaign(c demo.Campaign) error {
	l.n.campaigns++
	return l.appendRow("campaigns", l.set(c.CampaignID, c.AccountID, null(c.Name), null(c.Objective),
		null(c.Status), date(c.StartDate), date(c.EndDate)))
}

func (l *loader) AdSet(s demo.AdSet) error {
	l.n.adsets++
	return l.appendRow("adsets", l.set(s.AdSetID, s.CampaignID, s.AccountID, null(s.Name)))
}

func (l *loader) Ad(a demo.Ad) error {
	l.n.ads++
	return l.appendRow("ads", l.set(a.AdID, a.AdSetID, a.CampaignID, a.AccountID, null(a.Name)))
}

// Fact is the hot path: it stages the fact as numbers only (see Staging below); codes
// and days are boxed into driver.Values once, not per row.
func (l *loader) Fact(f *demo.Fact) error {
	l.n.facts++
	if cap(l.row) < stagedWidth {
		l.row = make([]driver.Value, stagedWidth)
	}
	r := l.row[:stagedWidth]
	if !f.Date.Equal(l.lastDate) {
		l.lastDate, l.lastDay = f.Date, int32(f.Date.Unix()/86400)
	}
	r[0] = l.lastDay
	for i, v := range f.Texts() {
		r[1+i] = l.codes.of(v)
	}
	for m, v := range f.Measures {
		if doubleMeasure[m] {
			r[stagedDims+m] = v
		} else {
			r[stagedDims+m] = int64(v)
		}
	}
	return l.appendRow(stageFacts, stagedWidth)
}

func (l *loader) Reach(r demo.Reach) error {
	l.n.reach++
	return l.appendRow("reach", l.set(r.Level, r.ObjectID, r.AccountID, r.Grain, r.PeriodStart, r.Reach))
}

// thousands formats n with comma separators: 3,266,273.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Staging: DuckDB's Appender costs one cgo call per string value, and a fact has
// eight of them — at three million facts that was most of the load time. So facts
// are appended as numbers only (a day number, and a code per string: numbers are
// written straight into the appender's vectors, with no call into DuckDB), the
// strings go once each into a small code table, and a single INSERT … SELECT joins
// them back inside DuckDB, in parallel, in the order the facts arrived. Both staging
// tables are TEMP (in memory, never in the database file) and dropped before the
// commit.

const (
	stageFacts = "adsmcp_stage_facts"
	stageCodes = "adsmcp_stage_codes"
)

// A staged fact is the day, the codes of its stagedDims-1 strings, then its
// measures in catalog order (catalog.FactColumns).
const (
	stagedDims  = 1 + ads.NumFactTexts
	stagedWidth = stagedDims + int(catalog.NumMeasures)
)

// doubleMeasure says which measures are staged as DOUBLE (the others as BIGINT).
var doubleMeasure = func() (d [catalog.NumMeasures]bool) {
	for _, c := range catalog.FactColumns() {
		d[c.Measure] = c.Kind == catalog.Double
	}
	return d
}()

// measureType is the DuckDB type of a measure column of this kind.
func measureType(k catalog.ColumnKind) string {
	if k == catalog.Double {
		return "DOUBLE"
	}
	return "BIGINT"
}

// stageDDL: code 0 is NULL (no row in the codes table, so the LEFT JOIN gives NULL);
// a measure of -1 in a nullable column is NULL (demo.NotReported).
var stageDDL = func() string {
	var cols []string
	for _, c := range catalog.FactColumns() {
		cols = append(cols, c.Name+" "+measureType(c.Kind)+" NOT NULL")
	}
	var texts []string
	for _, t := range ads.FactTextColumns {
		texts = append(texts, "t_"+t+" INTEGER NOT NULL")
	}
	return `
CREATE TEMP TABLE ` + stageFacts + ` (
	day INTEGER NOT NULL, ` + strings.Join(texts, ", ") + `,
	` + strings.Join(cols, ", ") + `
);
CREATE TEMP TABLE ` + stageCodes + ` (code INTEGER PRIMARY KEY, value VARCHAR NOT NULL);
`
}()

// copyFactsSQL expands the staged facts into the facts table: the delivery
// rows first, then the other breakdown sets' rows, each in staging order
// (account by account, each in date order). So a query of the delivery rows
// (most queries) skips the row groups of the other sets by their zone maps,
// instead of reading the whole table. The ORDER BY is needed: hash joins do
// not keep their input's order (the load test checks the physical order).
var copyFactsSQL = func() string {
	names, values := []string{}, []string{}
	for _, c := range catalog.FactColumns() {
		names = append(names, c.Name)
		v := "s." + c.Name
		if c.Nullable {
			v = "NULLIF(" + v + ", -1)"
		}
		values = append(values, v)
	}
	// The account's code is never 0, nor the breakdown's: an inner join; every
	// other text is NULL when empty (code 0, no row in the codes table).
	var texts, joins []string
	for i, t := range ads.FactTextColumns {
		texts = append(texts, t)
		join := "LEFT JOIN"
		if i == 0 || i == ads.FactBreakdownColumn {
			join = "JOIN"
		}
		joins = append(joins, fmt.Sprintf("%s temp.main.%s x%d ON x%d.code = s.t_%s", join, stageCodes, i, i, t))
	}
	var picks []string
	for i := range ads.FactTextColumns {
		picks = append(picks, fmt.Sprintf("x%d.value", i))
	}
	return fmt.Sprintf(`
INSERT INTO facts (date, %[2]s, %[3]s)
SELECT DATE '1970-01-01' + s.day, %[4]s,
	%[5]s
FROM temp.main.%[1]s s
%[6]s
ORDER BY x%[7]d.value <> '%[8]s', s.rowid`, stageFacts, strings.Join(texts, ", "), strings.Join(names, ", "), strings.Join(picks, ", "),
		strings.Join(values, ", "), strings.Join(joins, "\n"), ads.FactBreakdownColumn, catalog.Delivery)
}()

// codes numbers the distinct strings of the staged facts from 1; "" is 0.
type codes struct {
	index  map[string]int32
	values []string       // values[code-1]
	boxed  []driver.Value // boxed[code]: the code as a driver.Value, boxed once
}

// of returns s's code, boxed.
func (c *codes) of(s string) driver.Value {
	if c.index == nil {
		c.index = map[string]int32{}
		c.boxed = []driver.Value{int32(0)}
	}
	if s == "" {
		return c.boxed[0]
	}
	code, ok := c.index[s]
	if !ok {
		c.values = append(c.values, s)
		code = int32(len(c.values))
		c.index[s] = code
		c.boxed = append(c.boxed, code)
	}
	return c.boxed[code]
}

// copyFacts writes the code table and expands the staged facts into facts.
func (l *loader) copyFacts() error {
	if l.out.On() {
		l.out.Line(fmt.Sprintf("generating demo data: %s rows; writing the facts table", demo.ShortCount(l.n.facts)))
	}
	for i, v := range l.codes.values {
		if err := l.appendRow(stageCodes, l.set(int32(i+1), v)); err != nil {
			return err
		}
	}
	if err := l.closeAppender(); err != nil {
		return err
	}
	if err := l.exec(l.ctx, copyFactsSQL); err != nil {
		return fmt.Errorf("duckdb: copying the staged facts: %w", err)
	}
	return nil
}
