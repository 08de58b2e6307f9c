package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
)

// prompt is one prompt template: its definition and the text it expands to.
type prompt struct {
	def *mcp.Prompt
	// text writes the user message from the checked arguments and the ready
	// query arguments (one line each, see queryLines).
	text func(a promptArgs, queries string) string
	// args are the prompt's own query arguments.
	args func(a promptArgs) map[string]any
}

// promptArgs are the checked arguments every prompt shares.
type promptArgs struct {
	Period      string // a date_preset
	Platform    string // a platform, or "" for all
	Granularity string // a time_granularity
	Compare     string // previous_period or previous_year
}

// compareModes are the compare values a prompt takes.
var compareModes = []string{"previous_period", "previous_year"}

// prompts are ready-made questions for clients that show them to the user
// (Claude Desktop's prompt menu, slash commands): each says which tools to
// call and how, so a first question is answered well.
func prompts() []prompt {
	period := &mcp.PromptArgument{Name: "period", Description: "A date preset: " + strings.Join(query.Presets, ", ") + "."}
	platform := &mcp.PromptArgument{Name: "platform", Description: "Only this platform: " + strings.Join(catalog.AllPlatforms, ", ") + ". Omit for all."}
	granularity := &mcp.PromptArgument{Name: "granularity", Description: "Time rows: daily, weekly, monthly, quarterly or total."}
	compareWith := &mcp.PromptArgument{Name: "compare", Description: "Compared with: previous_period (the same length right before) or previous_year (the same dates a year earlier)."}
	return []prompt{
		{&mcp.Prompt{Name: "spend_summary", Title: "How much did I spend?",
			Description: "Spend, clicks and conversions per platform and account for a period (default this_month).",
			Arguments:   []*mcp.PromptArgument{period, platform}},
			func(a promptArgs, queries string) string {
				return fmt.Sprintf("How much did I spend on %s %s? %s"+
					"Give the total per currency (never add different currencies) and the accounts that spent most; mention anything _meta reports.",
					platformWords(a.Platform), periodWords(a.Period), queries)
			},
			func(promptArgs) map[string]any {
				return map[string]any{"metrics": []string{"spend", "clicks", "conversions", "cpa"}, "dimensions": []string{"platform", "account_name"}}
			}},
		{&mcp.Prompt{Name: "campaign_performance", Title: "Campaign performance over time",
			Description: "Campaign performance by day, week, month or quarter for a period (default daily, last_quarter); the answer is fitted to your context.",
			Arguments:   []*mcp.PromptArgument{period, granularity, platform}},
			func(a promptArgs, queries string) string {
				return fmt.Sprintf("Show me %s campaign performance on %s for %s. %s"+
					"If _meta reports a granularity_change or the answer is data_too_large, say so and use its suggestions rather than guessing. "+
					"Summarize the trends and the best and worst campaigns.",
					a.Granularity, platformWords(a.Platform), periodWords(a.Period), queries)
			},
			func(a promptArgs) map[string]any {
				return map[string]any{"metrics": []string{"spend", "impressions", "clicks", "ctr", "conversions", "roas"},
					"dimensions": []string{"campaign_name"}, "time_granularity": a.Granularity}
			}},
		{&mcp.Prompt{Name: "period_over_period", Title: "How did we do compared with before?",
			Description: "Spend, conversions and CPA per campaign against the previous period or the same dates last year (default last_month against previous_period), with what changed most.",
			Arguments:   []*mcp.PromptArgument{period, compareWith, platform}},
			func(a promptArgs, queries string) string {
				return fmt.Sprintf("How did %s do %s compared with %s? %s"+
					"Report the change per currency (never add different currencies), the campaigns that grew and fell most, and the new and stopped ones (compare_status). "+
					"State both windows exactly as _meta.comparison gives them, and repeat any compare_* warning (different lengths or weekdays, missing data) before drawing conclusions.",
					platformWords(a.Platform), periodWords(a.Period), compareWords(a.Compare), queries)
			},
			func(a promptArgs) map[string]any {
				return map[string]any{"metrics": []string{"spend", "conversions", "cpa"}, "dimensions": []string{"campaign_name"},
					"compare": a.Compare, "sort": []map[string]any{{"field": "spend_change", "direction": "desc"}}}
			}},
		{&mcp.Prompt{Name: "wasted_spend", Title: "Campaigns spending without converting",
			Description: "Campaigns that spent money and brought no conversions in a period (default last_30d).",
			Arguments:   []*mcp.PromptArgument{period, platform}},
			func(a promptArgs, queries string) string {
				return fmt.Sprintf("Which campaigns on %s spent money without converting %s? %s"+
					"List them with their spend (per currency) and suggest what to check.",
					platformWords(a.Platform), periodWords(a.Period), queries)
			},
			func(promptArgs) map[string]any {
				return map[string]any{"metrics": []string{"spend", "clicks", "conversions"}, "dimensions": []string{"account_name", "campaign_name"},
					"filters": []map[string]any{{"field": "conversions", "operator": "EQUALS", "value": 0}, {"field": "spend", "operator": "GREATER_THAN", "value": 0}},
					"sort":    []map[string]any{{"field": "spend", "direction": "desc"}}}
			}},
	}
}

// queryLines are the query tool calls a prompt asks for, one JSON argument
// object per line: one call when the accounts fit the per-query limit, else one
// per platform, and groups of at most max accounts on a platform with more — so the model never runs
// into too_many_accounts.
func queryLines(a promptArgs, args func(promptArgs) map[string]any, accounts []ads.Account, max int) string {
	type group struct {
		platform string   // every account on this platform
		ids      []string // these accounts
	}
	var groups []group
	if len(accounts) <= max {
		groups = []group{{platform: a.Platform}}
	} else {
		byPlatform := map[string][]string{}
		var order []string
		for _, acc := range accounts {
			if _, ok := byPlatform[acc.Platform]; !ok {
				order = append(order, acc.Platform)
			}
			byPlatform[acc.Platform] = append(byPlatform[acc.Platform], acc.AccountID)
		}
		for _, p := range order {
			if len(byPlatform[p]) <= max {
				groups = append(groups, group{platform: p})
				continue
			}
			for ids := range slices.Chunk(byPlatform[p], max) {
				groups = append(groups, group{ids: ids})
			}
		}
	}
	var b strings.Builder
	if len(groups) == 1 {
		b.WriteString("Call the query tool with these arguments:\n")
	} else {
		fmt.Fprintf(&b, "There are %d accounts and one query takes at most %d, so call the query tool %d times, with these arguments:\n",
			len(accounts), max, len(groups))
	}
	for _, g := range groups {
		q := args(a)
		q["date_preset"] = a.Period
		if g.ids != nil {
			q["account_ids"] = g.ids
		} else if g.platform != "" {
			q["platforms"] = []string{g.platform}
		}
		line, _ := json.Marshal(q)
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// promptDefaults are each prompt's default arguments.
var promptDefaults = map[string]promptArgs{
	"spend_summary":        {Period: "this_month", Granularity: "total"},
	"campaign_performance": {Period: "last_quarter", Granularity: "daily"},
	"wasted_spend":         {Period: "last_30d", Granularity: "total"},
	"period_over_period":   {Period: "last_month", Granularity: "total", Compare: "previous_period"},
}

// compareWords names a compare mode in a prompt's prose.
func compareWords(c string) string {
	if c == "previous_year" {
		return "the same dates a year earlier"
	}
	return "the period right before"
}

// platformWords names platform p in a prompt's prose, or all of them.
func platformWords(p string) string {
	if pl, ok := catalog.PlatformByName(p); ok {
		return pl.DisplayName
	}
	return "all my ad platforms"
}

func periodWords(p string) string {
	return strings.ReplaceAll(strings.Replace(p, "last_", "the last ", 1), "_", " ")
}

// promptHandler checks the arguments (forgiving case and spacing, as the tools
// do) and expands the prompt with query arguments for the caller's accounts. A
// bad argument is an invalid-params error that lists the valid values.
func (s *server) promptHandler(p prompt) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		a := promptDefaults[p.def.Name]
		var problems []string
		for name, raw := range req.Params.Arguments {
			v := strings.ToLower(strings.TrimSpace(raw))
			if v == "" {
				continue
			}
			switch name {
			case "period":
				v = strings.ReplaceAll(v, " ", "_")
				if !slices.Contains(query.Presets, v) {
					problems = append(problems, fmt.Sprintf("period %q: want one of %s", raw, strings.Join(query.Presets, ", ")))
				}
				a.Period = v
			case "platform":
				c, err := query.CanonicalPlatform(v)
				if err != nil {
					problems = append(problems, fmt.Sprintf("platform %q: want one of %s", raw, strings.Join(catalog.AllPlatforms, ", ")))
				}
				a.Platform = c
			case "granularity":
				if !slices.Contains(query.GrainNames, v) {
					problems = append(problems, fmt.Sprintf("granularity %q: want %s", raw, strings.Join(query.GrainNames, ", ")))
				}
				a.Granularity = v
			case "compare":
				v = strings.ReplaceAll(v, " ", "_")
				if !slices.Contains(compareModes, v) {
					problems = append(problems, fmt.Sprintf("compare %q: want %s", raw, strings.Join(compareModes, " or ")))
				}
				a.Compare = v
			default:
				problems = append(problems, fmt.Sprintf("unknown argument %q for prompt %s", name, p.def.Name))
			}
		}
		if len(problems) > 0 {
			slices.Sort(problems)
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: strings.Join(problems, "; ")}
		}
		ctx, cancel := context.WithTimeout(ctx, s.cfg.Deadline)
		defer cancel()
		accounts, err := s.accountsFor(ctx, principalOf(req.Extra))
		if err != nil {
			return nil, fmt.Errorf("listing the accounts: %w", err)
		}
		if a.Platform != "" {
			accounts = slices.DeleteFunc(slices.Clone(accounts), func(acc ads.Account) bool { return acc.Platform != a.Platform })
		}
		text := p.text(a, queryLines(a, p.args, accounts, s.cfg.MaxAccounts))
		return &mcp.GetPromptResult{
			Description: p.def.Description,
			Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
		}, nil
	}
}
