package duckdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// ErrCorrupt: a read found the warehouse file corrupted (DuckDB's block
// checksums did not match). It does not heal: the file must be rebuilt.
var ErrCorrupt = errors.New("the warehouse file is corrupted")

// noteCorruption remembers a corruption a read ran into, so that Check (and
// /readyz) say so from then on — otherwise only the queries that touch the
// broken blocks fail, and the server looks ready.
func (s *Source) noteCorruption(err error) {
	if err != nil && isCorruption(err) && s.corrupt.CompareAndSwap(nil, &err) {
		s.logger.Error("the warehouse file is corrupted: rebuild it (adsmcp demo, or adsmcp import into a new file) and restart", "path", s.path, "error", err)
	}
}

// isCorruption recognizes DuckDB's message for a block whose checksum does not
// match ("IO Error: Corrupt database file: computed checksum … does not match
// stored checksum …"); the driver has no error code for it.
func isCorruption(err error) bool {
	return strings.Contains(err.Error(), "Corrupt database file")
}

// Check is the source's readiness (source.Checker): not ready once a read
// found the file corrupted, else the accounts must list.
func (s *Source) Check(ctx context.Context) error {
	if p := s.corrupt.Load(); p != nil {
		return fmt.Errorf("%w (a query read a broken block; see the server log)", ErrCorrupt)
	}
	_, err := s.Accounts(ctx)
	return err
}

// DemoData reports whether the warehouse holds the demo dataset
// (source.DemoLabelled), as read when it was opened: the file is opened
// read-only and demo and import refuse to write it while a server reads it.
func (s *Source) DemoData() (bool, string) {
	d := s.demo.Load()
	return d.demo, d.label
}

// demoState is whether a Source's data is the demo dataset, and its label.
type demoState struct {
	demo  bool
	label string
}

// readDemo reads the dataset's kind and label.
func readDemo(ctx context.Context, db *sql.DB) (bool, string, error) {
	var kind, label sql.NullString
	err := db.QueryRowContext(ctx, `SELECT max(CASE WHEN key = 'kind' THEN value END), max(CASE WHEN key = 'label' THEN value END) FROM dataset`).Scan(&kind, &label)
	if err != nil {
		return false, "", fmt.Errorf("read dataset info: %w", err)
	}
	return kind.String == "demo", label.String, nil
}

// InUse returns an error naming the fix when another process (a running
// adsmcp serve) has the warehouse at path open: the same test as import's,
// which cannot take DuckDB's write lock then. A missing file is not in use.
func InUse(ctx context.Context, path string) error {
	db, err := sql.Open("duckdb", path)
	if err == nil {
		err = db.PingContext(ctx)
		db.Close()
	}
	if err != nil && strings.Contains(strings.ToLower(err.Error()), "lock") {
		return openError(path, err)
	}
	return nil
}
