package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/adsmcp/adsmcp/internal/importer"
)

// Imports: report exports (parsed by package importer) written into a
// PostgreSQL warehouse by the import engine (importer.Write: the rules, the
// same for every warehouse, are there); importstore.go is how PostgreSQL
// reads and writes for it.
//
//   - Transactional: every file of one Import is written in one transaction; any
//     error (a conflict, a cancelled context) rolls it all back, the tables it
//     created included (PostgreSQL's DDL is transactional), and so does a dry
//     run.
//
// Unlike DuckDB, PostgreSQL lets other sessions write at the same time. Two
// concurrent imports could each delete the other's not-yet-committed rows'
// days and both insert, counting a day twice; so an import takes a
// transaction-level advisory lock (one import per schema at a time) and locks
// the warehouse's tables against other writers (SHARE ROW EXCLUSIVE: readers,
// such as a running adsmcp serve, go on reading the committed data).

// The options and the report are importer's, shared with duckdb.Import.
type (
	ImportOptions = importer.WriteOptions
	ImportedFile  = importer.WrittenFile
	ImportResult  = importer.WriteResult
)

// ErrDemoData is returned by Import when the warehouse holds the demo dataset.
var ErrDemoData = importer.ErrDemoData

// importDDL is the imports ledger. It is not in schema.sql: that is the schema
// adsmcp reads, and a warehouse filled by other means needs no ledger.
const importDDL = `
CREATE TABLE IF NOT EXISTS imports (
	sha256        text        PRIMARY KEY,
	file_name     text        NOT NULL,
	platform      text        NOT NULL,
	accounts      text        NOT NULL,
	first_date    date        NOT NULL,
	last_date     date        NOT NULL,
	facts         bigint      NOT NULL,
	reach_rows    bigint      NOT NULL,
	skipped_lines bigint      NOT NULL,
	imported_at   timestamptz NOT NULL
);`

// importTables are the tables an import writes (and ReplaceDemo empties).
var importTables = []string{"dataset", "accounts", "campaigns", "adsets", "ads", "facts", "reach", "imports", "sync_state"}

// Import writes parsed exports into the warehouse pool connects to (its
// search_path's first schema), creating the tables when missing, all in one
// transaction; see the comment above for the rules.
func Import(ctx context.Context, pool *pgxpool.Pool, exports []*importer.Export, opt ImportOptions) (res *ImportResult, err error) {
	target := Describe(pool.Config().ConnConfig)
	tx, err := pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres: import into %s: %w", target, err)
	}
	defer func() {
		// A dry run always ends here; a failed import too.
		if rbErr := tx.Rollback(context.Background()); rbErr != nil && !errors.Is(rbErr, pgx.ErrTxClosed) && err != nil {
			err = errors.Join(err, rbErr)
		}
	}()
	if err := prepare(ctx, tx); err != nil {
		return nil, err
	}
	res, err = importer.Write(ctx, &importStore{tx: tx, target: target}, exports, opt)
	if err != nil {
		return nil, err
	}
	if opt.DryRun {
		return res, nil
	}
	// Fresh statistics, so that the first queries after an import into new (or
	// emptied) tables are planned for the rows they hold.
	if _, err := tx.Exec(ctx, `ANALYZE dataset, accounts, campaigns, adsets, ads, facts, reach`); err != nil {
		return nil, fmt.Errorf("postgres: analyze after the import: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("postgres: commit the import: %w", err)
	}
	return res, nil
}

// Describe names the warehouse a connection config reaches, as a postgres://
// URL without its password (for reports and errors).
func Describe(cfg *pgx.ConnConfig) string {
	u := url.URL{Scheme: "postgres", Path: "/" + cfg.Database}
	if cfg.User != "" {
		u.User = url.User(cfg.User)
	}
	q := url.Values{}
	if strings.HasPrefix(cfg.Host, "/") { // a Unix socket directory
		q.Set("host", cfg.Host)
	} else {
		u.Host = net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
	}
	if sp := cfg.RuntimeParams["search_path"]; sp != "" {
		q.Set("search_path", sp)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// prepare waits for any other import into the schema (one at a time, see
// above; the lock ends with the transaction), creates the missing tables and
// locks them against other writers.
func prepare(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('adsmcp import ' || coalesce(current_schema(), '')))`); err != nil {
		return fmt.Errorf("postgres: waiting for another import: %w", err)
	}
	if err := createTables(ctx, tx); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `LOCK TABLE `+strings.Join(importTables, ", ")+` IN SHARE ROW EXCLUSIVE MODE`); err != nil {
		return fmt.Errorf("postgres: locking the warehouse's tables: %w", err)
	}
	return nil
}

// createTables runs the DDL only when a table is missing: CREATE TABLE IF NOT
// EXISTS still needs the CREATE privilege, which a role that only imports into
// an existing warehouse need not have.
func createTables(ctx context.Context, tx pgx.Tx) error {
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM unnest($1::text[]) AS t(name) WHERE to_regclass(t.name) IS NOT NULL`,
		importTables).Scan(&n); err != nil {
		return fmt.Errorf("postgres: looking for the warehouse's tables: %w", err)
	}
	if n == len(importTables) {
		return upgradeIfBehind(ctx, tx)
	}
	if _, err := currentSchema(ctx, tx); err != nil {
		return err
	}
	if err := ensureSchema(ctx, tx); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, importDDL); err != nil {
		return fmt.Errorf("postgres: creating the schema: %w", err)
	}
	return nil
}

// currentSchema is the schema new tables go to: the first of search_path that
// exists, an error with the fix when none does.
func currentSchema(ctx context.Context, tx pgx.Tx) (string, error) {
	var schema *string
	var path string
	if err := tx.QueryRow(ctx, `SELECT current_schema(), current_setting('search_path')`).Scan(&schema, &path); err != nil {
		return "", fmt.Errorf("postgres: current schema: %w", err)
	}
	if schema == nil {
		return "", fmt.Errorf("postgres: no schema of the search_path (%s) exists; fix: create it (CREATE SCHEMA …), or set search_path to one that exists", path)
	}
	return *schema, nil
}
