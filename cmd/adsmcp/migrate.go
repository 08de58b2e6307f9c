package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/adsmcp/adsmcp/internal/source/duckdb"
	"github.com/adsmcp/adsmcp/internal/source/migration"
)

func newMigrateCommand(g *globals) *cobra.Command {
	var targetURL string
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Bring a warehouse's tables to this adsmcp's schema version",
		Long: `Brings the warehouse (the --db file, or with --target a PostgreSQL or ClickHouse
database) to the schema version this adsmcp reads and writes: it applies the
versions the warehouse lacks, records its version (a warehouse written before
versions existed is recognised as version 1), and adds the facts columns of new
metrics, NULL in the rows already there. It prints what it did; a warehouse that
is up to date is left alone. See docs/warehouse.md, "Schema versions".

The embedded file is migrated by any command that opens it while no other
process has it open; run migrate when a server keeps it open. PostgreSQL and
ClickHouse warehouses are never migrated by the server, which only reads:
run migrate with a user that may alter their tables (adsmcp import --target
migrates one only when it is behind). A warehouse written by a newer adsmcp is
refused: upgrade adsmcp instead.

On DuckDB and PostgreSQL the migration is one transaction: on any error the
warehouse is left as it was. ClickHouse has no transactions: each version is
recorded as soon as it is applied, so running migrate again resumes.`,
		Example: `  adsmcp migrate
  adsmcp migrate --db ads.duckdb
  adsmcp migrate --target postgres://adsmcp@db.internal:5432/ads
  adsmcp migrate --target 'clickhouse://default@localhost:9000/ads?http_port=8123'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			t, err := targetOf(cmd, g, targetURL)
			if err != nil {
				return err
			}
			res, err := migrateTarget(cmd, t)
			if errors.Is(err, migration.ErrNoWarehouse) {
				return &messageError{err: err, msg: fmt.Sprintf("%s holds no warehouse: nothing to migrate; create one with `adsmcp demo` or `adsmcp import`", t)}
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %s\n", t, res)
			return nil
		},
	}
	cmd.Flags().StringVar(&targetURL, "target", "", "migrate this database instead of the --db file: postgres://USER@HOST:PORT/DATABASE or clickhouse://USER:PASSWORD@HOST:9000/DATABASE")
	return cmd
}

// migrateTarget migrates the warehouse t names: a server through its
// plug-in's target, else the DuckDB file.
func migrateTarget(cmd *cobra.Command, t *target) (migration.Result, error) {
	ctx := cmd.Context()
	if t.engine != nil {
		res, err := t.engine.Migrate(ctx, t.url)
		return res, t.failure(err)
	}
	// Never create the file: a missing one holds no warehouse.
	if _, err := os.Stat(t.path); err != nil {
		return migration.Result{}, fmt.Errorf("%w (%v)", migration.ErrNoWarehouse, err)
	}
	return duckdb.Migrate(ctx, t.path)
}
