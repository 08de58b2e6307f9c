package query

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func mustParse(t *testing.T, raw string) (Args, []Change) {
	t.Helper()
	a, changes, err := Parse([]byte(raw))
	if err != nil {
		t.Fatalf("Parse(%s): %v", raw, err)
	}
	return a, changes
}

// parseFails parses raw, expects *Error and returns it after checking every problem.
func parseFails(t *testing.T, raw string) *Error {
	t.Helper()
	a, _, err := Parse([]byte(raw))
	if err == nil {
		t.Fatalf("Parse(%s) succeeded: %+v", raw, a)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Parse(%s): %T %v, want *Error", raw, err, err)
	}
	checkProblems(t, e)
	if !reflect.DeepEqual(a, Args{}) {
		t.Errorf("Parse(%s) returned partial args with its error: %+v", raw, a)
	}
	return e
}

func TestParseFull(t *testing.T) {
	raw := `{
	  "account_ids": ["act_1011", "act_1012"],
	  "platforms": ["meta_ads"],
	  "date_range": {"start": "2026-01-01", "end": "2026-01-31"},
	  "date_preset": "last_7d",
	  "dimensions": ["campaign_name"],
	  "metrics": ["spend", "clicks"],
	  "time_granularity": "daily",
	  "filters": [{"field": "spend", "operator": "GREATER_THAN", "value": 100},
	              {"field": "country", "operator": "IN", "value": ["US", "AR"]}],
	  "sort": [{"field": "spend", "direction": "desc"}],
	  "limit": 10,
	  "token_budget": 20000
	}`
	a, changes := mustParse(t, raw)
	if len(changes) != 0 {
		t.Errorf("changes %+v", changes)
	}
	want := Args{
		AccountIDs: []string{"act_1011", "act_1012"}, Platforms: []string{"meta_ads"},
		DateRange: &DateRange{Start: "2026-01-01", End: "2026-01-31"}, DatePreset: "last_7d",
		Dimensions: []string{"campaign_name"}, Metrics: []string{"spend", "clicks"}, TimeGranularity: "daily",
		Filters: []FilterArg{{Field: "spend", Operator: "GREATER_THAN", Value: json.Number("100")},
			{Field: "country", Operator: "IN", Value: []any{"US", "AR"}}},
		Sort:  []SortArg{{Field: "spend", Direction: "desc"}},
		Limit: intp(10), TokenBudget: intp(20000),
	}
	if !reflect.DeepEqual(a, want) {
		t.Errorf("Parse =\n%+v\nwant\n%+v", a, want)
	}
}

func TestParseMinimalAndNulls(t *testing.T) {
	a, _ := mustParse(t, `{"metrics":["spend"]}`)
	if !slices.Equal(a.Metrics, []string{"spend"}) || a.AccountIDs != nil || a.DateRange != nil || a.Limit != nil {
		t.Errorf("%+v", a)
	}
	// null means "not given".
	a, _ = mustParse(t, `{"metrics":["spend"],"account_ids":null,"limit":null,"date_range":null,"filters":null}`)
	if a.AccountIDs != nil || a.Limit != nil || a.DateRange != nil || a.Filters != nil {
		t.Errorf("%+v", a)
	}
	// {} parses; normalization then asks for metrics.
	a, _ = mustParse(t, ` {} `)
	if !reflect.DeepEqual(a, Args{}) {
		t.Errorf("%+v", a)
	}
	// An explicitly empty array is kept distinct from omission.
	a, _ = mustParse(t, `{"metrics":[],"account_ids":[]}`)
	if a.Metrics == nil || len(a.Metrics) != 0 || a.AccountIDs == nil {
		t.Errorf("%+v", a)
	}
}

func TestParseArgumentAliases(t *testing.T) {
	tests := []struct{ in, want string }{
		{"granularity", "time_granularity"},
		{"time_increment", "time_granularity"},
		{"timeGranularity", "time_granularity"},
		{"Time Granularity", "time_granularity"},
		{"accounts", "account_ids"},
		{"accountIds", "account_ids"},
		{"ACCOUNT_IDS", "account_ids"},
		{"customer_ids", "account_ids"},
		{"platform", "platforms"},
		{"time_range", "date_range"},
		{"dateRange", "date_range"},
		{"preset", "date_preset"},
		{"group_by", "dimensions"},
		{"breakdowns", "dimensions"},
		{"metric", "metrics"},
		{"filter", "filters"},
		{"where", "filters"},
		{"order_by", "sort"},
		{"sortBy", "sort"},
		{"top", "limit"},
		{"max_tokens", "token_budget"},
		{"comparison", "compare"},
		{"compareTo", "compare"},
		{"compare_to", "compare"},
		{"vs", "compare"},
	}
	values := map[string]string{
		"time_granularity": `"daily"`, "account_ids": `["act_1011"]`, "platforms": `["meta_ads"]`,
		"date_range": `{"start":"2026-01-01","end":"2026-01-02"}`, "date_preset": `"last_7d"`,
		"dimensions": `["country"]`, "metrics": `["clicks"]`, "filters": `[{"field":"spend","operator":">","value":1}]`,
		"sort": `[{"field":"spend"}]`, "limit": `5`, "token_budget": `5000`, "compare": `"previous_period"`,
	}
	for _, tt := range tests {
		raw := `{"` + tt.in + `":` + values[tt.want] + `}`
		a, changes := mustParse(t, raw)
		if len(changes) != 1 {
			t.Errorf("%s: changes %+v", tt.in, changes)
			continue
		}
		c := changes[0]
		if c.Type != ChangeArgumentRenamed || c.From != tt.in || c.To != tt.want || c.Field != tt.want || c.Detail == "" {
			t.Errorf("%s: change %+v", tt.in, c)
		}
		// The value landed in the right argument.
		b, _ := json.Marshal(a)
		var m map[string]json.RawMessage
		json.Unmarshal(b, &m)
		if _, ok := m[tt.want]; !ok || len(m) != 1 {
			t.Errorf("%s: args %s", tt.in, b)
		}
	}
	// Canonical names are not reported.
	_, changes := mustParse(t, `{"metrics":["spend"],"time_granularity":"daily","date_preset":"today"}`)
	if len(changes) != 0 {
		t.Errorf("changes %+v", changes)
	}
}

func TestParseUnknownArgument(t *testing.T) {
	e := parseFails(t, `{"metricz":["spend"],"dimensionz":["x"]}`)
	p := problemAt(t, e, "metricz")
	if p.Problem != "unknown argument" || len(p.Closest) == 0 || p.Closest[0] != "metrics" {
		t.Errorf("%+v", p)
	}
	if !slices.Equal(p.Valid, argumentNames) {
		t.Errorf("valid %v", p.Valid)
	}
	if p := problemAt(t, e, "dimensionz"); len(p.Closest) == 0 || p.Closest[0] != "dimensions" {
		t.Errorf("%+v", p)
	}
	if p := problemAt(t, parseFails(t, `{"metrics":["spend"],"xyzzy":1}`), "xyzzy"); len(p.Closest) != 0 {
		t.Errorf("nonsense has closest %v", p.Closest)
	}
	// An empty or blank argument name still gets a Field.
	for _, raw := range []string{`{"":1,"metrics":["spend"]}`, `{" ":1}`, `{"-":1}`} {
		e := parseFails(t, raw)
		if len(e.Problems) != 1 || e.Problems[0].Problem != "unknown argument" {
			t.Errorf("%s: %v", raw, e)
		}
	}
	problemAt(t, parseFails(t, `{"":1}`), "arguments")
}

func TestParseDuplicateArguments(t *testing.T) {
	// Two spellings of one argument.
	e := parseFails(t, `{"granularity":"daily","time_granularity":"weekly","metrics":["spend"]}`)
	if len(e.Problems) != 1 || !strings.Contains(e.Problems[0].Problem, "time_granularity") {
		t.Errorf("%v", e)
	}
	// The same key twice: encoding/json would silently keep the last.
	e = parseFails(t, `{"metrics":["spend"],"metrics":["clicks"]}`)
	problemAt(t, e, "metrics")
	// Even a blank key given twice says where (found by fuzzing).
	problemAt(t, parseFails(t, `{"":[],"":[]}`), "arguments")
}

func TestParseWrongTypes(t *testing.T) {
	tests := []struct {
		raw   string
		field string
		says  string // in the problem text
	}{
		{`{"metrics":"spend"}`, "metrics", "an array of strings"},
		{`{"metrics":["spend",5]}`, "metrics[1]", "a string"},
		{`{"metrics":[["spend"]]}`, "metrics[0]", "a string"},
		{`{"account_ids":"act_1011"}`, "account_ids", "an array of strings"},
		{`{"account_ids":["act_1011",1012]}`, "account_ids[1]", "a string"},
		{`{"dimensions":{"a":1}}`, "dimensions", "an array of strings"},
		{`{"platforms":true}`, "platforms", "an array of strings"},
		{`{"date_range":{"start":20260101,"end":"2026-01-31"}}`, "date_range.start", "a string"},
		{`{"date_range":{"start":"2026-01-01","end":false}}`, "date_range.end", "a string"},
		{`{"date_range":"2026-01-01..2026-01-31"}`, "date_range", "an object"},
		{`{"date_range":["2026-01-01","2026-01-31"]}`, "date_range", "an object"},
		{`{"date_range":{"beginning":"2026-01-01","end":"2026-01-31"}}`, "date_range", "unknown key \"beginning\""},
		{`{"date_preset":7}`, "date_preset", "a string"},
		{`{"date_preset":["last_7d"]}`, "date_preset", "a string"},
		{`{"time_granularity":true}`, "time_granularity", "a string"},
		{`{"time_granularity":["daily"]}`, "time_granularity", "a string"},
		{`{"filters":{"field":"spend"}}`, "filters", "array of"},
		{`{"filters":[{"field":"spend","operator":">","value":1},{"field":5,"operator":">","value":1}]}`, "filters[1].field", "a string"},
		{`{"filters":[{"field":"spend","operator":[">"],"value":1}]}`, "filters[0].operator", "a string"},
		{`{"filters":[{"field":"spend","op":">","value":1}]}`, "filters[0]", "unknown field"},
		{`{"filters":["spend > 1"]}`, "filters[0]", "an object"},
		{`{"sort":"spend"}`, "sort", "array of"},
		{`{"sort":[{"field":"spend","direction":1}]}`, "sort[0].direction", "a string"},
		{`{"sort":[{"field":"spend","desc":true}]}`, "sort[0]", "unknown field"},
		{`{"limit":"10"}`, "limit", "an integer"},
		{`{"limit":10.5}`, "limit", "an integer"},
		{`{"limit":1e3}`, "limit", "an integer"},
		{`{"limit":99999999999999999999999}`, "limit", "an integer"},
		{`{"token_budget":[1]}`, "token_budget", "an integer"},
		{`{"compare":5}`, "compare", `"previous_period", "previous_year" or an object`},
		{`{"compare":true}`, "compare", `"previous_period", "previous_year" or an object`},
		{`{"compare":["previous_period"]}`, "compare", `got a JSON array`},
		{`{"compare":{"start":20250101,"end":"2025-01-31"}}`, "compare.start", "a string"},
		{`{"compare":{"start":"2025-01-01","finish":"2025-01-31"}}`, "compare", `unknown key "finish" in compare`},
	}
	for _, tt := range tests {
		e := parseFails(t, tt.raw)
		if len(e.Problems) != 1 {
			t.Errorf("%s: problems %v", tt.raw, e)
			continue
		}
		p := e.Problems[0]
		if p.Field != tt.field || !strings.Contains(p.Problem, tt.says) {
			t.Errorf("%s:\n  field %q problem %q\n  want field %q problem containing %q", tt.raw, p.Field, p.Problem, tt.field, tt.says)
		}
		if p.Fix == "" {
			t.Errorf("%s: no fix", tt.raw)
		}
		if strings.Contains(p.Problem, "json.RawMessage") || strings.Contains(p.Problem, "query.") {
			t.Errorf("%s: Go type names leak into %q", tt.raw, p.Problem)
		}
	}
	// Every wrong argument is reported, not the first only.
	e := parseFails(t, `{"metrics":"spend","limit":"x","sort":1}`)
	for _, f := range []string{"metrics", "limit", "sort"} {
		problemAt(t, e, f)
	}
}

// time_granularity takes Meta's time_increment numbers as well as words.
func TestParseGranularityNumber(t *testing.T) {
	a, _ := mustParse(t, `{"time_increment":1,"metrics":["spend"]}`)
	if a.TimeGranularity != "1" {
		t.Fatalf("%+v", a)
	}
	q, err := ParseAndNormalize([]byte(`{"time_increment":7,"metrics":["spend"],"account_ids":["act_1011"]}`), testOptions())
	if err != nil || q.Grain != "weekly" {
		t.Fatalf("%v %v", q, err)
	}
	_, err = ParseAndNormalize([]byte(`{"time_granularity":1.5e400,"metrics":["spend"],"account_ids":["act_1011"]}`), testOptions())
	var e *Error
	if !errors.As(err, &e) || !hasProblemAt(e, "time_granularity") {
		t.Errorf("granularity 1.5e400: %v", err)
	}
}

func TestParseMalformed(t *testing.T) {
	tests := []struct {
		name, raw string
		says      string
	}{
		{"empty", ``, "no arguments"},
		{"blank", " \n\t ", "no arguments"},
		{"null", `null`, "object"},
		{"array", `[{"metrics":["spend"]}]`, "an object"},
		{"string", `"metrics"`, "an object"},
		{"number", `42`, "an object"},
		{"true", `true`, "an object"},
		{"truncated", `{"metrics":["spend"`, "JSON"},
		{"unclosed string", `{"metrics":["spend]}`, "JSON"},
		{"single quotes", `{'metrics':['spend']}`, "malformed JSON"},
		{"trailing comma", `{"metrics":["spend"],}`, "malformed JSON"},
		{"trailing garbage", `{"metrics":["spend"]} x`, "malformed JSON"},
		{"two objects", `{"metrics":["spend"]}{"metrics":["clicks"]}`, "malformed JSON"},
		{"bare words", `metrics=spend`, "malformed JSON"},
		{"invalid utf8 key", "{\"\xff\":1}", "unknown argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := parseFails(t, tt.raw)
			if !strings.Contains(e.Error(), tt.says) {
				t.Errorf("%q: error %q lacks %q", tt.raw, e.Error(), tt.says)
			}
			if tt.says != "unknown argument" {
				p := problemAt(t, e, "arguments")
				if !strings.Contains(p.Fix, `"metrics"`) {
					t.Errorf("fix %q shows no example", p.Fix)
				}
			}
		})
	}
}

func TestParseAndNormalize(t *testing.T) {
	raw := `{"account_ids":["1015"],"granularity":"Day","dimensions":["date","Campaign Name"],"metrics":["cost"]}`
	q, err := ParseAndNormalize([]byte(raw), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, c := range q.Changes {
		types = append(types, c.Type)
	}
	// Parse's changes come first, then normalization's in argument order.
	want := []string{ChangeArgumentRenamed, ChangeValueNormalized, ChangeDimensionSanitized, ChangeFieldRenamed, ChangeFieldRenamed, ChangeValueNormalized}
	if !slices.Equal(types, want) {
		t.Errorf("change types %v, want %v", types, want)
	}
	if q.Grain != "daily" || !slices.Equal(q.Dimensions, []string{"campaign_name"}) || !slices.Equal(q.Metrics, []string{"spend"}) {
		t.Errorf("%+v", q)
	}
	// Parse errors stop before normalization.
	if _, err := ParseAndNormalize([]byte(`{`), testOptions()); err == nil {
		t.Error("malformed JSON accepted")
	}
	// Normalization errors come through.
	_, err = ParseAndNormalize([]byte(`{"metrics":["spnd"],"account_ids":["act_1011"]}`), testOptions())
	var e *Error
	if !errors.As(err, &e) || !hasProblemAt(e, "metrics[0]") {
		t.Errorf("%v", err)
	}
	var tm *TooManyAccountsError
	if _, err := ParseAndNormalize([]byte(`{"metrics":["spend"]}`), testOptions()); !errors.As(err, &tm) {
		t.Errorf("all 14 accounts: %v", err)
	}
}

func TestErrorJSON(t *testing.T) {
	e := parseFails(t, `{"metricz":["spend"]}`)
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Problems []map[string]any `json:"problems"`
	}
	if err := json.Unmarshal(b, &back); err != nil || len(back.Problems) != 1 {
		t.Fatalf("%s %v", b, err)
	}
	for _, k := range []string{"field", "problem", "valid", "closest", "fix"} {
		if _, ok := back.Problems[0][k]; !ok {
			t.Errorf("problem JSON lacks %q: %s", k, b)
		}
	}
}

func TestDateRangeSpellings(t *testing.T) {
	for _, raw := range []string{
		`{"date_range":{"start":"2026-01-01","end":"2026-01-31"}}`,
		`{"date_range":{"since":"2026-01-01","until":"2026-01-31"}}`,
		`{"date_range":{"from":"2026-01-01","to":"2026-01-31"}}`,
		`{"date_range":{"start_date":"2026-01-01","endDate":"2026-01-31"}}`,
	} {
		a, _, err := Parse([]byte(raw))
		if err != nil {
			t.Errorf("Parse(%s): %v", raw, err)
			continue
		}
		if a.DateRange == nil || a.DateRange.Start != "2026-01-01" || a.DateRange.End != "2026-01-31" {
			t.Errorf("Parse(%s) = %+v", raw, a.DateRange)
		}
	}
	_, _, err := Parse([]byte(`{"date_range":{"since":5}}`))
	var qe *Error
	if !errors.As(err, &qe) || qe.Problems[0].Field != "date_range.start" {
		t.Errorf("a number for since: %v", err)
	}
}
