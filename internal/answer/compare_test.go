package answer

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
)

// csvRows reads a data answer's CSV into maps by column name.
func csvRows(t *testing.T, res *Result) []map[string]string {
	t.Helper()
	if res.IsError || len(res.Blocks) != 2 {
		t.Fatalf("not a data answer: %.800s", strings.Join(res.Blocks, "\n"))
	}
	recs, err := csv.NewReader(strings.NewReader(res.Blocks[1])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	if s == "" {
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// spendBy is spend per key column of an answer.
func spendBy(t *testing.T, rows []map[string]string, key, col string) map[string]float64 {
	out := map[string]float64{}
	for _, r := range rows {
		out[r[key]] += num(t, r[col])
	}
	return out
}

// A comparison's two sides are each what the query over that window alone
// answers, its change their difference, and its _meta states both windows.
func TestCompareEqualsTheTwoWindows(t *testing.T) {
	e := engine(t)
	const q = `"account_ids":["act_1015823746512093","act_6630418825197342"],"metrics":["spend","clicks","cpc"],"dimensions":["campaign_name"]`
	res := ask(t, e, "", 200000, `{`+q+`,"date_range":{"start":"2026-02-01","end":"2026-02-27"},"compare":"previous_period"}`)
	rows := csvRows(t, res)
	cur := csvRows(t, ask(t, e, "", 200000, `{`+q+`,"date_range":{"start":"2026-02-01","end":"2026-02-27"}}`))
	old := csvRows(t, ask(t, e, "", 200000, `{`+q+`,"date_range":{"start":"2026-01-05","end":"2026-01-31"}}`))
	m := res.Response.Meta.Comparison
	if m == nil || m.Current.Start != "2026-02-01" || m.Compare.Start != "2026-01-05" || m.Compare.End != "2026-01-31" || m.Compare.Days != 27 {
		t.Fatalf("_meta.comparison %+v", m)
	}
	want, wantOld := spendBy(t, cur, "campaign_name", "spend"), spendBy(t, old, "campaign_name", "spend")
	got, gotOld := spendBy(t, rows, "campaign_name", "spend"), spendBy(t, rows, "campaign_name", "spend_compare")
	for k, v := range want {
		if math.Abs(got[k]-v) > 0.005 {
			t.Errorf("%s: spend %v, the window alone %v", k, got[k], v)
		}
	}
	for k, v := range wantOld {
		if math.Abs(gotOld[k]-v) > 0.005 {
			t.Errorf("%s: spend_compare %v, the window alone %v", k, gotOld[k], v)
		}
	}
	statuses := map[string]int{}
	for _, r := range rows {
		statuses[r["compare_status"]]++
		if d := num(t, r["spend"]) - num(t, r["spend_compare"]) - num(t, r["spend_change"]); math.Abs(d) > 0.011 {
			t.Errorf("%s: change off by %v", r["campaign_name"], d)
		}
		_, inCur := want[r["campaign_name"]]
		_, inOld := wantOld[r["campaign_name"]]
		if w := map[[2]bool]string{{true, true}: "both", {true, false}: "new", {false, true}: "stopped"}[[2]bool{inCur, inOld}]; r["compare_status"] != w {
			t.Errorf("%s: status %s, want %s", r["campaign_name"], r["compare_status"], w)
		}
	}
	if len(rows) != len(union(want, wantOld)) {
		t.Errorf("%d rows, want one per campaign in either window (%d)", len(rows), len(union(want, wantOld)))
	}
	if statuses["both"] == 0 {
		t.Errorf("statuses %v", statuses)
	}
	if m.Both != statuses["both"] || m.New != statuses["new"] || m.Stopped != statuses["stopped"] {
		t.Errorf("_meta counts %+v, rows %v", m, statuses)
	}
}

func union(a, b map[string]float64) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// Sort and limit on a change rank the compared rows, never a window's own
// rows: the answer is the first rows of the whole comparison in that order.
func TestCompareLimitRanksTheComparedRows(t *testing.T) {
	e := engine(t)
	const q = `"account_ids":["act_1015823746512093"],"metrics":["spend"],"dimensions":["campaign_name"],"date_preset":"last_month","compare":"previous_period"`
	all := csvRows(t, ask(t, e, "", 200000, `{`+q+`,"sort":[{"field":"spend_change","direction":"asc"}]}`))
	top := ask(t, e, "", 200000, `{`+q+`,"sort":[{"field":"spend_change","direction":"asc"}],"limit":3}`)
	got := csvRows(t, top)
	if len(got) != 3 || len(all) <= 3 {
		t.Fatalf("%d of %d rows", len(got), len(all))
	}
	for i := range got {
		if got[i]["campaign_name"] != all[i]["campaign_name"] || got[i]["spend_change"] != all[i]["spend_change"] {
			t.Fatalf("row %d: %v, want %v", i, got[i], all[i])
		}
		if i > 0 && num(t, all[i]["spend_change"]) < num(t, all[i-1]["spend_change"]) {
			t.Fatalf("not sorted by spend_change: %v then %v", all[i-1], all[i])
		}
	}
	if top.Response.Meta.RowsBeforeLimit != len(all) {
		t.Errorf("rows_before_limit %d, want %d", top.Response.Meta.RowsBeforeLimit, len(all))
	}
	// A filter on the change keeps the rows whose change passes it.
	fell := csvRows(t, ask(t, e, "", 200000, `{`+q+`,"filters":[{"field":"spend_change","operator":"LESS_THAN","value":0}]}`))
	n := 0
	for _, r := range all {
		if num(t, r["spend_change"]) < 0 {
			n++
		}
	}
	if len(fell) != n {
		t.Fatalf("%d rows fell, want %d", len(fell), n)
	}
	for _, r := range fell {
		if num(t, r["spend_change"]) >= 0 {
			t.Fatalf("row %v kept", r)
		}
	}
}

// Coarsened, a comparison keeps both windows' totals: each coarser row pairs
// the same periods, and nothing is lost.
func TestCompareCoarsensBothWindows(t *testing.T) {
	e := engine(t)
	const q = `"account_ids":["act_1015823746512093","482-915-3307"],"metrics":["spend","ctr"],"dimensions":["campaign_name"],"date_range":{"start":"2026-01-01","end":"2026-02-28"},"compare":"previous_year"`
	small := ask(t, e, "", 6000, `{`+q+`,"time_granularity":"daily"}`)
	total := csvRows(t, ask(t, e, "", 200000, `{`+q+`}`))
	if small.Response.Kind == fit.KindData {
		g := small.Response.Meta.TimeGranularity
		if g.Returned == g.Requested {
			t.Fatalf("not coarsened: %+v", g)
		}
		rows := csvRows(t, small)
		for _, col := range []string{"spend", "spend_compare"} {
			a, b := 0.0, 0.0
			for _, r := range rows {
				a += num(t, r[col])
			}
			for _, r := range total {
				b += num(t, r[col])
			}
			if math.Abs(a-b) > 0.05 {
				t.Errorf("%s: %v at %s, %v in total", col, a, g.Returned, b)
			}
		}
		return
	}
	// data_too_large: the summary's movers are of the compared rows.
	var tl struct {
		Summary struct {
			Movers *fit.Movers `json:"movers"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(small.Blocks[0]), &tl); err != nil {
		t.Fatal(err)
	}
	if tl.Summary.Movers == nil {
		t.Fatalf("no movers: %.1500s", small.Blocks[0])
	}
	byName := map[string]map[string]string{}
	for _, r := range total {
		byName[r["campaign_name"]] = r
	}
	for _, mv := range append(tl.Summary.Movers.Increases, tl.Summary.Movers.Decreases...) {
		r := byName[mv.Value]
		if r == nil || math.Abs(num(t, r["spend_change"])-mv.Change) > 0.011 {
			t.Errorf("mover %+v, total row %v", mv, r)
		}
	}
}

// A comparison window before the accounts' data says so: its zeros are a gap,
// not a fall.
func TestCompareWarnsOfMissingData(t *testing.T) {
	e := engine(t)
	res := ask(t, e, "", 200000, `{"account_ids":["act_1015823746512093"],"metrics":["spend"],"date_range":{"start":"2025-02-08","end":"2025-03-31"},"compare":"previous_period"}`)
	found := false
	for _, w := range res.Response.Meta.Warnings {
		if w.Type == "compare_coverage" && strings.Contains(w.Detail, "no data at all") {
			found = true
		}
	}
	if !found {
		t.Fatalf("no compare_coverage warning: %+v", res.Response.Meta.Warnings)
	}
}

// The shape of a comparison answer, pinned.
func TestCompareGolden(t *testing.T) {
	e := engine(t)
	golden(t, "compare", ask(t, e, "claude-ai", 0, `{"account_ids":["act_1015823746512093","act_4409187263550918"],"metrics":["spend","cpa"],"dimensions":["account_name"],"date_preset":"last_month","compare":"previous_period"}`))
}

// A campaign that stopped has no row in the current window: the comparison
// still has its row, and no warning says the answer has none.
func TestCompareStoppedCampaignAlone(t *testing.T) {
	e := engine(t)
	const q = `"platforms":["meta_ads"],"metrics":["spend"],"dimensions":["campaign_name"],"date_range":{"start":"2026-01-15","end":"2026-03-10"},"compare":"previous_period"`
	stopped := ""
	for _, r := range csvRows(t, ask(t, e, "", 200000, `{`+q+`}`)) {
		if r["compare_status"] == "stopped" {
			stopped = r["campaign_name"]
			break
		}
	}
	if stopped == "" {
		t.Skip("no stopped campaign in these windows")
	}
	res := ask(t, e, "", 200000, `{`+q+`,"filters":[{"field":"campaign_name","operator":"EQUALS","value":`+strconv.Quote(stopped)+`}]}`)
	rows := csvRows(t, res)
	if len(rows) == 0 || rows[0]["compare_status"] != "stopped" || num(t, rows[0]["spend"]) != 0 {
		t.Fatalf("rows %v", rows)
	}
	for _, w := range res.Response.Meta.Warnings {
		if w.Type == "no_rows" {
			t.Fatalf("a comparison with rows warns %q: %s", w.Type, w.Detail)
		}
	}
}

// A comparison within a budget of 2,000 tokens is answered, for a Claude
// client too (whose responses are fitted to less, a margin off); below it the
// error names token_budget and a fix that works.
func TestCompareMinimumBudget(t *testing.T) {
	e := engine(t)
	const q = `"account_ids":["act_1015823746512093"],"metrics":["spend"],"dimensions":["campaign_name"],"date_preset":"last_month","compare":"previous_period"`
	if res := ask(t, e, "claude-ai", 0, `{`+q+`,"token_budget":2000}`); res.IsError {
		t.Fatalf("token_budget 2000 refused: %s", res.Blocks[0])
	}
	res := ask(t, e, "claude-ai", 0, `{`+q+`,"token_budget":1500}`)
	if !res.IsError || !strings.Contains(res.Blocks[0], `"field":"token_budget"`) || !strings.Contains(res.Blocks[0], "raise token_budget to 2000") {
		t.Fatalf("token_budget 1500: %.600s", res.Blocks[0])
	}
}

// A daily comparison coarsened to weeks, months or quarters, whose windows
// fall differently on the calendar (Oct 2 – Dec 30 against Jul 4 – Oct 1:
// three months against four, weeks from a Thursday against a Friday) marks a row new or stopped only where the campaign delivered nothing
// in the other window's paired days — checked against each window's daily
// rows asked alone.
func TestCompareCoarsenedNeverInventsNewOrStopped(t *testing.T) {
	e := engine(t)
	const q = `"account_ids":["act_1015823746512093","act_6630418825197342"],"metrics":["spend"],"dimensions":["campaign_name"],"time_granularity":"daily"`
	var res *Result
	for _, budget := range []int{3000, 3500, 4000, 2500} {
		r := ask(t, e, "", budget, `{`+q+`,"date_range":{"start":"2025-10-02","end":"2025-12-30"},"compare":"previous_period"}`)
		if r.Response == nil || r.Response.Meta.TimeGranularity == nil {
			continue
		}
		if g := r.Response.Meta.TimeGranularity.Returned; g == fit.Monthly || g == fit.Quarterly {
			res = r
			break
		}
	}
	if res == nil {
		t.Fatal("no budget gives a monthly or quarterly answer")
	}
	g := res.Response.Meta.TimeGranularity.Returned
	// Days with delivery, per campaign, in each window alone.
	delivered := func(start, end string) map[string][]string {
		out := map[string][]string{}
		for _, r := range csvRows(t, ask(t, e, "", 1000000, `{`+q+`,"date_range":{"start":"`+start+`","end":"`+end+`"}}`)) {
			if num(t, r["spend"]) != 0 {
				out[r["campaign_name"]] = append(out[r["campaign_name"]], r["date"])
			}
		}
		return out
	}
	cur, old := delivered("2025-10-02", "2025-12-30"), delivered("2025-07-04", "2025-10-01")
	// The comparison's periods are the current periods' days moved back by
	// the window's 90 days.
	inMonth := func(days []string, period string, back int) bool {
		start, err := fit.ParsePeriod(g, period)
		if err != nil {
			t.Fatal(err)
		}
		end := map[fit.Grain]time.Time{fit.Weekly: start.AddDate(0, 0, 7), fit.Monthly: start.AddDate(0, 1, 0), fit.Quarterly: start.AddDate(0, 3, 0)}[g]
		for _, d := range days {
			day, _ := time.Parse(time.DateOnly, d)
			if day = day.AddDate(0, 0, back); !day.Before(start) && day.Before(end) {
				return true
			}
		}
		return false
	}
	stopped := 0
	for _, r := range csvRows(t, res) {
		c := r["campaign_name"]
		if r[g.TimeColumn()] == "" {
			t.Errorf("%s is %s against %s, paired with no period of the current window", c, r["compare_status"], r["compare_"+g.TimeColumn()])
			continue
		}
		switch r["compare_status"] {
		case fit.StatusStopped:
			stopped++
			if inMonth(cur[c], r[g.TimeColumn()], 0) {
				t.Errorf("%s is stopped in %s (against %s) but delivered then", c, r[g.TimeColumn()], r["compare_"+g.TimeColumn()])
			}
		case fit.StatusNew:
			if inMonth(old[c], r[g.TimeColumn()], 90) {
				t.Errorf("%s is new in %s (against %s) but delivered in the paired days", c, r[g.TimeColumn()], r["compare_"+g.TimeColumn()])
			}
		case fit.StatusBoth:
			if !inMonth(cur[c], r[g.TimeColumn()], 0) && num(t, r["spend"]) != 0 || !inMonth(old[c], r[g.TimeColumn()], 90) && num(t, r["spend_compare"]) != 0 {
				t.Errorf("%s in %s: both, with spend %s against %s", c, r[g.TimeColumn()], r["spend"], r["spend_compare"])
			}
		}
	}
	t.Logf("%s: %+v", g, *res.Response.Meta.Comparison)
	if m := res.Response.Meta.Comparison; m.Stopped != stopped {
		t.Errorf("_meta.comparison says %d stopped, the rows %d", m.Stopped, stopped)
	}
}
