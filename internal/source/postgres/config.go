package postgres

import (
	"context"
	"log/slog"
	"time"

	"github.com/adsmcp/adsmcp/internal/config/setting"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/registry"
)

// Plugin is a warehouse in PostgreSQL as a source: sources.postgres in the
// configuration file, and postgres:// (or postgresql://) URLs as the --target
// of import and demo.
var Plugin = registry.Plugin{Name: "postgres", NewSection: func() registry.Section { return new(Config) }, Target: &target}

// Config is sources.postgres: a warehouse in PostgreSQL (schema in
// internal/source/postgres/schema.sql) in place of the embedded one. Its dsn
// is a postgres:// URL or a libpq key=value string; max_conns defaults to
// pgx's (4 or the CPU count).
type Config struct {
	setting.Server `yaml:",inline"`
}

var _ registry.Warehouse = (*Config)(nil)

// Check refuses a section without a connection URL or with negative limits.
func (c *Config) Check(bad func(string, ...any)) { c.Server.Check("postgres", "ADSMCP_PG_DSN", bad) }

// Open connects to the warehouse the section configures.
func (c *Config) Open(ctx context.Context, log *slog.Logger) (source.Source, error) {
	src, err := Open(ctx, Options{DSN: c.DSN.Reveal(), MaxConns: int32(c.MaxConns),
		StatementTimeout: time.Duration(c.StatementTimeout), Logger: log.With("source", "postgres")})
	if err != nil {
		return nil, err
	}
	return src, nil
}

// OpenSync opens the warehouse the section configures for a server's
// background sync (sync.every, docs/sync.md).
func (c *Config) OpenSync(ctx context.Context, opt importer.SyncOptions) (importer.SyncTarget, error) {
	return openSyncURL(ctx, c.DSN.Reveal(), opt)
}
