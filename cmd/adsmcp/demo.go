package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
)

func newDemoCommand(g *globals) *cobra.Command {
	var anchor, targetURL string
	var seed uint64
	var scale float64
	var force bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Create the warehouse filled with the deterministic demo dataset",
		Long: `Creates the warehouse file with two years of synthetic, clearly labelled demo data for
14 ad accounts on Meta, Google and TikTok (14 more replica accounts per unit of --scale
above 1), ending the day before --anchor. The same
anchor and seed always give the same data.

--target postgres://USER@HOST:PORT/DATABASE loads it into PostgreSQL instead (the
tables of internal/source/postgres/schema.sql, in the URL's search_path schema). A
database that already holds a warehouse is refused; --force drops its adsmcp tables
(dataset, accounts, campaigns, adsets, ads, facts, reach, imports, sync_state, adsmcp_schema) and loads the
demo data, in one transaction. Query it with sources.postgres in the configuration
file (docs/configuration.md).

--target clickhouse://USER:PASSWORD@HOST:9000/DATABASE?http_port=8123 loads it into
ClickHouse (internal/source/clickhouse/schema.sql, through the HTTP interface at
http_port), creating the database when missing; --force drops its adsmcp tables
first. ClickHouse has no transactions: a load that fails drops the tables it
made. Query it with sources.clickhouse.`,
		Example: `  adsmcp demo --anchor 2026-03-15 --seed 1
  adsmcp demo --target postgres://adsmcp@localhost:5432/ads
  adsmcp demo --target 'clickhouse://default@localhost:9000/ads?http_port=8123' --scale 3.2`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg := demo.Config{Anchor: time.Now(), Seed: seed, Scale: scale}
			if anchor != "" {
				d, err := query.ParseDate(anchor)
				if err != nil {
					return fmt.Errorf("--anchor %q: want a date like 2026-03-15", anchor)
				}
				cfg.Anchor = d
			}
			t, err := targetOf(cmd, g, targetURL)
			if err != nil {
				return err
			}
			stderr := stderrOf(cmd)
			if t.engine == nil {
				err = demoDuckDB(cmd, g, t.path, cfg, force, stderr)
			} else {
				err = demoServer(cmd, t, cfg, force, stderr)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "demo warehouse written to %s (anchor %s, seed %d)\n", t, cfg.Anchor.Format(time.DateOnly), seed)
			fmt.Fprint(cmd.OutOrStdout(), t.queryHint())
			return nil
		},
	}
	cmd.Flags().StringVar(&anchor, "anchor", "", "the data ends the day before this date, YYYY-MM-DD (default today)")
	cmd.Flags().Uint64Var(&seed, "seed", demo.DefaultSeed, "random seed")
	cmd.Flags().Float64Var(&scale, "scale", 1, "dataset size in (0, 10]: up to 1, the fraction of campaigns to generate (tests use small values); above 1, 14 more replica accounts per unit, for benchmarks (1 ≈ 5.5M fact rows with the breakdown sets, 3.2 ≈ 18M)")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing warehouse file (with --target: drop the database's adsmcp tables)")
	cmd.Flags().StringVar(&targetURL, "target", "", "load into this database instead of the --db file: postgres://USER@HOST:PORT/DATABASE or clickhouse://USER:PASSWORD@HOST:9000/DATABASE")
	return cmd
}

// demoDuckDB writes the demo warehouse file, replacing it with force.
func demoDuckDB(cmd *cobra.Command, g *globals, path string, cfg demo.Config, force bool, stderr io.Writer) error {
	if _, err := os.Stat(path); err == nil {
		if !force {
			return fmt.Errorf("%s already exists; pass --force to replace it, or --db to write another file", path)
		}
		// A server reading the file would go on reading the deleted one and
		// answer from it until restarted: refuse, as import does.
		if err := duckdb.InUse(cmd.Context(), path); err != nil {
			return err
		}
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("replace %s: %w", path, err)
		}
		os.Remove(path + ".wal")
	}
	src, err := duckdb.Open(cmd.Context(), path, duckdb.Options{Demo: cfg, Progress: stderr, Logger: g.logger(stderr)})
	if err != nil {
		return err
	}
	return src.Close()
}

// demoServer loads the demo dataset into a warehouse server: into an empty
// warehouse, or with force in place of the one there.
func demoServer(cmd *cobra.Command, t *target, cfg demo.Config, force bool, stderr io.Writer) error {
	p := &demoProgress{target: t, out: stderr}
	err := t.engine.LoadDemo(cmd.Context(), t.url, cfg, force, p)
	p.line.Finish()
	if err != nil {
		if errors.Is(err, t.engine.ErrNotEmpty) {
			return &messageError{err: err, msg: fmt.Sprintf("--target %s already holds a warehouse; fix: pass --force to drop its adsmcp tables "+
				"and load the demo data, or %s", t, t.engine.NotEmptyFix)}
		}
		return t.failure(err)
	}
	fmt.Fprintf(stderr, "loaded the demo dataset in %.1fs\n", time.Since(p.start).Seconds())
	return nil
}

// demoProgress shows a demo load on stderr: a line when the server is ready,
// then the progress line.
type demoProgress struct {
	target *target
	out    io.Writer
	start  time.Time
	line   *demo.ProgressLine
}

func (p *demoProgress) Start() {
	p.start = time.Now()
	fmt.Fprintf(p.out, "loading the demo dataset into %s…\n", p.target)
	p.line = demo.NewProgressLine(p.out)
}

func (p *demoProgress) Update(done, total int64) { p.line.Update(done, total) }
