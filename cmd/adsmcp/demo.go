package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
)

func newDemoCommand(g *globals) *cobra.Command {
	var anchor string
	var seed uint64
	var scale float64
	var force bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Create the warehouse filled with the deterministic demo dataset",
		Long: `Creates the warehouse file with two years of synthetic, clearly labelled demo data for
14 ad accounts on Meta, Google and TikTok, ending the day before --anchor. The same
anchor and seed always give the same data.`,
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
			path := g.db
			if path == "" {
				path = duckdb.DefaultPath()
			}
			if _, err := os.Stat(path); err == nil {
				if !force {
					return fmt.Errorf("%s already exists; pass --force to replace it, or --db to write another file", path)
				}
				if err := os.Remove(path); err != nil {
					return fmt.Errorf("replace %s: %w", path, err)
				}
				os.Remove(path + ".wal")
			}
			stderr := stderrOf(cmd)
			src, err := duckdb.Open(cmd.Context(), path, duckdb.Options{Demo: cfg, Progress: stderr, Logger: g.logger(stderr)})
			if err != nil {
				return err
			}
			defer src.Close()
			fmt.Fprintf(cmd.OutOrStdout(), "demo warehouse written to %s (anchor %s, seed %d)\n", path, cfg.Anchor.Format(time.DateOnly), seed)
			return nil
		},
	}
	cmd.Flags().StringVar(&anchor, "anchor", "", "the data ends the day before this date, YYYY-MM-DD (default today)")
	cmd.Flags().Uint64Var(&seed, "seed", demo.DefaultSeed, "random seed")
	cmd.Flags().Float64Var(&scale, "scale", 1, "fraction of campaigns to generate (tests use small values)")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing warehouse file")
	return cmd
}
