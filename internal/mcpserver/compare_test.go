package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestQueryCompareOverMCP: the query tool with compare answers over the
// protocol with _meta.comparison stating both windows exactly, the query echo
// keeping compare, and the CSV of the joined rows: both period labels,
// compare_status, and each metric's four columns. An explicit window equal to
// the one previous_period picks answers the same rows.
func TestQueryCompareOverMCP(t *testing.T) {
	cs := connect(t, testConfig(t), "claude-ai")
	// Four whole ISO weeks: previous_period is the four weeks before.
	const base = `{"platforms":["meta_ads"],"metrics":["spend","ctr"],"dimensions":["campaign_name"],"time_granularity":"weekly",` +
		`"date_range":{"start":"2026-02-02","end":"2026-03-01"}`
	res := call(t, cs, "query", base+`,"compare":"previous_period"}`)
	b := texts(t, res)
	if res.IsError || len(b) != 2 {
		t.Fatalf("isError=%v, %d blocks:\n%v", res.IsError, len(b), b)
	}
	meta := metaOf(t, b[0])
	var cmp struct {
		Mode             string
		Current, Compare struct {
			Start, End string
			Days       int
		}
		Alignment string
		Both      int `json:"rows_in_both"`
		New       int `json:"rows_new"`
		Stopped   int `json:"rows_stopped"`
	}
	raw, _ := json.Marshal(meta["comparison"])
	if err := json.Unmarshal(raw, &cmp); err != nil || meta["comparison"] == nil {
		t.Fatalf("_meta.comparison %s: %v", raw, err)
	}
	if cmp.Mode != "previous_period" || cmp.Current.Start != "2026-02-02" || cmp.Current.End != "2026-03-01" || cmp.Current.Days != 28 ||
		cmp.Compare.Start != "2026-01-05" || cmp.Compare.End != "2026-02-01" || cmp.Compare.Days != 28 {
		t.Errorf("_meta.comparison windows %s, want 2026-02-02 … 2026-03-01 against 2026-01-05 … 2026-02-01, 28 days each", raw)
	}
	if !strings.Contains(cmp.Alignment, "each week of the current window against the comparison window's days paired with it") ||
		!strings.Contains(cmp.Alignment, "no row is new or stopped because of where periods fall") {
		t.Errorf("alignment %q", cmp.Alignment)
	}
	rows := strings.Split(strings.TrimSuffix(b[1], "\n"), "\n")
	const header = "week,compare_week,campaign_name,currency,compare_status,spend,spend_compare,spend_change,spend_change_pct,ctr,ctr_compare,ctr_change,ctr_change_pct"
	if rows[0] != header {
		t.Errorf("CSV header\n%s\nwant\n%s", rows[0], header)
	}
	if n := len(rows) - 1; n != cmp.Both+cmp.New+cmp.Stopped || n != int(meta["returned_rows"].(float64)) || cmp.Both == 0 {
		t.Errorf("%d rows; _meta says %v returned, %d in both, %d new, %d stopped", n, meta["returned_rows"], cmp.Both, cmp.New, cmp.Stopped)
	}
	if !strings.HasPrefix(rows[1], "2026-02-02,2026-01-05,") || !strings.HasPrefix(rows[len(rows)-1], "2026-02-23,2026-01-26,") {
		t.Errorf("first and last rows pair the wrong weeks:\n%s\n%s", rows[1], rows[len(rows)-1])
	}
	if q, _ := meta["query"].(map[string]any); q["compare"] != "previous_period" {
		t.Errorf("the query echo lost compare: %v", meta["query"])
	}

	explicit := texts(t, call(t, cs, "query", base+`,"compare":{"start":"2026-01-05","end":"2026-02-01"}}`))
	if len(explicit) != 2 || explicit[1] != b[1] {
		t.Errorf("the explicit window answers other rows than previous_period:\n%.500s\n---\n%.500s", explicit, b[1])
	}
	if c := metaOf(t, explicit[0])["comparison"].(map[string]any); c["mode"] != "custom" {
		t.Errorf("explicit window: mode %v, want custom", c["mode"])
	}
}

// TestQueryCompareInvalidOverMCP: a comparison window that overlaps the date
// range, or a mode that does not exist, is an isError invalid_query whose
// problem names compare and says how to fix it.
func TestQueryCompareInvalidOverMCP(t *testing.T) {
	cs := connect(t, testConfig(t), "claude-ai")
	const base = `{"platforms":["meta_ads"],"metrics":["spend"],"date_range":{"start":"2026-02-02","end":"2026-03-01"},"compare":`
	for _, c := range []struct {
		compare string
		want    []string // in the problem and its fix
	}{
		{`{"start":"2026-02-20","end":"2026-03-05"}`, []string{"overlaps the date range", "ends before 2026-02-02 or starts after 2026-03-01", "previous_period"}},
		{`{"start":"2026-01-01","end":"2026-03-01"}`, []string{"overlaps the date range"}},
		{`"previous_month"`, []string{"unknown comparison", "previous_period"}},
	} {
		body := errorOf(t, call(t, cs, "query", base+c.compare+`}`), "invalid_query")
		problems, _ := body["problems"].([]any)
		if len(problems) != 1 {
			t.Fatalf("compare %s: problems %v, want one", c.compare, body["problems"])
		}
		p := problems[0].(map[string]any)
		text, _ := json.Marshal(p)
		if p["field"] != "compare" {
			t.Errorf("compare %s: the problem names %v, want compare: %s", c.compare, p["field"], text)
		}
		for _, w := range c.want {
			if !strings.Contains(string(text), w) {
				t.Errorf("compare %s: the problem does not say %q: %s", c.compare, w, text)
			}
		}
	}
}

// TestQueryCompareWarnsOnce: a notice both windows carry (here: reach empty
// in the partial first and last weeks of each) is one warning in
// _meta.warnings, not the same type and detail twice.
func TestQueryCompareWarnsOnce(t *testing.T) {
	cs := connect(t, testConfig(t), "claude-ai")
	res := call(t, cs, "query", `{"platforms":["meta_ads"],"metrics":["spend","reach"],"dimensions":["account_name"],"time_granularity":"weekly",`+
		`"date_range":{"start":"2026-02-04","end":"2026-03-04"},"compare":"previous_period"}`)
	b := texts(t, res)
	if res.IsError || len(b) != 2 {
		t.Fatalf("isError=%v, %d blocks:\n%v", res.IsError, len(b), b)
	}
	seen := map[string]bool{}
	warnings, _ := metaOf(t, b[0])["warnings"].([]any)
	for _, w := range warnings {
		w := w.(map[string]any)
		key := fmt.Sprint(w["type"], ": ", w["detail"])
		if seen[key] {
			t.Errorf("warning given twice: %s", key)
		}
		seen[key] = true
	}
}
