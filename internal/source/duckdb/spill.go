package duckdb

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// spillDir is where DuckDB writes what its memory limit does not hold (the
// hash tables of a multi-million-row aggregation) for the warehouse at one
// path: a directory of the system's temporary directory named after the
// path, which DuckDB creates when it first spills and empties when done.
// A spillDir with no limit sets nothing.
type spillDir struct {
	limitMB int
	dir     string
}

func newSpill(path string, limitMB int) *spillDir {
	if limitMB <= 0 {
		return &spillDir{}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	sum := sha256.Sum256([]byte(abs))
	return &spillDir{limitMB: limitMB, dir: filepath.Join(os.TempDir(), "adsmcp-duckdb-spill-"+hex.EncodeToString(sum[:8]))}
}

// apply sets the limit on the open database. They are settings of the
// database instance, which DuckDB shares between the handles of one process
// on the same file (so they are SET, not given when opening: a handle opened
// with other settings would be refused).
func (s *spillDir) apply(ctx context.Context, db *sql.DB) error {
	if s.limitMB == 0 {
		return nil
	}
	for _, stmt := range []string{
		fmt.Sprintf("SET memory_limit = '%dMB'", s.limitMB),
		// The directory is ours (a hash), so it holds no quote; escape anyway.
		"SET temp_directory = '" + strings.ReplaceAll(s.dir, "'", "''") + "'",
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("duckdb: %s: %w", stmt, err)
		}
	}
	return nil
}

// remove deletes the directory when DuckDB left it empty (another handle on
// the same file may still use it otherwise).
func (s *spillDir) remove() {
	if s != nil && s.dir != "" {
		os.Remove(s.dir)
	}
}
