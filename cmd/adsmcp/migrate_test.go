package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/source/migration"
)

// adsmcp migrate reports a warehouse up to date, and refuses to create one.
func TestMigrateCommand(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ads.duckdb")
	if _, stderr, err := runCLI("migrate", "--db", path); err == nil || !strings.Contains(err.Error(), path+" holds no warehouse: nothing to migrate") {
		t.Errorf("migrate a missing file: %v\n%s", err, stderr)
	}
	if _, _, err := runCLI("demo", "--db", path, "--anchor", "2026-03-15", "--scale", "0.01"); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := runCLI("migrate", "--db", path)
	if err != nil || out != fmt.Sprintf("%s: schema version %d, up to date; nothing to do\n", path, migration.Latest()) {
		t.Errorf("migrate: %v\n%s%s", err, out, stderr)
	}
	if _, _, err := runCLI("migrate", "--db", path, "--target", "postgres://x@localhost/ads"); err == nil || !strings.Contains(err.Error(), "--db and --target") {
		t.Errorf("--db and --target: %v", err)
	}
}

func TestMigrateCommandPostgres(t *testing.T) {
	url := pgTargetForTest(t)
	if _, _, err := runCLI("migrate", "--target", url); err == nil || !strings.Contains(err.Error(), "holds no warehouse") {
		t.Errorf("migrate an empty schema: %v", err)
	}
	if n := tablesIn(t, url); n != 0 {
		t.Errorf("migrate created %d tables", n)
	}
	if _, stderr, err := runCLI("demo", "--target", url, "--anchor", "2026-03-15", "--scale", "0.01"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	out, stderr, err := runCLI("migrate", "--target", url)
	if err != nil || !strings.HasSuffix(out, fmt.Sprintf(": schema version %d, up to date; nothing to do\n", migration.Latest())) || !strings.HasPrefix(out, "postgres://") {
		t.Errorf("migrate: %v\n%s%s", err, out, stderr)
	}
}
