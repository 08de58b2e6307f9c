package clickhouse

import (
	"context"
	"errors"

	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/source/migration"
	"github.com/adsmcp/adsmcp/internal/source/registry"
)

// target writes a ClickHouse warehouse for `adsmcp import`, `adsmcp sync` and `adsmcp demo`,
// creating the database when missing.
var target = registry.Target{
	Schemes:  []string{"clickhouse"},
	Label:    "ClickHouse",
	Example:  "clickhouse://USER:PASSWORD@HOST:9000/DATABASE?http_port=8123",
	CheckURL: CheckDSN,
	Import:   importURL,
	LoadDemo: loadDemoURL,
	Migrate:  migrateURL,
	OpenSync: openSyncURL,

	ErrNotEmpty: ErrNotEmpty,
	NotEmptyFix: "point --target at another database",
}

// migrateURL brings the warehouse at dsn to this adsmcp's schema version.
func migrateURL(ctx context.Context, dsn string) (migration.Result, error) {
	res, err := Migrate(ctx, dsn)
	if err != nil && !errors.Is(err, migration.ErrNoWarehouse) {
		return res, registry.Failed("migrate", err)
	}
	return res, err
}

// openSyncURL opens the warehouse at dsn for a sync, creating the database
// when missing.
func openSyncURL(ctx context.Context, dsn string, opt importer.SyncOptions) (importer.SyncTarget, error) {
	if err := CreateDatabase(ctx, dsn); err != nil {
		return nil, registry.Failed("create the database", err)
	}
	t, err := OpenSync(ctx, dsn, opt)
	if err != nil {
		return nil, registry.Failed("connect", err)
	}
	return t, nil
}

// importURL writes the exports into the warehouse at dsn (a dry run creates
// nothing, not even the database).
func importURL(ctx context.Context, dsn string, exports []*importer.Export, opt importer.WriteOptions) (*importer.WriteResult, error) {
	if !opt.DryRun {
		if err := CreateDatabase(ctx, dsn); err != nil {
			return nil, registry.Failed("create the database", err)
		}
	}
	res, err := Import(ctx, dsn, exports, opt)
	if err != nil && !errors.Is(err, importer.ErrDemoData) {
		return nil, registry.Failed("import", err)
	}
	return res, err
}

// loadDemoURL loads the demo dataset into an empty warehouse at dsn, or with
// force after dropping the one there. ClickHouse has no transactions: a load
// that fails drops the tables it made.
func loadDemoURL(ctx context.Context, dsn string, cfg demo.Config, force bool, progress registry.Progress) error {
	if err := CreateDatabase(ctx, dsn); err != nil {
		return registry.Failed("create the database", err)
	}
	if force {
		if err := Drop(ctx, dsn); err != nil {
			return registry.Failed("drop the warehouse's tables", err)
		}
	}
	progress.Start()
	err := LoadDemo(ctx, dsn, cfg, progress.Update)
	if err != nil && !errors.Is(err, ErrNotEmpty) {
		return registry.Failed("load the demo dataset", err)
	}
	return err
}
