package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
)

// globals are the flags every command shares.
type globals struct {
	db      string
	verbose bool
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
	}
	root.PersistentFlags().StringVar(&g.db, "db", "", "warehouse file (default "+duckdb.DefaultPath()+")")
	root.PersistentFlags().BoolVarP(&g.verbose, "verbose", "v", false, "log diagnostics to stderr")
	root.AddCommand(
		newQueryCommand(g),
		newAccountsCommand(g),
		newFieldsCommand(),
		newDemoCommand(g),
		newVersionCommand(),
		newServeCommand(g),
	)
	return root
}

func (g *globals) logger(stderr io.Writer) *slog.Logger {
	level := slog.LevelWarn
	if g.verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
}

// openWarehouse opens the embedded warehouse, loading demo data on first use with
// a progress line on stderr.
func (g *globals) openWarehouse(ctx context.Context, stderr io.Writer) (*duckdb.Source, error) {
	return duckdb.Open(ctx, g.db, duckdb.Options{
		Demo:     demo.Config{Anchor: time.Now(), Seed: demo.DefaultSeed},
		Progress: stderr,
		Logger:   g.logger(stderr),
	})
}

func stderrOf(cmd *cobra.Command) io.Writer {
	if w := cmd.ErrOrStderr(); w != nil {
		return w
	}
	return os.Stderr
}
