package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/adsmcp/adsmcp/internal/answer"
	"github.com/adsmcp/adsmcp/internal/budget"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/rowbudget"
	"github.com/adsmcp/adsmcp/internal/source"
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
	compare     string
	attribution string
	tokenBudget int
	today       string
	client      string
	budget      int
	raw         bool
}

func newQueryCommand(g *globals) *cobra.Command {
	f := &queryFlags{}
	cmd := &cobra.Command{
		Use:   "query",
		Short: "Run a query exactly as the MCP query tool does and print its response",
		Long: `Runs the query tool's arguments (as flags, or --json) through the whole pipeline and
prints exactly what an AI client receives: the _meta block, then the CSV — or a
data_too_large summary with narrower queries, or an error the model can act on.
--client and --budget choose the token budget; --raw prints the complete result as CSV.

Every flag also takes the query tool's argument name, with - or _: --metrics,
--dimensions, --account_ids, --platforms, --date_preset, --time_granularity,
--filters, --token_budget, and --date-range-start/--date-range-end for --start/--end.

--compare adds the same metrics over a comparison window, with each metric's
value there (m_compare), its change (m_change) and its change in percent
(m_change_pct), which --sort and --filter may name.`,
		Example: `  adsmcp query -m spend,clicks,ctr -d account_name --preset last_30d
  adsmcp query -m spend -d campaign_name -g weekly --filter 'spend > 1000' --sort spend:desc --limit 10
  adsmcp query -m spend,conversions -d campaign_name --preset last_month -g monthly --compare previous_period --sort spend_change
  adsmcp query --json '{"metrics":["spend"],"dimensions":["platform"],"date_preset":"last_month"}'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			raw, err := f.arguments(cmd)
			if err != nil {
				return err
			}
			now, err := clockFor(f.today)
			if err != nil {
				return err
			}
			stderr := stderrOf(cmd)
			src, err := g.openSource(cmd.Context(), stderr)
			if err != nil {
				return err
			}
			defer src.Close()
			if f.raw {
				return printRaw(cmd, src, raw, now)
			}
			engine := &answer.Engine{Source: src, Now: now, Demo: source.DemoLabel(src), BudgetOverrides: budget.Overrides{Tokens: g.cfg.Budgets, Sizes: g.cfg.ClientLimits},
				Rows: rowbudget.New(g.cfg.Limits.MaxRowsPerCall, g.cfg.Limits.MaxRowsInFlight), MaxAccounts: g.cfg.MaxAccounts}
			res, err := engine.Query(cmd.Context(), answer.Request{Args: raw, Client: f.client, Budget: f.budget})
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			for i, b := range res.Blocks {
				if i > 0 {
					fmt.Fprintln(out)
				}
				fmt.Fprint(out, strings.TrimSuffix(b, "\n"), "\n")
			}
			if res.IsError {
				return errors.New("the query tool answered with an error (above)")
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.jsonArgs, "json", "", "the whole argument object as JSON (flags given as well override its keys); - reads stdin")
	fl.StringSliceVarP(&f.accounts, "account", "a", nil, "account_ids to query (repeat or comma-separate; default: all, at most 10)")
	fl.StringSliceVarP(&f.platforms, "platform", "p", nil, "platforms: "+strings.Join(catalog.AllPlatforms, ", "))
	fl.StringVar(&f.start, "start", "", "date_range start, YYYY-MM-DD (inclusive)")
	fl.StringVar(&f.end, "end", "", "date_range end, YYYY-MM-DD (inclusive)")
	fl.StringVar(&f.preset, "preset", "", "date_preset: "+strings.Join(query.Presets, ", ")+" (default last_30d)")
	fl.StringSliceVarP(&f.dimensions, "dimension", "d", nil, "dimensions to group by (see adsmcp fields)")
	fl.StringSliceVarP(&f.metrics, "metric", "m", nil, "metrics to measure (see adsmcp fields)")
	fl.StringVarP(&f.granularity, "granularity", "g", "", "time_granularity: daily, weekly, monthly, quarterly, total (default total)")
	fl.StringArrayVar(&f.filters, "filter", nil, `filter as "field OPERATOR value" or "field>value"; IN, NOT_IN and BETWEEN take comma-separated values (repeatable)`)
	fl.StringArrayVar(&f.sorts, "sort", nil, `sort key as "field" or "field:desc" (repeatable)`)
	fl.IntVar(&f.limit, "limit", 0, "explicit top-N (needs --sort)")
	fl.StringVar(&f.attribution, "attribution-window", "", "count conversions under this window (e.g. 7d_click_1d_view, 1d_click; recounted by Meta live only, else answered only when every account holds that window); default: each account's own")
	fl.StringVar(&f.compare, "compare", "", "compare with another window: previous_period, previous_year, or START..END (YYYY-MM-DD..YYYY-MM-DD, inclusive)")
	fl.IntVar(&f.tokenBudget, "token-budget", 0, "token_budget: lower the response budget")
	fl.StringVar(&f.today, "today", "", "resolve date presets as if today were this date (YYYY-MM-DD)")
	fl.StringVar(&f.client, "client", "", "answer as for this MCP client: NAME or NAME/VERSION (claude-code/2.1.332, codex-mcp-client/0.46.0, ChatGPT, …); its profile applies (tokens, and the bytes and lines it keeps)")
	fl.IntVar(&f.budget, "budget", 0, "token budget for the response (instead of the client's)")
	fl.BoolVar(&f.raw, "raw", false, "print the complete result as CSV, without fitting it to a budget (with --compare: both windows' rows, column window = current or compare)")
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
	if f.attribution != "" {
		args["attribution_window"] = f.attribution
	}
	if cmd.Flags().Changed("compare") {
		c, err := parseCompareFlag(f.compare)
		if err != nil {
			return nil, err
		}
		args["compare"] = c
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
