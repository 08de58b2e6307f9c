package duckdb

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"

	"github.com/adsmcp/adsmcp/internal/importer"
)

// Syncs (`adsmcp sync`, docs/sync.md) write chunks into a warehouse file
// through the import engine's rules (importer.WriteChunk), one transaction
// per chunk: DuckDB's MVCC shows a reader on another connection of the same
// database the warehouse before the chunk's COMMIT or after it, never
// between.
//
// DuckDB admits one process that writes a file, and none may then read it:
// a server that reads the file (read-only) and a separate `adsmcp sync`
// exclude each other. A server that keeps its warehouse fresh opens it with
// OpenWritable and syncs through (*Source).SyncTarget, on the same database
// handle its queries use.

// OpenSync opens the warehouse file at path (created when missing) for a
// sync by this process. It fails, naming the fix, when another process has
// the file open (a server: it syncs the file itself).
func OpenSync(ctx context.Context, path string, opt importer.SyncOptions) (importer.SyncTarget, error) {
	if path == "" {
		path = DefaultPath()
	}
	db, err := openReadWrite(ctx, path)
	if err != nil {
		return nil, err
	}
	return syncTarget(db, path, opt, true), nil
}

// OpenWritable opens the warehouse at path as Open does, but read-write and
// held by this process: its queries and a sync (SyncTarget) share one
// database, so a server keeps answering while it syncs. Another process
// can then neither read nor write the file. A missing or empty file gets
// the latest layout and, unless opt.NoDemoFill, the demo dataset (which a
// sync replaces only with SyncOptions.ReplaceDemo).
func OpenWritable(ctx context.Context, path string, opt Options) (*Source, error) {
	if path == "" {
		path = DefaultPath()
	}
	db, err := openReadWrite(ctx, path)
	if err != nil {
		return nil, err
	}
	src, err := openWritable(ctx, db, path, opt)
	if err != nil {
		db.Close()
		return nil, err
	}
	return src, nil
}

// openReadWrite opens the warehouse file at path (created when missing)
// read-write, which takes DuckDB's lock on it for this process.
func openReadWrite(ctx context.Context, path string) (*sql.DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create warehouse directory: %w", err)
	}
	db, err := sql.Open("duckdb", path)
	if err == nil {
		err = db.PingContext(ctx)
	}
	if err != nil {
		if db != nil {
			db.Close()
		}
		return nil, syncOpenError(path, err)
	}
	return db, nil
}

func openWritable(ctx context.Context, db *sql.DB, path string, opt Options) (*Source, error) {
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	complete, err := Loaded(ctx, db)
	if err != nil {
		return nil, err
	}
	if !complete && !opt.NoDemoFill {
		if err := loadDemoInto(ctx, db, path, opt); err != nil {
			return nil, err
		}
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	err = inTransaction(ctx, conn, path, true, func(*importStore) error { return nil }) // the latest layout
	conn.Close()
	if err != nil {
		return nil, fmt.Errorf("warehouse %s: %w", path, err)
	}
	spill := newSpill(path, opt.MemoryLimitMB)
	isDemo, label, err := readDemo(ctx, db)
	if err == nil {
		err = spill.apply(ctx, db)
	}
	if err != nil {
		return nil, fmt.Errorf("open warehouse %s: %w", path, err)
	}
	return newSource(&Source{db: db, path: path, logger: opt.Logger, spill: spill, writable: true}, isDemo, label), nil
}

// SyncTarget is a sync into the warehouse s, on its own database handle:
// s must be opened with OpenWritable. Closing the target leaves s open.
func (s *Source) SyncTarget(opt importer.SyncOptions) (importer.SyncTarget, error) {
	if !s.writable {
		return nil, fmt.Errorf("the warehouse %s is open read-only; open it with OpenWritable to sync it", s.path)
	}
	t := syncTarget(s.db, s.path, opt, false)
	run := t.Run
	t.Run = func(ctx context.Context, write func(importer.Store) error) error {
		if err := run(ctx, write); err != nil {
			return err
		}
		// A chunk written with ReplaceDemo ends the demo data: the source's
		// answers must stop saying they are.
		isDemo, label, err := readDemo(context.WithoutCancel(ctx), s.db)
		if err != nil {
			return fmt.Errorf("open warehouse %s: %w", s.path, err)
		}
		s.demo.Store(&demoState{isDemo, label})
		return nil
	}
	return t, nil
}

// SyncStates are the accounts' sync states (table sync_state), none when
// the warehouse was never synced or predates the table (schema version 3).
func (s *Source) SyncStates(ctx context.Context) ([]importer.SyncState, error) {
	return readSyncStates(ctx, s.db)
}

// syncTarget is a sync into the database db (at path), one transaction per
// chunk; own: Close checkpoints and closes db.
func syncTarget(db *sql.DB, path string, opt importer.SyncOptions, own bool) *importer.StoreTarget {
	t := &importer.StoreTarget{Warehouse: path, Options: opt,
		Run: func(ctx context.Context, write func(importer.Store) error) error {
			conn, err := db.Conn(ctx)
			if err != nil {
				return fmt.Errorf("warehouse %s: %w", path, err)
			}
			defer conn.Close()
			return inTransaction(ctx, conn, path, true, func(s *importStore) error { return write(s) })
		},
		ReadStates: func(ctx context.Context) ([]importer.SyncState, error) { return readSyncStates(ctx, db) },
	}
	if own {
		// The chunks move from DuckDB's write-ahead log into the file.
		t.Release = func() error {
			_, err := db.Exec("CHECKPOINT")
			if cerr := db.Close(); err == nil {
				err = cerr
			}
			return err
		}
	}
	return t
}

// lockPID finds the process DuckDB names as holding a file's lock ("Could
// not set lock on file …: Conflicting lock is held in … (PID 1234)").
var lockPID = regexp.MustCompile(`\(PID (\d+)\)`)

// syncOpenError explains a warehouse a sync cannot open; another process
// holding it is most often a server reading it, which can sync it itself.
func syncOpenError(path string, err error) error {
	m := lockPID.FindStringSubmatch(err.Error())
	if m == nil {
		return fmt.Errorf("open warehouse %s: %w", path, err)
	}
	return fmt.Errorf("the warehouse %s is open in another process (PID %s; an adsmcp serve?), and DuckDB lets one process write a file only while no other has it open: "+
		"let the server sync it itself (add `sync: {every: 1h}` to its config), or stop it, sync, then start it again: %w", path, m[1], err)
}
