package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/config"
)

// TestQueryFlagsTakeTheToolsArgumentNames: every query tool argument name,
// with - or _, is a flag of adsmcp query, the same flag as its short CLI name.
func TestQueryFlagsTakeTheToolsArgumentNames(t *testing.T) {
	for alias, flag := range map[string]string{
		"--metrics": "metric", "--dimensions": "dimension", "--date-preset": "preset", "--date_preset": "preset",
		"--account-ids": "account", "--account_ids": "account", "--time-granularity": "granularity",
		"--time_granularity": "granularity", "--token-budget": "token-budget", "--token_budget": "token-budget",
		"--platforms": "platform", "--filters": "filter", "--date-range-start": "start", "--date-range-end": "end",
		"--compare-to": "compare", "--compare_to": "compare", "--comparison": "compare",
	} {
		root := newRootCommand()
		q, _, err := root.Find([]string{"query"})
		if err != nil {
			t.Fatal(err)
		}
		if err := q.ParseFlags([]string{alias, "1000"}); err != nil {
			t.Errorf("%s: %v", alias, err)
			continue
		}
		if !q.Flags().Changed(flag) {
			t.Errorf("%s did not set --%s", alias, flag)
		}
	}
	db := testDB(t)
	base := []string{"query", "--raw", "--db", db, "--today", "2026-03-15", "--sort", "spend:desc", "--limit", "3"}
	want, _, err := runCLI(append(base, "-m", "spend,clicks", "-d", "account_name", "--preset", "last_30d",
		"-p", "meta", "-g", "weekly", "--filter", "spend > 0")...)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := runCLI(append(base, "--metrics", "spend,clicks", "--dimensions", "account_name", "--date_preset", "last_30d",
		"--platforms", "meta", "--time_granularity", "weekly", "--filters", "spend > 0")...)
	if err != nil || got != want {
		t.Errorf("the tool's argument names answered differently (%v):\n%s\nwant:\n%s", err, got, want)
	}
	help, _, _ := runCLI("query", "--help")
	if strings.Contains(help, "--metrics") == false || strings.Count(help, "--date_preset") > 1 {
		t.Errorf("query --help should name the argument-name aliases once, in its text:\n%s", help)
	}
}

// TestUnknownFlagSuggestsTheClosest: a mistyped flag names the flag meant, in
// every command.
func TestUnknownFlagSuggestsTheClosest(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"query", "--metirc", "spend"}, "unknown flag --metirc; did you mean --metric?"},
		{[]string{"query", "--dimensoins", "x"}, "did you mean --dimension?"},
		{[]string{"query", "--date-prest", "x"}, "did you mean --preset?"},
		{[]string{"serve", "--deadlin", "5s"}, "did you mean --deadline?"},
		{[]string{"import", "--dry-rum", "x.csv"}, "did you mean --dry-run?"},
		{[]string{"accounts", "--jsno"}, "did you mean --json?"},
		{[]string{"demo", "--ancor", "2026-03-15"}, "did you mean --anchor?"},
		{[]string{"version", "--verbos"}, "did you mean --verbose?"},
		{[]string{"query", "--zzzzzz"}, "unknown flag --zzzzzz (adsmcp query --help lists the flags)"},
	} {
		_, _, err := runCLI(c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}

// TestDurationFlagsWantAUnit: a bare number where a duration goes is refused
// with the spelling to use, for every duration flag and in the config file.
func TestDurationFlagsWantAUnit(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.duckdb")
	for _, args := range [][]string{
		{"serve", "--deadline", "5", "--db", missing},
		{"load", "--duration", "5", "--url", "http://127.0.0.1:1/mcp"},
		{"load", "--call-timeout", "5", "--url", "http://127.0.0.1:1/mcp"},
	} {
		_, _, err := runCLI(args...)
		if err == nil || !strings.Contains(err.Error(), args[1]+" 5: write 5s") {
			t.Errorf("%v: %v", args, err)
		}
	}
	if _, err := config.Parse([]byte("deadline: 5\n"), func(string) (string, bool) { return "", false }); err == nil || !strings.Contains(err.Error(), "write 5s") {
		t.Errorf("deadline: 5 in the config: %v", err)
	}
}

// TestHTTPWantsHostPort: --http without HOST:PORT is a format error with an
// example, before the warehouse is opened and before the auth check.
func TestHTTPWantsHostPort(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.duckdb")
	for _, addr := range []string{"8080", "127.0.0.1", "localhost:http", "http://127.0.0.1:8080"} {
		_, _, err := runCLI("serve", "--http", addr, "--db", missing)
		if err == nil || !strings.Contains(err.Error(), "--http "+addr+": want HOST:PORT, e.g. 127.0.0.1:8080") {
			t.Errorf("--http %s: %v", addr, err)
		}
	}
	cfg := writeConfig(t, "http:\n  listen: \"8080\"\n")
	if _, _, err := runCLI("serve", "--config", cfg, "--db", missing); err == nil || !strings.Contains(err.Error(), "http.listen 8080: want HOST:PORT") {
		t.Errorf("http.listen 8080: %v", err)
	}
}
