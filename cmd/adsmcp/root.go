package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/adsmcp/adsmcp/internal/config"
	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
)

// globals are the flags every command shares, and the configuration file.
type globals struct {
	db string
	// dbFrom names who chose db, for errors: "--db", "database:" (the
	// config file), or "" for the default location.
	dbFrom string
	// tenantServer: serve --http with auth: or tenants: configured, which
	// must never answer from demo data it loaded itself.
	tenantServer bool
	verbose      bool
	configPath   string
	// cfg is the loaded configuration file (empty when none was given).
	cfg *config.File
}

// loadConfig reads --config (or $ADSMCP_CONFIG) before any command runs; the
// file's database applies unless --db was given.
func (g *globals) loadConfig(cmd *cobra.Command) error {
	g.cfg = &config.File{}
	if cmd.Flags().Changed("db") {
		g.dbFrom = "--db"
	}
	path := g.configPath
	if path == "" {
		path = os.Getenv("ADSMCP_CONFIG")
	}
	if path == "" {
		return nil
	}
	f, err := config.Load(path)
	if err != nil {
		return err
	}
	g.cfg = f
	if !cmd.Flags().Changed("db") && f.Database != "" {
		g.db = expandHome(f.Database)
		g.dbFrom = "database:"
	}
	return nil
}

// expandHome turns a leading ~/ into the home directory, as a shell would.
func expandHome(path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return path
}

func newRootCommand() *cobra.Command {
	g := &globals{}
	root := &cobra.Command{
		Use:   "adsmcp",
		Short: "Ask AI assistants about your advertising data; every answer fits their context",
		Long: `adsmcp answers questions over advertising data (Meta Ads, Google Ads, TikTok Ads:
spend, clicks, conversions by account, campaign, day) for AI assistants over MCP,
and on the command line. With no configuration it uses an embedded DuckDB
warehouse filled with realistic, clearly labelled demo data.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return g.loadConfig(cmd)
		},
	}
	root.PersistentFlags().StringVar(&g.db, "db", "", "warehouse file (default "+duckdb.DefaultPath()+")")
	root.PersistentFlags().BoolVarP(&g.verbose, "verbose", "v", false, "log diagnostics to stderr")
	root.PersistentFlags().StringVar(&g.configPath, "config", "", "YAML configuration file (default $ADSMCP_CONFIG; see docs/configuration.md)")
	query := newQueryCommand(g)
	root.AddCommand(
		query,
		newAccountsCommand(g),
		newFieldsCommand(),
		newDemoCommand(g),
		newVersionCommand(),
		newServeCommand(g),
		newKeygenCommand(),
		newLoadCommand(),
		newImportCommand(g),
		newMigrateCommand(g),
		newSyncCommand(g),
	)
	setFlagNames(root, query)
	return root
}

// logger logs to stderr (never stdout: under stdio it carries the protocol) at
// the configured level and format; --verbose means debug.
func (g *globals) logger(stderr io.Writer) *slog.Logger {
	level := slog.LevelWarn
	var format string
	if g.cfg != nil {
		if g.cfg.Log.Level != "" {
			level.UnmarshalText([]byte(g.cfg.Log.Level)) // checked when the file was loaded
		}
		format = strings.ToLower(g.cfg.Log.Format)
	}
	if g.verbose {
		level = slog.LevelDebug
	}
	opts := &slog.HandlerOptions{Level: level}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(stderr, opts))
	}
	return slog.New(slog.NewTextHandler(stderr, opts))
}

// openWarehouse opens the embedded warehouse, loading demo data on first use with
// a progress line on stderr.
func (g *globals) openWarehouse(ctx context.Context, stderr io.Writer) (*duckdb.Source, error) {
	path, err := g.warehousePath(false)
	if err != nil {
		return nil, err
	}
	// Only the single-user default — the default location, not a server
	// with tenants — is filled with demo data when empty: elsewhere the demo
	// figures would pass for the tenants' own.
	noFill := g.dbFrom != "" || g.tenantServer
	src, err := duckdb.Open(ctx, path, duckdb.Options{
		Demo:       demo.Config{Anchor: time.Now(), Seed: demo.DefaultSeed},
		Progress:   stderr,
		Logger:     g.logger(stderr),
		NoDemoFill: noFill,
		// The configured bound on DuckDB's memory (0: its default).
		MemoryLimitMB: g.cfg.Limits.WarehouseMemoryMB,
	})
	if errors.Is(err, duckdb.ErrEmpty) {
		name := "the warehouse " + path
		if g.dbFrom != "" {
			name = g.dbFrom + " " + path
		}
		why := ""
		if g.tenantServer {
			why = " (a server with auth: or tenants: never answers from the demo dataset it would load)"
		}
		return nil, fmt.Errorf("%s holds no data%s; fill it first: `adsmcp import --db %s EXPORT.csv` (your exports) or `adsmcp demo --db %s --force` (demo data, for trials)", name, why, path, path)
	}
	return src, err
}

// clockFor is the clock of --today: noon of that date (so every timezone's
// "today" is that date), or the real clock when today is empty.
func clockFor(today string) (func() time.Time, error) {
	if today == "" {
		return time.Now, nil
	}
	d, err := query.ParseDate(today)
	if err != nil {
		return nil, fmt.Errorf("--today %q: want a date like 2026-03-15", today)
	}
	return func() time.Time { return d.Add(12 * time.Hour) }, nil
}

func stderrOf(cmd *cobra.Command) io.Writer {
	if w := cmd.ErrOrStderr(); w != nil {
		return w
	}
	return os.Stderr
}
