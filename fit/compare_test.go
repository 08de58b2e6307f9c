package fit

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

// shiftDays relabels a daily table's dates by days.
func shiftDays(t *Table, days int) {
	tc := t.Column("date")
	for i, s := range tc.Strings {
		d, _ := time.Parse(time.DateOnly, s)
		tc.Strings[i] = d.AddDate(0, 0, days).Format(time.DateOnly)
	}
}

// positionOf is label's period position in the window starting at start,
// computed from calendar arithmetic alone.
func positionOf(t *testing.T, g Grain, label string, start time.Time) int {
	t.Helper()
	switch g {
	case Total:
		return 0
	case Daily:
		d, err := time.Parse(time.DateOnly, label)
		if err != nil {
			t.Fatal(err)
		}
		return int(d.Sub(start).Hours() / 24)
	case Weekly:
		d, err := time.Parse(time.DateOnly, label)
		if err != nil {
			t.Fatal(err)
		}
		monday := start.AddDate(0, 0, -((int(start.Weekday()) + 6) % 7))
		return int(d.Sub(monday).Hours()/24) / 7
	case Monthly:
		d, err := time.Parse("2006-01", label)
		if err != nil {
			t.Fatal(err)
		}
		return (d.Year()-start.Year())*12 + int(d.Month()-start.Month())
	case Quarterly:
		y, q := 0, 0
		if _, err := fmt.Sscanf(label, "%d-Q%d", &y, &q); err != nil {
			t.Fatal(err)
		}
		return (y-start.Year())*4 + q - 1 - (int(start.Month())-1)/3
	}
	t.Fatalf("grain %s", g)
	return 0
}

// expectedPairs aggregates a window's rows (step 1 applied: rows with every
// dimension empty left out) by dimensions and period position at grain g:
// spend per key, an oracle sharing no code with the join.
func expectedPairs(t *testing.T, tab *Table, g Grain, start time.Time, pairedWith ...time.Time) map[string]float64 {
	var pairedStart, pairedEnd time.Time
	if len(pairedWith) == 2 {
		pairedStart, pairedEnd = pairedWith[0], pairedWith[1]
	}
	t.Helper()
	out := map[string]float64{}
	var dims []*Column
	for _, c := range tab.Columns {
		if c.Role == RoleDimension {
			dims = append(dims, c)
		}
	}
	spend, tc := tab.Column("spend"), tab.Column("date")
	for r := range tab.Len() {
		var parts []string
		empty := true
		for _, d := range dims {
			parts = append(parts, d.Strings[r])
			if d.Name != "currency" && d.Strings[r] != "" {
				empty = false
			}
		}
		if empty {
			continue
		}
		day, err := time.Parse(time.DateOnly, tc.Strings[r])
		if err != nil {
			t.Fatal(err)
		}
		label, from := periodOf(g, day), start
		if cs := pairedStart; !cs.IsZero() {
			// A comparison window's day sits at the position of the
			// current window's day as far from its start, the days past
			// the current window's end in its last period.
			cur := cs.AddDate(0, 0, int(day.Sub(start).Hours()/24))
			if cur.After(pairedEnd) {
				cur = pairedEnd
			}
			label, from = periodOf(g, cur), cs
		}
		parts = append(parts, strconv.Itoa(positionOf(t, g, label, from)))
		out[strings.Join(parts, "|")] += spend.Numbers[r]
	}
	return out
}

// TestFitCompareProperties: over random pairs of windows and budgets, every
// comparison answer pairs each key and period position with exactly the
// spend both windows hold there, at whatever grain it returns; change is
// current minus comparison; a row's status says which window it is in; and
// the answer fits the budget by exact count.
func TestFitCompareProperties(t *testing.T) {
	counter := NewO200k()
	n := 40
	if testing.Short() {
		n = 12
	}
	kinds := map[Kind]int{}
	grains := map[Grain]int{}
	for seed := range n {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		cur, cs, ce := randomDailyTable(r)
		if len(dimNames(cur)) < 2 {
			continue // rows without a dimension repeat their key
		}
		var base *Table
		var bs0, be0 time.Time
		for stream := uint64(8); base == nil || len(dimNames(base)) != len(dimNames(cur)); stream++ {
			base, bs0, be0 = randomDailyTable(rand.New(rand.NewPCG(uint64(seed), stream)))
		}
		// The comparison window ends the day before the current one starts.
		shift := int(cs.Sub(be0).Hours()/24) - 1
		shiftDays(base, shift)
		bs, be := bs0.AddDate(0, 0, shift), be0.AddDate(0, 0, shift)
		// Both windows need the same columns.
		if base.Column("impressions").Hidden != cur.Column("impressions").Hidden {
			base.Column("impressions").Hidden = cur.Column("impressions").Hidden
		}
		budget := 1500 + r.IntN(60000)
		resp, err := Fit(context.Background(), cur, Options{Budget: budget, Counter: counter, Start: cs, End: ce,
			Compare: &Comparison{Base: base, Start: bs, End: be, Mode: "custom"}})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		kinds[resp.Kind]++
		total := 0
		for _, b := range resp.Blocks {
			total += counter.Exact(b)
		}
		if total > budget {
			t.Fatalf("seed %d: %d tokens over a budget of %d", seed, total, budget)
		}
		if resp.Meta.Comparison == nil {
			t.Fatalf("seed %d: no _meta.comparison", seed)
		}
		if resp.Kind != KindData {
			checkMovers(t, seed, resp)
			continue
		}
		g := resp.Meta.TimeGranularity.Returned
		grains[g]++
		wantCur, wantBase := expectedPairs(t, cur, g, cs), expectedPairs(t, base, g, bs, cs, ce)
		j := resp.Table
		var dims []*Column
		for _, name := range dimNames(cur) {
			dims = append(dims, j.Column(name))
		}
		tc := j.Column(g.TimeColumn())
		spend, old, change, status := j.Column("spend"), j.Column("spend"+CompareSuffix), j.Column("spend"+ChangeSuffix), j.Column(StatusColumn)
		seen := map[string]bool{}
		for row := range j.Len() {
			var parts []string
			for _, d := range dims {
				parts = append(parts, d.Strings[row])
			}
			pos := 0
			if tc != nil {
				cl := j.Column(ComparePrefix + g.TimeColumn())
				pos = positionOf(t, g, tc.Strings[row], cs)
				// The comparison period's label names its days: its
				// first day is as far from the comparison window's start
				// as the current period's first day from the current's.
				if l := cl.Strings[row]; l != "" {
					first, _, isRange := strings.Cut(l, SpanSeparator)
					var d time.Time
					if isRange {
						d, _ = time.Parse(time.DateOnly, first)
					} else {
						d, _ = ParsePeriod(g, l)
					}
					curFirst, _ := ParsePeriod(g, tc.Strings[row])
					if max(d.Unix(), bs.Unix())-bs.Unix() != max(curFirst.Unix(), cs.Unix())-cs.Unix() {
						t.Fatalf("seed %d: row %d pairs %s with %s", seed, row, tc.Strings[row], l)
					}
				}
			}
			k := strings.Join(append(parts, strconv.Itoa(pos)), "|")
			if seen[k] {
				t.Fatalf("seed %d: key %q twice", seed, k)
			}
			seen[k] = true
			c, inCur := wantCur[k]
			b, inBase := wantBase[k]
			if math.Abs(spend.Numbers[row]-c) > 1e-6 || math.Abs(old.Numbers[row]-b) > 1e-6 {
				t.Fatalf("seed %d: %s at %s: spend %v / %v, want %v / %v (%s–%s against %s–%s)", seed, k, g, spend.Numbers[row], old.Numbers[row], c, b, cs.Format(time.DateOnly), ce.Format(time.DateOnly), bs.Format(time.DateOnly), be.Format(time.DateOnly))
			}
			if math.Abs(change.Numbers[row]-(c-b)) > 1e-6 {
				t.Fatalf("seed %d: change %v, want %v", seed, change.Numbers[row], c-b)
			}
			want := StatusBoth
			switch {
			case !inCur:
				want = StatusStopped
			case !inBase:
				want = StatusNew
			}
			if status.Strings[row] != want {
				t.Fatalf("seed %d: %s is %s, want %s", seed, k, status.Strings[row], want)
			}
		}
		for k := range wantCur {
			if !seen[k] {
				t.Fatalf("seed %d: current key %q missing at %s", seed, k, g)
			}
		}
		for k := range wantBase {
			if !seen[k] {
				t.Fatalf("seed %d: comparison key %q missing at %s", seed, k, g)
			}
		}
		// A ratio is recomputed in each window from that window's parts.
		if cl, im := j.Column("clicks"+CompareSuffix), j.Column("impressions"+CompareSuffix); cl != nil && im != nil {
			ctr := j.Column("ctr" + CompareSuffix)
			for row := range j.Len() {
				if im.Numbers[row] > 0 && math.Abs(ctr.Numbers[row]-cl.Numbers[row]/im.Numbers[row]*100) > 1e-9 {
					t.Fatalf("seed %d: ctr_compare %v from %v/%v", seed, ctr.Numbers[row], cl.Numbers[row], im.Numbers[row])
				}
			}
		}
	}
	t.Logf("kinds %v, grains %v", kinds, grains)
	if kinds[KindData] == 0 || kinds[KindTooLarge] == 0 || len(grains) < 2 {
		t.Fatalf("the cases do not cover enough: %v %v", kinds, grains)
	}
}

func dimNames(t *Table) []string {
	var out []string
	for _, c := range t.Columns {
		if c.Role == RoleDimension {
			out = append(out, c.Name)
		}
	}
	return out
}

// checkMovers: every mover's figures are the sums of its value's rows.
func checkMovers(t *testing.T, seed int, resp *Response) {
	t.Helper()
	s := resp.TooLarge.Summary
	for _, d := range s.Dimensions {
		// Beside a comparison label, amounts would be the current window's.
		if strings.HasPrefix(d.Field, ComparePrefix) && d.Field != StatusColumn && (len(d.TopValues) > 0 || len(d.TopByMetric) > 0) {
			t.Fatalf("seed %d: %s lists values %v %v", seed, d.Field, d.TopValues, d.TopByMetric)
		}
	}
	if s.Movers == nil {
		return
	}
	for _, list := range [][]Mover{s.Movers.Increases, s.Movers.Decreases} {
		for _, m := range list {
			if math.Abs(m.Change-(m.Current-m.Compare)) > 0.011 {
				t.Fatalf("seed %d: mover %+v: change is not current − compare", seed, m)
			}
		}
	}
	for i := 1; i < len(s.Movers.Increases); i++ {
		a, b := s.Movers.Increases[i-1], s.Movers.Increases[i]
		if a.Currency == b.Currency && a.Change < b.Change {
			t.Fatalf("seed %d: increases out of order: %+v before %+v", seed, a, b)
		}
	}
}

// TestFitCompareExample pins one small comparison: a campaign in both
// windows, one new, one stopped; ratios from each window's parts.
func TestFitCompareExample(t *testing.T) {
	build := func(rows ...[]any) *Table {
		b := NewBuilder(Total, Dimension("campaign"), SumMetric("spend").InCurrency("USD"), SumMetric("clicks"), SumMetric("impressions"),
			RatioMetric("ctr", "clicks", "impressions", 100))
		for _, r := range rows {
			b.Row(r...)
		}
		tab, err := b.Table()
		if err != nil {
			t.Fatal(err)
		}
		return tab
	}
	cur := build([]any{"A", 150.0, 30.0, 1000.0, nil}, []any{"B", 20.0, 2.0, 100.0, nil})
	base := build([]any{"A", 100.0, 10.0, 1000.0, nil}, []any{"C", 40.0, 4.0, 200.0, nil})
	for _, tab := range []*Table{cur, base} {
		c, im, ctr := tab.Column("clicks"), tab.Column("impressions"), tab.Column("ctr")
		ctr.Null = nil
		for i := range ctr.Numbers {
			ctr.Numbers[i] = c.Numbers[i] / im.Numbers[i] * 100
		}
	}
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	resp, err := Fit(context.Background(), cur, Options{Budget: 5000, Start: day("2026-11-01"), End: day("2026-11-30"),
		Compare: &Comparison{Base: base, Start: day("2026-10-01"), End: day("2026-10-31"), Mode: "previous_period"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `campaign,compare_status,spend,spend_compare,spend_change,spend_change_pct,clicks,clicks_compare,clicks_change,clicks_change_pct,impressions,impressions_compare,impressions_change,impressions_change_pct,ctr,ctr_compare,ctr_change,ctr_change_pct
A,both,150,100,50,50,30,10,20,200,1000,1000,0,0,3,1,2,200
B,new,20,0,20,,2,0,2,,100,0,100,,2,,,
C,stopped,0,40,-40,-100,0,4,-4,-100,0,200,-200,-100,,2,,
`
	if got := resp.Blocks[1]; got != want {
		t.Fatalf("CSV:\n%s\nwant:\n%s", got, want)
	}
	m := resp.Meta.Comparison
	if m.Both != 1 || m.New != 1 || m.Stopped != 1 || m.Current.Days != 30 || m.Compare.Days != 31 {
		t.Fatalf("_meta.comparison %+v", m)
	}
	var types []string
	for _, w := range resp.Meta.Warnings {
		types = append(types, w.Type)
	}
	if !strings.Contains(strings.Join(types, ","), "compare_window_length") {
		t.Fatalf("warnings %v lack compare_window_length", types)
	}
}

// In a comparison's summary, the change of a ratio-like metric (frequency =
// impressions / reach) is never averaged, and the comparison window's
// frequency names its own parts.
func TestFitCompareSummaryNeverAveragesRatios(t *testing.T) {
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	build := func(start time.Time) *Table {
		freq := NonAdditiveMetric("frequency")
		freq.Numerator, freq.Denominator, freq.Scale = "impressions", "reach", 1
		b := NewBuilder(Total, Dimension("campaign"), SumMetric("impressions"), NonAdditiveMetric("reach"), freq)
		for c := range 300 {
			im, re := float64(1000+start.Day()*10+c), float64(400+c)
			b.Row(fmt.Sprintf("Campaign %03d", c), im, re, im/re)
		}
		tab, err := b.Table()
		if err != nil {
			t.Fatal(err)
		}
		return tab
	}
	resp, err := Fit(context.Background(), build(day("2026-02-01")), Options{Budget: 1500, Start: day("2026-02-01"), End: day("2026-02-28"),
		Compare: &Comparison{Base: build(day("2026-01-04")), Start: day("2026-01-04"), End: day("2026-01-31")}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Kind != KindTooLarge {
		t.Fatalf("want a summary, got %s", resp.Kind)
	}
	found := false
	for _, m := range resp.TooLarge.Summary.Metrics {
		if m.Field == "frequency_change" || m.Field == "frequency_change_pct" {
			found = true
			if m.Avg != nil {
				t.Errorf("%s averaged: %v", m.Field, *m.Avg)
			}
		}
	}
	if !found {
		t.Fatalf("no frequency_change in %+v", resp.TooLarge.Summary.Metrics)
	}
}

// A comparison coarsened to a grain at which the two windows fall
// differently on the calendar (Sep 2 – Nov 30 against Jun 4 – Sep 1 cut into
// months: three periods against four) still pairs period i with period i:
// campaigns that delivered every day of both windows are in both, at every
// grain returned, and each side holds exactly its window's spend.
func TestFitCompareCoarsenedPeriodsPairWhole(t *testing.T) {
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	cs, ce, bs, be := day("2026-09-02"), day("2026-11-30"), day("2026-06-04"), day("2026-09-01")
	build := func(start, end time.Time) *Table {
		b := NewBuilder(Daily, Period(Daily), Dimension("campaign"), SumMetric("spend").InCurrency("USD"))
		for c := range 30 {
			for d := start; !d.After(end); d = d.AddDate(0, 0, 1) {
				b.Row(d.Format(time.DateOnly), fmt.Sprintf("campaign %02d", c), 1.0)
			}
		}
		tab, err := b.Table()
		if err != nil {
			t.Fatal(err)
		}
		return tab
	}
	grains := map[Grain]bool{}
	for _, budget := range []int{3000, 6000, 9000, 20000, 40000} {
		resp, err := Fit(context.Background(), build(cs, ce), Options{Budget: budget, Start: cs, End: ce,
			Compare: &Comparison{Base: build(bs, be), Start: bs, End: be, Mode: "previous_period"}})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Kind != KindData {
			continue
		}
		g := resp.Meta.TimeGranularity.Returned
		grains[g] = true
		j := resp.Table
		st, cur, old := j.Column(StatusColumn), j.Column("spend"), j.Column("spend"+CompareSuffix)
		var sumCur, sumOld float64
		for r := range j.Len() {
			if st.Strings[r] != StatusBoth {
				t.Fatalf("budget %d, %s grain: row %d is %s (%v)", budget, g, r, st.Strings[r], resp.Blocks[1][:min(400, len(resp.Blocks[1]))])
			}
			sumCur += cur.Numbers[r]
			sumOld += old.Numbers[r]
		}
		if sumCur != 30*90 || sumOld != 30*90 {
			t.Fatalf("%s grain: spend %v against %v, want 2700 each", g, sumCur, sumOld)
		}
		if m := resp.Meta.Comparison; m.Stopped != 0 || m.New != 0 {
			t.Fatalf("%s grain: _meta.comparison %+v", g, m)
		}
	}
	if !grains[Monthly] && !grains[Weekly] && !grains[Quarterly] {
		t.Fatalf("no coarsened grain among %v", grains)
	}
	t.Logf("grains %v", grains)
}

// A whole February compared with the whole February a year earlier: the
// windows differ by a day (28 against 29), and _meta.comparison says both
// lengths. Each day pairs with the same date; the shorter window's last day
// faces 28–29 February of the leap year (one row, both days' spend), and the
// leap day of the longer window faces no day (an empty label: new, as the
// alignment says) — no row is stopped because the leap day has no twin.
func TestFitCompareLeapFebruary(t *testing.T) {
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	build := func(start, end time.Time) *Table {
		b := NewBuilder(Daily, Period(Daily), Dimension("campaign"), SumMetric("spend").InCurrency("USD"))
		for d := start; !d.After(end); d = d.AddDate(0, 0, 1) {
			b.Row(d.Format(time.DateOnly), "A", 1.0)
		}
		tab, err := b.Table()
		if err != nil {
			t.Fatal(err)
		}
		return tab
	}
	// The same day of the month a year earlier, 29 February to 28 February
	// (internal/query's previous_year rule).
	yearBack := func(d time.Time) time.Time {
		if d.Month() == time.February && d.Day() == 29 {
			return time.Date(d.Year()-1, 2, 28, 0, 0, 0, 0, time.UTC)
		}
		return d.AddDate(-1, 0, 0)
	}
	for _, c := range []struct {
		cs, ce, bs, be   string
		lastCmp          string
		lastSpend        float64
		lastStatus       string
		curDays, cmpDays int
	}{
		{"2025-02-01", "2025-02-28", "2024-02-01", "2024-02-29", "2024-02-28..2024-02-29", 2, StatusBoth, 28, 29},
		{"2024-02-01", "2024-02-29", "2023-02-01", "2023-02-28", "", 0, StatusNew, 29, 28},
	} {
		cs, ce, bs, be := day(c.cs), day(c.ce), day(c.bs), day(c.be)
		resp, err := Fit(context.Background(), build(cs, ce), Options{Budget: 20000, Start: cs, End: ce,
			Compare: &Comparison{Base: build(bs, be), Start: bs, End: be, Mode: "previous_year", Pair: yearBack}})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Kind != KindData {
			t.Fatalf("%s: %s", c.cs, resp.Kind)
		}
		m := resp.Meta.Comparison
		if m.Current.Days != c.curDays || m.Compare.Days != c.cmpDays || m.Stopped != 0 || !strings.Contains(m.Alignment, fmt.Sprintf("%d days against %d", c.curDays, c.cmpDays)) {
			t.Fatalf("%s: _meta.comparison %+v", c.cs, m)
		}
		j := SortRows(resp.Table, []SortKey{{Column: "date"}})
		last := j.Len() - 1
		if j.Len() != c.curDays || j.Column("compare_date").Strings[last] != c.lastCmp || j.Column("spend_compare").Numbers[last] != c.lastSpend ||
			j.Column(StatusColumn).Strings[last] != c.lastStatus {
			t.Fatalf("%s: %d rows, last %s", c.cs, j.Len(), resp.Blocks[1][strings.LastIndex(strings.TrimSpace(resp.Blocks[1]), "\n"):])
		}
		for r := range last {
			if st := j.Column(StatusColumn).Strings[r]; st != StatusBoth {
				t.Fatalf("%s: row %d is %s", c.cs, r, st)
			}
		}
	}
}

// A comparison summary's range of comparison labels is by the first day each
// names: a period labelled by its dates sorts among quarters by its first day.
func TestLabelRangeByFirstDay(t *testing.T) {
	first, last := labelRange(Quarterly, []string{"2026-Q3", "", "2026-06-04..2026-07-02", "2026-07-03..2026-10-01"})
	if first != "2026-06-04..2026-07-02" || last != "2026-07-03..2026-10-01" {
		t.Fatalf("range %q to %q", first, last)
	}
}
