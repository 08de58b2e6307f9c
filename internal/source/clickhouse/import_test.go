package clickhouse_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/clickhouse"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
	"github.com/adsmcp/adsmcp/internal/source/sourcetest"
)

// The importer's sample exports.
const importTestdata = "../../importer/testdata/"

func parseExport(t *testing.T, name string, data []byte, opt importer.Options) *importer.Export {
	t.Helper()
	if data == nil {
		var err error
		if data, err = os.ReadFile(importTestdata + name); err != nil {
			t.Fatal(err)
		}
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
		parseExport(t, "meta_en_campaigns_daily.csv", nil, importer.Options{}),
		parseExport(t, "google_en_campaigns_daily.csv", nil, importer.Options{AccountID: "111-222-3333", AccountName: "Brand Co - Search", Timezone: "America/New_York"}),
		parseExport(t, "meta_es_adsets_daily.csv", nil, importer.Options{AccountID: "2284619037465520", AccountName: "Lumen Outdoor EU", Timezone: "Europe/Berlin"}),
		parseExport(t, "google_es_semicolon.csv", nil, importer.Options{AccountID: "111-222-3334", Timezone: "Europe/Madrid"}),
	}
}

func mustImport(t *testing.T, dsn string, opt importer.WriteOptions, exports ...*importer.Export) *importer.WriteResult {
	t.Helper()
	res, err := clickhouse.Import(context.Background(), dsn, exports, opt)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	return res
}

func open(t *testing.T, dsn string) *clickhouse.Source {
	t.Helper()
	src, err := clickhouse.Open(context.Background(), clickhouse.Options{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

// dump is every answer of the queries: what the warehouse holds, as adsmcp
// reads it.
func dump(t *testing.T, src interface {
	source.Source
	Dataset(context.Context) (map[string]string, error)
}, raws ...string) string {
	t.Helper()
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
		q, err := query.ParseAndNormalize([]byte(raw), query.Options{Accounts: accounts, Now: func() time.Time { return importNow }})
		if err != nil {
			t.Fatalf("normalize %s: %v", raw, err)
		}
		tab, err := src.Query(ctx, q)
		if err != nil {
			t.Fatalf("%T: %v", src, err)
		}
		b.WriteString(sourcetest.Dump(t, tab))
	}
	return b.String()
}

var importNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

var importQueries = []string{
	`{"account_ids":["act_1015823746512093"],"metrics":["spend","impressions","clicks","link_clicks","conversions","conversion_value","ctr","roas"],"date_range":{"start":"2026-01-01","end":"2026-01-03"}}`,
	`{"account_ids":["act_1015823746512093"],"metrics":["reach","spend","frequency"],"dimensions":["campaign_name"],"time_granularity":"daily","date_range":{"start":"2026-01-01","end":"2026-01-03"}}`,
	`{"account_ids":["111-222-3333","111-222-3334"],"metrics":["spend","conversions","conversion_value","cpc"],"dimensions":["account_name","campaign_name","campaign_status"],"date_range":{"start":"2026-01-01","end":"2026-02-28"},"sort":[{"field":"spend","direction":"desc"}]}`,
	`{"account_ids":["act_2284619037465520"],"metrics":["spend","link_clicks","conversions"],"dimensions":["adset_name"],"time_granularity":"daily","date_range":{"start":"2026-02-01","end":"2026-02-02"}}`,
	`{"account_ids":["act_1015823746512093","111-222-3333","act_2284619037465520","111-222-3334"],"metrics":["spend","impressions","cpm"],"dimensions":["currency","platform"],"time_granularity":"monthly","date_range":{"start":"2026-01-01","end":"2026-02-28"}}`,
}

// Imported into ClickHouse, the sample exports give the same reports and the
// same answers as imported into the embedded warehouse.
func TestImportAnswersLikeDuckDB(t *testing.T) {
	dsn := clickhouse.FreshDatabaseForTest(t)
	res := mustImport(t, dsn, importer.WriteOptions{Now: importNow}, sampleExports(t)...)
	path := filepath.Join(t.TempDir(), "imported.duckdb")
	duckRes, err := duckdb.Import(context.Background(), path, sampleExports(t), duckdb.ImportOptions{Now: importNow})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Created || !strings.HasPrefix(res.Target, "clickhouse://") {
		t.Errorf("result %+v", res)
	}
	if a, b := fmt.Sprintf("%+v", duckRes.Files), fmt.Sprintf("%+v", res.Files); a != b {
		t.Errorf("file reports differ:\nduckdb     %s\nclickhouse %s", a, b)
	}
	duck, err := duckdb.Open(context.Background(), path, duckdb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	want := dump(t, duck, importQueries...)
	if got := dump(t, open(t, dsn), importQueries...); got != want {
		t.Errorf("answers differ\n--- duckdb\n%s\n--- clickhouse\n%s", want, got)
	}
	if !strings.Contains(want, "kind:import") || strings.Count(want, "\n") < 20 {
		t.Errorf("the imported warehouse answers little:\n%s", want)
	}
}

// Importing the same file again adds nothing; a re-export of the same period
// (other bytes) replaces the same facts; an overlapping export replaces the
// days it covers only. After each, the answers are the embedded warehouse's
// after the same imports.
func TestImportIsIdempotentAndReplaces(t *testing.T) {
	dsn := clickhouse.FreshDatabaseForTest(t)
	path := filepath.Join(t.TempDir(), "imported.duckdb")
	data, err := os.ReadFile(importTestdata + "meta_en_campaigns_daily.csv")
	if err != nil {
		t.Fatal(err)
	}
	later := []byte(`"Account ID","Campaign name","Day","Impressions","Amount spent (USD)","Reach"
1015823746512093,Winter Sale | Prospecting,2026-01-03,100,10.00,50
1015823746512093,Winter Sale | Prospecting,2026-01-04,100,20.00,60
`)
	steps := []struct {
		name  string
		data  []byte
		check func(f importer.WrittenFile) bool
	}{
		{"q1.csv", data, func(f importer.WrittenFile) bool { return f.FactsAdded == 6 && f.NewCampaigns == 3 }},
		{"q1.csv", data, func(f importer.WrittenFile) bool {
			return f.AlreadyImported && f.ImportedAs == "q1.csv" && f.FactsAdded == 0
		}},
		{"q1 (1).csv", append(data, "\n"...), func(f importer.WrittenFile) bool {
			return !f.AlreadyImported && f.FactsAdded == 6 && f.FactsReplaced == 6 && f.ReachReplaced == 6 && f.NewCampaigns == 0 && len(f.Dropped) == 0
		}},
		{"later.csv", later, func(f importer.WrittenFile) bool {
			return f.FactsAdded == 2 && f.FactsReplaced == 2 && f.ReachReplaced == 2 && len(f.Dropped) == 1 && f.Dropped[0] == `Brand Awareness — Ñandú "Q1"`
		}},
	}
	for _, s := range steps {
		res := mustImport(t, dsn, importer.WriteOptions{Now: importNow}, parseExport(t, s.name, s.data, importer.Options{}))
		duckRes, err := duckdb.Import(context.Background(), path, []*importer.Export{parseExport(t, s.name, s.data, importer.Options{})}, duckdb.ImportOptions{Now: importNow})
		if err != nil {
			t.Fatal(err)
		}
		f := res.Files[0]
		if !s.check(f) {
			t.Errorf("%s: %+v", s.name, f)
		}
		if f.AlreadyImported {
			f.ImportedAt = duckRes.Files[0].ImportedAt // stamped by each warehouse's clock
		}
		if a, b := fmt.Sprintf("%+v", duckRes.Files[0]), fmt.Sprintf("%+v", f); a != b {
			t.Errorf("%s: reports differ:\nduckdb     %s\nclickhouse %s", s.name, a, b)
		}
		duck, err := duckdb.Open(context.Background(), path, duckdb.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := dump(t, duck, importQueries[:2]...)
		duck.Close()
		if got := dump(t, open(t, dsn), importQueries[:2]...); got != want {
			t.Errorf("%s: answers differ\n--- duckdb\n%s\n--- clickhouse\n%s", s.name, want, got)
		}
	}
}

// A bad file (a Google export claiming a Meta account) fails the import
// before anything is written, and a dry run writes nothing.
func TestImportBadFileAndDryRunChangeNothing(t *testing.T) {
	dsn := clickhouse.FreshDatabaseForTest(t)
	mustImport(t, dsn, importer.WriteOptions{}, parseExport(t, "meta_en_campaigns_daily.csv", nil, importer.Options{}))
	before := dump(t, open(t, dsn), importQueries[:2]...)
	wrong := parseExport(t, "g.csv", []byte("Day,Campaign,Cost,Impr.\n2026-01-01,C,1.00,1\n"),
		importer.Options{AccountID: "act_1015823746512093", Currency: "USD", Platform: importer.Google})
	good := parseExport(t, "meta_es_adsets_daily.csv", nil, importer.Options{AccountID: "2284619037465520", AccountName: "Lumen Outdoor EU"})
	_, err := clickhouse.Import(context.Background(), dsn, []*importer.Export{good, wrong}, importer.WriteOptions{})
	if err == nil || !strings.Contains(err.Error(), "g.csv") || !strings.Contains(err.Error(), "meta_ads account") {
		t.Fatalf("a Google file for a Meta account: %v", err)
	}
	res := mustImport(t, dsn, importer.WriteOptions{DryRun: true}, good)
	if !res.DryRun || res.Files[0].FactsAdded != 4 || len(res.Files[0].NewAccounts) != 1 {
		t.Errorf("dry run %+v", res.Files[0])
	}
	if after := dump(t, open(t, dsn), importQueries[:2]...); after != before {
		t.Errorf("the warehouse changed:\n%s\n%s", before, after)
	}
	accounts, _ := open(t, dsn).Accounts(context.Background())
	if len(accounts) != 1 {
		t.Errorf("accounts after a failed import and a dry run: %v", accounts)
	}
}

// The demo dataset is refused, or replaced with --replace-demo.
func TestImportRefusesDemoData(t *testing.T) {
	dsn := clickhouse.FreshDatabaseForTest(t)
	ctx := context.Background()
	if err := clickhouse.LoadDemo(ctx, dsn, demo.Config{Anchor: time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC), Seed: 1, Days: 5, Scale: 0.01}, nil); err != nil {
		t.Fatal(err)
	}
	ex := parseExport(t, "meta_en_campaigns_daily.csv", nil, importer.Options{})
	_, err := clickhouse.Import(ctx, dsn, []*importer.Export{ex}, importer.WriteOptions{})
	if !errors.Is(err, importer.ErrDemoData) || !strings.Contains(err.Error(), "--replace-demo") {
		t.Fatalf("into the demo: %v", err)
	}
	res := mustImport(t, dsn, importer.WriteOptions{ReplaceDemo: true}, ex)
	if !res.DemoReplaced || res.Files[0].FactsAdded != 6 {
		t.Errorf("replace demo %+v", res)
	}
	accounts, err := open(t, dsn).Accounts(ctx)
	if err != nil || len(accounts) != 1 || accounts[0].AccountID != "act_1015823746512093" {
		t.Errorf("after replacing the demo: %v %v", accounts, err)
	}
}

// Two files of one import sharing a campaign: the second does not count it as
// new again, as the embedded warehouse's sequential import does not, and the
// campaign is stored once.
func TestImportFilesShareACampaign(t *testing.T) {
	dsn := clickhouse.FreshDatabaseForTest(t)
	head := `"Account ID","Campaign name","Day","Impressions","Amount spent (USD)"` + "\n"
	files := func() []*importer.Export {
		return []*importer.Export{
			parseExport(t, "jan3.csv", []byte(head+"1015823746512093,Winter Sale | Prospecting,2026-01-03,100,10.00\n"), importer.Options{}),
			parseExport(t, "jan4.csv", []byte(head+"1015823746512093,Winter Sale | Prospecting,2026-01-04,100,20.00\n"), importer.Options{}),
		}
	}
	res := mustImport(t, dsn, importer.WriteOptions{Now: importNow}, files()...)
	duckRes, err := duckdb.Import(context.Background(), filepath.Join(t.TempDir(), "w.duckdb"), files(), duckdb.ImportOptions{Now: importNow})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := fmt.Sprintf("%+v", duckRes.Files), fmt.Sprintf("%+v", res.Files); a != b {
		t.Errorf("file reports differ:\nduckdb     %s\nclickhouse %s", a, b)
	}
	if res.Files[0].NewCampaigns != 1 || res.Files[1].NewCampaigns != 0 {
		t.Errorf("new campaigns %d, %d; want 1, 0", res.Files[0].NewCampaigns, res.Files[1].NewCampaigns)
	}
	// The campaign is stored once: a second import of a third day finds it known.
	third := parseExport(t, "jan5.csv", []byte(head+"1015823746512093,Winter Sale | Prospecting,2026-01-05,100,30.00\n"), importer.Options{})
	if f := mustImport(t, dsn, importer.WriteOptions{}, third).Files[0]; f.NewCampaigns != 0 {
		t.Errorf("third file: %+v", f)
	}
}
