package clickhouse

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/adsmcp/adsmcp/internal/source/migration"
)

// warehouseSchema is the warehouse's layout, version by version
// (internal/source/migration). A brand-new warehouse gets every version in
// order, so there is no separate "latest" DDL to drift from them.
var warehouseSchema = migration.Schema{Dialect: migration.ClickHouse, Versions: map[int][]string{
	1: statements(Schema),
	2: version2,
	3: version3,
}}

// version3 is the sync state (importer.SyncState), one row per account a
// sync has written or tried: the span of days synced, the --since target,
// and the last success, attempt and error (UTC; docs/warehouse.md,
// "sync_state"). ClickHouse updates no row in place: a write inserts the
// account's new row, and a reader takes the one of the highest revision
// (a counter the writer raises: DateTime has whole seconds, and a sync
// writes many states a second); ReplacingMergeTree drops the older rows as
// it merges. Reads do not need it: a warehouse without it has no freshness
// to state. Safe to repeat (IF NOT EXISTS), as a ClickHouse version must be.
var version3 = []string{
	`CREATE TABLE IF NOT EXISTS sync_state (
	account_id     String,
	platform       String,
	synced_from    Nullable(Date),
	synced_through Nullable(Date),
	backfill_from  Nullable(Date),
	last_success   Nullable(DateTime('UTC')),
	last_attempt   DateTime('UTC'),
	last_error     String,
	revision       UInt64
) ENGINE = ReplacingMergeTree(revision) ORDER BY account_id`,
}

// version2 adds breakdown sets (catalog.BreakdownSet): every existing fact row
// is a delivery row; the other sets' rows carry their own dimensions. And the
// accounts' attribution window and counted actions (NULL: not said). Each
// statement is safe to repeat (IF NOT EXISTS), as a ClickHouse version must be.
var version2 = []string{
	`ALTER TABLE facts ADD COLUMN IF NOT EXISTS breakdown String DEFAULT 'delivery'`,
	`ALTER TABLE facts ADD COLUMN IF NOT EXISTS age Nullable(String)`,
	`ALTER TABLE facts ADD COLUMN IF NOT EXISTS gender Nullable(String)`,
	`ALTER TABLE facts ADD COLUMN IF NOT EXISTS placement Nullable(String)`,
	`ALTER TABLE facts ADD COLUMN IF NOT EXISTS conversion_action Nullable(String)`,
	`ALTER TABLE accounts ADD COLUMN IF NOT EXISTS attribution_window Nullable(String)`,
	`ALTER TABLE facts ADD COLUMN IF NOT EXISTS attribution_window Nullable(String)`,
	`ALTER TABLE reach ADD COLUMN IF NOT EXISTS attribution_window Nullable(String)`,
	`ALTER TABLE accounts ADD COLUMN IF NOT EXISTS conversion_actions Nullable(String)`,
}

// Migrate brings the warehouse at dsn to the latest schema version (`adsmcp
// migrate --target clickhouse://…`), through the HTTP interface. ClickHouse
// has no transactions: each version is recorded as soon as it is applied,
// so a migration interrupted halfway resumes where it stopped. A database
// holding no warehouse is refused (migration.ErrNoWarehouse).
func Migrate(ctx context.Context, dsn string) (migration.Result, error) {
	c, err := newHTTPClient(dsn)
	if err != nil {
		return migration.Result{}, err
	}
	res, err := migration.Upgrade(ctx, httpExecutor{c}, warehouseSchema, migration.FactColumns())
	if err != nil {
		return res, fmt.Errorf("clickhouse: %w", err)
	}
	return res, nil
}

// ensureSchema brings the warehouse to the latest layout: Load and Import
// create new warehouses with it.
func ensureSchema(ctx context.Context, c *httpClient) error {
	if _, err := migration.Migrate(ctx, httpExecutor{c}, warehouseSchema, migration.FactColumns()); err != nil {
		return fmt.Errorf("clickhouse: the schema: %w", err)
	}
	return nil
}

// upgradeIfBehind migrates an existing warehouse only when it is behind
// (migration.MigrateIfBehind): an import into a current warehouse writes no
// DDL.
func upgradeIfBehind(ctx context.Context, c *httpClient) error {
	if _, err := migration.MigrateIfBehind(ctx, httpExecutor{c}, warehouseSchema, migration.FactColumns()); err != nil {
		return fmt.Errorf("clickhouse: the schema: %w", err)
	}
	return nil
}

// checkSchema refuses, when the server opens the warehouse, a layout it
// cannot answer from: written by a newer adsmcp, or older by a version or a
// column the reads need. Reads run with readonly=2, so it never migrates.
func (s *Source) checkSchema(ctx context.Context) error {
	st, err := migration.Inspect(s.settings(ctx), migration.SQL(s.db), warehouseSchema, migration.FactColumns())
	if err != nil {
		return fmt.Errorf("clickhouse: %w", err)
	}
	if err := st.Readable(); err != nil {
		return fmt.Errorf("clickhouse: %w (adsmcp migrate --target with this database's URL)", err)
	}
	return nil
}

// httpExecutor runs the migration runner's SQL over the HTTP interface.
type httpExecutor struct{ c *httpClient }

func (e httpExecutor) Exec(ctx context.Context, statement string) error {
	if m := addColumnIfMissing.FindStringSubmatch(statement); m != nil {
		// ClickHouse 18.16 has no ADD COLUMN IF NOT EXISTS: look first, so
		// the version stays safe to repeat.
		have, err := e.Strings(ctx, "SELECT count() FROM system.columns WHERE database = currentDatabase() AND table = '"+m[1]+"' AND name = '"+m[2]+"'")
		if err != nil {
			return err
		}
		if len(have) == 1 && have[0] != "0" {
			return nil
		}
		statement = "ALTER TABLE " + m[1] + " ADD COLUMN " + m[2] + " " + m[3]
	}
	_, err := e.c.do(ctx, statement, nil)
	return err
}

// addColumnIfMissing matches the statements of a version that add a column
// once: ALTER TABLE t ADD COLUMN IF NOT EXISTS c <type and default>. Names
// are the version's own, lower-case SQL names.
var addColumnIfMissing = regexp.MustCompile(`^ALTER TABLE ([a-z_]+) ADD COLUMN IF NOT EXISTS ([a-z_]+) (.+)$`)

// Strings reads the answer's lines (TabSeparated, ClickHouse's default):
// the runner's queries return names and numbers, which need no unescaping.
func (e httpExecutor) Strings(ctx context.Context, query string) ([]string, error) {
	out, err := e.c.do(ctx, query, nil)
	if err != nil {
		return nil, err
	}
	return strings.Fields(out), nil
}
