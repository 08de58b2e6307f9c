package sourcetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
)

// The import conformance suite: the same imports, with the same checks, into
// every warehouse (RunImport), each compared with a reference warehouse
// (DuckDB) where reports and answers must match exactly.

// ImportWarehouse is a warehouse kind under the import suite.
type ImportWarehouse struct {
	// Fresh makes a new, empty warehouse, removed when the test ends.
	Fresh func(t *testing.T) ImportTarget
	// NamesPerFact: the warehouse stores names on each fact and has no ad
	// set or ad tables (ClickHouse), so a campaign renamed by a later import
	// keeps its old name on the days that import does not cover.
	NamesPerFact bool
}

// ImportTarget is one warehouse of the suite.
type ImportTarget interface {
	// Name is how reports and errors name the warehouse.
	Name() string
	Import(ctx context.Context, exports []*importer.Export, opt importer.WriteOptions) (*importer.WriteResult, error)
	// LoadDemo fills the (empty) warehouse with the demo dataset.
	LoadDemo(ctx context.Context, cfg demo.Config) error
	// Open opens the warehouse as a source; the suite closes it before the
	// next import.
	Open(t *testing.T) DatasetSource
	// Snapshot is everything an import writes — every table, the ledger
	// included, "none" for one that does not exist — to tell whether an
	// import changed the warehouse.
	Snapshot(t *testing.T) string
	// Count runs a query of one integer (SELECT count(*) …, with literal
	// values), written in the SQL all three warehouses read alike.
	Count(t *testing.T, query string) int64
}

// DatasetSource is a source that describes its dataset.
type DatasetSource interface {
	source.Source
	Dataset(ctx context.Context) (map[string]string, error)
	Close() error
}

// RunImport runs every import case on w, comparing with ref (which may be w).
func RunImport(t *testing.T, w, ref ImportWarehouse) {
	for _, c := range importCases {
		t.Run(c.name, func(t *testing.T) { c.run(t, w, ref) })
	}
}

type importCase struct {
	name string
	run  func(t *testing.T, w, ref ImportWarehouse)
}

// importNow stamps the imports that are compared across warehouses.
var importNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

const metaAccount = "act_1015823746512093"

// importTestdata is the importer's sample exports.
func importTestdata(t *testing.T, name string) []byte {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	data, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "importer", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// parse parses data (nil: the sample export name) as file name.
func parse(t *testing.T, name string, data []byte, opt importer.Options) *importer.Export {
	t.Helper()
	if data == nil {
		data = importTestdata(t, name)
	}
	ex, err := importer.Parse(name, data, opt)
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return ex
}

// sampleExports are every well-formed sample export, with the options each needs.
func sampleExports(t *testing.T) []*importer.Export {
	return []*importer.Export{
		parse(t, "meta_en_campaigns_daily.csv", nil, importer.Options{}),
		parse(t, "google_en_campaigns_daily.csv", nil, importer.Options{AccountID: "111-222-3333", AccountName: "Brand Co - Search", Timezone: "America/New_York"}),
		parse(t, "meta_es_adsets_daily.csv", nil, importer.Options{AccountID: "2284619037465520", AccountName: "Lumen Outdoor EU", Timezone: "Europe/Berlin"}),
		parse(t, "google_es_semicolon.csv", nil, importer.Options{AccountID: "111-222-3334", Timezone: "Europe/Madrid"}),
		parse(t, "tiktok_en_campaigns_daily.csv", nil, importer.Options{Timezone: "America/Los_Angeles"}),
		parse(t, "tiktok_en_adgroups_daily.csv", nil, tiktokAdGroupOptions),
	}
}

// tiktokAdGroupOptions are what the TikTok ad group sample (no account columns) needs.
var tiktokAdGroupOptions = importer.Options{AccountID: tiktokAdGroupAccount, AccountName: "Lumen Outdoor ES", Timezone: "Europe/Madrid"}

const (
	tiktokAccount        = "7201845539016472318" // the TikTok campaign sample's advertiser
	tiktokAdGroupAccount = "7301122334455667788"
)

func mustImport(t *testing.T, w ImportTarget, opt importer.WriteOptions, exports ...*importer.Export) *importer.WriteResult {
	t.Helper()
	res, err := w.Import(context.Background(), exports, opt)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	return res
}

// importQueries are answered alike by every warehouse holding the sample exports.
var importQueries = []string{
	`{"account_ids":["act_1015823746512093"],"metrics":["spend","impressions","clicks","link_clicks","conversions","conversion_value","ctr","roas"],"date_range":{"start":"2026-01-01","end":"2026-01-03"}}`,
	`{"account_ids":["act_1015823746512093"],"metrics":["reach","spend","frequency"],"dimensions":["campaign_name"],"time_granularity":"daily","date_range":{"start":"2026-01-01","end":"2026-01-03"}}`,
	`{"account_ids":["111-222-3333","111-222-3334"],"metrics":["spend","conversions","conversion_value","cpc"],"dimensions":["account_name","campaign_name","campaign_status"],"date_range":{"start":"2026-01-01","end":"2026-02-28"},"sort":[{"field":"spend","direction":"desc"}]}`,
	`{"account_ids":["act_2284619037465520"],"metrics":["spend","link_clicks","conversions"],"dimensions":["adset_name"],"time_granularity":"daily","date_range":{"start":"2026-02-01","end":"2026-02-02"}}`,
	`{"account_ids":["act_1015823746512093","111-222-3333","act_2284619037465520","111-222-3334"],"metrics":["spend","impressions","cpm"],"dimensions":["currency","platform"],"time_granularity":"monthly","date_range":{"start":"2026-01-01","end":"2026-02-28"}}`,
	`{"account_ids":["7201845539016472318"],"metrics":["reach","spend","clicks","link_clicks","conversions","conversion_value","video_views","video_views_p100","frequency","roas"],"dimensions":["campaign_name","campaign_objective","campaign_status"],"time_granularity":"daily","date_range":{"start":"2026-01-05","end":"2026-01-07"}}`,
	`{"account_ids":["7301122334455667788","7201845539016472318"],"metrics":["spend","impressions","ctr","cpa"],"dimensions":["account_name","adset_name","currency","platform"],"date_range":{"start":"2026-01-05","end":"2026-01-07"}}`,
}

// answers are the warehouse's accounts, dataset description and answers to
// the queries, as adsmcp reads them.
func answers(t *testing.T, w ImportTarget, raws ...string) string {
	t.Helper()
	src := w.Open(t)
	defer src.Close()
	ctx := context.Background()
	accounts, err := src.Accounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	info, err := src.Dataset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "accounts %v\ndataset %v\n", accounts, info)
	for _, raw := range raws {
		b.WriteString(answer(t, src, raw))
	}
	return b.String()
}

// answer is src's answer to one query, as Dump shows it.
func answer(t *testing.T, src source.Source, raw string) string {
	t.Helper()
	return Dump(t, queryTable(t, src, raw))
}

// queryTable is src's answer to one query.
func queryTable(t *testing.T, src source.Source, raw string) *fit.Table {
	t.Helper()
	tab, err := queryRaw(src, raw)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// queryRaw is queryTable's answer or error, for a goroutine that may not
// fail the test.
func queryRaw(src source.Source, raw string) (*fit.Table, error) {
	accounts, err := src.Accounts(context.Background())
	if err != nil {
		return nil, err
	}
	q, err := query.ParseAndNormalize([]byte(raw), query.Options{Accounts: accounts, Now: func() time.Time { return importNow }})
	if err != nil {
		return nil, fmt.Errorf("normalize %s: %w", raw, err)
	}
	tab, err := src.Query(context.Background(), q)
	if err != nil {
		return nil, fmt.Errorf("%T: %w", src, err)
	}
	return tab, nil
}

// sameReports fails when the file reports differ (ImportedAt aside: each
// warehouse stores it at its own precision).
func sameReports(t *testing.T, what string, want, got []importer.WrittenFile) {
	t.Helper()
	norm := func(fs []importer.WrittenFile) string {
		var b strings.Builder
		for _, f := range fs {
			if f.AlreadyImported {
				f.ImportedAt = time.Time{}
			}
			fmt.Fprintf(&b, "%+v\n", f)
		}
		return b.String()
	}
	if a, b := norm(want), norm(got); a != b {
		t.Errorf("%s: reports differ:\nreference %s\ngot       %s", what, a, b)
	}
}

// factSums are a warehouse's fact totals for an account.
type factSums struct {
	facts, spend, value, impressions int64
	conversions                      float64
}

func sumsOf(t *testing.T, w ImportTarget, account string) factSums {
	t.Helper()
	where := " FROM facts WHERE account_id = '" + account + "'"
	return factSums{
		facts:       w.Count(t, "SELECT count(*)"+where),
		spend:       w.Count(t, "SELECT coalesce(sum(spend_micros), 0)"+where),
		value:       w.Count(t, "SELECT coalesce(sum(conversion_value_micros), 0)"+where),
		impressions: w.Count(t, "SELECT coalesce(sum(impressions), 0)"+where),
		conversions: float64(w.Count(t, "SELECT CAST(round(coalesce(sum(conversions), 0) * 100) AS BIGINT)"+where)) / 100,
	}
}
