package mcpserver

import (
	"context"
	"encoding/csv"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/answer"
	"github.com/adsmcp/adsmcp/internal/budget"
	"github.com/adsmcp/adsmcp/internal/source"
)

// Six accounts (four Meta, two Google, all USD) of the test warehouse.
const six = `"account_ids":["act_4409187263550918","act_6630418825197342","act_1015823746512093","act_5521093847612239","617-204-8851","482-915-3307"]`

const small = `{` + six + `,"metrics":["spend","clicks","ctr"],"dimensions":["account_name"],"date_preset":"last_7d"}`

// TestBudgetPerClient: the client's name at initialize decides the budget.
func TestBudgetPerClient(t *testing.T) {
	for _, c := range []struct {
		client string
		budget float64
		source string
	}{
		{"claude-code", 25000, "client:claude-code"},
		{"claude-ai", 30000, "client:claude-ai"},
		{"ChatGPT", 80000, "client:ChatGPT"},
		{"some-new-editor", 30000, "default"},
	} {
		t.Run(c.client, func(t *testing.T) {
			cs := connect(t, testConfig(t), c.client)
			res := call(t, cs, "query", small)
			b := texts(t, res)
			if res.IsError || len(b) != 2 {
				t.Fatalf("isError=%v:\n%v", res.IsError, b)
			}
			m := metaOf(t, b[0])
			if m["token_budget"] != c.budget || m["budget_source"] != c.source {
				t.Errorf("token_budget %v from %v, want %v from %s", m["token_budget"], m["budget_source"], c.budget, c.source)
			}
		})
	}
}

// TestBudgetOverrides: configured budgets replace the table; token_budget
// only lowers.
func TestBudgetOverrides(t *testing.T) {
	cfg := testConfig(t)
	cfg.BudgetOverrides = budget.Overrides{Tokens: map[string]int{"claude-code": 80000}}
	cs := connect(t, cfg, "claude-code")
	m := metaOf(t, texts(t, call(t, cs, "query", small))[0])
	if m["token_budget"] != 80000.0 || m["budget_source"] != "config:claude-code" {
		t.Errorf("_meta %v", m)
	}
	m = metaOf(t, texts(t, call(t, cs, "query", strings.Replace(small, `{`, `{"token_budget":5000,`, 1)))[0])
	if m["token_budget"] != 5000.0 || m["budget_source"] != "argument:token_budget" {
		t.Errorf("_meta %v", m)
	}
	m = metaOf(t, texts(t, call(t, cs, "query", strings.Replace(small, `{`, `{"token_budget":900000,`, 1)))[0])
	if m["token_budget"] != 80000.0 {
		t.Errorf("token_budget raised the budget: %v", m)
	}
}

// elapsedRE matches what timing decides in an answer: the elapsed time, and
// the token estimate, which counts the _meta with it.
var elapsedRE = regexp.MustCompile(`"(elapsed_ms|token_estimate)":\d+`)

// TestQueryFitsAndMatchesTheEngine: a small query answers _meta then CSV, and
// the blocks are exactly what the engine (and so `adsmcp query`) returns for the
// same raw arguments, forgiveness included.
func TestQueryFitsAndMatchesTheEngine(t *testing.T) {
	cfg := testConfig(t)
	cs := connect(t, cfg, "claude-ai")
	args := `{` + six + `,"metrics":["cost","Clicks","ctr"],"dimensions":["Account Name","date"],"date_preset":"last_7d"}`
	res := call(t, cs, "query", args)
	b := texts(t, res)
	if res.IsError || len(b) != 2 {
		t.Fatalf("isError=%v:\n%v", res.IsError, b)
	}
	m := metaOf(t, b[0])
	if m["format"] != "csv" || m["returned_rows"] != m["original_rows"] || m["source_calls"] != 1.0 {
		t.Errorf("_meta %v", m)
	}
	for _, typ := range []string{"field_renamed", "dimension_sanitized"} {
		if hasOptimization(m, typ) == nil {
			t.Errorf("no %s in %v", typ, m["optimizations_applied"])
		}
	}
	if g := m["time_granularity"].(map[string]any); g["returned"] != "daily" {
		t.Errorf("time_granularity %v: date as a dimension should mean daily", g)
	}
	recs, err := csv.NewReader(strings.NewReader(b[1])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(recs[0], ","); got != "date,account_name,spend,clicks,ctr" {
		t.Errorf("header %s", got)
	}
	if len(recs)-1 != int(m["returned_rows"].(float64)) {
		t.Errorf("%d CSV rows, returned_rows %v", len(recs)-1, m["returned_rows"])
	}

	e := &answer.Engine{Source: cfg.Source, Now: cfg.Now, Demo: source.DemoLabel(cfg.Source)}
	direct, err := e.Query(context.Background(), answer.Request{Args: []byte(args), Client: "claude-ai"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range b {
		if elapsedRE.ReplaceAllString(b[i], "") != elapsedRE.ReplaceAllString(direct.Blocks[i], "") {
			t.Errorf("block %d differs from the engine's:\nmcp:    %s\nengine: %s", i, b[i], direct.Blocks[i])
		}
	}
}

// fullTokens is the token count of the daily answer to args when it fits whole.
func fullTokens(t *testing.T, args string) int {
	t.Helper()
	cs := connect(t, testConfig(t), "ChatGPT")
	b := texts(t, call(t, cs, "query", args))
	m := metaOf(t, b[0])
	if g := m["time_granularity"].(map[string]any); g["returned"] != "daily" {
		t.Fatalf("the daily answer does not fit 80,000 tokens: %v", m)
	}
	return fit.NewO200k().Exact(strings.Join(b, "\n"))
}

func TestQueryGranularityChange(t *testing.T) {
	args := `{` + six + `,"date_range":{"start":"2025-12-01","end":"2026-02-28"},"dimensions":["account_name"],"metrics":["spend","clicks","ctr"],"time_granularity":"daily"}`
	full := fullTokens(t, args)
	cs := connect(t, testConfig(t), "some-client")
	budget := full / 3
	res := call(t, cs, "query", strings.Replace(args, `{`, fmt.Sprintf(`{"token_budget":%d,`, budget), 1))
	b := texts(t, res)
	if res.IsError || len(b) != 2 {
		t.Fatalf("isError=%v:\n%v", res.IsError, b)
	}
	m := metaOf(t, b[0])
	g := hasOptimization(m, "granularity_change")
	if g == nil || g["from"] != "daily" || g["to"] != "weekly" {
		t.Fatalf("no granularity_change daily → weekly: %v", m)
	}
	if tg := m["time_granularity"].(map[string]any); tg["requested"] != "daily" || tg["returned"] != "weekly" {
		t.Errorf("time_granularity %v", tg)
	}
	if !strings.HasPrefix(b[1], "week,") {
		t.Errorf("CSV does not start with the week column: %.80s", b[1])
	}
	if n := fit.NewO200k().Exact(strings.Join(b, "\n")); n > budget {
		t.Errorf("%d tokens for a budget of %d", n, budget)
	}
}

func TestQueryDataTooLarge(t *testing.T) {
	cs := connect(t, testConfig(t), "claude-code")
	res := call(t, cs, "query", `{`+six+`,"token_budget":1500,"date_range":{"start":"2025-12-01","end":"2026-02-28"},"dimensions":["ad_name","device"],"metrics":["spend","impressions","ctr"],"time_granularity":"daily"}`)
	b := texts(t, res)
	if res.IsError || len(b) != 1 {
		t.Fatalf("data_too_large must be one block with isError false; isError=%v, %d blocks", res.IsError, len(b))
	}
	body := object(t, b[0])
	if body["type"] != "data_too_large" {
		t.Fatalf("type %v:\n%.500s", body["type"], b[0])
	}
	sum := body["summary"].(map[string]any)
	if sum["total_rows"].(float64) < 100 || len(sum["dimensions"].([]any)) == 0 || len(sum["metrics"].([]any)) == 0 {
		t.Errorf("summary %v", sum)
	}
	ri := body["requery_instructions"].(map[string]any)
	sugg, _ := ri["suggestions"].([]any)
	if len(sugg) == 0 {
		t.Fatalf("no suggestions: %v", ri)
	}
	for _, s := range sugg {
		q := s.(map[string]any)["query"].(map[string]any)
		if _, ok := q["metrics"]; !ok {
			t.Errorf("suggestion is not a complete query: %v", s)
		}
	}
	m := body["_meta"].(map[string]any)
	if m["token_budget"] != 1500.0 || m["budget_source"] != "argument:token_budget" || m["format"] != "summary" {
		t.Errorf("_meta %v", m)
	}
	// Claude Code's answers keep the Claude margin.
	if n := fit.NewO200k().Exact(b[0]); n > 1500 {
		t.Errorf("%d tokens for a budget of 1500", n)
	}
	// A suggestion runs as is.
	first := sugg[0].(map[string]any)["query"]
	raw, _ := jsonMarshal(first)
	next := call(t, cs, "query", string(raw))
	if next.IsError {
		t.Errorf("suggested query failed: %v", texts(t, next))
	}
}

func TestQueryInvalid(t *testing.T) {
	cs := connect(t, testConfig(t), "claude-code")
	body := errorOf(t, call(t, cs, "query", `{"metrics":["spnd"],"date_preset":"last_7d",`+six+`}`), "invalid_query")
	p := body["problems"].([]any)[0].(map[string]any)
	if p["field"] != "metrics[0]" || fmt.Sprint(p["closest"]) != "[spend]" {
		t.Errorf("problem %v", p)
	}
	// Wrong argument types are the model's to fix, not protocol errors.
	for _, args := range []string{
		`{"metrics":"spend"}`,
		`{"metrics":["spend"],"limit":"ten","sort":[{"field":"spend"}]}`,
		`{"metrics":["spend"],"date_range":"last week"}`,
		`[1,2]`,
		``,
		`{"metrics":["spend"],"filters":[{"field":"campaign_name","operator":"ROUGHLY","value":"x"}],` + six + `}`,
	} {
		errorOf(t, call(t, cs, "query", args), "invalid_query")
	}
}

func TestQueryTooManyAccounts(t *testing.T) {
	cs := connect(t, testConfig(t), "claude-ai")
	body := errorOf(t, call(t, cs, "query", `{"metrics":["spend"],"date_preset":"last_7d"}`), "too_many_accounts")
	if body["max"] != 10.0 || body["requested"] != 14.0 || len(body["accounts"].([]any)) != 14 {
		t.Errorf("max %v, requested %v, %d accounts", body["max"], body["requested"], len(body["accounts"].([]any)))
	}
	cfg := testConfig(t)
	cfg.MaxAccounts = 3
	cs = connect(t, cfg, "claude-ai")
	body = errorOf(t, call(t, cs, "query", `{"metrics":["spend"],"platforms":["google_ads"]}`), "too_many_accounts")
	if body["max"] != 3.0 || body["requested"] != 5.0 {
		t.Errorf("max %v, requested %v", body["max"], body["requested"])
	}
}

// TestNoDataIsDiagnosed: through the MCP server (its account cache in the
// way), an empty answer says where the accounts' data is — the coverage
// reaches the engine — and reach alone over an arbitrary range still answers.
func TestNoDataIsDiagnosed(t *testing.T) {
	cs := connect(t, testConfig(t), "claude-code")
	m := metaOf(t, texts(t, call(t, cs, "query", `{"account_ids":["856-430-2291"],"metrics":["spend"],"date_preset":"last_30d"}`))[0])
	ws := fmt.Sprint(m["warnings"])
	if !strings.Contains(ws, "no_rows") || !strings.Contains(ws, "(856-430-2291, CLOSED) has data from 2025-02-08 to") || strings.Contains(ws, "all_zero_metrics") {
		t.Errorf("warnings %s", ws)
	}
	res := call(t, cs, "query", `{"account_ids":["act_1015823746512093","act_6630418825197342"],"metrics":["reach"],"date_range":{"start":"2026-01-07","end":"2026-02-18"}}`)
	b := texts(t, res)
	if res.IsError || len(b) != 2 || b[1] != "reach\n\"\"\n" {
		t.Fatalf("isError=%v:\n%v", res.IsError, b)
	}
	if ws := fmt.Sprint(metaOf(t, b[0])["warnings"]); !strings.Contains(ws, "metric_unavailable_at_grain") || strings.Contains(ws, "no_rows") {
		t.Errorf("warnings %s", ws)
	}
}
