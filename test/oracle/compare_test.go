package oracle

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/answer"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
)

var flagCompareCases = flag.Int("oracle.compare_cases", 200, "TestPropertyCompare: random comparison calls to run")

// The comparison parts of an answer, as the client reads them.

type comparisonJSON struct {
	Mode    string     `json:"mode"`
	Current windowJSON `json:"current"`
	Compare windowJSON `json:"compare"`
	Both    int        `json:"rows_in_both"`
	New     int        `json:"rows_new"`
	Stopped int        `json:"rows_stopped"`
}

type windowJSON struct {
	Start string `json:"start"`
	End   string `json:"end"`
	Days  int    `json:"days"`
}

type moverJSON struct {
	Value     string   `json:"value"`
	Currency  string   `json:"currency"`
	Current   float64  `json:"current"`
	Compare   float64  `json:"compare"`
	Change    float64  `json:"change"`
	ChangePct *float64 `json:"change_pct"`
}

type moversJSON struct {
	Field     string      `json:"field"`
	Metric    string      `json:"metric"`
	Increases []moverJSON `json:"largest_increases"`
	Decreases []moverJSON `json:"largest_decreases"`
}

type cmpHeadJSON struct {
	Meta *struct {
		Comparison *comparisonJSON `json:"comparison"`
	} `json:"_meta"`
	Summary *struct {
		Movers *moversJSON `json:"movers"`
	} `json:"summary"`
}

// cmpData is what a comparison case adds to a tcase: the answer's
// comparison parts, the window the oracle computes from the documented
// rules, and the oracle's expectation.
type cmpData struct {
	meta   *comparisonJSON
	movers *moversJSON
	mode   string // from the echo: previous_period, previous_year, or "custom" for {start, end}
	// ws and we are the oracle's comparison window.
	ws, we time.Time
	exp    map[string]*cmpExpect // by grain
}

// cmpExpect is the oracle's comparison at one grain and what the query selects of it.
type cmpExpect struct {
	*Comparison
	qualifying []*Paired // pass the metric filters, in the requested order
	kept       []*Paired // of qualifying, within the limit
	perCur     bool
	byKey      map[string]*Paired
}

// readCompare completes a comparison case: the echo (asked again without the
// budget when the answer left it out), the compare argument it echoes, and
// _meta.comparison.
func readCompare(t *testing.T, e *answer.Engine, c *tcase) {
	if c.head == nil || c.meta == nil || c.problem != "" {
		return
	}
	raw := json.RawMessage(c.meta.Query)
	if c.q == nil && len(c.meta.opts("query_echo_omitted")) > 0 {
		var args map[string]any
		json.Unmarshal(c.args, &args)
		delete(args, "token_budget")
		b, _ := json.Marshal(args)
		res, err := e.Query(context.Background(), answer.Request{Args: b, Budget: 1_000_000})
		if err != nil {
			t.Fatalf("%s: the echo asked again: %v", c.name, err)
		}
		var h headJSON
		if err := json.Unmarshal([]byte(res.Blocks[0]), &h); err != nil || h.Meta == nil || len(h.Meta.Query) == 0 {
			c.problem = "the echo asked again has no _meta.query"
			return
		}
		raw = h.Meta.Query
		c.fromEcho(raw)
		if c.problem != "" {
			return
		}
	}
	if c.q == nil {
		return
	}
	var echo struct {
		Compare json.RawMessage `json:"compare"`
	}
	json.Unmarshal(raw, &echo)
	cd := &cmpData{exp: map[string]*cmpExpect{}}
	var mode string
	var win struct{ Start, End string }
	switch {
	case len(echo.Compare) == 0:
		c.problem = "a comparison's _meta.query has no compare"
		return
	case json.Unmarshal(echo.Compare, &mode) == nil:
		cd.mode = mode
		cd.ws, cd.we = CompareWindow(mode, c.q.Start, c.q.End, c.q.Grain)
	case json.Unmarshal(echo.Compare, &win) == nil:
		cd.mode = "custom"
		var err1, err2 error
		cd.ws, err1 = time.Parse(time.DateOnly, win.Start)
		cd.we, err2 = time.Parse(time.DateOnly, win.End)
		if err1 != nil || err2 != nil {
			c.problem = fmt.Sprintf("_meta.query.compare %s is not {start, end}", echo.Compare)
			return
		}
	default:
		c.problem = fmt.Sprintf("_meta.query.compare %s is neither a mode nor {start, end}", echo.Compare)
		return
	}
	var h cmpHeadJSON
	json.Unmarshal([]byte(c.res.Blocks[0]), &h)
	if h.Meta != nil {
		cd.meta = h.Meta.Comparison
	}
	if h.Summary != nil {
		cd.movers = h.Summary.Movers
	}
	c.cmp = cd
}

// returned is the grain of a case's rows (or summary).
func (c *tcase) returned() string {
	if tg := c.meta.TimeGranularity; tg != nil && tg.Returned != "" {
		return tg.Returned
	}
	return c.q.Grain
}

// at is the oracle's comparison of case c at grain g, selected as c's query selects.
func (c *tcase) at(d *Data, g string) *cmpExpect {
	if x := c.cmp.exp[g]; x != nil {
		return x
	}
	x := &cmpExpect{Comparison: d.Compare(c.q, c.cmp.mode, c.cmp.ws, c.cmp.we, g, c.userDims), byKey: map[string]*Paired{}}
	for _, p := range x.Rows {
		x.byKey[p.Key()] = p
	}
	// A selection that reads a metric the answer left out (its warning
	// names both) is not applied to it: its filters pass every row, its sort
	// keys are dropped, and the limit with them.
	skipped := c.selectionNotApplied()
	limited := !slices.ContainsFunc(c.q.Sort, func(k SortKey) bool { return slices.Contains(skipped, k.Field) })
	keys := slices.DeleteFunc(slices.Clone(c.q.Sort), func(k SortKey) bool { return slices.Contains(skipped, k.Field) })
	for _, p := range x.Rows {
		ok := true
		for _, f := range c.q.Filters {
			if f.Metric && !slices.Contains(skipped, f.Field) && !MatchNumber(x.Value(d, p, f.Field), f) {
				ok = false
			}
		}
		if ok {
			x.qualifying = append(x.qualifying, p)
		}
	}
	ties := cmpTies(c.q, g)
	sort.SliceStable(x.qualifying, func(i, j int) bool {
		r, _ := compareRows(x.getter(d, x.qualifying[i]), x.getter(d, x.qualifying[j]), keys, ties, nil)
		return r < 0
	})
	curs := map[string]bool{}
	for _, p := range x.qualifying {
		curs[pairedCurrency(p)] = true
	}
	x.perCur = slices.ContainsFunc(c.q.Sort, func(k SortKey) bool { return moneyField(k.Field) }) && len(curs) > 1
	x.kept = x.qualifying
	if c.q.Limit > 0 && limited {
		x.kept = nil
		n := map[string]int{}
		for _, p := range x.qualifying {
			k := ""
			if x.perCur {
				k = pairedCurrency(p)
			}
			if n[k] < c.q.Limit {
				n[k]++
				x.kept = append(x.kept, p)
			}
		}
	}
	c.cmp.exp[g] = x
	return x
}

// selectionNotApplied are the fields of the query's selection that the
// answer says it did not select by (selection_not_applied), when each is a
// column of a metric the answer also says it left out (metric_not_compared,
// metric_unavailable_at_grain);
// nil otherwise, and the oracle then applies the whole selection.
func (c *tcase) selectionNotApplied() []string {
	var left, named []string
	for _, w := range c.meta.Warnings {
		switch w.Type {
		case "metric_not_compared", "metric_unavailable_at_grain":
			left = append(left, w.Fields...)
		case "selection_not_applied":
			named = append(named, w.Fields...)
		}
	}
	for _, f := range named {
		if !slices.Contains(left, comparedBase(f)) {
			return nil
		}
	}
	return named
}

// comparedBase is the metric a comparison column is of (reach for
// reach_change_pct).
func comparedBase(col string) string {
	for _, suf := range []string{"_change_pct", "_change", "_compare"} {
		if b, ok := strings.CutSuffix(col, suf); ok {
			return b
		}
	}
	return col
}

// cmpTies are the columns a comparison's rows are ordered by after the sort
// keys: the time column, the comparison window's, the dimensions, and
// compare_status.
func cmpTies(q *Query, g string) []string {
	var out []string
	if tc := TimeColumn(g); tc != "" {
		out = append(out, tc, "compare_"+tc)
	}
	return append(append(out, q.Dims...), "compare_status")
}

// getter reads a paired row's fields.
func (x *cmpExpect) getter(d *Data, p *Paired) getter {
	tc := TimeColumn(x.G)
	return func(field string) (float64, string, bool) {
		switch {
		case timeFields[field] || field == "":
			return 0, p.Period, false
		case tc != "" && field == "compare_"+tc:
			return 0, p.BasePeriod, false
		case field == "compare_status":
			return 0, p.Status(), false
		}
		if i := slices.Index(x.Cur.Dims, field); i >= 0 {
			return 0, p.Dims[i], false
		}
		if isMetric(field) {
			return x.Value(d, p, field), "", true
		}
		return 0, "", false
	}
}

func pairedCurrency(p *Paired) string {
	if p.Cur != nil {
		return p.Cur.Currency()
	}
	return p.Base.Currency()
}

// moneyField: a money metric, or its comparison value or change (its change
// in percent is not money).
func moneyField(f string) bool {
	m, suffix := Derived(f)
	return Money[m] && suffix != "_change_pct"
}

// cmpSelects: the query selects compared rows (a metric filter or a limit).
func cmpSelects(q *Query) bool {
	return q.Limit > 0 || slices.ContainsFunc(q.Filters, func(f Filter) bool { return f.Metric })
}

// cmpTolerance is how far a printed cell of field may be from the exact value v.
func cmpTolerance(field string, v float64) float64 {
	m, suffix := Derived(field)
	switch {
	case suffix == "_change_pct":
		return 0.000051 + math.Abs(v)*1e-9
	case m == "reach":
		return 1e-9
	case Additive[m] && Money[m]:
		return 0.0051
	case Additive[m]:
		return 1e-9
	}
	return 0.000051 + math.Abs(v)*1e-9
}

func isCmp(c *tcase) bool       { return c.cmp != nil }
func isCmpCSV(c *tcase) bool    { return c.cmp != nil && c.isCSV() }
func isCmpSumm(c *tcase) bool   { return c.cmp != nil && c.isSumm() }
func cmpNoSelect(c *tcase) bool { return isCmpCSV(c) && !cmpSelects(c.q) }

var compareInvariants = []invariant{
	{"a_window", func(c *tcase) bool { return isCmp(c) && (c.isCSV() || c.isSumm()) }, checkCmpWindow},
	{"b_rows", isCmpCSV, checkCmpRows},
	{"c_no_row_lost", cmpNoSelect, checkCmpReconcile},
	{"d_order", isCmpCSV, checkCmpOrder},
	{"e_limit", func(c *tcase) bool { return isCmpCSV(c) && c.q.Limit > 0 }, checkCmpLimit},
	{"f_budget", func(c *tcase) bool { return c.res != nil }, checkBudget},
	{"g_summary", isCmpSumm, checkCmpSummary},
	{"h_warnings", func(c *tcase) bool { return isCmp(c) && (c.isCSV() || c.isSumm()) }, checkCmpWarnings},
	{"i_suggestions", func(c *tcase) bool { return c.sugg != nil }, checkCmpSuggestion},
	{"j_no_source_error", func(c *tcase) bool { return c.head != nil }, checkNoSourceError},
	{"k_refusals", func(c *tcase) bool { return c.parent == nil && c.head != nil }, checkRefusals},
	{"l_attribution", func(c *tcase) bool { return isCmp(c) && (c.isCSV() || c.isSumm()) }, checkAttribution},
}

// TestPropertyCompare runs seeded random period-over-period calls
// (-oracle.compare_cases, -oracle.seed) through the engine and checks each
// answer against the oracle's own aggregation of both windows, whose dates it
// computes from the documented rules (CompareWindow): the windows stated,
// every row's values in each window and their change, no row lost, the
// order, the limit, period k paired with period k, the movers of a summary,
// the warnings about the windows, and the budget. The suggestions of each
// data_too_large answer are run and checked the same way.
func TestPropertyCompare(t *testing.T) {
	d := oracleData(t)
	e := &answer.Engine{Source: engineSource(t), Now: duckdbtest.Now}
	g := newGen(*flagSeed, d)
	started := time.Now()
	breakdownTally = tally{}
	var cases []*tcase
	for i := 0; i < *flagCompareCases; i++ {
		c := g.nextCompare()
		cases = append(cases, runCompare(t, e, fmt.Sprintf("#%d", i), c, c.JSON())...)
	}
	logCompareCoverage(t, cases, *flagCompareCases, time.Since(started))
	for _, c := range cases {
		if c.problem != "" {
			t.Errorf("%s: unreadable answer: %s\n%s", c.name, c.problem, describe(c))
		}
	}
	checkInvariants(t, d, cases, compareInvariants)
	logBreakdownTally(t, *flagCompareCases)
	t.Logf("reach/frequency cells checked: %d (%d with a value); movers checked: %d", cmpReachCells[0], cmpReachCells[1], cmpMoversChecked)
}

// cmpReachCells counts the reach and frequency cells checked (and those with
// a value); cmpMoversChecked the movers.
var (
	cmpReachCells    [2]int
	cmpMoversChecked int
)

// runCompare runs a comparison call and, when it answers data_too_large,
// each of its suggestions: the call's case first, then its suggestions'.
func runCompare(t *testing.T, e *answer.Engine, name string, c *call, args []byte) []*tcase {
	tc := run(t, e, name, c, args)
	readCompare(t, e, tc)
	out := []*tcase{tc}
	if tc.isSumm() && tc.head.RequeryInstructions != nil {
		for j, s := range tc.head.RequeryInstructions.Suggestions {
			kc := &call{Client: c.Client, Budget: c.Budget}
			var sa echoJSON
			json.Unmarshal(s.Query, &sa)
			kc.ArgBudget = sa.TokenBudget
			k := run(t, e, fmt.Sprintf("%s.s%d", name, j), kc, s.Query)
			readCompare(t, e, k)
			k.parent, k.sugg = tc, &tc.head.RequeryInstructions.Suggestions[j]
			tc.kids = append(tc.kids, k)
			out = append(out, k)
		}
	}
	return out
}

// logCompareCoverage says what the cases covered: answer kinds, grains,
// modes, row statuses, selections.
func logCompareCoverage(t *testing.T, cases []*tcase, generated int, took time.Duration) {
	kinds, grains, modes, statuses, sel := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	invalid := map[string]int{}
	for _, c := range cases {
		kind := "csv"
		switch {
		case c.head == nil:
			kind = "unreadable"
		case c.head.Type != "":
			kind = c.head.Type
		}
		kinds[kind]++
		if kind == "invalid_query" {
			var e struct {
				Problems []struct {
					Field   string `json:"field"`
					Problem string `json:"problem"`
				} `json:"problems"`
			}
			json.Unmarshal([]byte(c.res.Blocks[0]), &e)
			for _, pr := range e.Problems {
				k := digits.ReplaceAllString(pr.Field+": "+pr.Problem, "N")
				invalid[k[:min(len(k), 90)]]++
			}
		}
		if c.cmp == nil {
			continue
		}
		modes[c.cmp.mode]++
		if c.isCSV() {
			grains[c.q.Grain+"→"+c.returned()]++
			if g := c.returned(); g != "total" && len(Periods(g, c.q.Start, c.q.End)) != len(Periods(g, c.cmp.ws, c.cmp.we)) {
				// The windows cut into different numbers of calendar
				// periods at the grain returned: the comparison
				// window's periods are cut to match.
				sel["recut:"+c.q.Grain+"→"+g]++
			}
			if i := c.tab.col("compare_status"); i >= 0 {
				for _, r := range c.tab.rows {
					statuses[r[i]]++
				}
			}
		}
		if c.isSumm() {
			grains["summary@"+c.returned()]++
		}
		for _, f := range c.q.Filters {
			if _, s := Derived(f.Field); f.Metric {
				sel["filter"+s]++
			}
		}
		for _, k := range c.q.Sort {
			if _, s := Derived(k.Field); isMetric(k.Field) {
				sel["sort"+s]++
			}
		}
		if c.q.Limit > 0 {
			sel["limit"]++
		}
	}
	t.Logf("%d calls (%d generated) in %v: %v", len(cases), generated, took.Round(time.Millisecond), kinds)
	t.Logf("grains (requested→returned): %v", grains)
	t.Logf("modes: %v; row statuses: %v; selections: %v", modes, statuses, sel)
	if len(invalid) > 0 {
		t.Logf("invalid_query problems: %v", invalid)
	}
}

// checkCmpWindow: _meta.comparison states the oracle's windows exactly, and
// counts the rows of each status the answer has.
func checkCmpWindow(d *Data, c *tcase) []string {
	m := c.cmp.meta
	if m == nil {
		return []string{"[comparison-missing] no _meta.comparison"}
	}
	var p []string
	win := func(s, e time.Time) windowJSON {
		return windowJSON{s.Format(time.DateOnly), e.Format(time.DateOnly), dayCount(s, e)}
	}
	if want := win(c.q.Start, c.q.End); m.Current != want {
		p = append(p, fmt.Sprintf("[window-current] _meta.comparison.current %+v, the date range is %+v", m.Current, want))
	}
	if want := win(c.cmp.ws, c.cmp.we); m.Compare != want {
		p = append(p, fmt.Sprintf("[window-compare] %s at %s grain over %s … %s: _meta.comparison.compare %+v, the oracle's window %+v",
			c.cmp.mode, c.q.Grain, c.q.Start.Format(time.DateOnly), c.q.End.Format(time.DateOnly), m.Compare, want))
	}
	if m.Mode != c.cmp.mode {
		p = append(p, fmt.Sprintf("[window-mode] _meta.comparison.mode %q, the query's %q", m.Mode, c.cmp.mode))
	}
	if c.isCSV() {
		n := map[string]int{}
		if i := c.tab.col("compare_status"); i >= 0 {
			for _, r := range c.tab.rows {
				n[r[i]]++
			}
		}
		if m.Both != n["both"] || m.New != n["new"] || m.Stopped != n["stopped"] {
			p = append(p, fmt.Sprintf("[status-counts] _meta.comparison says %d both, %d new, %d stopped; the rows have %v", m.Both, m.New, m.Stopped, n))
		}
	}
	return p
}

// csvPaired finds the oracle's paired row of a CSV row: its dimension values
// and the position its labels name in each window.
func csvPaired(x *cmpExpect, c *tcase, row []string) (key string, p *Paired, prob string) {
	t := c.tab
	tc := TimeColumn(x.G)
	dims := make([]string, len(c.q.Dims))
	for i, name := range c.q.Dims {
		if j := t.col(name); j >= 0 {
			dims[i] = row[j]
		}
	}
	pos := 0
	if tc != "" {
		cur, base := "", ""
		if j := t.col(tc); j >= 0 {
			cur = row[j]
		}
		if j := t.col("compare_" + tc); j >= 0 {
			base = row[j]
		}
		switch {
		case cur != "":
			if pos = slices.Index(x.CurPeriods, cur); pos < 0 {
				return showKey(keyOf(cur, dims)), nil, fmt.Sprintf("[label-outside-window] %s %q is no %s period of the date range %v", tc, cur, x.G, x.CurPeriods)
			}
		case base != "":
			if pos = slices.Index(x.BasePeriods, base); pos < 0 {
				return showKey(keyOf(base, dims)), nil, fmt.Sprintf("[label-outside-window] compare_%s %q is no %s period of the comparison window %v", tc, base, x.G, x.BasePeriods)
			}
		default:
			return showKey(keyOf("", dims)), nil, "[label-empty] a row with neither label"
		}
	}
	pk := (&Paired{Pos: pos, Dims: dims}).Key()
	k := showKey(fmt.Sprintf("%d\x1f%s", pos+1, strings.Join(dims, "\x1f")))
	return k, x.byKey[pk], ""
}

// checkCmpRows: every row is the oracle's paired row of its key and position
// — labels, status, each metric's value in each window, change and change in
// percent — and the rows are exactly the oracle's selected ones.
func checkCmpRows(d *Data, c *tcase) []string {
	var p []string
	x := c.at(d, c.returned())
	t := c.tab
	tc := TimeColumn(x.G)
	if tc != "" {
		for _, col := range []string{tc, "compare_" + tc} {
			if t.col(col) < 0 {
				p = append(p, fmt.Sprintf("[header] column %q missing from %v", col, t.header))
			}
		}
		if i := t.col(tc); i >= 0 && t.col("compare_"+tc) != i+1 {
			p = append(p, fmt.Sprintf("[header] compare_%s is not right after %s: %v", tc, tc, t.header))
		}
	}
	for _, col := range append(slices.Clone(c.q.Dims), "compare_status") {
		if t.col(col) < 0 {
			p = append(p, fmt.Sprintf("[header] column %q missing from %v", col, t.header))
		}
	}
	var reads []string
	for _, f := range c.q.Filters {
		if f.Metric {
			reads = append(reads, f.Field)
		}
	}
	for _, k := range c.q.Sort {
		reads = append(reads, k.Field)
	}
	for _, f := range reads {
		if m := comparedBase(f); slices.Contains(c.q.Metrics, m) && t.col(m) < 0 && t.col(m+"_compare") < 0 && !slices.Contains(c.selectionNotApplied(), f) {
			p = append(p, fmt.Sprintf("[selection-on-missing] the selection reads %s, whose metric is not in the answer, and no selection_not_applied warning names it", f))
		}
	}
	var fields []string
	for _, m := range c.q.Metrics {
		cols := []string{m, m + "_compare", m + "_change", m + "_change_pct"}
		if !slices.ContainsFunc(cols, func(f string) bool { return t.col(f) >= 0 }) {
			if !slices.ContainsFunc(c.meta.Warnings, func(w warnJSON) bool { return slices.Contains(w.Fields, m) }) {
				p = append(p, fmt.Sprintf("[metric-missing] %s not in the CSV and no warning names it", m))
			}
			continue
		}
		for _, f := range cols {
			if t.col(f) < 0 {
				p = append(p, fmt.Sprintf("[header] column %q missing from %v", f, t.header))
				continue
			}
			fields = append(fields, f)
		}
		if m == "reach" || m == "frequency" {
			// Compared only where both windows have it (else left out
			// with metric_not_compared); kept as empty columns where
			// neither has it and it is all the query asks for.
			_, _, curOK := d.ReachOf(x.Cur, &Row{Dims: make([]string, len(c.q.Dims))}, x.G)
			_, _, baseOK := d.ReachOf(x.Base, &Row{Dims: make([]string, len(c.q.Dims))}, x.G)
			filled := slices.ContainsFunc(t.rows, func(r []string) bool { return r[t.col(m)] != "" || r[t.col(m+"_compare")] != "" })
			if curOK != baseOK && filled {
				p = append(p, fmt.Sprintf("[reach-one-window] %s compared at %s grain, where only the %s window can answer it (docs: left out with metric_not_compared)",
					m, x.G, map[bool]string{true: "current", false: "comparison"}[curOK]))
			}
		}
	}
	if len(p) > 0 && slices.ContainsFunc(p, func(s string) bool { return strings.HasPrefix(s, "[header]") }) {
		return p
	}
	expect := map[string]bool{}
	for _, r := range x.kept {
		expect[r.Key()] = true
	}
	got := map[string]bool{}
	st := t.col("compare_status")
	for _, row := range t.rows {
		k, r, prob := csvPaired(x, c, row)
		if prob != "" {
			p = append(p, prob)
			continue
		}
		if r == nil {
			cls := "[row-unexpected]"
			if len(x.Rows) == 0 {
				cls = "[row-for-no-data]"
			}
			p = append(p, cls+" "+k+" "+strings.Join(row, ","))
			continue
		}
		if got[r.Key()] {
			p = append(p, "[row-duplicate] "+k)
			continue
		}
		got[r.Key()] = true
		if !expect[r.Key()] {
			p = append(p, "[row-not-selected] "+k+" passes no metric filter or is past the limit: "+strings.Join(row, ","))
		}
		if tc != "" {
			if l := row[t.col(tc)]; l != r.Period {
				p = append(p, fmt.Sprintf("[label] %s %s=%q, the oracle's period %d of the date range is %q", k, tc, l, r.Pos+1, r.Period))
			}
			if l := row[t.col("compare_"+tc)]; l != r.BasePeriod {
				p = append(p, fmt.Sprintf("[label-compare] %s compare_%s=%q, the oracle's period %d of the comparison window is %q", k, tc, l, r.Pos+1, r.BasePeriod))
			}
		}
		if s := row[st]; s != r.Status() {
			p = append(p, fmt.Sprintf("[status] %s compare_status=%s, the oracle's %s", k, s, r.Status()))
		}
		for _, f := range fields {
			cell := row[t.col(f)]
			gv, err := cellValue(cell)
			if err != nil {
				p = append(p, fmt.Sprintf("[cell-format] %s %s=%q", k, f, cell))
				continue
			}
			wv := x.Value(d, r, f)
			if m, _ := Derived(f); m == "reach" || m == "frequency" {
				cmpReachCells[0]++
				if !math.IsNaN(wv) {
					cmpReachCells[1]++
				}
			}
			if math.IsNaN(gv) && math.IsNaN(wv) || !math.IsNaN(gv) && !math.IsNaN(wv) && math.Abs(gv-wv) <= cmpTolerance(f, wv) {
				continue
			}
			m, suffix := Derived(f)
			cls := "[value" + suffix + "]"
			switch {
			case m == "reach" || m == "frequency":
				cls = "[value-reach" + suffix + "]"
			case !Additive[m]:
				cls = "[value-ratio" + suffix + "]"
			}
			p = append(p, fmt.Sprintf("%s %s %s (%s): got %s, want %s", cls, k, f, r.Status(), cell, fmtNum(wv)))
		}
	}
	var missing []string
	for _, r := range x.kept {
		if !got[r.Key()] {
			missing = append(missing, showKey(fmt.Sprintf("%d\x1f%s", r.Pos+1, strings.Join(r.Dims, "\x1f")))+" "+r.Status())
		}
	}
	if len(missing) > 0 {
		cls := "[row-missing]"
		if c.q.Limit > 0 {
			cls = "[row-missing-limit]"
		}
		n := len(missing)
		if n > 3 {
			missing = append(missing[:3], fmt.Sprintf("…(%d)", n))
		}
		p = append(p, cls+" "+strings.Join(missing, " "))
	}
	if len(t.rows) != c.meta.ReturnedRows {
		p = append(p, fmt.Sprintf("[returned-rows] _meta.returned_rows %d, CSV has %d", c.meta.ReturnedRows, len(t.rows)))
	}
	return p
}

// checkCmpReconcile: with nothing selected, the rows hold every key of either
// window (checked by b_rows), and per currency Σm and Σm_compare plus what
// validation_filter reports removed from each window are the oracle's window
// totals.
func checkCmpReconcile(d *Data, c *tcase) []string {
	var p []string
	x := c.at(d, c.returned())
	t := c.tab
	ci := t.col("currency")
	bucket := func(cur string) string {
		if ci < 0 {
			return ""
		}
		return cur
	}
	var sums []string
	for _, m := range c.q.Metrics {
		if Additive[m] && t.col(m) >= 0 && t.col(m+"_compare") >= 0 {
			sums = append(sums, m)
		}
	}
	// The removals of each window at the grain its rows were made at: the
	// returned one when re-queried there, else the requested one.
	removals := func(compareWindow bool) []optJSON {
		var at, req []optJSON
		for _, o := range c.meta.opts("validation_filter") {
			if strings.HasSuffix(o.Detail, "(comparison window)") != compareWindow {
				continue
			}
			switch o.Grain {
			case x.G:
				at = append(at, o)
			case "":
				req = append(req, o)
			}
		}
		if x.G != c.q.Grain && len(at) > 0 {
			return at
		}
		return req
	}
	delivery := deliveryReconciled(d, c.q)
	if delivery {
		tallyBreakdown(d, c.q, true, x.G != c.q.Grain, [2]time.Time{c.q.Start, c.q.End}, [2]time.Time{c.cmp.ws, c.cmp.we})
	}
	for _, w := range []struct {
		name       string
		all        []*Row
		col        func(m string) string
		rem        []optJSON
		oracle     []*Row
		start, end time.Time
	}{
		{"current", x.CurAll, func(m string) string { return m }, removals(false), x.CurRemoved, c.q.Start, c.q.End},
		{"comparison", x.BaseAll, func(m string) string { return m + "_compare" }, removals(true), x.BaseRemoved, c.cmp.ws, c.cmp.we},
	} {
		want, got := newCurrencyTotals(), newCurrencyTotals()
		for _, r := range w.all {
			for _, m := range sums {
				want.add(bucket(r.Currency()), m, Value(m, &r.Sums))
			}
		}
		for _, row := range t.rows {
			cur := ""
			if ci >= 0 {
				cur = row[ci]
			}
			got.rows[cur]++
			for _, m := range sums {
				v, _ := cellValue(row[t.col(w.col(m))])
				got.add(cur, m, v)
			}
		}
		if len(w.oracle) > 0 && len(w.rem) == 0 && len(sums) > 0 {
			p = append(p, fmt.Sprintf("[removed-unreported] the oracle has %d rows of the %s window with every user dimension empty; no validation_filter", len(w.oracle), w.name))
		}
		for _, vf := range w.rem {
			got.addRemoved(vf.RemovedTotals, sums, bucket)
		}
		mismatches(want, got, sums, func(cur, m string, wv, gv float64) {
			p = append(p, fmt.Sprintf("[reconcile-%s] currency %q Σ%s: rows + removed %.2f, the oracle's %s window %.2f (diff %.2f; oracle removed %d rows)",
				w.name, cur, w.col(m), gv, w.name, wv, gv-wv, len(w.oracle)))
		})
		if delivery {
			mismatches(d.deliveryTotals(c.q, w.start, w.end, sums, bucket), got, sums, func(cur, m string, wv, gv float64) {
				p = append(p, fmt.Sprintf("[reconcile-delivery-%s] currency %q Σ%s: rows + removed %.2f, the accounts' delivery rows %.2f (diff %.2f)",
					w.name, cur, w.col(m), gv, wv, gv-wv))
			})
		}
	}
	return p
}

// checkCmpOrder: the rows are in the requested order (sort keys, derived ones
// included, then the labels, the dimensions and the status).
func checkCmpOrder(d *Data, c *tcase) []string {
	t := c.tab
	g := c.returned()
	tc := TimeColumn(g)
	ties := cmpTies(c.q, g)
	for i := 1; i < len(t.rows); i++ {
		r, ind := compareRows(csvGetter(t, t.rows[i-1], tc), csvGetter(t, t.rows[i], tc), c.q.Sort, ties, rounded)
		if !ind && r > 0 {
			return []string{fmt.Sprintf("[order] row %d before row %d: %s / %s (sort %v)", i, i+1,
				strings.Join(t.rows[i-1], ","), strings.Join(t.rows[i], ","), c.q.Sort)}
		}
	}
	return nil
}

// checkCmpLimit: limit N returns the first N of the oracle's sorted compared
// rows (of each currency when money is ranked over several), and says how
// many there were.
func checkCmpLimit(d *Data, c *tcase) []string {
	var p []string
	x := c.at(d, c.returned())
	if len(c.tab.rows) != len(x.kept) {
		how := "global"
		if x.perCur {
			how = "per currency"
		}
		p = append(p, fmt.Sprintf("[limit-count] limit %d (%s) over %d qualifying compared rows: want %d rows, got %d", c.q.Limit, how, len(x.qualifying), len(x.kept), len(c.tab.rows)))
	}
	if len(x.qualifying) > len(x.kept) && c.meta.RowsBeforeLimit != len(x.qualifying) {
		p = append(p, fmt.Sprintf("[rows-before-limit] rows_before_limit %d, want %d qualifying compared rows", c.meta.RowsBeforeLimit, len(x.qualifying)))
	}
	return p
}

// checkCmpSummary: a data_too_large summary of a comparison: its row count
// is the oracle's compared rows at its grain, its sums theirs plus the rows
// step 1 removed from each window (the total of everything asked; of the
// selected rows alone when the query selects), and its movers are
// the widest dimension's values whose main metric changed most, with both
// windows' sums, per currency, increases first by size and decreases too.
func checkCmpSummary(d *Data, c *tcase) []string {
	var p []string
	var s summaryJSON
	if c.head.Summary == nil || json.Unmarshal(*c.head.Summary, &s) != nil {
		return []string{"[summary-unreadable]"}
	}
	g := s.TimeGranularity
	if g == "" {
		g = c.q.Grain
	}
	x := c.at(d, g)
	if s.TotalRows != len(x.kept) {
		p = append(p, fmt.Sprintf("[summary-total-rows] total_rows %d, the oracle has %d compared rows at %s", s.TotalRows, len(x.kept), g))
	}
	for _, m := range s.Metrics {
		base, suffix := Derived(m.Field)
		if !Additive[base] || suffix == "_change_pct" || m.Sum == nil {
			continue
		}
		want := 0.0
		for _, r := range x.kept {
			if m.Currency != "" && pairedCurrency(r) != m.Currency {
				continue
			}
			if v := x.Value(d, r, m.Field); !math.IsNaN(v) {
				want += v
			}
		}
		if !cmpSelects(c.q) {
			removed := func(rows []*Row) float64 {
				sum := 0.0
				for _, r := range rows {
					if v := Value(base, &r.Sums); (m.Currency == "" || r.Currency() == m.Currency) && !math.IsNaN(v) {
						sum += v
					}
				}
				return sum
			}
			switch suffix {
			case "":
				want += removed(x.CurRemoved)
			case "_compare":
				want += removed(x.BaseRemoved)
			case "_change":
				want += removed(x.CurRemoved) - removed(x.BaseRemoved)
			}
		}
		tol := 1e-6
		if Money[base] {
			tol = 0.0051
		}
		if math.Abs(*m.Sum-want) > tol {
			p = append(p, fmt.Sprintf("[summary-sum] %s (currency %q): sum %v, the oracle's %s", m.Field, m.Currency, *m.Sum, fmtNum(want)))
		}
	}
	return append(p, checkMovers(d, c, x)...)
}

// checkMovers checks a summary's movers against the oracle's per-value sums.
func checkMovers(d *Data, c *tcase, x *cmpExpect) []string {
	mv := c.cmp.movers
	hasSum := slices.ContainsFunc(c.q.Metrics, func(m string) bool { return Additive[m] })
	if mv == nil {
		// fit names the widest dimension only when it has several values.
		several := slices.ContainsFunc(c.q.Dims, func(dim string) bool {
			i := slices.Index(c.q.Dims, dim)
			return dim != "currency" && slices.ContainsFunc(x.kept, func(r *Paired) bool { return r.Dims[i] != x.kept[0].Dims[i] })
		})
		if hasSum && several {
			return []string{"[movers-missing] a comparison summary with a dimension of several values and a summed metric has no movers"}
		}
		return nil
	}
	var p []string
	di := slices.Index(c.q.Dims, mv.Field)
	if di < 0 || mv.Field == "currency" {
		return []string{fmt.Sprintf("[movers-field] movers.field %q is not a dimension of the query %v", mv.Field, c.q.Dims)}
	}
	if !Additive[mv.Metric] || !slices.Contains(c.q.Metrics, mv.Metric) {
		return []string{fmt.Sprintf("[movers-metric] movers.metric %q is not a summed metric of the query %v", mv.Metric, c.q.Metrics)}
	}
	if slices.Contains(c.q.Metrics, "spend") && mv.Metric != "spend" {
		p = append(p, fmt.Sprintf("[movers-metric] movers.metric %q though spend is asked", mv.Metric))
	}
	// The widest dimension: the most distinct values.
	distinct := func(i int) int {
		seen := map[string]bool{}
		for _, r := range x.kept {
			seen[r.Dims[i]] = true
		}
		return len(seen)
	}
	widest := 0
	for i, dim := range c.q.Dims {
		if dim != "currency" {
			widest = max(widest, distinct(i))
		}
	}
	if n := distinct(di); n < widest {
		p = append(p, fmt.Sprintf("[movers-field] movers.field %s has %d values; the widest dimension has %d", mv.Field, n, widest))
	}
	// The oracle's sums per value (and currency, for money).
	type acc struct {
		value, cur string
		c, b, ch   float64
	}
	accs := map[string]*acc{}
	for _, r := range x.kept {
		cur := ""
		if Money[mv.Metric] {
			cur = pairedCurrency(r)
		}
		k := r.Dims[di] + "\x1f" + cur
		a := accs[k]
		if a == nil {
			a = &acc{value: r.Dims[di], cur: cur}
			accs[k] = a
		}
		if v := x.Value(d, r, mv.Metric); !math.IsNaN(v) {
			a.c += v
		}
		if v := x.Value(d, r, mv.Metric+"_compare"); !math.IsNaN(v) {
			a.b += v
		}
	}
	tol := 1e-6
	if Money[mv.Metric] {
		tol = 0.0051
	}
	ranked := map[string][]*acc{} // "+cur" increases, "-cur" decreases, in the oracle's order
	for _, a := range accs {
		a.ch = a.c - a.b
		switch {
		case a.ch > tol/2:
			ranked["+"+a.cur] = append(ranked["+"+a.cur], a)
		case a.ch < -tol/2:
			ranked["-"+a.cur] = append(ranked["-"+a.cur], a)
		}
	}
	for k, list := range ranked {
		up := k[0] == '+'
		sort.Slice(list, func(i, j int) bool {
			if list[i].ch != list[j].ch {
				return list[i].ch > list[j].ch == up
			}
			return list[i].value < list[j].value
		})
	}
	for _, side := range []struct {
		sign string
		list []moverJSON
	}{{"+", mv.Increases}, {"-", mv.Decreases}} {
		name := map[string]string{"+": "largest_increases", "-": "largest_decreases"}[side.sign]
		seen := map[string]int{}
		var lastCur string
		for i, m := range side.list {
			if Money[mv.Metric] && m.Currency == "" {
				p = append(p, fmt.Sprintf("[movers-currency] %s[%d] %q of money metric %s has no currency", name, i, m.Value, mv.Metric))
			}
			if i > 0 && m.Currency < lastCur {
				p = append(p, fmt.Sprintf("[movers-order] %s: currency %q after %q", name, m.Currency, lastCur))
			}
			lastCur = m.Currency
			cmpMoversChecked++
			a := accs[m.Value+"\x1f"+m.Currency]
			if a == nil {
				p = append(p, fmt.Sprintf("[movers-unknown] %s[%d] %q (%s) is no value of %s in the oracle's compared rows", name, i, m.Value, m.Currency, mv.Field))
				continue
			}
			for _, v := range []struct {
				what      string
				got, want float64
			}{{"current", m.Current, a.c}, {"compare", m.Compare, a.b}, {"change", m.Change, a.ch}} {
				if math.Abs(v.got-v.want) > tol+math.Abs(v.want)*1e-12 {
					p = append(p, fmt.Sprintf("[movers-value] %s %q (%s) %s %v, the oracle's %s", name, m.Value, m.Currency, v.what, v.got, fmtNum(v.want)))
				}
			}
			if a.b != 0 && (m.ChangePct == nil || math.Abs(*m.ChangePct-a.ch/a.b*100) > 0.000051+math.Abs(a.ch/a.b*100)*1e-9) {
				p = append(p, fmt.Sprintf("[movers-pct] %s %q change_pct %v, the oracle's %s", name, m.Value, m.ChangePct, fmtNum(a.ch/a.b*100)))
			}
			if side.sign == "+" && m.Change <= 0 || side.sign == "-" && m.Change >= 0 {
				p = append(p, fmt.Sprintf("[movers-sign] %s %q change %v", name, m.Value, m.Change))
			}
			// The k-th mover of a currency is the oracle's k-th (or ties with it).
			list := ranked[side.sign+m.Currency]
			j := seen[m.Currency]
			seen[m.Currency]++
			if j >= len(list) {
				p = append(p, fmt.Sprintf("[movers-extra] %s lists %d values of currency %q; the oracle has %d", name, j+1, m.Currency, len(list)))
				continue
			}
			if o := list[j]; o.value != m.Value && math.Abs(o.ch-a.ch) > tol {
				p = append(p, fmt.Sprintf("[movers-rank] %s[%d] (%s) is %q with change %s; the oracle's is %q with %s", name, j, m.Currency, m.Value, fmtNum(a.ch), o.value, fmtNum(o.ch)))
			}
		}
		if len(side.list) > 0 {
			for k, list := range ranked {
				if k[:1] == side.sign && seen[k[1:]] == 0 && len(list) > 0 {
					p = append(p, fmt.Sprintf("[movers-currency-missing] %s lists no value of currency %q; the oracle has %d (first %q, %s)", name, k[1:], len(list), list[0].value, fmtNum(list[0].ch)))
				}
			}
		}
	}
	return p
}

// checkCmpWarnings: the warnings the windows' shapes call for (docs/query.md,
// "Comparing periods"): compare_window_length when their days differ,
// compare_weekdays when their weekdays differ (or daily rows pair different
// weekdays), compare_coverage when an account has no data for all of the
// comparison window, partial_period for each window whose first or last
// period is cut.
func checkCmpWarnings(d *Data, c *tcase) []string {
	var p []string
	has := func(typ string) bool { return c.meta.warning(typ) != nil }
	cs, ce, bs, be := c.q.Start, c.q.End, c.cmp.ws, c.cmp.we
	expect := func(typ string, want bool, why string) {
		switch got := has(typ); {
		case want && !got:
			p = append(p, fmt.Sprintf("[%s-missing] %s; no %s warning", typ, why, typ))
		case !want && got:
			p = append(p, fmt.Sprintf("[%s-false] %s warned, but %s", typ, typ, why))
		}
	}
	cd, bd := dayCount(cs, ce), dayCount(bs, be)
	expect("compare_window_length", cd != bd, fmt.Sprintf("the windows have %d and %d days", cd, bd))
	mix := func(s, e time.Time) (n [7]int) {
		for t := s; !t.After(e); t = t.AddDate(0, 0, 1) {
			n[t.Weekday()]++
		}
		return n
	}
	if mix(cs, ce) != mix(bs, be) {
		expect("compare_weekdays", true, "the windows hold different weekdays")
	} else if cs.Weekday() != bs.Weekday() && c.q.Grain == "daily" {
		expect("compare_weekdays", true, fmt.Sprintf("daily rows pair a %s with a %s", cs.Weekday(), bs.Weekday()))
	} else {
		expect("compare_weekdays", false, "the windows hold the same weekdays (and daily rows pair equal weekdays)")
	}
	// Coverage: the span of each account's facts.
	var short []string
	for _, id := range c.q.AccountIDs {
		fs := d.Facts[id]
		if len(fs) == 0 || fs[0].Date.After(bs) || fs[len(fs)-1].Date.Before(be) {
			short = append(short, id)
		}
	}
	w := c.meta.warning("compare_coverage")
	switch {
	case liveSource():
		// A live source keeps no record of the days it holds: the platform
		// is the record, and a window without rows is told as such ("either
		// nothing ran then or …"), not by a coverage the oracle could check.
	case len(short) > 0 && w == nil:
		p = append(p, fmt.Sprintf("[compare_coverage-missing] %v have data for only part of the comparison window %s … %s, or none; no compare_coverage warning", short, bs.Format(time.DateOnly), be.Format(time.DateOnly)))
	case len(short) == 0 && w != nil:
		p = append(p, fmt.Sprintf("[compare_coverage-false] compare_coverage, but every account has data for all of %s … %s: %.200s", bs.Format(time.DateOnly), be.Format(time.DateOnly), w.Detail))
	case w != nil && len(w.Keys) > 0:
		if got := slices.Sorted(slices.Values(w.Keys)); !slices.Equal(got, slices.Sorted(slices.Values(short))) {
			p = append(p, fmt.Sprintf("[compare_coverage-keys] compare_coverage names %v; the accounts short of data are %v", got, short))
		}
	}
	if c.isCSV() && len(c.tab.rows) > 0 { // an empty answer has no period to warn of
		g := c.returned()
		cut := func(s, e time.Time) bool {
			return (g == "weekly" || g == "monthly" || g == "quarterly") &&
				(!PeriodStart(g, s).Equal(s) || !PeriodEnd(g, PeriodStart(g, e)).Equal(e))
		}
		warned := func(cmpWindow bool) bool {
			return slices.ContainsFunc(c.meta.Warnings, func(w warnJSON) bool {
				return w.Type == "partial_period" && len(w.Fields) == 0 && strings.Contains(w.Detail, "comparison window") == cmpWindow
			})
		}
		for _, win := range []struct {
			name    string
			s, e    time.Time
			compare bool
		}{{"date range", cs, ce, false}, {"comparison window", bs, be, true}} {
			switch want, got := cut(win.s, win.e), warned(win.compare); {
			case want && !got:
				p = append(p, fmt.Sprintf("[partial-period-missing] %s rows over the %s %s … %s cut a period; no partial_period warning for it", g, win.name, win.s.Format(time.DateOnly), win.e.Format(time.DateOnly)))
			case !want && got:
				p = append(p, fmt.Sprintf("[partial-period-false] partial_period for the %s %s … %s, whose %s periods are whole", win.name, win.s.Format(time.DateOnly), win.e.Format(time.DateOnly), g))
			}
		}
	}
	return p
}

// checkCmpSuggestion: a suggestion of a comparison's data_too_large keeps
// the comparison, pins the window as {start, end} when it changes the grain,
// and re-runs as promised (checkSuggestion).
func checkCmpSuggestion(d *Data, c *tcase) []string {
	p := checkSuggestion(d, c)
	par := c.parent
	if par.cmp == nil {
		return p
	}
	var sq struct {
		TimeGranularity string          `json:"time_granularity"`
		Compare         json.RawMessage `json:"compare"`
	}
	json.Unmarshal(c.sugg.Query, &sq)
	if len(sq.Compare) == 0 {
		return append(p, "[suggestion-drops-compare] the suggestion has no compare")
	}
	g := sq.TimeGranularity
	if g == "" {
		g = "total"
	}
	if g != par.q.Grain {
		var w struct{ Start, End string }
		if json.Unmarshal(sq.Compare, &w) != nil || w.Start != par.cmp.ws.Format(time.DateOnly) || w.End != par.cmp.we.Format(time.DateOnly) {
			p = append(p, fmt.Sprintf("[suggestion-window-unpinned] the suggestion changes the grain %s→%s with compare %s; the window %s … %s is not pinned",
				par.q.Grain, g, sq.Compare, par.cmp.ws.Format(time.DateOnly), par.cmp.we.Format(time.DateOnly)))
		}
	}
	return p
}
