package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/source/migration"
	"github.com/adsmcp/adsmcp/internal/source/registry"
)

// target writes a PostgreSQL warehouse for `adsmcp import`, `adsmcp sync` and `adsmcp demo`.
var target = registry.Target{
	Schemes:  []string{"postgres", "postgresql"},
	Label:    "PostgreSQL",
	Example:  "postgres://USER@HOST:PORT/DATABASE (the password in $PGPASSWORD or ~/.pgpass, not on the command line)",
	CheckURL: checkURL,
	Import:   importURL,
	LoadDemo: loadDemoURL,
	Migrate:  migrateURL,
	OpenSync: openSyncURL,

	ErrNotEmpty: ErrNotEmpty,
	NotEmptyFix: "point --target at an empty database or schema (add ?search_path=SCHEMA to the URL)",
}

// checkURL reports what is wrong with a postgres:// URL, without quoting it.
func checkURL(url string) error {
	if _, err := pgxpool.ParseConfig(url); err != nil {
		return errors.New(settingsDetail(err))
	}
	return nil
}

// importURL writes the exports into the warehouse at url.
func importURL(ctx context.Context, url string, exports []*importer.Export, opt importer.WriteOptions) (*importer.WriteResult, error) {
	pool, err := connect(ctx, url)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	res, err := Import(ctx, pool, exports, opt)
	if err != nil && !errors.Is(err, importer.ErrDemoData) {
		return nil, registry.Failed("import", err)
	}
	return res, err
}

// loadDemoURL loads the demo dataset into an empty warehouse at url, or with
// force in place of the one there.
func loadDemoURL(ctx context.Context, url string, cfg demo.Config, force bool, progress registry.Progress) error {
	pool, err := connect(ctx, url)
	if err != nil {
		return err
	}
	defer pool.Close()
	load := LoadDemo
	if force {
		load = ReplaceWithDemo
	}
	progress.Start()
	err = load(ctx, pool, cfg, progress.Update)
	if err != nil && !errors.Is(err, ErrNotEmpty) {
		return registry.Failed("load the demo dataset", err)
	}
	return err
}

// openSyncURL opens the warehouse at url for a sync, on a pool of its own.
func openSyncURL(ctx context.Context, url string, opt importer.SyncOptions) (importer.SyncTarget, error) {
	pool, err := connect(ctx, url)
	if err != nil {
		return nil, err
	}
	t, err := openSync(ctx, pool, opt, pool.Close)
	if err != nil {
		pool.Close()
		return nil, registry.Failed("connect", err)
	}
	return t, nil
}

// migrateURL brings the warehouse at url to this adsmcp's schema version.
func migrateURL(ctx context.Context, url string) (migration.Result, error) {
	pool, err := connect(ctx, url)
	if err != nil {
		return migration.Result{}, err
	}
	defer pool.Close()
	res, err := Migrate(ctx, pool)
	if err != nil && !errors.Is(err, migration.ErrNoWarehouse) {
		return res, registry.Failed("migrate", err)
	}
	return res, err
}

// connect opens a small pool on url and checks that the server answers.
func connect(ctx context.Context, url string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil { // checked by checkURL
		return nil, registry.Failed("connect", errors.New(settingsDetail(err)))
	}
	cfg.MaxConns = 2 // one transaction writes; no need for a pool's worth of sessions
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err == nil {
		err = pool.Ping(ctx)
		if err != nil {
			pool.Close()
		}
	}
	if err != nil {
		return nil, registry.Failed("connect", fmt.Errorf("%w; fix: check the URL's host, port, user and database, and that the server is running", err))
	}
	return pool, nil
}

// settingsDetail is a pgx connection-settings error without the connection
// string it quotes (pgx redacts it only on a best-effort basis).
func settingsDetail(err error) string {
	msg := err.Error()
	if strings.HasPrefix(msg, "cannot parse `") {
		if _, rest, ok := strings.Cut(msg, "`: "); ok {
			return rest
		}
	}
	return msg
}
