package answer

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(duckdbtest.Main(m))
}

// engine answers from the fixed-anchor warehouse the golden files were made from.
func engine(t testing.TB) *Engine {
	t.Helper()
	return &Engine{Source: duckdbtest.Open(t), Now: duckdbtest.Now}
}

func ask(t *testing.T, e *Engine, client string, budget int, args string) *Result {
	t.Helper()
	res, err := e.Query(context.Background(), Request{Args: []byte(args), Client: client, Budget: budget})
	if err != nil {
		t.Fatalf("%s: %v", args, err)
	}
	return res
}

var (
	elapsed       = regexp.MustCompile(`"elapsed_ms":\d+`)
	tokenEstimate = regexp.MustCompile(`"token_estimate":\d+`)
)

// golden compares the response blocks to a file, with the elapsed time and the
// token estimates (which follow the estimator's calibration, and are checked
// against exact counts by the tests themselves) replaced by placeholders.
func golden(t *testing.T, name string, res *Result) {
	t.Helper()
	got := elapsed.ReplaceAllString(strings.Join(res.Blocks, "\n---\n"), `"elapsed_ms":0`)
	got = tokenEstimate.ReplaceAllString(got, `"token_estimate":"N"`)
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/answer -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s (run with -update if the change is intended)\ngot:\n%.3000s", name, path, got)
	}
}

// exactTokens counts a result's blocks with o200k_base.
func exactTokens(res *Result) int {
	c := fit.NewO200k()
	n := 0
	for _, b := range res.Blocks {
		n += c.Exact(b)
	}
	return n
}

func hasOptimization(m fit.Meta, typ string) *fit.Optimization {
	for i, o := range m.Optimizations {
		if o.Type == typ {
			return &m.Optimizations[i]
		}
	}
	return nil
}

func hasWarning(m fit.Meta, typ string) *fit.Warning {
	for i, w := range m.Warnings {
		if w.Type == typ {
			return &m.Warnings[i]
		}
	}
	return nil
}

const meta6 = `"account_ids":["act_4409187263550918","act_6630418825197342","act_1015823746512093","act_5521093847612239","617-204-8851","482-915-3307"]`

func TestFitsAsIs(t *testing.T) {
	e := engine(t)
	res := ask(t, e, "claude-ai", 0, `{`+meta6+`,"date_preset":"last_30d","dimensions":["account_name"],"metrics":["spend","clicks","ctr"]}`)
	if res.IsError || res.Response.Kind != fit.KindData {
		t.Fatalf("not data: %v", res.Blocks)
	}
	m := res.Response.Meta
	if m.TokenBudget != 30000 || m.BudgetSource != "client:claude-ai" || m.ReturnedRows != 6 || m.OriginalRows != 6 || m.Format != "csv" {
		t.Errorf("meta %+v", m)
	}
	if len(res.Blocks) != 2 || !strings.HasPrefix(res.Blocks[0], `{"_meta":`) || !strings.HasPrefix(res.Blocks[1], "account_name,spend,clicks,ctr\n") {
		t.Errorf("blocks: %q", res.Blocks)
	}
	golden(t, "fits", res)
}

func TestValidationFilterCountsEmptyRows(t *testing.T) {
	e := engine(t)
	res := ask(t, e, "ChatGPT", 0, `{`+meta6+`,"date_preset":"last_7d","dimensions":["campaign_name"],"metrics":["spend"]}`)
	m := res.Response.Meta
	o := hasOptimization(m, "validation_filter")
	if o == nil || o.RowsRemoved == 0 || m.OriginalRows-o.RowsRemoved != m.ReturnedRows {
		t.Fatalf("validation filter %+v; original %d returned %d", o, m.OriginalRows, m.ReturnedRows)
	}
	golden(t, "validation_filter", res)
}

func TestCoarsensDailyToWeeklyAndMonthly(t *testing.T) {
	e := engine(t)
	args := `{` + meta6 + `,"date_range":{"start":"2025-12-01","end":"2026-02-28"},"dimensions":["account_name"],"metrics":["spend","clicks","ctr"],"time_granularity":"daily"}`
	// About 13,000 tokens at daily grain, 2,000 weekly, 600 monthly.
	for _, c := range []struct {
		budget int
		want   fit.Grain
	}{{4300, fit.Weekly}, {1300, fit.Monthly}} {
		res := ask(t, e, "", c.budget, args)
		m := res.Response.Meta
		if res.Response.Kind != fit.KindData || m.TimeGranularity.Returned != c.want {
			t.Fatalf("budget %d: %s at %v", c.budget, res.Response.Kind, m.TimeGranularity)
		}
		g := hasOptimization(m, "granularity_change")
		if g == nil || g.From != "daily" || g.To != string(c.want) || g.RowsAfter != m.ReturnedRows || g.RowsBefore != m.OriginalRows {
			t.Errorf("granularity_change %+v, meta %+v", g, m)
		}
		if n := exactTokens(res); n > c.budget {
			t.Errorf("budget %d: response is %d o200k tokens", c.budget, n)
		}
		if m.SourceCalls != 1 {
			t.Errorf("additive metrics rolled up with %d source calls, want 1", m.SourceCalls)
		}
		golden(t, "coarsened_"+string(c.want), res)
	}
}

func TestTooLargeSummarizesAndSuggestionsRunAndFit(t *testing.T) {
	e := engine(t)
	const budget = 4000
	res := ask(t, e, "", budget, `{`+meta6+`,"date_range":{"start":"2025-12-01","end":"2026-02-28"},"dimensions":["ad_name","device"],"metrics":["spend","impressions","ctr"],"time_granularity":"daily"}`)
	if res.Response.Kind != fit.KindTooLarge {
		t.Fatalf("kind %s", res.Response.Kind)
	}
	if n := exactTokens(res); n > budget {
		t.Errorf("summary is %d tokens, budget %d", n, budget)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(res.Blocks[0]), &body); err != nil || body["type"] != "data_too_large" {
		t.Fatalf("body: %v %v", err, res.Blocks[0][:200])
	}
	sugg := res.Response.TooLarge.RequeryInstructions.Suggestions
	if len(sugg) == 0 {
		t.Fatal("no suggestions")
	}
	for _, s := range sugg {
		args, _ := json.Marshal(s.Query)
		got := ask(t, e, "", budget, string(args))
		if got.IsError || got.Response.Kind != fit.KindData {
			t.Errorf("suggestion %q: %s", s.Description, got.Blocks[0][:min(300, len(got.Blocks[0]))])
			continue
		}
		if got.Response.Meta.ReturnedRows != s.ExpectedRows {
			t.Errorf("suggestion %q: %d rows, expected_rows %d", s.Description, got.Response.Meta.ReturnedRows, s.ExpectedRows)
		}
		if g := got.Response.Meta.TimeGranularity; g.Returned != g.Requested {
			t.Errorf("suggestion %q was coarsened again: %+v", s.Description, g)
		}
		if n := exactTokens(got); n > budget {
			t.Errorf("suggestion %q: %d tokens > %d", s.Description, n, budget)
		}
	}
	golden(t, "data_too_large", res)
}

func TestAllZeroAccountWarned(t *testing.T) {
	e := engine(t)
	res := ask(t, e, "", 0, `{"account_ids":["7318862045571299861","7201845539016472318"],"date_preset":"last_30d","dimensions":["account_id"],"metrics":["spend","impressions"]}`)
	w := hasWarning(res.Response.Meta, "all_zero_metrics")
	if w == nil || len(w.Keys) != 1 || w.Keys[0] != "7318862045571299861" || !strings.Contains(w.Detail, "scopes") {
		t.Fatalf("warning %+v", w)
	}
	golden(t, "all_zero_metrics", res)
}

func TestMetricUnavailableAtCoarserGrain(t *testing.T) {
	e := engine(t)
	args := `{"account_ids":["act_1015823746512093"],"date_range":{"start":"2026-01-01","end":"2026-02-25"},"dimensions":["campaign_id"],"metrics":["reach","spend"],"time_granularity":"daily"}`
	full := ask(t, e, "", 1000000, args)
	res := ask(t, e, "", full.Response.Meta.TokenEstimate/15, args)
	m := res.Response.Meta
	if res.Response.Kind != fit.KindData || m.TimeGranularity.Returned == fit.Daily {
		t.Fatalf("%s at %+v", res.Response.Kind, m.TimeGranularity)
	}
	if m.SourceCalls < 2 {
		t.Errorf("reach needs a re-query at the coarser grain; source calls %d", m.SourceCalls)
	}
	if m.TimeGranularity.Returned == fit.Total && hasWarning(m, "metric_unavailable_at_grain") == nil {
		t.Errorf("reach at total grain over an arbitrary range: no metric_unavailable_at_grain warning: %+v", m.Warnings)
	}
	golden(t, "metric_unavailable_at_grain", res)
}

func TestErrorsTheModelCanFix(t *testing.T) {
	e := engine(t)
	for _, c := range []struct{ args, typ string }{
		{`{"metrics":["spnd"],"platforms":["meta_ads"]}`, "invalid_query"},
		{`{"metrics":["spend"]}`, "too_many_accounts"},
	} {
		res := ask(t, e, "", 0, c.args)
		var body map[string]any
		if !res.IsError || json.Unmarshal([]byte(res.Blocks[0]), &body) != nil || body["type"] != c.typ || body["_meta"] == nil {
			t.Errorf("%s: %v", c.args, res.Blocks)
		}
	}
}

// Every suggestion of a data_too_large answer, run as a new query, returns exactly
// its expected_rows at its own grain and fits the budget — over several query
// shapes and budgets.
func TestSuggestionsAreExact(t *testing.T) {
	e := engine(t)
	queries := []string{
		`{` + meta6 + `,"date_range":{"start":"2025-10-01","end":"2026-03-14"},"dimensions":["campaign_name","country"],"metrics":["spend","clicks","cpc"],"time_granularity":"daily"}`,
		`{` + meta6 + `,"date_range":{"start":"2025-12-01","end":"2026-02-28"},"dimensions":["adset_name"],"metrics":["conversions","conversion_value","roas"],"time_granularity":"weekly"}`,
		`{"platforms":["meta_ads"],"date_preset":"last_90d","dimensions":["ad_name","device","publisher_platform"],"metrics":["spend","impressions"]}`,
	}
	checked := 0
	for _, args := range queries {
		for _, budget := range []int{1500, 3000, 6000} {
			res := ask(t, e, "", budget, args)
			if res.IsError {
				t.Fatalf("%s: %s", args, res.Blocks[0])
			}
			if res.Response.Kind != fit.KindTooLarge {
				continue
			}
			if n := exactTokens(res); n > budget {
				t.Errorf("budget %d: summary is %d tokens", budget, n)
			}
			for _, s := range res.Response.TooLarge.RequeryInstructions.Suggestions {
				q, _ := json.Marshal(s.Query)
				got := ask(t, e, "", budget, string(q))
				switch {
				case got.IsError || got.Response.Kind != fit.KindData:
					t.Errorf("budget %d, %q: not data: %.300s", budget, s.Description, got.Blocks[0])
				case got.Response.Meta.ReturnedRows != s.ExpectedRows:
					t.Errorf("budget %d, %q: %d rows, expected_rows %d", budget, s.Description, got.Response.Meta.ReturnedRows, s.ExpectedRows)
				case got.Response.Meta.TimeGranularity.Returned != got.Response.Meta.TimeGranularity.Requested:
					t.Errorf("budget %d, %q: coarsened again", budget, s.Description)
				case exactTokens(got) > budget:
					t.Errorf("budget %d, %q: %d tokens", budget, s.Description, exactTokens(got))
				}
				checked++
			}
		}
	}
	if checked < 5 {
		t.Errorf("only %d suggestions checked", checked)
	}
	t.Logf("%d suggestions run and checked", checked)
}
