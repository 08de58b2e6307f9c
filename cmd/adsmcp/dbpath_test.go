package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/config"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
)

// TestExplicitDBMustExist: an explicit --db (or database: in the config file)
// that names no file is an error saying how to create one, for every command
// that reads the warehouse; nothing is created. A directory is an error naming
// the flag. Only the default location is created on first use.
func TestExplicitDBMustExist(t *testing.T) {
	dir := t.TempDir()
	typo := filepath.Join(dir, "no", "such", "ads.duckdb")
	reads := [][]string{
		{"query", "-m", "spend"},
		{"accounts"},
		{"serve"},
	}
	for _, args := range reads {
		_, _, err := runCLI(append(args, "--db", typo)...)
		if err == nil || !strings.Contains(err.Error(), "--db "+typo) || !strings.Contains(err.Error(), "adsmcp demo --db "+typo) {
			t.Errorf("%s with a missing --db: %v", args[0], err)
		}
		_, _, err = runCLI(append(args, "--db", dir)...)
		if err == nil || !strings.Contains(err.Error(), "--db "+dir+" is a directory") {
			t.Errorf("%s with a directory as --db: %v", args[0], err)
		}
		cfg := writeConfig(t, "database: "+typo+"\n")
		_, _, err = runCLI(append(args, "--config", cfg)...)
		if err == nil || !strings.Contains(err.Error(), "database: "+typo) || !strings.Contains(err.Error(), "adsmcp demo --db "+typo) {
			t.Errorf("%s with a missing database: in the config: %v", args[0], err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "no")); !os.IsNotExist(err) {
		t.Errorf("a missing --db created directories: %v", err)
	}
	// The commands that create warehouses create the file, not its folder.
	for _, args := range [][]string{
		{"demo", "--scale", "0.01"},
		{"import", importSamples + "google_en_campaigns_daily.csv", "--account-id", "1112223333"},
	} {
		_, _, err := runCLI(append(args, "--db", typo)...)
		if err == nil || !strings.Contains(err.Error(), filepath.Dir(typo)) || !strings.Contains(err.Error(), "mkdir -p") {
			t.Errorf("%s into a missing folder: %v", args[0], err)
		}
		_, _, err = runCLI(append(args, "--db", dir)...)
		if err == nil || !strings.Contains(err.Error(), "--db "+dir+" is a directory") {
			t.Errorf("%s into a directory: %v", args[0], err)
		}
	}
}

// TestDefaultDBNeedsNoFile: with no --db and no database: the default
// location is used even when it does not exist yet (it is created on first use).
func TestDefaultDBNeedsNoFile(t *testing.T) {
	g := &globals{cfg: &config.File{}}
	path, err := g.warehousePath(false)
	if err != nil || path != duckdb.DefaultPath() {
		t.Errorf("default warehouse: %q, %v", path, err)
	}
}
