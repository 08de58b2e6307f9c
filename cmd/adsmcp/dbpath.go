package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/adsmcp/adsmcp/internal/source/duckdb"
)

// warehousePath is the embedded warehouse file a command uses, checked before
// anything is opened.
//
// Only the default location (under $XDG_DATA_HOME) is created on first use,
// demo data and all. A path the user wrote (--db, or database: in the config
// file) must name a file that exists — a mistyped path used to create folders
// and a fresh demo warehouse without a word, and then answer from it. The
// commands that create warehouses (demo, import: create true) may name a new
// file, but in a folder that exists. A directory is refused for both, naming
// the flag, instead of DuckDB's own message.
func (g *globals) warehousePath(create bool) (string, error) {
	if g.dbFrom == "" {
		if g.db != "" {
			return g.db, nil
		}
		return duckdb.DefaultPath(), nil
	}
	path := g.db
	name := g.dbFrom + " " + path
	if g.dbFrom == "database:" {
		name += " (in " + g.configFile() + ")"
	}
	info, err := os.Stat(path)
	switch {
	case err == nil && info.IsDir():
		return "", fmt.Errorf("%s is a directory; name the warehouse file, e.g. %s", name, filepath.Join(path, "adsmcp.duckdb"))
	case err == nil:
		return path, nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%s: %w", name, err)
	case create:
		dir := filepath.Dir(path)
		if d, err := os.Stat(dir); err != nil || !d.IsDir() {
			return "", fmt.Errorf("%s: the folder %s does not exist; create it first (mkdir -p %s) or pick another path", name, dir, dir)
		}
		return path, nil
	}
	return "", fmt.Errorf("%s: no warehouse file there; create one with `adsmcp demo --db %s` (demo data) or "+
		"`adsmcp import --db %s EXPORT.csv` (your own exports), or leave it out to use %s", name, path, path, duckdb.DefaultPath())
}

// configFile is the configuration file in use (--config or $ADSMCP_CONFIG).
func (g *globals) configFile() string {
	if g.configPath != "" {
		return g.configPath
	}
	return os.Getenv("ADSMCP_CONFIG")
}
