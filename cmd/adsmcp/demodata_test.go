package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/test/skipreport"
)

// TestDemoForceRefusedUnderARunningServer: `demo --force` on the file a
// server is reading is refused as import is (the server would go on answering
// from the deleted file), and the file is left as it was.
func TestDemoForceRefusedUnderARunningServer(t *testing.T) {
	if testing.Short() {
		skipreport.Skip(t, "runs the binary")
	}
	db := servedCopy(t)
	before, _ := os.Stat(db)
	_, _, err := runCLI("demo", "--db", db, "--force", "--scale", "0.01")
	if err == nil || !strings.Contains(err.Error(), "open in another process") {
		t.Fatalf("demo --force under a running server: %v, want the import's refusal", err)
	}
	after, err := os.Stat(db)
	if err != nil || !os.SameFile(before, after) || after.Size() != before.Size() {
		t.Errorf("the warehouse was touched: %v", err)
	}
}

// servedCopy is a copy of the test warehouse that a server process is
// answering from (it holds DuckDB's lock on the file until the test ends).
func servedCopy(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "ads.duckdb")
	b, err := os.ReadFile(testDB(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(db, b, 0o644); err != nil {
		t.Fatal(err)
	}
	serveHTTPProcess(t, binary(t), "serve", "--db", db, "--http", "127.0.0.1:0")
	return db
}

// TestTenantServerRefusesAnEmptyWarehouse: a server with tenants: whose
// warehouse is missing does not load and serve the demo dataset: it stops at
// startup, naming the file and the fix, and creates nothing.
func TestTenantServerRefusesAnEmptyWarehouse(t *testing.T) {
	if testing.Short() {
		skipreport.Skip(t, "runs the binary")
	}
	home := t.TempDir()
	cfg := writeConfig(t, "tenants:\n  acme: {accounts: [\"*\"]}\n")
	bin := binary(t) // built before the clock starts
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve", "--config", cfg, "--http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "ADSMCP_CONFIG=", "XDG_DATA_HOME="+home)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "holds no data") || !strings.Contains(string(out), "adsmcp import --db") {
		t.Fatalf("serve with tenants and no warehouse: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "loading the demo dataset") {
		t.Errorf("it loaded the demo dataset:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(home, "adsmcp", "adsmcp.duckdb")); err == nil {
		t.Error("a warehouse file was created")
	}
}
