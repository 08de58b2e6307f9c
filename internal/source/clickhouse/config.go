package clickhouse

import (
	"context"
	"log/slog"
	"time"

	"github.com/adsmcp/adsmcp/internal/config/setting"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/registry"
)

// Plugin is a warehouse in ClickHouse as a source: sources.clickhouse in the
// configuration file, and clickhouse:// URLs as the --target of import and
// demo.
var Plugin = registry.Plugin{Name: "clickhouse", NewSection: func() registry.Section { return new(Config) }, Target: &target}

// Config is sources.clickhouse: a warehouse in ClickHouse (schema in
// internal/source/clickhouse/schema.sql) in place of the embedded one.
type Config struct {
	// DSN is clickhouse://user:password@host:9000/database; it may hold a
	// password, so it is a Secret (use ${CH_DSN}).
	DSN setting.Secret `yaml:"dsn"`
	// MaxConns caps the connection pool (default: clickhouse-go's).
	MaxConns int `yaml:"max_conns"`
	// StatementTimeout bounds a query run without a call deadline; a call's
	// deadline always bounds its query (max_execution_time, and cancellation).
	StatementTimeout setting.Duration `yaml:"statement_timeout"`
}

var _ registry.Warehouse = (*Config)(nil)

// Check refuses a section without a connection URL or with negative limits.
func (c *Config) Check(bad func(string, ...any)) {
	if c.DSN == "" {
		bad("sources.clickhouse.dsn is empty: set it to a connection URL, e.g. ${ADSMCP_CH_DSN}")
	}
	if c.MaxConns < 0 || c.StatementTimeout < 0 {
		bad("sources.clickhouse: max_conns and statement_timeout must be positive")
	}
}

// Open connects to the warehouse the section configures.
func (c *Config) Open(ctx context.Context, log *slog.Logger) (source.Source, error) {
	src, err := Open(ctx, Options{DSN: c.DSN.Reveal(), MaxConns: c.MaxConns,
		StatementTimeout: time.Duration(c.StatementTimeout), Logger: log.With("source", "clickhouse")})
	if err != nil {
		return nil, err
	}
	return src, nil
}
