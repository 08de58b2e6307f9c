package clickhouse

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/source/migration"
)

// ErrNotEmpty is returned by Load when the warehouse already holds data.
var ErrNotEmpty = errors.New("clickhouse: the warehouse already holds data; load into an empty database (or drop its adsmcp tables)")

// tables are the tables of schema.sql, dropped by Drop.
var tables = []string{"dataset", "accounts", "campaigns", "facts", "reach"}

// Load creates the schema (schema.sql) and fills the warehouse at dsn with
// what produce sends its Sink. ClickHouse has no transactions, so the load
// is made all-or-nothing another way: facts stream into one INSERT as they
// come, the small tables follow, the complete=true dataset row is written
// last, and on any error every adsmcp table is dropped again, so a failed
// load leaves nothing behind. It is for tests, demos and one-off loads;
// adsmcp itself only reads.
func Load(ctx context.Context, dsn string, produce func(context.Context, ads.Sink) error) (err error) {
	c, err := newHTTPClient(dsn)
	if err != nil {
		return err
	}
	if err := ensureSchema(ctx, c); err != nil {
		return err
	}
	n, err := c.do(ctx, "SELECT count() FROM dataset", nil)
	if err != nil {
		return fmt.Errorf("clickhouse: load: %w", err)
	}
	if strings.TrimSpace(n) != "0" {
		return ErrNotEmpty
	}
	defer func() {
		if err != nil {
			dropTables(context.WithoutCancel(ctx), c) //nolint:errcheck // the first error is the one to report
		}
	}()
	l := newLoader(ctx, c)
	if err := produce(ctx, l); err != nil {
		l.abort(err)
		return err
	}
	return l.finish()
}

// LoadDemo loads the deterministic demo dataset described by cfg; progress,
// if not nil, is told how far the generator is (demo.ProgressLine.Update).
func LoadDemo(ctx context.Context, dsn string, cfg demo.Config, progress func(done, total int64)) error {
	return Load(ctx, dsn, func(ctx context.Context, sink ads.Sink) error {
		return demo.Generate(ctx, cfg, sink, progress)
	})
}

// Drop drops the warehouse's tables at dsn, for a reload.
func Drop(ctx context.Context, dsn string) error {
	c, err := newHTTPClient(dsn)
	if err != nil {
		return err
	}
	return dropTables(ctx, c)
}

func dropTables(ctx context.Context, c *httpClient) error {
	for _, t := range append(slices.Clone(tables), "sync_state", migration.VersionTable) {
		if _, err := c.do(ctx, "DROP TABLE IF EXISTS "+t, nil); err != nil {
			return fmt.Errorf("clickhouse: drop %s: %w", t, err)
		}
	}
	return nil
}

// loader is an ads.Sink that denormalizes as it goes: accounts, campaigns,
// ad sets and ads come first (every producer sends them first) and are kept
// in memory; each fact is written with their descriptive columns to a CSV
// stream that one HTTP INSERT reads while it is produced.
type loader struct {
	ctx          context.Context
	c            *httpClient
	dataset      [][2]string
	accounts     map[string]ads.Account
	order        []string
	campaigns    map[string]ads.Campaign
	newCampaigns []ads.Campaign    // in the order sent, for table campaigns
	adsets       map[string]string // adset_id → name
	adNames      map[string]string // ad_id → name
	reach        bytes.Buffer
	reachCSV     *csv.Writer
	// into are the tables facts and reach rows go to: "facts" and "reach",
	// or a sync's staging tables (sync.go).
	into struct{ facts, reach string }

	pipe   *io.PipeWriter
	buf    *bufio.Writer
	facts  *csv.Writer
	done   chan error
	record []string
}

func newLoader(ctx context.Context, c *httpClient) *loader {
	l := &loader{ctx: ctx, c: c, accounts: map[string]ads.Account{}, campaigns: map[string]ads.Campaign{},
		adsets: map[string]string{}, adNames: map[string]string{}}
	l.reachCSV = csv.NewWriter(&l.reach)
	l.into.facts, l.into.reach = "facts", "reach"
	return l
}

// null is ClickHouse's CSV NULL for the empty string, the producers' NULL.
func null(s string) string {
	if s == "" {
		return `\N`
	}
	return s
}

func (l *loader) Dataset(key, value string) error {
	l.dataset = append(l.dataset, [2]string{key, value})
	return nil
}

func (l *loader) Account(a ads.Account) error {
	if _, ok := l.accounts[a.AccountID]; !ok {
		l.order = append(l.order, a.AccountID)
	}
	l.accounts[a.AccountID] = a
	return nil
}

func (l *loader) Campaign(c ads.Campaign) error {
	l.campaigns[c.CampaignID] = c
	l.newCampaigns = append(l.newCampaigns, c)
	return nil
}
func (l *loader) AdSet(s ads.AdSet) error { l.adsets[s.AdSetID] = s.Name; return nil }
func (l *loader) Ad(a ads.Ad) error       { l.adNames[a.AdID] = a.Name; return nil }

// start opens the facts INSERT, streaming from a pipe.
func (l *loader) start() {
	pr, pw := io.Pipe()
	l.pipe, l.done = pw, make(chan error, 1)
	l.buf = bufio.NewWriterSize(pw, 1<<16)
	l.facts = csv.NewWriter(l.buf)
	go func() {
		_, err := l.c.do(l.ctx, "INSERT INTO "+l.into.facts+" ("+insertFactsColumns+") FORMAT CSV", pr)
		pr.CloseWithError(err)
		l.done <- err
	}()
}

func (l *loader) Fact(f *ads.Fact) error {
	a, ok := l.accounts[f.AccountID]
	if !ok {
		return fmt.Errorf("clickhouse: load: a fact of account %q, which was not sent first", f.AccountID)
	}
	if l.facts == nil {
		l.start()
	}
	var c ads.Campaign
	if f.CampaignID != "" {
		c = l.campaigns[f.CampaignID]
	}
	l.record = append(l.record[:0],
		f.Date.Format(time.DateOnly), a.AccountID, a.Platform, a.AccountName, a.Currency,
		null(f.CampaignID), null(c.Name), null(c.Objective), null(c.Status),
		null(f.AdSetID), null(l.adsets[f.AdSetID]), null(f.AdID), null(l.adNames[f.AdID]),
		null(f.Country), null(f.Device), null(f.PublisherPlatform),
		f.BreakdownKey(), null(f.Age), null(f.Gender), null(f.Placement), null(f.ConversionAction), null(a.AttributionWindow))
	l.record = appendMeasures(l.record, f)
	if err := l.facts.Write(l.record); err != nil {
		return fmt.Errorf("clickhouse: load facts: %w", err)
	}
	return nil
}

// factColumns are the facts table's measure columns, in the order
// appendMeasures writes them after the descriptive columns.
var factColumns = catalog.FactColumns()

// insertFactsColumns are the columns Fact writes: the descriptive ones, then
// the catalog's measures.
var insertFactsColumns = func() string {
	cols := []string{"date", "account_id", "platform", "account_name", "currency",
		"campaign_id", "campaign_name", "campaign_objective", "campaign_status",
		"adset_id", "adset_name", "ad_id", "ad_name", "country", "device", "publisher_platform",
		"breakdown", "age", "gender", "placement", "conversion_action", "attribution_window"}
	for _, c := range factColumns {
		cols = append(cols, c.Name)
	}
	return strings.Join(cols, ", ")
}()

// appendMeasures appends a fact's measures as CSV fields: money and counts as
// integers, a measure its platform does not report as NULL.
func appendMeasures(record []string, f *ads.Fact) []string {
	for _, c := range factColumns {
		v := f.Measures[c.Measure]
		switch {
		case v == ads.NotReported && c.Nullable:
			record = append(record, `\N`)
		case c.Kind == catalog.Double:
			record = append(record, strconv.FormatFloat(v, 'f', -1, 64))
		default:
			record = append(record, strconv.FormatInt(int64(v), 10))
		}
	}
	return record
}

func (l *loader) Reach(r ads.Reach) error {
	a, ok := l.accounts[r.AccountID]
	if !ok {
		return fmt.Errorf("clickhouse: load: reach of account %q, which was not sent first", r.AccountID)
	}
	var c ads.Campaign
	campaignID := ""
	if r.Level == "campaign" {
		c, campaignID = l.campaigns[r.ObjectID], r.ObjectID
	}
	objectID := r.ObjectID
	if r.Level == "account" {
		objectID = a.AccountID
	}
	return l.reachCSV.Write([]string{r.Level, objectID, a.AccountID, r.Grain, r.PeriodStart.Format(time.DateOnly),
		strconv.FormatInt(r.Reach, 10), a.Platform, a.AccountName, a.Currency,
		null(campaignID), null(c.Name), null(c.Objective), null(c.Status), null(a.AttributionWindow)})
}

// abort ends the facts INSERT with err, so the server discards what it read.
func (l *loader) abort(err error) {
	if l.pipe != nil {
		l.pipe.CloseWithError(err)
		<-l.done
	}
}

// finish completes the facts INSERT, then writes accounts, reach and, last,
// the dataset rows with complete=true.
func (l *loader) finish() error {
	if err := l.finishRows(); err != nil {
		return err
	}
	accounts := make([][]string, 0, len(l.order))
	for _, id := range l.order {
		a := l.accounts[id]
		accounts = append(accounts, []string{a.AccountID, a.Platform, a.AccountName, a.Currency, a.Timezone, a.Status,
			null(a.AttributionWindow), null(a.ConversionActions)})
	}
	if err := insertCSV(l.ctx, l.c, "accounts", accounts); err != nil {
		return err
	}
	var dataset [][]string
	for _, kv := range l.dataset {
		if kv[0] != "complete" {
			dataset = append(dataset, kv[:])
		}
	}
	return insertCSV(l.ctx, l.c, "dataset", append(dataset, []string{"complete", "true"}))
}

// finishRows completes the facts INSERT, then writes the reach rows and
// the campaigns.
func (l *loader) finishRows() error {
	if l.facts != nil {
		l.facts.Flush()
		err := l.facts.Error()
		if err == nil {
			err = l.buf.Flush()
		}
		if err != nil {
			l.abort(err)
			return fmt.Errorf("clickhouse: load facts: %w", err)
		}
		l.pipe.Close()
		if err := <-l.done; err != nil {
			return fmt.Errorf("clickhouse: load facts: %w", err)
		}
	}
	l.reachCSV.Flush()
	if l.reach.Len() > 0 {
		if _, err := l.c.do(l.ctx, "INSERT INTO "+l.into.reach+" FORMAT CSV", &l.reach); err != nil {
			return fmt.Errorf("clickhouse: load reach: %w", err)
		}
	}
	campaigns := make([][]string, 0, len(l.newCampaigns))
	for _, c := range l.newCampaigns {
		campaigns = append(campaigns, []string{c.CampaignID, c.AccountID, null(c.Name), null(c.Objective), null(c.Status), nullDate(c.StartDate), nullDate(c.EndDate)})
	}
	return insertCSV(l.ctx, l.c, "campaigns", campaigns)
}

// nullDate is a date for CSV, the zero time (the producers' NULL) as NULL.
func nullDate(t time.Time) string {
	if t.IsZero() {
		return `\N`
	}
	return t.Format(time.DateOnly)
}

// CreateDatabase creates the database dsn names, when it does not exist.
func CreateDatabase(ctx context.Context, dsn string) error {
	c, err := newHTTPClient(dsn)
	if err != nil {
		return err
	}
	name := c.e.database
	// A name is an identifier, not a value: quote it as one.
	if _, err := c.server().do(ctx, "CREATE DATABASE IF NOT EXISTS `"+strings.ReplaceAll(name, "`", "``")+"`", nil); err != nil {
		return fmt.Errorf("clickhouse: create database %s: %w", name, err)
	}
	return nil
}

// DropDatabase drops the database dsn names, when it exists.
func DropDatabase(ctx context.Context, dsn string) error {
	c, err := newHTTPClient(dsn)
	if err != nil {
		return err
	}
	name := c.e.database
	if _, err := c.server().do(ctx, "DROP DATABASE IF EXISTS `"+strings.ReplaceAll(name, "`", "``")+"`", nil); err != nil {
		return fmt.Errorf("clickhouse: drop database %s: %w", name, err)
	}
	return nil
}

// DatabaseExists says whether the database dsn names exists.
func DatabaseExists(ctx context.Context, dsn string) (bool, error) {
	c, err := newHTTPClient(dsn)
	if err != nil {
		return false, err
	}
	name := c.e.database
	out, err := c.server().do(ctx, "SELECT count() FROM system.databases WHERE name = "+literal(name), nil)
	if err != nil {
		return false, fmt.Errorf("clickhouse: look for database %s: %w", name, err)
	}
	return strings.TrimSpace(out) == "1", nil
}

// literal is s as a ClickHouse string literal, for the HTTP interface's
// statements (which take no parameters on older servers).
func literal(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
