package live_test

import (
	"context"
	"encoding/csv"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/answer"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
)

// compareCase is a comparison asked of the fakes: args with compare, and the
// same query over each window alone.
type compareCase struct {
	name                   string
	args, current, compare string
	metrics                []string
}

var compareCases = []compareCase{{
	name: "weekly previous_period, Meta and Google",
	args: `{"account_ids":["` + strings.Join(flagshipIDs, `","`) + `"],"dimensions":["campaign_name"],"metrics":["spend","clicks","ctr","conversions"],` +
		`"time_granularity":"weekly","date_range":{"start":"2026-01-05","end":"2026-02-22"},"compare":"previous_period"}`,
	// Seven whole ISO weeks: the seven weeks before.
	current: `"date_range":{"start":"2026-01-05","end":"2026-02-22"}`,
	compare: `"date_range":{"start":"2025-11-17","end":"2026-01-04"}`,
	metrics: []string{"spend", "clicks", "ctr", "conversions"},
}, {
	name: "total previous_year, Meta, a ratio and reach",
	args: `{"platforms":["meta_ads"],"dimensions":["account_name"],"metrics":["spend","ctr","reach","frequency"],"date_preset":"last_month","compare":"previous_year"}`,
	// last_month on 2026-03-15 is February 2026: February 2025, whole, so reach is stored.
	current: `"date_range":{"start":"2026-02-01","end":"2026-02-28"}`,
	compare: `"date_range":{"start":"2025-02-01","end":"2025-02-28"}`,
	metrics: []string{"spend", "ctr", "reach", "frequency"},
}}

// alone is c's query over one window, without compare.
func (c compareCase) alone(window string) string {
	s := c.args
	for _, cut := range []string{`,"compare":"previous_period"`, `,"compare":"previous_year"`, `,"date_preset":"last_month"`} {
		s = strings.Replace(s, cut, "", 1)
	}
	if i := strings.Index(s, `,"date_range":`); i >= 0 {
		s = s[:i] + s[strings.Index(s[i:], "}")+i+1:]
	}
	return strings.TrimSuffix(s, "}") + "," + window + "}"
}

// TestCompareOverTheFakesIsTheWarehouses: a comparison answered over the Meta
// and Google Ads fakes through the live source holds exactly the rows, the
// numbers and the windows of the same comparison answered by the warehouse
// holding the same data; its m and m_compare are the single-window answers'
// m; and the comparison window costs one more report per account, no more.
func TestCompareOverTheFakesIsTheWarehouses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the API fakes")
	}
	f := startFakes(t)
	wh := &answer.Engine{Source: duckdbtest.Open(t), Now: duckdbtest.Now}
	f.call(t, compareCases[0].alone(compareCases[0].current), 1_000_000) // fetches the OAuth token, which later calls reuse
	for _, c := range compareCases {
		t.Run(c.name, func(t *testing.T) {
			cur, curReports := f.call(t, c.alone(c.current), 1_000_000)
			old, oldReports := f.call(t, c.alone(c.compare), 1_000_000)
			got, reports := f.call(t, c.args, 1_000_000)
			want, err := wh.Query(context.Background(), answer.Request{Args: []byte(c.args), Client: "claude-ai", Budget: 1_000_000})
			if err != nil || want.IsError {
				t.Fatalf("the warehouse: %v %v", err, want.Blocks)
			}
			if got.IsError || got.Response.Kind != fit.KindData || len(got.Blocks) != 2 {
				t.Fatalf("over the fakes: %v", got.Blocks)
			}
			if got.Blocks[1] != want.Blocks[1] {
				t.Errorf("the rows differ from the warehouse's:\n%.1500s\n---\n%.1500s", got.Blocks[1], want.Blocks[1])
			}
			gm, wm := got.Response.Meta.Comparison, want.Response.Meta.Comparison
			if gm == nil || !reflect.DeepEqual(gm, wm) {
				t.Errorf("_meta.comparison %+v, the warehouse's %+v", gm, wm)
			}
			header := strings.SplitN(got.Blocks[1], "\n", 2)[0]
			for _, m := range c.metrics {
				if !strings.Contains(","+header+",", ","+m+","+m+"_compare,"+m+"_change,"+m+"_change_pct,") {
					t.Errorf("header %s lacks %s and its comparison columns", header, m)
				}
			}
			sameAsAlone(t, got.Blocks[1], cur.Blocks[1], old.Blocks[1], c.metrics)

			// The figures: row reports per account for each window alone and
			// for the comparison, and all the HTTP requests of each call.
			n, nCur, nOld := rowReports(reports), rowReports(curReports), rowReports(oldReports)
			for id, k := range n {
				if k != nCur[id]+nOld[id] || k > nCur[id]+1 {
					t.Errorf("account %s asked for rows %d times, want its current window's %d plus one", id, k, nCur[id])
				}
			}
			if len(n) != len(nCur) {
				t.Errorf("%d accounts asked for rows, the current window alone asks %d", len(n), len(nCur))
			}
			extra := got.Report.SourceCalls - cur.Report.SourceCalls
			if extra > len(nCur) || len(reports) != len(curReports)+len(oldReports) {
				t.Errorf("the comparison window cost %d more requests (%d reports; %d and %d alone) over %d accounts, want at most one per account",
					extra, len(reports), len(curReports), len(oldReports), len(nCur))
			}
			t.Logf("HTTP requests: current window alone %d, comparison window alone %d, comparison %d (+%d over %d accounts); reports with rows per account: %v",
				cur.Report.SourceCalls, old.Report.SourceCalls, got.Report.SourceCalls, extra, len(nCur), n)
		})
	}
}

// sameAsAlone checks each compared row's m against the answer over the
// date range alone and its m_compare against the answer over the comparison
// window alone (keyed by their dimensions, and the time label: the row's own
// for the current window, compare_<time> for the comparison window), and
// that every row of each answer alone is in the comparison.
func sameAsAlone(t *testing.T, compared, current, compare string, metrics []string) {
	t.Helper()
	cmp, cur, old := records(t, compared), records(t, current), records(t, compare)
	var keys []string // the current answer's columns that are not metrics
	for _, h := range cur.header {
		if !slices.Contains(metrics, h) {
			keys = append(keys, h)
		}
	}
	key := func(r map[string]string, rename map[string]string) string {
		var parts []string
		for _, k := range keys {
			if n, ok := rename[k]; ok {
				k = n
			}
			parts = append(parts, r[k])
		}
		return strings.Join(parts, "|")
	}
	toCompare := map[string]string{}
	for _, k := range keys {
		if cmp.has("compare_" + k) {
			toCompare[k] = "compare_" + k
		}
	}
	curBy, oldBy := cur.byKey(func(r map[string]string) string { return key(r, nil) }), old.byKey(func(r map[string]string) string { return key(r, nil) })
	seenCur, seenOld := 0, 0
	for _, r := range cmp.rows {
		status := r["compare_status"]
		if status == "both" || status == "new" {
			seenCur++
			a, ok := curBy[key(r, nil)]
			if !ok {
				t.Errorf("%s row %s is not in the answer over the date range alone", status, key(r, nil))
				continue
			}
			for _, m := range metrics {
				if r[m] != a[m] {
					t.Errorf("row %s: %s %s, the date range alone %s", key(r, nil), m, r[m], a[m])
				}
			}
		}
		if status == "both" || status == "stopped" {
			seenOld++
			b, ok := oldBy[key(r, toCompare)]
			if !ok {
				t.Errorf("%s row %s is not in the answer over the comparison window alone", status, key(r, toCompare))
				continue
			}
			for _, m := range metrics {
				if r[m+"_compare"] != b[m] {
					t.Errorf("row %s: %s_compare %s, the comparison window alone %s", key(r, toCompare), m, r[m+"_compare"], b[m])
				}
			}
		}
	}
	if seenCur != len(cur.rows) || seenOld != len(old.rows) {
		t.Errorf("the comparison holds %d rows of the date range and %d of the comparison window; alone they have %d and %d",
			seenCur, seenOld, len(cur.rows), len(old.rows))
	}
}

// csvRecords is a CSV block: its header and each row by column name.
type csvRecords struct {
	header []string
	rows   []map[string]string
}

func records(t *testing.T, block string) csvRecords {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(block)).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("not CSV with rows: %v\n%.300s", err, block)
	}
	out := csvRecords{header: recs[0]}
	for _, rec := range recs[1:] {
		r := map[string]string{}
		for i, h := range recs[0] {
			r[h] = rec[i]
		}
		out.rows = append(out.rows, r)
	}
	return out
}

func (c csvRecords) has(col string) bool { return slices.Contains(c.header, col) }

// byKey indexes the rows by key.
func (c csvRecords) byKey(key func(map[string]string) string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, r := range c.rows {
		out[key(r)] = r
	}
	return out
}

// TestCompareCoarsenedFetchesEachWindowOnce: a weekly reach comparison that
// must be coarsened (reach cannot be rolled up, so both windows are asked
// again at the coarser grain) is served from what each window fetched once:
// every Meta account is asked for its rows once per window, and the call
// makes the same reports whatever the grain returned.
func TestCompareCoarsenedFetchesEachWindowOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the API fakes")
	}
	f := startFakes(t)
	args := `{"platforms":["meta_ads"],"dimensions":["campaign_name"],"metrics":["spend","reach","frequency"],"time_granularity":"weekly",` +
		`"date_range":{"start":"2025-12-01","end":"2026-02-22"},"compare":"previous_period"}`
	var outcomes []string
	var sizes []int
	for _, budget := range []int{100_000, 6_000, 2_000} { // 2,000: answer.MinCompareBudget
		res, reports := f.call(t, args, budget)
		outcomes = append(outcomes, outcome(res, fit.Weekly))
		sizes = append(sizes, len(reports))
		n := rowReports(reports)
		for id, k := range n {
			if k != 2 {
				t.Errorf("budget %d (%s): account %s asked for rows %d times, want once per window", budget, outcome(res, fit.Weekly), id, k)
			}
		}
		if len(n) != 6 {
			t.Errorf("budget %d: %d Meta accounts asked for rows, want 6", budget, len(n))
		}
		t.Logf("budget %d (%s): %d HTTP requests, %d reports", budget, outcome(res, fit.Weekly), res.Report.SourceCalls, len(reports))
	}
	if !slices.Equal(outcomes, []string{"weekly", "monthly", "data_too_large"}) {
		t.Errorf("returned %v, want [weekly monthly data_too_large] (the budgets no longer exercise the grains)", outcomes)
	}
	if sizes[0] != sizes[1] || sizes[1] != sizes[2] {
		t.Errorf("reports per call %v: what each window fetches should not depend on the grain returned", sizes)
	}
}
