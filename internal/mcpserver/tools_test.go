package mcpserver

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/budget"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
)

func TestToolsListHasThreeReadOnlyTools(t *testing.T) {
	cs := connect(t, testConfig(t), "claude-code")
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		a := tl.Annotations
		if a == nil || !a.ReadOnlyHint || !a.IdempotentHint || a.OpenWorldHint == nil || *a.OpenWorldHint || a.Title == "" {
			t.Errorf("%s: annotations %+v, want readOnly, idempotent, closed world, a title", tl.Name, a)
		}
		// Claude Code cuts tool descriptions at 2 KB.
		if len(tl.Description) < 80 || len(tl.Description) > 2048 {
			t.Errorf("%s: description of %d bytes: %q", tl.Name, len(tl.Description), tl.Description)
		}
		// Claude Code keeps an annotated tool's text results inline up to this
		// many characters instead of checking them against MAX_MCP_OUTPUT_TOKENS.
		if v, _ := tl.Meta["anthropic/maxResultSizeChars"].(float64); v != 500000 {
			t.Errorf("%s _meta = %v, want anthropic/maxResultSizeChars 500000", tl.Name, tl.Meta)
		}
		schema, _ := tl.InputSchema.(map[string]any)
		if schema["type"] != "object" {
			t.Errorf("%s: input schema %v", tl.Name, tl.InputSchema)
		}
	}
	if !slices.Equal(names, []string{"list_accounts", "list_fields", "query"}) {
		t.Fatalf("tools %v", names)
	}
}

// TestToolsGolden pins every tool's definition as clients receive it: a changed
// name, description, schema, annotation or _meta fails until the snapshot is
// updated on purpose (go test ./internal/mcpserver -run TestToolsGolden -update).
func TestToolsGolden(t *testing.T) {
	s := newServer(Config{Source: warehouse(t)})
	var defs []any
	for _, tl := range s.tools() {
		defs = append(defs, tl.def)
	}
	golden(t, "tools.golden", defs)
}

// TestResourcesAndPromptsGolden snapshots the resource and prompt definitions.
func TestResourcesAndPromptsGolden(t *testing.T) {
	s := newServer(Config{Source: warehouse(t)})
	var defs []any
	for _, r := range s.resources() {
		defs = append(defs, r.def)
	}
	for _, p := range prompts() {
		defs = append(defs, p.def)
	}
	golden(t, "resources_prompts.golden", defs)
}

// golden compares the definitions, one indented JSON document each, with a
// snapshot: a changed definition fails until the snapshot is updated on purpose.
func golden(t *testing.T, name string, defs []any) {
	t.Helper()
	var buf bytes.Buffer
	for _, d := range defs {
		b, err := json.MarshalIndent(d, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("definitions differ from %s (run with -update if the change is intended):\n%s", path, buf.String())
	}
}

// TestQuerySchemaMatchesArguments: the schema declares exactly the query
// language's arguments, so it cannot drift from what the engine accepts.
func TestQuerySchemaMatchesArguments(t *testing.T) {
	var want []string
	at := reflect.TypeFor[query.Args]()
	for i := range at.NumField() {
		name, _, _ := strings.Cut(at.Field(i).Tag.Get("json"), ",")
		want = append(want, name)
	}
	sc := querySchema(query.DefaultMaxAccounts)
	var got []string
	for k := range sc.Properties {
		got = append(got, k)
	}
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("schema properties %v, query arguments %v", got, want)
	}
	if !slices.Equal(sc.Required, []string{"metrics"}) {
		t.Errorf("required %v, want [metrics]", sc.Required)
	}
	enums := map[string][]any{
		"time_granularity": enum("daily", "weekly", "monthly", "quarterly", "total"),
		"date_preset":      enum(query.Presets...),
	}
	for k, v := range enums {
		if !reflect.DeepEqual(sc.Properties[k].Enum, v) {
			t.Errorf("%s enum %v", k, sc.Properties[k].Enum)
		}
	}
	ops := sc.Properties["filters"].Items.Properties["operator"].Enum
	if len(ops) != len(query.Operators) {
		t.Errorf("operator enum %v", ops)
	}
	if d := sc.Properties["sort"].Items.Properties["direction"].Enum; !reflect.DeepEqual(d, enum("asc", "desc")) {
		t.Errorf("direction enum %v", d)
	}
	if v := sc.Properties["filters"].Items.Properties["value"]; len(v.AnyOf) != 3 {
		t.Errorf("filter value schema %+v: want string, number or array", v)
	}
	// compare is a mode or an explicit window, like date_range.
	if c := sc.Properties["compare"]; len(c.AnyOf) != 2 || !reflect.DeepEqual(c.AnyOf[0].Enum, enum(query.CompareModes...)) ||
		c.AnyOf[1].Type != "object" || !slices.Equal(c.AnyOf[1].Required, []string{"start", "end"}) {
		t.Errorf("compare schema %+v: want a mode or {start, end}", c)
	}
	for _, k := range []string{"metrics", "dimensions", "account_ids", "platforms"} {
		if sc.Properties[k].Type != "array" || sc.Properties[k].Items.Type != "string" {
			t.Errorf("%s: type %q / %q, want an array of strings", k, sc.Properties[k].Type, sc.Properties[k].Items.Type)
		}
	}
	for k, p := range sc.Properties {
		if p.Description == "" {
			t.Errorf("%s has no description", k)
		}
	}
}

func TestListAccounts(t *testing.T) {
	cs := connect(t, testConfig(t), "claude-code")
	res := call(t, cs, "list_accounts", `{}`)
	b := texts(t, res)
	if res.IsError || len(b) != 2 {
		t.Fatalf("isError=%v, %d blocks", res.IsError, len(b))
	}
	meta := metaOf(t, b[0])
	recs, err := csv.NewReader(strings.NewReader(b[1])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(recs[0], ","); got != "platform,account_id,account_name,currency,timezone,status,attribution_window,conversion_actions" {
		t.Errorf("header %s", got)
	}
	if len(recs) != 15 || meta["count"] != 14.0 || meta["source_calls"] != 1.0 {
		t.Errorf("%d rows, _meta %v; want 14 accounts", len(recs)-1, meta)
	}
	if _, ok := meta["elapsed_ms"]; !ok {
		t.Error("_meta has no elapsed_ms")
	}

	// Platform names as people write them.
	res = call(t, cs, "list_accounts", `{"platform":"Facebook"}`)
	b = texts(t, res)
	meta = metaOf(t, b[0])
	if res.IsError || meta["count"] != 6.0 || meta["platform"] != "meta_ads" || strings.Count(b[1], "\nmeta_ads,") != 6 {
		t.Errorf("platform Facebook: _meta %v\n%s", meta, b[1])
	}

	body := errorOf(t, call(t, cs, "list_accounts", `{"platform":"myspace"}`), "invalid_query")
	p := body["problems"].([]any)[0].(map[string]any)
	if p["field"] != "platform" || p["value"] != "myspace" || !slices.Contains(p["valid"].([]any), any("meta_ads")) {
		t.Errorf("problem %v", p)
	}
	body = errorOf(t, call(t, cs, "list_accounts", `{"platfrom":"meta"}`), "invalid_query")
	if p := body["problems"].([]any)[0].(map[string]any); p["problem"] != "unknown argument" {
		t.Errorf("problem %v", p)
	}
	errorOf(t, call(t, cs, "list_accounts", `{"platform":7}`), "invalid_query")
}

// TestListAccountsFitsBudget: a list longer than the budget returns the rows
// that fit and says how many were left out.
func TestListAccountsFitsBudget(t *testing.T) {
	cfg := testConfig(t)
	cfg.BudgetOverrides = budget.TokensFor(250)
	cs := connect(t, cfg, "tiny")
	b := texts(t, call(t, cs, "list_accounts", `{}`))
	meta := metaOf(t, b[0])
	rows := strings.Count(b[1], "\n") - 1
	if meta["count"] != 14.0 || meta["returned_rows"] != float64(rows) || meta["omitted_rows"] != float64(14-rows) || rows == 0 || rows >= 14 {
		t.Errorf("%d rows, _meta %v", rows, meta)
	}
	if n := fit.NewO200k().Exact(strings.Join(b, "\n")); n > 250 {
		t.Errorf("%d tokens for a budget of 250", n)
	}
}

func TestListFields(t *testing.T) {
	cs := connect(t, testConfig(t), "ChatGPT")
	res := call(t, cs, "list_fields", "")
	b := texts(t, res)
	if res.IsError || len(b) != 2 {
		t.Fatalf("isError=%v, %d blocks", res.IsError, len(b))
	}
	head := object(t, b[0])
	ops := head["filter_operators"].(map[string]any)
	if len(ops["string"].([]any)) != len(query.TextOperators) || len(ops["number"].([]any)) != len(query.NumberOperators) {
		t.Errorf("filter_operators %v", ops)
	}
	if !strings.HasPrefix(b[0], `{"_meta":`) {
		t.Errorf("_meta is not first: %s", b[0])
	}
	recs, err := csv.NewReader(strings.NewReader(b[1])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(recs[0], fieldsHeader) || len(recs)-1 != len(catalog.Fields()) {
		t.Fatalf("header %v, %d fields", recs[0], len(recs)-1)
	}
	byName := map[string][]string{}
	for _, r := range recs[1:] {
		byName[r[0]] = r
	}
	for name, agg := range map[string]string{"spend": "sum", "ctr": "ratio(clicks/impressions*100)", "cpc": "ratio(spend/clicks)",
		"reach": "non_additive", "frequency": "non_additive(impressions/reach)", "campaign_name": ""} {
		if got := byName[name][3]; got != agg {
			t.Errorf("%s aggregation %q, want %q", name, got, agg)
		}
	}
	if r := byName["spend"]; r[4] != "money" || !strings.Contains(r[7], "cost") || r[5] != "meta_ads google_ads tiktok_ads" {
		t.Errorf("spend %v", r)
	}

	b = texts(t, call(t, cs, "list_fields", `{"platform":"google"}`))
	if strings.Contains(b[1], "\nreach,") || strings.Contains(b[1], "\nlink_clicks,") || !strings.Contains(b[1], "\nspend,") {
		t.Errorf("google_ads fields include Meta-only ones or miss spend:\n%s", b[1])
	}
	if m := metaOf(t, b[0]); m["platform"] != "google_ads" {
		t.Errorf("_meta %v", m)
	}
	errorOf(t, call(t, cs, "list_fields", `{"platform":"myspace"}`), "invalid_query")
}

// TestListFieldsCSVIsCheaper measures the catalog both ways with o200k_base:
// CSV, as sent, against the most compact JSON of the same information.
func TestListFieldsCSVIsCheaper(t *testing.T) {
	fields := catalog.Fields()
	var objs []map[string]string
	for _, f := range fields {
		o := map[string]string{}
		for i, v := range fieldRecord(f) {
			if v != "" {
				o[fieldsHeader[i]] = v
			}
		}
		objs = append(objs, o)
	}
	js, _ := json.Marshal(objs)
	// Compact JSON of arrays (a header row then values) is JSON's cheapest form.
	rows := [][]string{fieldsHeader}
	for _, f := range fields {
		rows = append(rows, fieldRecord(f))
	}
	ja, _ := json.Marshal(rows)
	c := fit.NewO200k()
	csvTokens, objTokens, arrTokens := c.Exact(fieldsCSV(fields)), c.Exact(string(js)), c.Exact(string(ja))
	t.Logf("list_fields: CSV %d tokens, JSON objects %d, JSON arrays %d", csvTokens, objTokens, arrTokens)
	if csvTokens >= objTokens || csvTokens >= arrTokens {
		t.Errorf("CSV (%d tokens) is not the cheapest (JSON objects %d, arrays %d)", csvTokens, objTokens, arrTokens)
	}
}
