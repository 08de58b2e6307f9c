package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const importSamples = "../../internal/importer/testdata/"

// importCLI runs `adsmcp import …`.
func importCLI(args ...string) (stdout, stderr string, err error) {
	return runCLI(append([]string{"import"}, args...)...)
}

// importQueryRows runs `adsmcp query --raw` over one account and returns the CSV's
// rows as maps.
func importQueryRows(t *testing.T, db string, args ...string) []map[string]string {
	t.Helper()
	out, stderr, err := runCLI(append([]string{"query", "--raw", "--db", db}, args...)...)
	if err != nil {
		t.Fatalf("query %v: %v\n%s", args, err, stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) < 1 {
		t.Fatalf("query output is not CSV: %v\n%s", err, out)
	}
	var rows []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		rows = append(rows, m)
	}
	return rows
}

func TestImportMetaExportThenQuery(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ads.duckdb")
	out, stderr, err := importCLI("--db", db, importSamples+"meta_en_campaigns_daily.csv")
	if err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	for _, w := range []string{"meta_ads export", "Lumen Outdoor US (act_1015823746512093, USD)", "8 data lines: 6 imported as 6 facts",
		"skipped 1: totals row (line 2)", "skipped 1: no activity", "totals line 2 matches", "6 facts added, 0 replaced",
		"new account act_1015823746512093", "imported 1 of 1 file into " + db + " (a new warehouse)"} {
		if !strings.Contains(out, w) {
			t.Errorf("report does not say %q:\n%s", w, out)
		}
	}
	totals := []string{"-a", "act_1015823746512093", "-m", "spend,impressions,clicks,link_clicks,conversions,conversion_value",
		"--start", "2026-01-01", "--end", "2026-01-03"}
	want := map[string]string{"spend": "4321.09", "impressions": "123456", "clicks": "3001", "link_clicks": "2345",
		"conversions": "36", "conversion_value": "7450.25"}
	check := func(when string) {
		t.Helper()
		rows := importQueryRows(t, db, totals...)
		if len(rows) != 1 {
			t.Fatalf("%s: %d rows", when, len(rows))
		}
		for k, v := range want {
			if rows[0][k] != v {
				t.Errorf("%s: %s = %q, want %s (%v)", when, k, rows[0][k], v, rows[0])
			}
		}
	}
	check("after the import")

	// By campaign: derived IDs, names with quotes and accents, reach per day.
	rows := importQueryRows(t, db, "-a", "act_1015823746512093", "-m", "spend,reach", "-d", "campaign_name", "-g", "daily",
		"--start", "2026-01-03", "--end", "2026-01-03", "--sort", "spend:desc")
	if len(rows) != 2 || rows[0]["campaign_name"] != "Winter Sale | Prospecting" || rows[0]["reach"] != "8765" ||
		rows[1]["campaign_name"] != `Brand Awareness — Ñandú "Q1"` || rows[1]["spend"] != "380.2" {
		t.Errorf("by campaign: %v", rows)
	}

	// Again: nothing added.
	out, _, err = importCLI("--db", db, importSamples+"meta_en_campaigns_daily.csv")
	if err != nil || !strings.Contains(out, "already imported") || !strings.Contains(out, "imported 0 of 1 file") {
		t.Errorf("re-import: %v\n%s", err, out)
	}
	check("after importing the same file again")

	// A malformed file (with a good one before it): an error at its line, nothing imported.
	_, _, err = importCLI("--db", db, importSamples+"google_en_campaigns_daily.csv", "--account-id", "111-222-3333",
		importSamples+"meta_en_malformed.csv")
	if err == nil || !strings.Contains(err.Error(), "meta_en_malformed.csv, line 4, column 7 (Amount spent (USD))") ||
		!strings.Contains(err.Error(), "nothing was imported") {
		t.Fatalf("malformed file: %v", err)
	}
	check("after a malformed file")
	accounts, _, err := runCLI("accounts", "--db", db)
	if err != nil || strings.Contains(accounts, "111-222-3333") || strings.Count(accounts, "\n") != 2 {
		t.Errorf("accounts after a failed import: %v\n%s", err, accounts)
	}
}

func TestImportGoogleAndSpanishExports(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ads.duckdb")
	out, stderr, err := importCLI("--db", db, "--account-id", "1112223333", "--account-name", "Brand Co - Search",
		"--timezone", "America/New_York", importSamples+"google_en_campaigns_daily.csv")
	if err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	if !strings.Contains(out, "report: Campaign performance report") || !strings.Contains(out, "skipped 3: totals row (lines 10, 11, 12)") {
		t.Errorf("report:\n%s", out)
	}
	rows := importQueryRows(t, db, "-a", "111-222-3333", "-m", "spend,conversions,conversion_value,clicks", "-d", "campaign_name",
		"--start", "2026-01-01", "--end", "2026-01-03", "--sort", "spend:desc")
	if len(rows) != 2 || rows[0]["campaign_name"] != "Brand - Search" || rows[0]["spend"] != "3334.49" || rows[0]["conversions"] != "31.75" ||
		rows[1]["spend"] != "1180.23" || rows[1]["conversion_value"] != "450" {
		t.Errorf("google by campaign: %v", rows)
	}

	// A Spanish Meta export for another account, into the same warehouse.
	out, stderr, err = importCLI("--db", db, "--account-id", "2284619037465520", "--account-name", "Lumen Outdoor EU",
		"--timezone", "Europe/Berlin", importSamples+"meta_es_adsets_daily.csv")
	if err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	if !strings.Contains(out, "es headers, numbers like 1.234,56") || !strings.Contains(out, "reach not imported") {
		t.Errorf("report:\n%s", out)
	}
	rows = importQueryRows(t, db, "-a", "act_2284619037465520", "-m", "spend,conversions,conversion_value", "-d", "adset_name,currency",
		"--start", "2026-02-01", "--end", "2026-02-02", "--sort", "adset_name")
	if len(rows) != 2 || rows[0]["adset_name"] != "Hombres 25-44" || rows[0]["spend"] != "500.25" || rows[0]["currency"] != "EUR" ||
		rows[1]["spend"] != "734.31" || rows[1]["conversions"] != "24" {
		t.Errorf("spanish by ad set: %v", rows)
	}
}

// A TikTok ad group export, with --platform tiktok (an alias) and the
// advertiser ID the file does not have.
func TestImportTikTokExport(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ads.duckdb")
	out, stderr, err := importCLI("--db", db, "--platform", "tiktok", "--account-id", "7301122334455667788", "--account-name", "Lumen Outdoor ES",
		importSamples+"tiktok_en_adgroups_daily.csv")
	if err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	if !strings.Contains(out, "tiktok_ads export") || !strings.Contains(out, "reach not imported: the rows are ad groups") {
		t.Errorf("report:\n%s", out)
	}
	rows := importQueryRows(t, db, "-a", "7301122334455667788", "-m", "spend,conversions", "-d", "adset_name,currency,platform",
		"--start", "2026-01-05", "--end", "2026-01-06", "--sort", "adset_name")
	if len(rows) != 2 || rows[0]["adset_name"] != "ES - 18-34 - Broad" || rows[0]["spend"] != "1011" || rows[0]["conversions"] != "42" ||
		rows[0]["currency"] != "EUR" || rows[0]["platform"] != "tiktok_ads" || rows[1]["spend"] != "220" {
		t.Errorf("tiktok by ad group: %v", rows)
	}
}

func TestImportRefusesDemoWarehouseAndDryRun(t *testing.T) {
	demo := testDB(t) // the shared demo warehouse: the refusal must leave it alone
	_, _, err := importCLI("--db", demo, "--account-id", "1112223333", importSamples+"google_en_campaigns_daily.csv")
	if err == nil || !strings.Contains(err.Error(), "demo dataset") || !strings.Contains(err.Error(), "--replace-demo") {
		t.Errorf("import into the demo warehouse: %v", err)
	}
	if out, _, err := runCLI("accounts", "--db", demo); err != nil || strings.Count(out, "\n") != 15 {
		t.Errorf("demo warehouse changed: %v\n%s", err, out)
	}

	db := filepath.Join(t.TempDir(), "dry.duckdb")
	out, _, err := importCLI("--db", db, "--dry-run", "--account-id", "1112223333", importSamples+"google_en_campaigns_daily.csv")
	if err != nil || !strings.Contains(out, "dry run: 1 of 1 file would be imported") || !strings.Contains(out, "5 facts added") {
		t.Errorf("dry run: %v\n%s", err, out)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("the dry run created %s", db)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{importSamples + "google_en_campaigns_daily.csv"}, "--account-id"},
		{[]string{"--platform", "tiktok", importSamples + "google_en_campaigns_daily.csv"}, "does not say its currency"},
		{[]string{"no-such-file.csv"}, "no-such-file.csv"},
		{nil, "requires at least 1 arg"},
	} {
		_, _, err := importCLI(append([]string{"--db", db}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
	if out, _, err := importCLI("--help"); err != nil || !strings.Contains(out, "--replace-demo") || !strings.Contains(out, "--dry-run") {
		t.Errorf("--help: %v\n%s", err, out)
	}
}
