package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/source/migration"
)

// Imports: report exports (parsed by package importer) written into a warehouse
// file, new or holding earlier imports, by the import engine (importer.Write:
// the rules are there); importstore.go is how DuckDB reads and writes for it.
//
//   - Transactional: every file of one Import is written in one transaction; any
//     error (a conflict, a cancelled context) rolls it all back, and so does a
//     dry run. After the commit a CHECKPOINT moves the import into the file.
//   - A dry run into a missing file creates nothing (it runs in memory).
//   - Demo data is refused before the write lock is taken (a server may be
//     reading the file), then checked again in the transaction.

// The options and the report are importer's, shared by every warehouse that
// imports (see importer.WriteOptions); these names keep duckdb's API.
type (
	ImportOptions = importer.WriteOptions
	ImportedFile  = importer.WrittenFile
	ImportResult  = importer.WriteResult
)

// ErrDemoData is returned by Import when the warehouse holds the demo dataset.
var ErrDemoData = importer.ErrDemoData

// ImportLabel is the dataset label of a warehouse filled by imports.
const ImportLabel = importer.Label

// elsewhere is the demo refusal's alternative for a DuckDB file.
const elsewhere = "--db to write another (new) file"

// Import writes parsed exports into the warehouse at path (created when missing),
// all in one transaction; see the comment above for the rules.
func Import(ctx context.Context, path string, exports []*importer.Export, opt ImportOptions) (*ImportResult, error) {
	if path == "" {
		path = DefaultPath()
	}
	_, statErr := os.Stat(path)
	exists := statErr == nil
	if exists && !opt.ReplaceDemo {
		if err := refuseDemoReadOnly(ctx, path); err != nil {
			return nil, err
		}
	}
	dsn := path
	if opt.DryRun && !exists {
		dsn = "" // a dry run into a new file: nothing on disk
	} else if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create warehouse directory: %w", err)
	}
	db, err := sql.Open("duckdb", dsn)
	if err != nil {
		return nil, openError(path, err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, openError(path, err)
	}
	defer conn.Close()
	res, err := importInTransaction(ctx, conn, path, exports, opt)
	if err != nil {
		return nil, err
	}
	if !opt.DryRun {
		if _, err := conn.ExecContext(ctx, "CHECKPOINT"); err != nil {
			return nil, fmt.Errorf("duckdb: checkpoint after the import: %w", err)
		}
	}
	return res, nil
}

// importInTransaction runs the import engine over one transaction of conn,
// committed unless the import fails or is a dry run.
func importInTransaction(ctx context.Context, conn *sql.Conn, path string, exports []*importer.Export, opt ImportOptions) (res *ImportResult, err error) {
	err = inTransaction(ctx, conn, path, !opt.DryRun, func(s *importStore) error {
		res, err = importer.Write(ctx, s, exports, opt)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// inTransaction runs write over a store on one transaction of conn, at the
// latest layout, with the import's staging tables; committed when commit is
// set and write succeeds, else rolled back (a cancelled context too).
func inTransaction(ctx context.Context, conn *sql.Conn, path string, commit bool, write func(*importStore) error) (err error) {
	committed := false
	defer func() {
		if committed {
			return
		}
		// The context may be what failed: roll back regardless. A statement
		// cut short by it may leave the connection in a transaction the
		// ROLLBACK does not end (or in none, if BEGIN was what was cut):
		// the connection is discarded rather than returned to the pool,
		// where a reader would get it.
		conn.ExecContext(context.Background(), "ROLLBACK")     //nolint:errcheck // see above
		conn.Raw(func(any) error { return driver.ErrBadConn }) //nolint:errcheck // discards the connection
	}()
	if _, err := conn.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
		return openError(path, err)
	}
	if err := ensureSchema(ctx, migration.SQL(conn)); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, importDDL); err != nil {
		return fmt.Errorf("duckdb: creating the schema: %w", err)
	}
	if err := write(&importStore{conn: conn, path: path}); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, dropImportStaging); err != nil {
		return err
	}
	if !commit {
		return nil // rolled back by the deferred ROLLBACK
	}
	// Not cancelled from here: the write is whole, and a COMMIT cut short
	// would leave its outcome unknown to the caller.
	if _, err := conn.ExecContext(context.WithoutCancel(ctx), "COMMIT"); err != nil {
		return fmt.Errorf("duckdb: commit: %w", err)
	}
	committed = true
	return nil
}

// refuseDemoReadOnly returns ErrDemoData when the warehouse at path holds data
// that was neither imported nor synced; it opens the file read-only.
func refuseDemoReadOnly(ctx context.Context, path string) error {
	db, err := sql.Open("duckdb", path+"?access_mode=read_only")
	if err != nil {
		return nil // the read-write open reports it
	}
	defer db.Close()
	var kind string
	err = db.QueryRowContext(ctx, `SELECT value FROM dataset WHERE key = 'kind'`).Scan(&kind)
	if err != nil || importer.RealData(kind) {
		return nil // no dataset yet, or imports: the transaction decides
	}
	return importer.DemoError(path, kind, elsewhere)
}

// openError explains a warehouse that cannot be opened for writing.
func openError(path string, err error) error {
	if strings.Contains(strings.ToLower(err.Error()), "lock") {
		return fmt.Errorf("the warehouse %s is open in another process (adsmcp serve?): stop it, import, then start it again: %w", path, err)
	}
	return fmt.Errorf("open warehouse %s: %w", path, err)
}
