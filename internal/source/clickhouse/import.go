package clickhouse

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/adsmcp/adsmcp/internal/importer"
)

// Imports of report exports (parsed by package importer) into a ClickHouse
// warehouse, by the import engine (importer.Write: the rules, the same for
// every warehouse, are there); importstore.go is how ClickHouse reads and
// writes for it.
//
//   - All or nothing, as far as ClickHouse allows. It has no transactions, so:
//     the engine checks every file against the warehouse (accounts' platform
//     and currency) before anything is written, and a bad file changes
//     nothing; then each file is written delete-first (a mutation adsmcp
//     waits for), then its rows, then its ledger row, last. A write cut short
//     by the server or the network leaves that file without its ledger row,
//     so importing it again replaces whatever part of it was written: running
//     the same import again completes it.
//   - A dry run writes nothing, and creates no table: its report counts what
//     each file replaces in the warehouse as it is (not after the run's
//     earlier files, which it does not write).
//   - The names of accounts, campaigns, ad sets and ads are stored on each
//     fact (the warehouse is denormalized): rows imported earlier keep the
//     names they were imported with.

// importDDL is the imports ledger.
const importDDL = `CREATE TABLE IF NOT EXISTS imports (
	sha256        String,
	file_name     String,
	platform      String,
	accounts      String,
	first_date    Date,
	last_date     Date,
	facts         Int64,
	reach_rows    Int64,
	skipped_lines Int64,
	imported_at   DateTime
) ENGINE = MergeTree ORDER BY sha256`

// Import writes parsed exports into the warehouse at dsn, creating its
// tables when missing.
func Import(ctx context.Context, dsn string, exports []*importer.Export, opt importer.WriteOptions) (*importer.WriteResult, error) {
	c, err := newHTTPClient(dsn)
	if err != nil {
		return nil, err
	}
	s := &importStore{c: c, target: Redact(dsn)}
	schema, err := s.tablesPresent(ctx, tables...)
	if err != nil {
		return nil, err
	}
	ledger, err := s.tablesPresent(ctx, "imports")
	if err != nil {
		return nil, err
	}
	s.complete, s.ledger = schema == len(tables) && ledger == 1, ledger == 1
	switch {
	case schema == len(tables):
		// The tables created later, before the first write: a refused import
		// (into the demo data) or a dry run creates nothing.
	case schema == 0:
		s.fresh = true // nothing to read
	default:
		if err := s.ensureTables(ctx); err != nil {
			return nil, err
		}
	}
	s.db = ch.OpenDB(c.e.native)
	defer s.db.Close()
	return importer.Write(ctx, s, exports, opt)
}

// tablesPresent counts the tables of names that exist, 0 when the database
// itself does not.
func (s *importStore) tablesPresent(ctx context.Context, tables ...string) (int, error) {
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = literal(t)
	}
	out, err := s.c.server().do(ctx, "SELECT count() FROM system.tables WHERE database = "+literal(s.c.e.database)+
		" AND name IN ("+strings.Join(names, ", ")+")", nil)
	if err != nil {
		return 0, fmt.Errorf("clickhouse: looking for the warehouse's tables: %w", err)
	}
	var n int
	if _, err := fmt.Sscan(out, &n); err != nil {
		return 0, fmt.Errorf("clickhouse: looking for the warehouse's tables: %q", out)
	}
	return n, nil
}

// ensureTables creates the tables (and the ledger) missing, once: before the
// first write.
func (s *importStore) ensureTables(ctx context.Context) error {
	if s.complete {
		if s.upgraded {
			return nil
		}
		// A warehouse from before a schema version gets it (and any fact
		// column it lacks) before the first write; a dry run never gets here.
		s.upgraded = true
		return upgradeIfBehind(ctx, s.c)
	}
	if err := s.createTables(ctx); err != nil {
		return err
	}
	s.complete, s.ledger, s.fresh = true, true, false
	return nil
}

func (s *importStore) createTables(ctx context.Context) error {
	if err := ensureSchema(ctx, s.c); err != nil {
		return err
	}
	if _, err := s.c.do(ctx, importDDL, nil); err != nil {
		return fmt.Errorf("clickhouse: create schema: %w", err)
	}
	return nil
}

// importStore is the import engine's importer.Store for a ClickHouse
// warehouse: the HTTP interface for DDL and bulk inserts, database/sql for
// reads and mutations.
type importStore struct {
	c      *httpClient
	db     *sql.DB
	target string
	// fresh: a database without the warehouse's tables, which holds nothing
	// to read; complete: every table is there; ledger: the imports ledger is.
	fresh, complete, ledger bool
	// upgraded: the schema version was checked (and any migration applied)
	// before the first write.
	upgraded bool
	// sync: a sync's store, which replaces rows by whole partitions (sync.go)
	// rather than by mutations; revision is the last sync_state revision it
	// wrote.
	sync     bool
	revision uint64
}
