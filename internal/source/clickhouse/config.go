package clickhouse

import (
	"context"
	"log/slog"
	"time"

	"github.com/adsmcp/adsmcp/internal/config/setting"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/registry"
)

// Plugin is a warehouse in ClickHouse as a source: sources.clickhouse in the
// configuration file, and clickhouse:// URLs as the --target of import and
// demo.
var Plugin = registry.Plugin{Name: "clickhouse", NewSection: func() registry.Section { return new(Config) }, Target: &target}

// Config is sources.clickhouse: a warehouse in ClickHouse (schema in
// internal/source/clickhouse/schema.sql) in place of the embedded one. Its dsn
// is clickhouse://user:password@host:9000/database; a call's deadline bounds
// its query through max_execution_time and cancellation.
type Config struct {
	setting.Server `yaml:",inline"`
}

var _ registry.Warehouse = (*Config)(nil)

// Check refuses a section without a connection URL or with negative limits.
func (c *Config) Check(bad func(string, ...any)) { c.Server.Check("clickhouse", "ADSMCP_CH_DSN", bad) }

// Open connects to the warehouse the section configures.
func (c *Config) Open(ctx context.Context, log *slog.Logger) (source.Source, error) {
	src, err := Open(ctx, Options{DSN: c.DSN.Reveal(), MaxConns: c.MaxConns,
		StatementTimeout: time.Duration(c.StatementTimeout), Logger: log.With("source", "clickhouse")})
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
