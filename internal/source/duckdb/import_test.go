package duckdb

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/importer"
)

// The importer's sample exports.
const importTestdata = "../../importer/testdata/"

func parseExport(t *testing.T, name string, opt importer.Options) *importer.Export {
	t.Helper()
	data, err := os.ReadFile(importTestdata + name)
	if err != nil {
		t.Fatal(err)
	}
	return parseBytes(t, name, data, opt)
}

func parseBytes(t *testing.T, name string, data []byte, opt importer.Options) *importer.Export {
	t.Helper()
	ex, err := importer.Parse(name, data, opt)
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return ex
}

func mustImport(t *testing.T, path string, opt ImportOptions, exports ...*importer.Export) *ImportResult {
	t.Helper()
	res, err := Import(context.Background(), path, exports, opt)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	return res
}

// factSums are a warehouse's fact totals for an account.
type factSums struct {
	facts                     int64
	spend, value, impressions int64
	conversions               float64
}

func sumsOf(t *testing.T, db *sql.DB, account string) factSums {
	t.Helper()
	var s factSums
	err := db.QueryRow(`SELECT count(*), coalesce(sum(spend_micros), 0), coalesce(sum(conversion_value_micros), 0),
		coalesce(sum(impressions), 0), coalesce(sum(conversions), 0) FROM facts WHERE account_id = ?`, account).
		Scan(&s.facts, &s.spend, &s.value, &s.impressions, &s.conversions)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checksum covers every table an import writes, imports included.
func checksum(t *testing.T, path string) string {
	t.Helper()
	db := openLoadDB(t, path+"?access_mode=read_only")
	sum := warehouseChecksum(t, db)
	var imports string
	if err := db.QueryRow(`SELECT md5(coalesce(string_agg(t::VARCHAR, chr(10) ORDER BY rowid), '')) FROM imports t`).Scan(&imports); err != nil {
		t.Fatal(err)
	}
	db.Close()
	return sum + " imports=" + imports
}

const metaAccount = "act_1015823746512093"

func TestImportIntoNewWarehouseThenQuery(t *testing.T) {
	path := filepath.Join(t.TempDir(), "imported.duckdb")
	ex := parseExport(t, "meta_en_campaigns_daily.csv", importer.Options{})
	res := mustImport(t, path, ImportOptions{}, ex)
	if !res.Created || res.DemoReplaced || len(res.Files) != 1 {
		t.Fatalf("result %+v", res)
	}
	f := res.Files[0]
	if f.AlreadyImported || f.FactsAdded != 6 || f.FactsReplaced != 0 || f.ReachAdded != 6 || f.NewCampaigns != 3 ||
		len(f.NewAccounts) != 1 || f.NewAccounts[0] != metaAccount {
		t.Errorf("file result %+v", f)
	}

	// Open sees a complete dataset: no demo data is loaded on top.
	src, err := Open(context.Background(), path, Options{Demo: demo.Config{Anchor: testAnchor, Seed: 1, Days: 3, Scale: 0.01}})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	info, err := src.Dataset(context.Background())
	if err != nil || info["kind"] != "import" || info["label"] != ImportLabel || info["first_date"] != "2026-01-01" || info["last_date"] != "2026-01-03" {
		t.Errorf("dataset %v %v", info, err)
	}
	accounts, err := src.Accounts(context.Background())
	if err != nil || len(accounts) != 1 || accounts[0].AccountName != "Lumen Outdoor US" || accounts[0].Currency != "USD" {
		t.Fatalf("accounts %+v %v", accounts, err)
	}
	want := factSums{facts: 6, spend: 4_321_090_000, value: 7_450_250_000, impressions: 123_456, conversions: 36}
	if got := sumsOf(t, src.DB(), metaAccount); got != want {
		t.Errorf("sums %+v, want %+v", got, want)
	}

	// The query path: totals, and daily reach per campaign straight from the export.
	_, tab := run(t, src, `{"account_ids":["act_1015823746512093"],"metrics":["spend","impressions","link_clicks","conversions","ctr"],
		"date_range":{"start":"2026-01-01","end":"2026-01-03"}}`)
	if tab.Len() != 1 || tab.Column("spend").Numbers[0] != 4321.09 || tab.Column("impressions").Numbers[0] != 123456 ||
		tab.Column("link_clicks").Numbers[0] != 2345 || tab.Column("conversions").Numbers[0] != 36 {
		t.Errorf("totals row: %+v", tab)
	}
	_, tab = run(t, src, `{"account_ids":["act_1015823746512093"],"metrics":["reach","spend"],"dimensions":["campaign_name"],
		"time_granularity":"daily","date_range":{"start":"2026-01-01","end":"2026-01-03"},"sort":[{"field":"reach","direction":"desc"}]}`)
	if tab.Len() != 6 || tab.Column("reach").Numbers[0] != 16100 || tab.Column("campaign_name").Strings[0] != `Brand Awareness — Ñandú "Q1"` {
		t.Errorf("daily reach: %d rows, %+v", tab.Len(), tab.Column("reach"))
	}
}

// Importing the same file again adds nothing; a re-export of the same period
// (other bytes) replaces the same facts: the totals never change.
func TestImportIsIdempotent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.duckdb")
	data, err := os.ReadFile(importTestdata + "meta_en_campaigns_daily.csv")
	if err != nil {
		t.Fatal(err)
	}
	ex := parseBytes(t, "q1.csv", data, importer.Options{})
	mustImport(t, path, ImportOptions{}, ex)
	before := checksum(t, path)

	res := mustImport(t, path, ImportOptions{}, ex)
	if f := res.Files[0]; !f.AlreadyImported || f.ImportedAs != "q1.csv" || f.FactsAdded != 0 || res.Created {
		t.Errorf("second import %+v", res.Files[0])
	}
	if after := checksum(t, path); after != before {
		t.Errorf("re-importing the same file changed the warehouse")
	}

	// The same rows, other bytes (a re-export): replaced, not added.
	reexport := parseBytes(t, "q1 (1).csv", append(data, "\n"...), importer.Options{})
	res = mustImport(t, path, ImportOptions{}, reexport)
	if f := res.Files[0]; f.AlreadyImported || f.FactsAdded != 6 || f.FactsReplaced != 6 || f.ReachReplaced != 6 || f.NewCampaigns != 0 || len(f.Dropped) != 0 {
		t.Errorf("re-export %+v", f)
	}
	db := openLoadDB(t, path+"?access_mode=read_only")
	if got := sumsOf(t, db, metaAccount); got.facts != 6 || got.spend != 4_321_090_000 {
		t.Errorf("after the re-export: %+v", got)
	}
	if n := countRows(t, db, `SELECT count(*) FROM campaigns`); n != 3 {
		t.Errorf("%d campaigns", n)
	}
	if n := countRows(t, db, `SELECT count(*) FROM imports`); n != 2 {
		t.Errorf("%d imports", n)
	}
}

// An export that overlaps an earlier one replaces the overlapping days only, and
// says which campaigns it dropped there.
func TestImportOverlapReplacesItsDays(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.duckdb")
	mustImport(t, path, ImportOptions{}, parseExport(t, "meta_en_campaigns_daily.csv", importer.Options{}))
	later := `"Account ID","Campaign name","Day","Impressions","Amount spent (USD)","Reach"
1015823746512093,Winter Sale | Prospecting,2026-01-03,100,10.00,50
1015823746512093,Winter Sale | Prospecting,2026-01-04,100,20.00,60
`
	res := mustImport(t, path, ImportOptions{}, parseBytes(t, "later.csv", []byte(later), importer.Options{}))
	f := res.Files[0]
	if f.FactsAdded != 2 || f.FactsReplaced != 2 || f.ReachReplaced != 2 || len(f.Dropped) != 1 || f.Dropped[0] != `Brand Awareness — Ñandú "Q1"` {
		t.Errorf("overlap %+v", f)
	}
	db := openLoadDB(t, path+"?access_mode=read_only")
	// Days 1 and 2 of the first export (2 campaigns each) + days 3 and 4 of the second.
	want := int64(1_000_100_000 + 1_200_550_000 + 380_120_000 + 380_120_000 + 10_000_000 + 20_000_000)
	if got := sumsOf(t, db, metaAccount); got.facts != 6 || got.spend != want {
		t.Errorf("after the overlap: %+v, want spend %d", got, want)
	}
	var last string
	if err := db.QueryRow(`SELECT value FROM dataset WHERE key = 'last_date'`).Scan(&last); err != nil || last != "2026-01-04" {
		t.Errorf("last_date %q %v", last, err)
	}
}

// A warehouse holding the demo dataset is refused, unchanged; --replace-demo
// deletes the demo data first.
func TestImportRefusesDemoData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "demo.duckdb")
	db := openLoadDB(t, path)
	if err := Load(context.Background(), db, demo.Config{Anchor: testAnchor, Seed: 1, Days: 5, Scale: 0.01}, nil); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before := warehouseChecksumAt(t, path)
	ex := parseExport(t, "google_en_campaigns_daily.csv", importer.Options{AccountID: "111-222-3333", AccountName: "Brand Co"})
	_, err := Import(context.Background(), path, []*importer.Export{ex}, ImportOptions{})
	if !errors.Is(err, ErrDemoData) || !strings.Contains(err.Error(), "--replace-demo") || !strings.Contains(err.Error(), path) {
		t.Fatalf("import over demo data: %v", err)
	}
	if after := warehouseChecksumAt(t, path); after != before {
		t.Errorf("a refused import changed the warehouse")
	}

	res := mustImport(t, path, ImportOptions{ReplaceDemo: true}, ex)
	if !res.DemoReplaced {
		t.Errorf("result %+v", res)
	}
	db = openLoadDB(t, path+"?access_mode=read_only")
	if n := countRows(t, db, `SELECT count(*) FROM accounts`); n != 1 {
		t.Errorf("%d accounts after replacing the demo data", n)
	}
	if n := countRows(t, db, `SELECT count(*) FROM dataset WHERE key IN ('anchor', 'seed')`); n != 0 {
		t.Errorf("demo dataset keys left")
	}
	got := sumsOf(t, db, "111-222-3333")
	if got.facts != 5 || got.spend != 4_514_720_000 || got.conversions != 34.75 {
		t.Errorf("google sums %+v", got)
	}
	if n := countRows(t, db, `SELECT count(*) FROM facts WHERE link_clicks IS NOT NULL`); n != 0 {
		t.Errorf("%d Google facts with link clicks", n)
	}
}

func warehouseChecksumAt(t *testing.T, path string) string {
	t.Helper()
	db := openLoadDB(t, path+"?access_mode=read_only")
	defer db.Close()
	return warehouseChecksum(t, db)
}

// A conflict in any file rolls back every file of the import.
func TestImportIsOneTransaction(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.duckdb")
	mustImport(t, path, ImportOptions{}, parseExport(t, "meta_en_campaigns_daily.csv", importer.Options{}))
	before := checksum(t, path)

	google := parseExport(t, "google_en_campaigns_daily.csv", importer.Options{AccountID: "111-222-3333", AccountName: "Brand Co"})
	// The Meta account again, its money now in EUR.
	eur := `"Account ID","Campaign name","Day","Impressions","Amount spent (EUR)"
1015823746512093,C,2026-02-01,1,1.00
`
	bad := parseBytes(t, "eur.csv", []byte(eur), importer.Options{})
	_, err := Import(context.Background(), path, []*importer.Export{google, bad}, ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "eur.csv") || !strings.Contains(err.Error(), "is in USD in the warehouse") {
		t.Fatalf("conflicting import: %v", err)
	}
	if after := checksum(t, path); after != before {
		t.Errorf("a failed import changed the warehouse")
	}

	// A Google file claiming a Meta account.
	wrong := parseBytes(t, "g.csv", []byte("Day,Campaign,Cost,Impr.\n2026-01-01,C,1.00,1\n"),
		importer.Options{AccountID: "act_1015823746512093", Currency: "USD"})
	if _, err := Import(context.Background(), path, []*importer.Export{wrong}, ImportOptions{}); err == nil || !strings.Contains(err.Error(), "meta_ads account") {
		t.Errorf("platform conflict: %v", err)
	}

	// A cancelled context: nothing written either.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Import(ctx, path, []*importer.Export{google}, ImportOptions{}); err == nil {
		t.Errorf("import with a cancelled context succeeded")
	}
	if after := checksum(t, path); after != before {
		t.Errorf("a cancelled import changed the warehouse")
	}
}

func TestImportDryRun(t *testing.T) {
	dir := t.TempDir()
	ex := parseExport(t, "meta_es_adsets_daily.csv", importer.Options{AccountID: "2284619037465520", AccountName: "Lumen Outdoor EU", Timezone: "Europe/Berlin"})

	newPath := filepath.Join(dir, "new.duckdb")
	res := mustImport(t, newPath, ImportOptions{DryRun: true}, ex)
	if !res.DryRun || !res.Created || res.Files[0].FactsAdded != 4 {
		t.Errorf("dry run %+v", res)
	}
	if _, err := os.Stat(newPath); !os.IsNotExist(err) {
		t.Errorf("a dry run created %s (%v)", newPath, err)
	}

	path := filepath.Join(dir, "w.duckdb")
	mustImport(t, path, ImportOptions{}, parseExport(t, "meta_en_campaigns_daily.csv", importer.Options{}))
	before := checksum(t, path)
	res = mustImport(t, path, ImportOptions{DryRun: true, Now: time.Now()}, ex)
	if res.Created || res.Files[0].FactsAdded != 4 || len(res.Files[0].NewAccounts) != 1 {
		t.Errorf("dry run %+v", res.Files[0])
	}
	if after := checksum(t, path); after != before {
		t.Errorf("a dry run changed the warehouse")
	}
}

// Ad sets and ads merge by ID across files; names follow the latest import.
func TestImportMergesObjects(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.duckdb")
	opt := importer.Options{AccountID: "act_7", Currency: "USD"}
	first := `"Campaign ID","Campaign name","Ad set ID","Ad set name","Ad ID","Ad name","Day","Impressions","Amount spent (USD)"
1,Spring,11,Broad,111,Video A,2026-04-01,10,1.00
1,Spring,11,Broad,112,Video B,2026-04-01,10,1.00
`
	second := `"Campaign ID","Campaign name","Ad set ID","Ad set name","Ad ID","Ad name","Day","Impressions","Amount spent (USD)"
1,Spring (renamed),11,Broad,111,Video A,2026-04-02,10,1.00
1,Spring (renamed),12,Lookalike,121,Static,2026-04-02,10,1.00
`
	mustImport(t, path, ImportOptions{}, parseBytes(t, "1.csv", []byte(first), opt), parseBytes(t, "2.csv", []byte(second), opt))
	db := openLoadDB(t, path+"?access_mode=read_only")
	for q, want := range map[string]int64{
		`SELECT count(*) FROM campaigns`: 1, `SELECT count(*) FROM adsets`: 2, `SELECT count(*) FROM ads`: 3, `SELECT count(*) FROM facts`: 4,
		`SELECT count(*) FROM campaigns WHERE campaign_name = 'Spring (renamed)' AND start_date = DATE '2026-04-01'`: 1,
		`SELECT count(*) FROM accounts WHERE account_name = 'act_7' AND timezone = 'UTC'`:                            1,
	} {
		if n := countRows(t, db, q); n != want {
			t.Errorf("%s = %d, want %d", q, n, want)
		}
	}
}
