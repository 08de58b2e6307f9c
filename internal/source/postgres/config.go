package postgres

import (
	"context"
	"log/slog"
	"time"

	"github.com/adsmcp/adsmcp/internal/config/setting"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/registry"
)

// Plugin is a warehouse in PostgreSQL as a source: sources.postgres in the
// configuration file, and postgres:// (or postgresql://) URLs as the --target
// of import and demo.
var Plugin = registry.Plugin{Name: "postgres", NewSection: func() registry.Section { return new(Config) }, Target: &target}

// Config is sources.postgres: a warehouse in PostgreSQL (schema in
// internal/source/postgres/schema.sql) in place of the embedded one.
type Config struct {
	// DSN is a postgres:// URL or libpq key=value string; it may hold a
	// password, so it is a Secret (use ${PG_DSN}).
	DSN setting.Secret `yaml:"dsn"`
	// MaxConns caps the connection pool (default: pgx's, 4 or the CPU count).
	MaxConns int `yaml:"max_conns"`
	// StatementTimeout bounds a query run without a call deadline; a call's
	// deadline always bounds its statement.
	StatementTimeout setting.Duration `yaml:"statement_timeout"`
}

var _ registry.Warehouse = (*Config)(nil)

// Check refuses a section without a connection string or with negative limits.
func (c *Config) Check(bad func(string, ...any)) {
	if c.DSN == "" {
		bad("sources.postgres.dsn is empty: set it to a connection URL, e.g. ${ADSMCP_PG_DSN}")
	}
	if c.MaxConns < 0 || c.StatementTimeout < 0 {
		bad("sources.postgres: max_conns and statement_timeout must be positive")
	}
}

// Open connects to the warehouse the section configures.
func (c *Config) Open(ctx context.Context, log *slog.Logger) (source.Source, error) {
	src, err := Open(ctx, Options{DSN: c.DSN.Reveal(), MaxConns: int32(c.MaxConns),
		StatementTimeout: time.Duration(c.StatementTimeout), Logger: log.With("source", "postgres")})
	if err != nil {
		return nil, err
	}
	return src, nil
}
