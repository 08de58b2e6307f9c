package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/source/clickhouse"
	"github.com/adsmcp/adsmcp/internal/source/clickhouse/chtest"
)

// chTargetForTest is a --target URL naming a database of the test server that
// does not exist yet (the commands create it), dropped when the test ends.
func chTargetForTest(t *testing.T) string {
	t.Helper()
	base := chtest.FreshDatabase(t) // skips without a server
	name := fmt.Sprintf("adsmcp_target_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9)
	url := chtest.WithDatabase(base, name)
	t.Cleanup(func() { dropCHDatabase(url) })
	return url
}

func dropCHDatabase(url string) {
	// Drop the tables the commands made, then the database, through the
	// package's own client (Drop), and a database-less admin statement.
	clickhouse.Drop(bg(), url)         //nolint:errcheck
	clickhouse.DropDatabase(bg(), url) //nolint:errcheck
}

// `adsmcp import --target clickhouse://…` writes the warehouse that
// sources.clickhouse answers from, with the embedded warehouse's numbers.
func TestImportIntoClickHouseTarget(t *testing.T) {
	url := chTargetForTest(t)
	file := importSamples + "meta_en_campaigns_daily.csv"

	out, stderr, err := importCLI("--target", url, "--dry-run", file)
	if err != nil || !strings.Contains(out, "dry run: 1 of 1 file would be imported into clickhouse://") || !strings.Contains(out, "6 facts added") {
		t.Fatalf("dry run: %v\n%s%s", err, out, stderr)
	}
	if exists, err := clickhouse.DatabaseExists(bg(), url); err != nil || exists {
		t.Errorf("the dry run created the database (%v)", err)
	}

	out, stderr, err = importCLI("--target", url, file)
	if err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	for _, w := range []string{"6 facts added, 0 replaced", "new account act_1015823746512093", "imported 1 of 1 file into clickhouse://",
		"(a new warehouse)", "sources.clickhouse.dsn"} {
		if !strings.Contains(out, w) {
			t.Errorf("report does not say %q:\n%s", w, out)
		}
	}
	cfg := writeConfig(t, "sources:\n  clickhouse:\n    dsn: \""+url+"\"\n")
	totals := []string{"query", "--raw", "--config", cfg, "-a", "act_1015823746512093", "-m", "spend,impressions,link_clicks,conversions,conversion_value",
		"--start", "2026-01-01", "--end", "2026-01-03"}
	want := "spend,impressions,link_clicks,conversions,conversion_value\n4321.09,123456,2345,36,7450.25\n"
	for _, when := range []string{"after the import", "after importing the same file again"} {
		got, stderr, err := runCLI(totals...)
		if err != nil || !strings.HasSuffix(got, want) {
			t.Errorf("%s: totals %v\n%s%s\nwant\n%s", when, err, got, stderr, want)
		}
		out, _, err = importCLI("--target", url, file)
		if err != nil || !strings.Contains(out, "already imported") {
			t.Errorf("re-import: %v\n%s", err, out)
		}
	}
	_, _, err = importCLI("--target", url, importSamples+"google_en_campaigns_daily.csv", "--account-id", "111-222-3333",
		importSamples+"meta_en_malformed.csv")
	if err == nil || !strings.Contains(err.Error(), "nothing was imported") {
		t.Errorf("malformed file: %v", err)
	}
	if accounts, _, err := runCLI("accounts", "--config", cfg); err != nil || strings.Contains(accounts, "111-222-3333") {
		t.Errorf("accounts after a failed import: %v\n%s", err, accounts)
	}
}

// `adsmcp demo --target clickhouse://…` loads the demo dataset; a second time
// is refused with the fix, imports refuse it unless --replace-demo, --force
// loads it again.
func TestDemoIntoClickHouseTarget(t *testing.T) {
	url := chTargetForTest(t)
	args := []string{"demo", "--target", url, "--anchor", "2026-03-15", "--seed", "7", "--scale", "0.03"}
	out, stderr, err := runCLI(args...)
	if err != nil || !strings.Contains(out, "demo warehouse written to clickhouse://") || !strings.Contains(out, "sources.clickhouse.dsn") {
		t.Fatalf("demo: %v\n%s%s", err, out, stderr)
	}
	cfg := writeConfig(t, "sources:\n  clickhouse:\n    dsn: \""+url+"\"\n")
	want, _, err := runCLI("accounts", "--db", testDB(t))
	if err != nil {
		t.Fatal(err)
	}
	if got, _, err := runCLI("accounts", "--config", cfg); err != nil || got != want {
		t.Errorf("accounts of the demo in clickhouse: %v\n%s\nwant\n%s", err, got, want)
	}
	if _, _, err = runCLI(args...); err == nil || !strings.Contains(err.Error(), "already holds a warehouse") || !strings.Contains(err.Error(), "--force") {
		t.Errorf("demo over a warehouse: %v", err)
	}
	_, _, err = importCLI("--target", url, importSamples+"meta_en_campaigns_daily.csv")
	if err == nil || !strings.Contains(err.Error(), "demo dataset") || !strings.Contains(err.Error(), "--replace-demo") {
		t.Errorf("import into the demo warehouse: %v", err)
	}
	out, _, err = importCLI("--target", url, "--replace-demo", importSamples+"meta_en_campaigns_daily.csv")
	if err != nil || !strings.Contains(out, "the demo data deleted") {
		t.Errorf("import --replace-demo: %v\n%s", err, out)
	}
	if got, _, err := runCLI("accounts", "--config", cfg); err != nil || strings.Count(got, "\n") != 2 {
		t.Errorf("accounts after --replace-demo: %v\n%s", err, got)
	}
	if out, stderr, err = runCLI(append(args, "--force")...); err != nil {
		t.Fatalf("demo --force: %v\n%s%s", err, out, stderr)
	}
	if got, _, err := runCLI("accounts", "--config", cfg); err != nil || got != want {
		t.Errorf("accounts after demo --force: %v\n%s", err, got)
	}
}

func bg() context.Context { return context.Background() }
