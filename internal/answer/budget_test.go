package answer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/budget"
	"github.com/adsmcp/adsmcp/internal/outcome"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
)

// effective is the budget a call is fitted to: the client's, lowered by the
// budget flag or a token_budget argument, less Claude's margin.
func effective(client string, flag int, args string) int {
	var a struct {
		TokenBudget int `json:"token_budget"`
	}
	json.Unmarshal([]byte(args), &a)
	if a.TokenBudget < query.MinTokenBudget || a.TokenBudget > query.MaxTokenBudget {
		a.TokenBudget = 0
	}
	over := map[string]int(nil)
	if flag > 0 {
		over = map[string]int{"*": flag}
	}
	return budget.Resolve(budget.ParseClient(client), budget.Overrides{Tokens: over}, a.TokenBudget).Effective
}

// campaignNames are the campaign names of the meta6 accounts, then made-up
// long ones, n in all.
func campaignNames(t testing.TB, e *Engine, n int) []any {
	t.Helper()
	res, err := e.Query(context.Background(), Request{Budget: 1000000, Args: []byte(`{` + meta6 + `,"date_preset":"last_90d","dimensions":["campaign_name"],"metrics":["spend"]}`)})
	if err != nil || res.IsError {
		t.Fatalf("campaign names: %v %v", err, res.Blocks)
	}
	var out []any
	seen := map[string]bool{}
	for _, s := range res.Response.Table.Column("campaign_name").Strings {
		if !seen[s] && len(out) < n {
			seen[s] = true
			out = append(out, s)
		}
	}
	for i := len(out); i < n; i++ {
		out = append(out, fmt.Sprintf("Spring Promo Campaign %04d - Prospecting Lookalike Audience 1%% US/CA Advantage+ Creative Test Variant B", i))
	}
	return out
}

func inFilter(field string, values []any) string {
	b, _ := json.Marshal(map[string]any{"field": field, "operator": "IN", "value": values})
	return string(b)
}

// A long IN list is echoed in _meta.query: the answer sheds the echo before
// anything else and fits, and an empty result is its CSV header, not a summary.
func TestLongInListFits(t *testing.T) {
	e := engine(t)
	names := campaignNames(t, e, 1000)
	none := make([]any, 1000)
	for i := range none {
		none[i] = fmt.Sprintf("No Such Campaign %04d - Prospecting Lookalike Audience 1%% US/CA Advantage+ Creative", i)
	}
	for _, c := range []struct {
		name   string
		values []any
		empty  bool
	}{{"matching", names, false}, {"matching nothing", none, true}} {
		args := `{` + meta6 + `,"date_preset":"last_90d","dimensions":["campaign_name"],"metrics":["spend","clicks"],"time_granularity":"daily","filters":[` + inFilter("campaign_name", c.values) + `]}`
		for _, client := range []string{"claude-code", "claude-ai", "ChatGPT", "other"} {
			res := ask(t, e, client, 0, args)
			limit := effective(client, 0, args)
			if n := exactTokens(res); n > limit {
				t.Errorf("%s, %s: %d tokens > %d (%s)", c.name, client, n, limit, res.Response.Kind)
			}
			m := res.Response.Meta
			if c.empty {
				if res.Response.Kind != fit.KindData || m.ReturnedRows != 0 || hasWarning(m, "no_rows") == nil {
					t.Errorf("%s, %s: an empty result answered %s, %d rows, warnings %+v", c.name, client, res.Response.Kind, m.ReturnedRows, m.Warnings)
				}
			}
			if m.Query != nil {
				if _, full := m.Query.(*query.Query); !full && hasOptimization(m, fit.OptQueryEchoAbbreviated) == nil {
					t.Errorf("%s, %s: the echo was shortened without a word", c.name, client)
				}
			} else if hasOptimization(m, fit.OptQueryEchoOmitted) == nil {
				t.Errorf("%s, %s: the echo was left out without a word", c.name, client)
			}
		}
	}
}

// With token_budget given, every suggestion keeps it, and re-run returns the rows
// and grain it promised within that budget; its token_estimate counts the whole
// answer, the query echo with its IN list included.
func TestSuggestionsKeepTokenBudgetAndCountTheEcho(t *testing.T) {
	e := engine(t)
	names := campaignNames(t, e, 30)
	for _, tb := range []int{1000, 1500, 2000} {
		args := fmt.Sprintf(`{`+meta6+`,"date_range":{"start":"2025-12-01","end":"2026-02-28"},"dimensions":["campaign_name","ad_name"],"metrics":["spend","clicks"],"time_granularity":"daily","token_budget":%d,"filters":[%s]}`,
			tb, inFilter("campaign_name", names))
		for _, client := range []string{"claude-code", "other"} {
			res := ask(t, e, client, 0, args)
			limit := effective(client, 0, args)
			if n := exactTokens(res); n > limit {
				t.Errorf("token_budget %d, %s: %d tokens > %d", tb, client, n, limit)
			}
			if res.Response.Kind != fit.KindTooLarge {
				t.Fatalf("token_budget %d: %s", tb, res.Response.Kind)
			}
			checkSuggestions(t, e, client, 0, res, fmt.Sprintf("token_budget %d, %s", tb, client))
		}
	}
}

// checkSuggestions re-runs every suggestion of a data_too_large answer as the
// same client would, and checks it delivers what it promised.
func checkSuggestions(t *testing.T, e *Engine, client string, flag int, res *Result, what string) int {
	t.Helper()
	n := 0
	for _, got := range checkRerun(t, e, client, flag, res, res.Response.TooLarge.RequeryInstructions.Suggestions, what) {
		if got != nil {
			n++
		}
	}
	return n
}

// checkRerun re-runs narrower queries offered by res (suggestions,
// alternatives) as the same client would, checks each delivers what it
// promised, and returns the answers (nil for one that did not).
func checkRerun(t *testing.T, e *Engine, client string, flag int, res *Result, ss []fit.Suggestion, what string) []*Result {
	t.Helper()
	var out []*Result
	for _, s := range ss {
		out = append(out, nil)
		q, _ := json.Marshal(s.Query)
		if tb := effective(client, flag, string(q)); tb != res.Response.Meta.TokenBudget && tb != effective(client, flag, "{}") && !strings.Contains(string(q), `"token_budget"`) {
			t.Errorf("%s, %q: the suggestion dropped token_budget", what, s.Description)
		}
		got := ask(t, e, client, flag, string(q))
		limit := effective(client, flag, string(q))
		switch {
		case got.IsError || got.Response.Kind != fit.KindData:
			t.Errorf("%s, %q: not data: %.300s", what, s.Description, got.Blocks[0])
			continue
		case got.Response.Meta.ReturnedRows != s.ExpectedRows:
			t.Errorf("%s, %q: %d rows, expected_rows %d", what, s.Description, got.Response.Meta.ReturnedRows, s.ExpectedRows)
		case got.Response.Meta.TimeGranularity.Returned != got.Response.Meta.TimeGranularity.Requested:
			t.Errorf("%s, %q: coarsened again", what, s.Description)
		}
		exact := exactTokens(got)
		if exact > limit {
			t.Errorf("%s, %q: %d tokens > %d", what, s.Description, exact, limit)
		}
		if d := float64(s.TokenEstimate-exact) / float64(exact); d < -0.1 || d > 0.25 {
			t.Errorf("%s, %q: token_estimate %d, the answer is %d tokens (_meta %d, data %d)", what, s.Description, s.TokenEstimate, exact,
				fit.NewO200k().Exact(got.Blocks[0]), fit.NewO200k().Exact(got.Blocks[1]))
			if testing.Verbose() {
				t.Logf("%s\n%s", got.Blocks[0], got.Blocks[1])
			}
		}
		out[len(out)-1] = got
	}
	return out
}

// After a limit cut the rows, a suggestion computed from the rows in hand keeps
// the limit's meaning: the first K rows, in the same order. (Limited daily rows
// roll up exactly to coarser grains, so the case is a total-grain top 300.)
func TestSuggestionsAfterALimit(t *testing.T) {
	e := engine(t)
	args := `{` + meta6 + `,"date_range":{"start":"2025-10-01","end":"2026-03-14"},"dimensions":["ad_name","device","publisher_platform"],"metrics":["spend","clicks"],"time_granularity":"total","sort":[{"field":"spend","direction":"desc"}],"limit":300}`
	res := ask(t, e, "", 4000, args)
	if res.Response.Kind != fit.KindTooLarge || res.Response.Meta.RowsBeforeLimit == 0 {
		t.Fatalf("%s, rows_before_limit %d", res.Response.Kind, res.Response.Meta.RowsBeforeLimit)
	}
	if checkSuggestions(t, e, "", 4000, res, "limit 50000") == 0 {
		t.Error("no suggestion")
	}
}

// Shares of money are never added across currencies.
func TestSuggestionSharesPerCurrency(t *testing.T) {
	e := engine(t)
	args := `{"platforms":["meta_ads"],"date_preset":"last_90d","dimensions":["ad_name","device"],"metrics":["spend"],"time_granularity":"daily"}`
	res := ask(t, e, "", 2500, args)
	if res.Response.Kind != fit.KindTooLarge {
		t.Fatalf("%s", res.Response.Kind)
	}
	for _, s := range res.Response.TooLarge.RequeryInstructions.Suggestions {
		if strings.Contains(s.Description, "of the total") {
			t.Errorf("%q: a share of the total across currencies", s.Description)
		}
		if strings.Contains(s.Description, " above ") {
			t.Errorf("%q: a money threshold across currencies", s.Description)
		}
	}
	checkSuggestions(t, e, "", 2500, res, "meta_ads")
}

// Every error fits the budget too: the query echo, the problems, the accounts.
func TestErrorsFit(t *testing.T) {
	e := engine(t)
	names := campaignNames(t, e, 1000)
	long := strings.Repeat("x", 480)
	var bad []string
	for i := range 400 {
		bad = append(bad, fmt.Sprintf(`{"field":"%s%d","operator":"IN","value":["a"]}`, long, i))
	}
	cases := map[string]string{
		"invalid_query":              `{"metrics":["spend"],"platforms":["meta_ads"],"filters":[` + strings.Join(bad, ",") + `]}`,
		"invalid_query with an echo": `{"metrics":["spend"],"platforms":["meta_ads"],"sort":[{"field":"spend"}],"limit":5,"filters":[` + inFilter("campaign_name", names) + `]}`,
		"too_many_accounts":          `{"metrics":["spend"],"filters":[` + inFilter("campaign_name", names) + `]}`,
	}
	for name, args := range cases {
		for _, client := range []string{"claude-code", "other"} {
			res := ask(t, e, client, 0, args)
			if !res.IsError && name != "invalid_query with an echo" {
				t.Errorf("%s: not an error", name)
			}
			if n, limit := exactTokens(res), effective(client, 0, args); n > limit {
				t.Errorf("%s, %s: %d tokens > %d", name, client, n, limit)
			}
		}
	}
	// A source error echoes the query, and its suggestion repeats it.
	src := duckdbtest.Open(t)
	for _, f := range []failingSource{
		{Source: src, bad: map[string]outcome.Code{"act_4409187263550918": "permission_denied"}},
		{Source: src, text: errors.New("binder error: " + strings.Repeat("campaign_name IN ('Spring Promo Campaign') ", 3000))},
	} {
		fe := &Engine{Source: f, Now: duckdbtest.Now}
		args := `{` + meta6 + `,"metrics":["spend"],"dimensions":["campaign_name"],"filters":[` + inFilter("campaign_name", names) + `]}`
		for _, client := range []string{"claude-code", "other"} {
			res := ask(t, fe, client, 0, args)
			if !res.IsError {
				t.Fatalf("not an error")
			}
			if n, limit := exactTokens(res), effective(client, 0, args); n > limit {
				t.Errorf("source error, %s: %d tokens > %d: %.300s", client, n, limit, res.Blocks[0])
			}
		}
	}
}
