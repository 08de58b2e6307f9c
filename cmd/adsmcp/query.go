package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/query"
)

// queryFlags mirror the query tool's arguments one flag each.
type queryFlags struct {
	jsonArgs    string
	accounts    []string
	platforms   []string
	start, end  string
	preset      string
	dimensions  []string
	metrics     []string
	granularity string
	filters     []string
	sorts       []string
	limit       int
	tokenBudget int
	today       string
}

func newQueryCommand(g *globals) *cobra.Command {
	f := &queryFlags{}
	cmd := &cobra.Command{
		Use:   "query",
		Short: "Run a query (the MCP query tool's arguments, as flags or --json) and print CSV",
		Example: `  adsmcp query -m spend,clicks,ctr -d account_name --preset last_30d
  adsmcp query -m spend -d campaign_name -g weekly --filter 'spend > 1000' --sort spend:desc --limit 10
  adsmcp query --json '{"metrics":["spend"],"dimensions":["platform"],"date_preset":"last_month"}'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			raw, err := f.arguments(cmd)
			if err != nil {
				return err
			}
			now := time.Now
			if f.today != "" {
				d, err := query.ParseDate(f.today)
				if err != nil {
					return fmt.Errorf("--today %q: want a date like 2026-03-15", f.today)
				}
				now = func() time.Time { return d.Add(12 * time.Hour) }
			}
			stderr := stderrOf(cmd)
			src, err := g.openWarehouse(cmd.Context(), stderr)
			if err != nil {
				return err
			}
			defer src.Close()
			accounts, err := src.Accounts(cmd.Context())
			if err != nil {
				return err
			}
			q, err := query.ParseAndNormalize(raw, query.Options{Accounts: accounts, Now: now})
			var tooMany *query.TooManyAccountsError
			if errors.As(err, &tooMany) {
				fmt.Fprintln(stderr, "accounts you may query (pass up to", tooMany.Max, "with --account, or narrow --platform):")
				for _, a := range accounts {
					fmt.Fprintf(stderr, "  %-22s %-10s %s (%s)\n", a.AccountID, a.Platform, a.AccountName, a.Currency)
				}
			}
			if err != nil {
				return describeQueryError(err)
			}
			for _, c := range q.Changes {
				fmt.Fprintf(stderr, "note: %s: %s\n", c.Type, c.Detail)
			}
			t, err := src.Query(cmd.Context(), q)
			if err != nil {
				return describeQueryError(err)
			}
			for _, n := range t.Notices {
				fmt.Fprintf(stderr, "note: %s: %s\n", n.Type, n.Detail)
			}
			if q.Limit > 0 && t.RowsBeforeLimit > t.Len() {
				fmt.Fprintf(stderr, "note: limit: %d of %d rows shown (sorted by %s)\n", t.Len(), t.RowsBeforeLimit, q.Sort[0].Field)
			}
			return fit.WriteCSV(cmd.OutOrStdout(), t)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.jsonArgs, "json", "", "the whole argument object as JSON (flags given as well override its keys); - reads stdin")
	fl.StringSliceVarP(&f.accounts, "account", "a", nil, "account_ids to query (repeat or comma-separate; default: all, at most 10)")
	fl.StringSliceVarP(&f.platforms, "platform", "p", nil, "platforms: meta_ads, google_ads, tiktok_ads")
	fl.StringVar(&f.start, "start", "", "date_range start, YYYY-MM-DD (inclusive)")
	fl.StringVar(&f.end, "end", "", "date_range end, YYYY-MM-DD (inclusive)")
	fl.StringVar(&f.preset, "preset", "", "date_preset: "+strings.Join(query.Presets, ", ")+" (default last_30d)")
	fl.StringSliceVarP(&f.dimensions, "dimension", "d", nil, "dimensions to group by (see adsmcp fields)")
	fl.StringSliceVarP(&f.metrics, "metric", "m", nil, "metrics to measure (see adsmcp fields)")
	fl.StringVarP(&f.granularity, "granularity", "g", "", "time_granularity: daily, weekly, monthly, total (default total)")
	fl.StringArrayVar(&f.filters, "filter", nil, `filter as "field OPERATOR value" or "field>value"; IN, NOT_IN and BETWEEN take comma-separated values (repeatable)`)
	fl.StringArrayVar(&f.sorts, "sort", nil, `sort key as "field" or "field:desc" (repeatable)`)
	fl.IntVar(&f.limit, "limit", 0, "explicit top-N (needs --sort)")
	fl.IntVar(&f.tokenBudget, "token-budget", 0, "token_budget: lower the response budget")
	fl.StringVar(&f.today, "today", "", "resolve date presets as if today were this date (YYYY-MM-DD)")
	return cmd
}

// arguments builds the tool's JSON arguments from --json and the flags.
func (f *queryFlags) arguments(cmd *cobra.Command) ([]byte, error) {
	args := map[string]any{}
	if f.jsonArgs != "" {
		raw := []byte(f.jsonArgs)
		if f.jsonArgs == "-" {
			b, err := io.ReadAll(cmd.InOrStdin())
			if err != nil {
				return nil, fmt.Errorf("read --json from stdin: %w", err)
			}
			raw = b
		}
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, fmt.Errorf("--json: not a JSON object: %w", err)
		}
	}
	set := func(flag, key string, v any) {
		if cmd.Flags().Changed(flag) {
			args[key] = v
		}
	}
	set("account", "account_ids", f.accounts)
	set("platform", "platforms", f.platforms)
	set("preset", "date_preset", f.preset)
	set("dimension", "dimensions", f.dimensions)
	set("metric", "metrics", f.metrics)
	set("granularity", "time_granularity", f.granularity)
	set("limit", "limit", f.limit)
	set("token-budget", "token_budget", f.tokenBudget)
	if cmd.Flags().Changed("start") || cmd.Flags().Changed("end") {
		if f.start == "" || f.end == "" {
			return nil, errors.New("--start and --end go together: give both dates (YYYY-MM-DD, inclusive)")
		}
		args["date_range"] = map[string]string{"start": f.start, "end": f.end}
	}
	if len(f.filters) > 0 {
		var fs []any
		for _, s := range f.filters {
			fa, err := parseFilterFlag(s)
			if err != nil {
				return nil, err
			}
			fs = append(fs, fa)
		}
		args["filters"] = fs
	}
	if len(f.sorts) > 0 {
		var ss []any
		for _, s := range f.sorts {
			field, dir, _ := strings.Cut(s, ":")
			ss = append(ss, query.SortArg{Field: strings.TrimSpace(field), Direction: strings.TrimSpace(dir)})
		}
		args["sort"] = ss
	}
	return json.Marshal(args)
}

// describeQueryError spells out an invalid query one problem per line.
func describeQueryError(err error) error {
	var qe *query.Error
	if errors.As(err, &qe) {
		var b strings.Builder
		b.WriteString("invalid query:")
		for _, p := range qe.Problems {
			b.WriteString("\n  - " + p.String())
		}
		return errors.New(b.String())
	}
	return err
}
