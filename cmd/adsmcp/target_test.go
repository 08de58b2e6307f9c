package main

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/adsmcp/adsmcp/internal/source/postgres/pgtest"
)

// pgTargetForTest is a --target URL for a fresh schema of the test server
// (dropped when the test ends); without a server the test skips, unless
// ADSMCP_REQUIRE_DATABASES=1.
func pgTargetForTest(t *testing.T) string {
	t.Helper()
	return pgtest.FreshSchema(t, "adsmcp_target")
}

// tablesIn counts the tables of the target's schema.
func tablesIn(t *testing.T, url string) int {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// `adsmcp import --target postgres://…` writes the warehouse that
// sources.postgres then answers from, with the embedded warehouse's numbers
// and rules: a report naming the target, nothing added twice, dry runs.
func TestImportIntoPostgresTarget(t *testing.T) {
	url := pgTargetForTest(t)
	file := importSamples + "meta_en_campaigns_daily.csv"

	out, stderr, err := importCLI("--target", url, "--dry-run", file)
	if err != nil || !strings.Contains(out, "dry run: 1 of 1 file would be imported into postgres://") || !strings.Contains(out, "6 facts added") {
		t.Fatalf("dry run: %v\n%s%s", err, out, stderr)
	}
	if n := tablesIn(t, url); n != 0 {
		t.Errorf("the dry run created %d tables", n)
	}

	out, stderr, err = importCLI("--target", url, file)
	if err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	for _, w := range []string{"6 facts added, 0 replaced", "new account act_1015823746512093",
		"imported 1 of 1 file into postgres://", "search_path=adsmcp_target_", "(a new warehouse)", "sources.postgres.dsn"} {
		if !strings.Contains(out, w) {
			t.Errorf("report does not say %q:\n%s", w, out)
		}
	}

	// The same numbers as TestImportMetaExportThenQuery, through sources.postgres.
	cfg := writeConfig(t, "sources:\n  postgres:\n    dsn: \""+url+"\"\n")
	totals := []string{"query", "--raw", "--config", cfg, "-a", "act_1015823746512093", "-m", "spend,impressions,link_clicks,conversions,conversion_value",
		"--start", "2026-01-01", "--end", "2026-01-03"}
	want := "spend,impressions,link_clicks,conversions,conversion_value\n4321.09,123456,2345,36,7450.25\n"
	check := func(when string) {
		t.Helper()
		got, stderr, err := runCLI(totals...)
		if err != nil {
			t.Fatalf("%s: query: %v\n%s", when, err, stderr)
		}
		if !strings.HasSuffix(got, want) {
			t.Errorf("%s: totals\n%s\nwant\n%s", when, got, want)
		}
	}
	check("after the import")

	out, _, err = importCLI("--target", url, file)
	if err != nil || !strings.Contains(out, "already imported") || !strings.Contains(out, "imported 0 of 1 file") {
		t.Errorf("re-import: %v\n%s", err, out)
	}
	check("after importing the same file again")

	_, _, err = importCLI("--target", url, importSamples+"google_en_campaigns_daily.csv", "--account-id", "111-222-3333",
		importSamples+"meta_en_malformed.csv")
	if err == nil || !strings.Contains(err.Error(), "nothing was imported") {
		t.Errorf("malformed file: %v", err)
	}
	accounts, _, err := runCLI("accounts", "--config", cfg)
	if err != nil || strings.Contains(accounts, "111-222-3333") || !strings.Contains(accounts, "act_1015823746512093") {
		t.Errorf("accounts after a failed import: %v\n%s", err, accounts)
	}
}

// `adsmcp demo --target postgres://…` loads the demo dataset; a second time
// is refused with the fix, --force replaces it; imports then refuse it unless
// --replace-demo.
func TestDemoIntoPostgresTarget(t *testing.T) {
	url := pgTargetForTest(t)
	args := []string{"demo", "--target", url, "--anchor", "2026-03-15", "--seed", "7", "--scale", "0.03"}
	out, stderr, err := runCLI(args...)
	if err != nil || !strings.Contains(out, "demo warehouse written to postgres://") || !strings.Contains(out, "sources.postgres.dsn") {
		t.Fatalf("demo: %v\n%s%s", err, out, stderr)
	}
	cfg := writeConfig(t, "sources:\n  postgres:\n    dsn: \""+url+"\"\n")
	want, _, err := runCLI("accounts", "--db", testDB(t))
	if err != nil {
		t.Fatal(err)
	}
	if got, _, err := runCLI("accounts", "--config", cfg); err != nil || got != want {
		t.Errorf("accounts of the demo in postgres: %v\n%s\nwant (the embedded demo warehouse)\n%s", err, got, want)
	}

	_, _, err = runCLI(args...)
	if err == nil || !strings.Contains(err.Error(), "already holds a warehouse") || !strings.Contains(err.Error(), "--force") {
		t.Errorf("demo over a warehouse: %v", err)
	}

	_, _, err = importCLI("--target", url, importSamples+"meta_en_campaigns_daily.csv")
	if err == nil || !strings.Contains(err.Error(), "demo dataset") || !strings.Contains(err.Error(), "--replace-demo") ||
		strings.Contains(err.Error(), "nothing was imported") {
		t.Errorf("import into the demo warehouse: %v", err)
	}
	out, _, err = importCLI("--target", url, "--replace-demo", importSamples+"meta_en_campaigns_daily.csv")
	if err != nil || !strings.Contains(out, "the demo data deleted") {
		t.Errorf("import --replace-demo: %v\n%s", err, out)
	}
	if got, _, err := runCLI("accounts", "--config", cfg); err != nil || strings.Count(got, "\n") != 2 {
		t.Errorf("accounts after --replace-demo: %v\n%s", err, got)
	}

	out, stderr, err = runCLI(append(args, "--force")...)
	if err != nil || !strings.Contains(out, "demo warehouse written") {
		t.Fatalf("demo --force: %v\n%s%s", err, out, stderr)
	}
	if got, _, err := runCLI("accounts", "--config", cfg); err != nil || got != want {
		t.Errorf("accounts after demo --force: %v\n%s", err, got)
	}
}

// Bad --target values are refused before anything is read or written, with an
// error naming --target, the problem and the fix, and never the password.
func TestBadTargets(t *testing.T) {
	file := importSamples + "meta_en_campaigns_daily.csv"
	for _, c := range []struct {
		target string
		want   []string
	}{
		{"ads.duckdb", []string{"--target ads.duckdb: not a URL", "fix:", "--db"}},
		{"host=db.example user=ads password=hunter22", []string{"not a URL", "password=xxxxx", "fix:"}},
		{"mysql://ads:hunter22@db.example/ads", []string{`unknown kind of database "mysql"`, "mysql://ads:xxxxx@db.example/ads", "postgres://"}},
		{"postgres://ads:hunter22@db.example:notaport/ads", []string{"not a valid URL", "ads:xxxxx@", "fix:"}},
		{"postgres://ads:hunter22@db.example/ads?sslmode=sometimes", []string{"not a valid PostgreSQL URL", "sslmode", "fix:"}},
		{"postgresql://ads@db.example/ads?password=hunter22&sslmode=sometimes", []string{"not a valid PostgreSQL URL", "password=xxxxx"}},
		{"clickhouse://ads:hunter22@db.example:9000/ads?http_scheme=gopher", []string{"--target clickhouse://ads:xxxxx@db.example:9000/ads?http_scheme=gopher: not a valid ClickHouse URL", "http_scheme", "fix:"}},
		// Refused by the server (nothing listens on port 1): the driver's message, scrubbed.
		{"postgres://ads:hunter22@127.0.0.1:1/ads?connect_timeout=5", []string{"--target postgres://ads:xxxxx@127.0.0.1:1/ads", "connect", "nothing was imported"}},
	} {
		for _, cmd := range [][]string{{"import", file}, {"demo", "--scale", "0.01"}} {
			args := append(append([]string{}, cmd...), "--target", c.target)
			if cmd[0] == "demo" && strings.Contains(c.target, "127.0.0.1:1") {
				continue // the same connection error, without the import's suffix
			}
			out, stderr, err := runCLI(args...)
			if err == nil {
				t.Errorf("%v succeeded:\n%s", args, out)
				continue
			}
			msg := err.Error() + stderr + out
			if strings.Contains(msg, "hunter22") {
				t.Errorf("%v: the password is printed: %s", args, msg)
			}
			if !strings.Contains(err.Error(), "--target") {
				t.Errorf("%v: the error does not name --target: %v", args, err)
			}
			for _, w := range c.want {
				if cmd[0] == "demo" && w == "nothing was imported" {
					continue
				}
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v: the error does not say %q: %v", args, w, err)
				}
			}
		}
	}
	if _, _, err := importCLI("--db", "x.duckdb", "--target", "postgres://127.0.0.1/x", file); err == nil ||
		!strings.Contains(err.Error(), "--db and --target") {
		t.Errorf("--db with --target: %v", err)
	}
	for _, c := range []string{"import", "demo"} {
		if out, _, err := runCLI(c, "--help"); err != nil || !strings.Contains(out, "--target") {
			t.Errorf("%s --help does not show --target: %v", c, err)
		}
	}
}

func TestRedactRaw(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://ads:p@ss@db/x":          "postgres://ads:xxxxx@db/x",
		"postgres://:secret@db/x":           "postgres://:xxxxx@db/x",
		"postgres://db:5432/x":              "postgres://db:5432/x",
		"host=db password='a b' user=x":     "host=db password=xxxxx user=x",
		"postgres://db/x?password=s&user=u": "postgres://db/x?password=xxxxx&user=u",
	} {
		if got := redactRaw(in); got != want {
			t.Errorf("redactRaw(%q) = %q, want %q", in, got, want)
		}
	}
}
