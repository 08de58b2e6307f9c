package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/adrg/xdg"

	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
)

var (
	dbOnce sync.Once
	dbPath string
	dbErr  error
)

// testDB builds a small fixed-anchor demo warehouse once, through the demo command.
func testDB(t *testing.T) string {
	t.Helper()
	dbOnce.Do(func() {
		dir, err := os.MkdirTemp("", "adsmcp-cli-test-")
		if err != nil {
			dbErr = err
			return
		}
		dbPath = filepath.Join(dir, "cli.duckdb")
		_, stderr, err := runCLI("demo", "--db", dbPath, "--anchor", "2026-03-15", "--seed", "7", "--scale", "0.03")
		if err != nil {
			dbErr = err
			dbPath = stderr
		}
	})
	if dbErr != nil {
		t.Fatalf("demo: %v (%s)", dbErr, dbPath)
	}
	return dbPath
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// binary builds the adsmcp binary once, next to the test warehouse (whose
// folder TestMain removes), for the tests that run it as a process.
func binary(t *testing.T) string {
	t.Helper()
	db := testDB(t)
	binOnce.Do(func() {
		binPath = filepath.Join(filepath.Dir(db), "adsmcp")
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		if out, err := exec.CommandContext(ctx, "go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// TestMain removes the package's warehouses after the tests: the CLI's and the
// shared one of duckdbtest (the live tests compare against it).
func TestMain(m *testing.M) {
	// The default locations (the demo warehouse, the server's synced file)
	// are a temporary directory's, for this process and the binaries it
	// starts: a test never writes the user's.
	home, err := os.MkdirTemp("", "adsmcp-test-data-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_DATA_HOME", home)
	xdg.Reload()
	code := m.Run()
	os.RemoveAll(home)
	duckdbtest.Cleanup()
	if dbPath != "" {
		os.RemoveAll(filepath.Dir(dbPath))
	}
	os.Exit(code)
}

func runCLI(args ...string) (stdout, stderr string, err error) {
	var out, errb bytes.Buffer
	cmd := newRootCommand()
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SetIn(strings.NewReader(""))
	err = cmd.ExecuteContext(context.Background())
	return out.String(), errb.String(), err
}

func TestQueryRawPrintsCSV(t *testing.T) {
	db := testDB(t)
	out, stderr, err := runCLI("query", "--raw", "--db", db, "--today", "2026-03-15", "--platform", "meta",
		"-m", "spend,clicks,ctr", "-d", "account_name,date", "--preset", "last_7d")
	if err != nil {
		t.Fatalf("query failed: %v\n%s", err, stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("output is not CSV: %v\n%s", err, out)
	}
	if got := strings.Join(recs[0], ","); got != "date,account_name,currency,spend,clicks,ctr" {
		t.Errorf("header = %s", got)
	}
	if len(recs) < 8 {
		t.Errorf("%d rows for 7 days of Meta accounts", len(recs)-1)
	}
	for _, want := range []string{"dimension_sanitized", "granularity_inferred", "value_normalized", "currency_column_added"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not report %s:\n%s", want, stderr)
		}
	}
}

func TestQueryJSONAndFlagsAgree(t *testing.T) {
	db := testDB(t)
	fromFlags, _, err := runCLI("query", "--raw", "--db", db, "--today", "2026-03-15", "-p", "google_ads",
		"-m", "spend", "-d", "campaign_name", "-g", "monthly", "--filter", "spend > 10", "--sort", "spend:desc", "--limit", "5")
	if err != nil {
		t.Fatal(err)
	}
	fromJSON, _, err := runCLI("query", "--raw", "--db", db, "--today", "2026-03-15", "--json",
		`{"platforms":["google_ads"],"metrics":["spend"],"dimensions":["campaign_name"],"time_granularity":"monthly",
		  "filters":[{"field":"spend","operator":"GREATER_THAN","value":10}],"sort":[{"field":"spend","direction":"desc"}],"limit":5}`)
	if err != nil {
		t.Fatal(err)
	}
	if fromFlags != fromJSON || strings.Count(fromFlags, "\n") != 6 {
		t.Errorf("flags and --json disagree or wrong row count:\n%s\n---\n%s", fromFlags, fromJSON)
	}
}

func TestBadQueriesFailWithPreciseErrors(t *testing.T) {
	db := testDB(t)
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"-m", "spnd", "-p", "meta"}, []string{`"type":"invalid_query"`, `"field":"metrics[0]"`, `"closest":["spend"]`}},
		{[]string{"-m", "spend", "-p", "meta", "--limit", "3"}, []string{`"field":"limit"`, "needs sort"}},
		{[]string{"-m", "spend"}, []string{`"type":"too_many_accounts"`, `"max":10`, `"requested":14`, "act_"}},
		{[]string{"--raw", "-m", "spnd", "-p", "meta"}, []string{"metrics[0]", "did you mean spend"}},
		{[]string{"-m", "spend", "-p", "meta", "--start", "2026-02-01"}, []string{"--start and --end"}},
		{[]string{"-m", "spend", "-p", "meta", "--filter", "spend"}, []string{"--filter", "no operator"}},
		{[]string{"--json", "{not json"}, []string{"--json"}},
	}
	for _, c := range cases {
		args := append([]string{"query", "--db", db, "--today", "2026-03-15"}, c.args...)
		out, stderr, err := runCLI(args...)
		if err == nil {
			t.Errorf("%v succeeded:\n%s", c.args, out)
			continue
		}
		text := err.Error() + stderr + out
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%v: error does not mention %q:\n%s", c.args, w, text)
			}
		}
	}
}

func TestAccountsFieldsVersionHelp(t *testing.T) {
	db := testDB(t)
	out, _, err := runCLI("accounts", "--db", db)
	if err != nil || strings.Count(out, "\n") != 15 {
		t.Errorf("accounts: %v, %d lines:\n%s", err, strings.Count(out, "\n"), out)
	}
	out, _, err = runCLI("fields", "--platform", "google")
	if err != nil || strings.Contains(out, "link_clicks") || !strings.Contains(out, "spend,metric,number,sum,money") {
		t.Errorf("fields --platform google: %v\n%s", err, out)
	}
	out, _, err = runCLI("version")
	if err != nil || !strings.HasPrefix(out, "adsmcp ") {
		t.Errorf("version: %v %q", err, out)
	}
	for _, c := range []string{"query", "accounts", "fields", "demo", "version"} {
		out, _, err := runCLI(c, "--help")
		if err != nil || !strings.Contains(out, "Usage:") {
			t.Errorf("%s --help: %v", c, err)
		}
	}
	if _, _, err := runCLI("demo", "--db", db); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("demo over an existing file: %v", err)
	}
}

// The default output is exactly the tool's response: the _meta block, a blank
// line, then the CSV; --client and --budget choose the budget.
func TestQueryPrintsTheToolResponse(t *testing.T) {
	db := testDB(t)
	args := []string{"query", "--db", db, "--today", "2026-03-15", "-p", "meta_ads", "-m", "spend,clicks",
		"-d", "campaign_name", "-g", "daily", "--preset", "last_90d"}
	out, _, err := runCLI(append(args, "--client", "ChatGPT")...)
	if err != nil {
		t.Fatal(err)
	}
	meta, csvText, ok := strings.Cut(out, "\n\n")
	if !ok || !strings.HasPrefix(meta, `{"_meta":{`) || !strings.Contains(meta, `"budget_source":"client:ChatGPT"`) {
		t.Fatalf("output does not start with _meta:\n%.400s", out)
	}
	if !strings.HasPrefix(csvText, "date,campaign_name,currency,spend,clicks\n") {
		t.Errorf("CSV block: %.200s", csvText)
	}
	// NAME/VERSION picks the version's profile: an older Codex keeps 9,500
	// bytes of the content array's JSON and 250 lines.
	codex, _, err := runCLI(append(args, "--client", "codex-mcp-client/0.46.0")...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(codex, `"byte_budget":9500,"line_budget":250`) || !strings.Contains(codex, `"binding_limit":"bytes"`) || len(codex) > 9500 {
		t.Errorf("--client codex-mcp-client/0.46.0: %d bytes:\n%.600s", len(codex), codex)
	}
	small, _, err := runCLI(append(args, "--budget", "2000")...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(small, `"token_budget":2000`) || !strings.Contains(small, `"budget_source":"flag:--budget"`) ||
		!(strings.Contains(small, `"granularity_change"`) || strings.Contains(small, `"type":"data_too_large"`)) {
		t.Errorf("--budget 2000 did not shrink the response:\n%.600s", small)
	}
}

// serveHTTPProcess runs the binary with args (a `serve --http 127.0.0.1:0 …`
// command line), waits until it is healthy and returns its /mcp URL; at the end
// of the test it sends SIGTERM and expects a clean exit.
func serveHTTPProcess(t *testing.T, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Second)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "ADSMCP_CONFIG=")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		defer cancel()
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("server exit after SIGTERM: %v\n%s", err, stderr.String())
			}
		case <-time.After(10 * time.Second):
			t.Errorf("server still running 10 s after SIGTERM")
		}
	})
	// The server prints the address it got: no race for a free port.
	m := stderr.await(servingRE, 30*time.Second, nil)
	if m == nil {
		t.Fatalf("the HTTP server did not say where it serves in 30 s:\n%s", stderr.String())
	}
	resp, err := http.Get(strings.TrimSuffix(m[1], "/mcp") + "/healthz")
	if err != nil {
		t.Fatalf("the HTTP server is not healthy: %v\n%s", err, stderr.String())
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the HTTP server is not healthy: /healthz %s\n%s", resp.Status, stderr.String())
	}
	return m[1]
}
