package fit

import (
	"fmt"
	"hash/maphash"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Helpers for building tables in tests. A NaN in rtNum's values is a Null cell.

func rtTime(name string, vals ...string) *Column {
	return &Column{Name: name, Role: RoleTime, Strings: vals}
}

func rtDim(name string, vals ...string) *Column {
	return &Column{Name: name, Role: RoleDimension, Strings: vals}
}

func rtNum(c *Column, vals ...float64) *Column {
	c.Role = RoleMetric
	c.Numbers = make([]float64, len(vals))
	for i, v := range vals {
		if math.IsNaN(v) {
			if c.Null == nil {
				c.Null = make([]bool, len(vals))
			}
			c.Null[i] = true
			continue
		}
		c.Numbers[i] = v
	}
	return c
}

func rtSum(name string, vals ...float64) *Column {
	return rtNum(&Column{Name: name, Aggregation: Sum}, vals...)
}

func rtRatio(name, num, den string, scale float64, vals ...float64) *Column {
	return rtNum(&Column{Name: name, Aggregation: Ratio, Numerator: num, Denominator: den, Scale: scale}, vals...)
}

func rtHidden(c *Column) *Column { c.Hidden = true; return c }

var rtNull = math.NaN()

// rtClone deep-copies a table.
func rtClone(t *Table) *Table {
	out := *t
	out.Columns = nil
	out.Notices = slices.Clone(t.Notices)
	for _, c := range t.Columns {
		nc := *c
		nc.Strings, nc.Numbers, nc.Null = slices.Clone(c.Strings), slices.Clone(c.Numbers), slices.Clone(c.Null)
		out.Columns = append(out.Columns, &nc)
	}
	return &out
}

// rtDiff describes how got differs from want ("" when equal). Null masks compare
// by meaning (nil = no nulls), numbers of Null cells are ignored, and numbers
// compare exactly, or within tol relative when tol > 0.
func rtDiff(got, want *Table, tol float64) string {
	if got.Grain != want.Grain {
		return fmt.Sprintf("grain %q, want %q", got.Grain, want.Grain)
	}
	if got.Len() != want.Len() {
		return fmt.Sprintf("%d rows, want %d", got.Len(), want.Len())
	}
	if len(got.Columns) != len(want.Columns) {
		return fmt.Sprintf("columns %v, want %v", rtNames(got), rtNames(want))
	}
	for i, g := range got.Columns {
		w := want.Columns[i]
		gm, wm := *g, *w
		gm.Strings, gm.Numbers, gm.Null, wm.Strings, wm.Numbers, wm.Null = nil, nil, nil, nil, nil, nil
		if !reflect.DeepEqual(gm, wm) {
			return fmt.Sprintf("column %d schema %+v, want %+v", i, gm, wm)
		}
		if !slices.Equal(g.Strings, w.Strings) {
			return fmt.Sprintf("column %q = %q, want %q", g.Name, g.Strings, w.Strings)
		}
		if len(g.Numbers) != len(w.Numbers) {
			return fmt.Sprintf("column %q has %d numbers, want %d", g.Name, len(g.Numbers), len(w.Numbers))
		}
		for r := range g.Numbers {
			if g.IsNull(r) != w.IsNull(r) {
				return fmt.Sprintf("column %q row %d null=%v, want %v", g.Name, r, g.IsNull(r), w.IsNull(r))
			}
			if !g.IsNull(r) && !rtClose(g.Numbers[r], w.Numbers[r], tol) {
				return fmt.Sprintf("column %q row %d = %v, want %v", g.Name, r, g.Numbers[r], w.Numbers[r])
			}
		}
	}
	return ""
}

func rtClose(a, b, tol float64) bool {
	if a == b {
		return true
	}
	return tol > 0 && math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b))
}

func rtNames(t *Table) []string {
	var out []string
	for _, c := range t.Columns {
		out = append(out, c.Name)
	}
	return out
}

func TestCanRollup(t *testing.T) {
	ok := map[[2]Grain]bool{
		{Daily, Weekly}: true, {Daily, Monthly}: true, {Daily, Quarterly}: true, {Daily, Total}: true,
		{Weekly, Total}: true, {Monthly, Quarterly}: true, {Monthly, Total}: true, {Quarterly, Total}: true,
	}
	grains := append(slices.Clone(Grains), "", "hourly")
	for _, from := range grains {
		for _, to := range grains {
			if got := canRollup(from, to); got != ok[[2]Grain{from, to}] {
				t.Errorf("canRollup(%q, %q) = %v", from, to, got)
			}
		}
	}
}

func TestRollup(t *testing.T) {
	cases := []struct {
		name    string
		in      *Table
		to      Grain
		want    *Table
		dropped []string
		err     string // substring of the error; "" for none
	}{{
		name: "daily to weekly across the year end",
		in: &Table{Grain: Daily, Columns: []*Column{
			rtTime("date", "2025-12-28", "2025-12-29", "2025-12-31", "2026-01-01", "2026-01-04", "2026-01-05", "2025-12-30"),
			rtDim("campaign", "A", "A", "B", "A", "B", "A", "A"),
			rtSum("clicks", 1, 2, 4, 8, 16, 32, 64),
		}},
		to: Weekly,
		want: &Table{Grain: Weekly, RowsBeforeLimit: 4, Columns: []*Column{
			rtTime("week", "2025-12-22", "2025-12-29", "2025-12-29", "2026-01-05"),
			rtDim("campaign", "A", "A", "B", "A"),
			rtSum("clicks", 1, 2+8+64, 4+16, 32),
		}},
	}, {
		name: "daily to monthly: month ends, leap day, year end",
		in: &Table{Grain: Daily, Columns: []*Column{
			rtTime("date", "2024-02-29", "2024-03-01", "2024-02-01", "2025-12-31", "2026-01-01", "2026-01-31", "2026-02-28"),
			rtSum("spend", 1.25, 2.5, 0.25, 10, 20, 40, 80),
		}},
		to: Monthly,
		want: &Table{Grain: Monthly, RowsBeforeLimit: 5, Columns: []*Column{
			rtTime("month", "2024-02", "2024-03", "2025-12", "2026-01", "2026-02"),
			rtSum("spend", 1.5, 2.5, 10, 60, 80),
		}},
	}, {
		name: "daily to total: order is first appearance of the dimension combination",
		in: &Table{Grain: Daily, Columns: []*Column{
			rtDim("account", "x", "y", "x", "x", "y"),
			rtTime("date", "2026-03-01", "2026-03-01", "2026-03-02", "2026-04-02", "2026-05-01"),
			rtDim("campaign", "b", "a", "a", "b", "a"),
			rtSum("impressions", 1, 2, 3, 4, 5),
		}},
		to: Total,
		want: &Table{Grain: Total, RowsBeforeLimit: 3, Columns: []*Column{
			rtDim("account", "x", "y", "x"),
			rtDim("campaign", "b", "a", "a"),
			rtSum("impressions", 5, 7, 3),
		}},
	}, {
		name: "weekly to total",
		in: &Table{Grain: Weekly, Columns: []*Column{
			rtTime("week", "2026-03-02", "2026-03-02", "2026-03-09"),
			rtDim("campaign", "A", "B", "A"),
			rtSum("clicks", 1, 2, 3),
		}},
		to: Total,
		want: &Table{Grain: Total, RowsBeforeLimit: 2, Columns: []*Column{
			rtDim("campaign", "A", "B"),
			rtSum("clicks", 4, 2),
		}},
	}, {
		name: "monthly to total, no dimensions",
		in: &Table{Grain: Monthly, Columns: []*Column{
			rtTime("month", "2026-01", "2026-02", "2026-03"),
			rtSum("clicks", 1, 2, 3),
		}},
		to: Total,
		want: &Table{Grain: Total, RowsBeforeLimit: 1, Columns: []*Column{
			rtSum("clicks", 6),
		}},
	}, {
		name: "no dimensions, daily to weekly: one row per week in order",
		in: &Table{Grain: Daily, Columns: []*Column{
			rtTime("date", "2026-03-10", "2026-03-02", "2026-03-08", "2026-03-09"),
			rtSum("clicks", 1, 2, 4, 8),
		}},
		to: Weekly,
		want: &Table{Grain: Weekly, RowsBeforeLimit: 2, Columns: []*Column{
			rtTime("week", "2026-03-02", "2026-03-09"),
			rtSum("clicks", 6, 9),
		}},
	}, {
		name: "ratio is recomputed from summed parts, not averaged",
		in: &Table{Grain: Daily, Columns: []*Column{
			rtTime("date", "2026-03-02", "2026-03-03"),
			rtSum("clicks", 1, 50),
			rtRatio("ctr", "clicks", "impressions", 100, 10, 50),
			rtHidden(rtSum("impressions", 10, 100)),
		}},
		to: Weekly,
		want: &Table{Grain: Weekly, RowsBeforeLimit: 1, Columns: []*Column{
			rtTime("week", "2026-03-02"),
			rtSum("clicks", 51),
			rtRatio("ctr", "clicks", "impressions", 100, 51.0/110*100),
			rtHidden(rtSum("impressions", 110)),
		}},
	}, {
		name: "zero denominators give Null, a Scale of 0 counts as 1",
		in: &Table{Grain: Daily, Columns: []*Column{
			rtTime("date", "2026-03-02", "2026-03-03", "2026-03-09", "2026-03-16"),
			rtSum("spend", 5, 7, 0, 3),
			rtSum("clicks", 0, 0, 0, 2),
			rtRatio("cpc", "spend", "clicks", 0, rtNull, rtNull, rtNull, 1.5),
		}},
		to: Weekly,
		want: &Table{Grain: Weekly, RowsBeforeLimit: 3, Columns: []*Column{
			rtTime("week", "2026-03-02", "2026-03-09", "2026-03-16"),
			rtSum("spend", 12, 0, 3),
			rtSum("clicks", 0, 0, 2),
			rtRatio("cpc", "spend", "clicks", 0, rtNull, rtNull, 1.5),
		}},
	}, {
		name: "non-additive columns are dropped and reported; hidden ones silently",
		in: &Table{Grain: Daily, Columns: []*Column{
			rtTime("date", "2026-03-02", "2026-03-03"),
			rtNum(&Column{Name: "reach", Aggregation: NonAdditive}, 10, 20),
			rtSum("impressions", 15, 30),
			rtNum(&Column{Name: "frequency", Aggregation: NonAdditive, Numerator: "impressions", Denominator: "reach", Scale: 1}, 1.5, 1.5),
			rtHidden(rtNum(&Column{Name: "uniques", Aggregation: NonAdditive}, 1, 2)),
			rtRatio("per_unique", "impressions", "uniques", 1, 15, 15),
		}},
		to:      Total,
		dropped: []string{"reach", "frequency", "per_unique"},
		want: &Table{Grain: Total, RowsBeforeLimit: 1, Columns: []*Column{
			rtSum("impressions", 45),
		}},
	}, {
		name: "Null handling in sums and ratios",
		in: &Table{Grain: Daily, Columns: []*Column{
			rtTime("date", "2026-03-02", "2026-03-03", "2026-03-09", "2026-03-10", "2026-03-16"),
			rtSum("conversions", 1, rtNull, rtNull, rtNull, 4),
			rtSum("clicks", 10, 10, 10, 10, rtNull),
			rtRatio("cvr", "conversions", "clicks", 100, 10, rtNull, rtNull, rtNull, rtNull),
		}},
		to: Weekly,
		want: &Table{Grain: Weekly, RowsBeforeLimit: 3, Columns: []*Column{
			rtTime("week", "2026-03-02", "2026-03-09", "2026-03-16"),
			rtSum("conversions", 1, rtNull, 4),
			rtSum("clicks", 20, 20, rtNull),
			rtRatio("cvr", "conversions", "clicks", 100, 5, rtNull, rtNull),
		}},
	}, {
		name: "money never merges across currencies",
		in: &Table{Grain: Daily, RowsBeforeLimit: 4, Notices: []Notice{{Type: "n", Detail: "d"}}, Columns: []*Column{
			rtTime("date", "2026-03-02", "2026-03-02", "2026-03-03", "2026-03-03"),
			rtDim("campaign", "A", "A", "A", "A"),
			rtDim("currency", "USD", "JPY", "USD", "JPY"),
			rtNum(&Column{Name: "spend", Aggregation: Sum, Money: true, CurrencyColumn: "currency"}, 1.5, 100, 2.25, 300),
		}},
		to: Weekly,
		want: &Table{Grain: Weekly, RowsBeforeLimit: 2, Notices: []Notice{{Type: "n", Detail: "d"}}, Columns: []*Column{
			rtTime("week", "2026-03-02", "2026-03-02"),
			rtDim("campaign", "A", "A"),
			rtDim("currency", "USD", "JPY"),
			rtNum(&Column{Name: "spend", Aggregation: Sum, Money: true, CurrencyColumn: "currency"}, 3.75, 400),
		}},
	}, {
		name: "a limit that cut rows is kept as is",
		in: &Table{Grain: Daily, RowsBeforeLimit: 99, Columns: []*Column{
			rtTime("date", "2026-03-02", "2026-03-03"),
			rtSum("clicks", 1, 2),
		}},
		to: Total,
		want: &Table{Grain: Total, RowsBeforeLimit: 99, Columns: []*Column{
			rtSum("clicks", 3),
		}},
	}, {
		name: "dimension values that a naive join would confuse",
		in: &Table{Grain: Daily, Columns: []*Column{
			rtTime("date", "2026-03-02", "2026-03-02", "2026-03-03", "2026-03-03", "2026-03-04"),
			rtDim("a", "x|", "x", "", "x|", "日本"),
			rtDim("b", "y", "|y", "x|y", "y", ""),
			rtSum("clicks", 1, 2, 4, 8, 16),
		}},
		to: Total,
		want: &Table{Grain: Total, RowsBeforeLimit: 4, Columns: []*Column{
			rtDim("a", "x|", "x", "", "日本"),
			rtDim("b", "y", "|y", "x|y", ""),
			rtSum("clicks", 9, 2, 4, 16),
		}},
	}, {
		name: "an empty table",
		in: &Table{Grain: Daily, Columns: []*Column{
			rtTime("date"), rtDim("campaign"), rtSum("clicks"),
		}},
		to: Weekly,
		want: &Table{Grain: Weekly, Columns: []*Column{
			{Name: "week", Role: RoleTime}, {Name: "campaign", Role: RoleDimension, Strings: []string{}},
			{Name: "clicks", Role: RoleMetric, Numbers: []float64{}},
		}},
	}, {
		name: "weekly to monthly is not exact",
		in:   &Table{Grain: Weekly, Columns: []*Column{rtTime("week", "2026-03-30"), rtSum("clicks", 1)}},
		to:   Monthly,
		err:  "cannot roll up weekly rows to monthly",
	}, {
		name: "same grain",
		in:   &Table{Grain: Daily, Columns: []*Column{rtTime("date", "2026-03-30"), rtSum("clicks", 1)}},
		to:   Daily,
		err:  "cannot roll up daily rows to daily",
	}, {
		name: "a table without time",
		in:   &Table{Grain: Total, Columns: []*Column{rtSum("clicks", 1)}},
		to:   Total,
		err:  "cannot roll up total rows to total",
	}, {
		name: "a bad date label",
		in:   &Table{Grain: Daily, Columns: []*Column{rtTime("date", "2026-03-30", "2026-02-30"), rtSum("clicks", 1, 2)}},
		to:   Monthly,
		err:  `row 1: date "2026-02-30" is not a YYYY-MM-DD date`,
	}, {
		name: "an invalid table",
		in:   &Table{Grain: Daily, Columns: []*Column{rtTime("date", "2026-03-30"), rtSum("clicks", 1, 2)}},
		to:   Total,
		err:  `column "clicks" has 2 values`,
	}, {
		name: "a currency column that is not a dimension",
		in: &Table{Grain: Daily, Columns: []*Column{rtTime("date", "2026-03-30"), rtSum("currency", 1),
			rtNum(&Column{Name: "spend", Money: true, CurrencyColumn: "currency"}, 1)}},
		to:  Total,
		err: `currency column "currency" is not a dimension`,
	}, {
		name: "a column named like the new time column",
		in:   &Table{Grain: Daily, Columns: []*Column{rtTime("date", "2026-03-30"), rtDim("week", "w")}},
		to:   Weekly,
		err:  `column "week" clashes`,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := rtClone(c.in)
			got, dropped, err := Rollup(c.in, c.to)
			if d := rtDiff(c.in, before, 0); d != "" || !reflect.DeepEqual(c.in.Notices, before.Notices) || c.in.RowsBeforeLimit != before.RowsBeforeLimit {
				t.Errorf("input modified: %s", d)
			}
			n, nerr := rowCountAt(c.in, c.to)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(err.Error(), "fit: ") {
					t.Fatalf("err = %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("result invalid: %v", err)
			}
			if d := rtDiff(got, c.want, 1e-15); d != "" {
				t.Errorf("%s\ngot columns %v", d, rtNames(got))
			}
			if !slices.Equal(dropped, c.dropped) {
				t.Errorf("dropped = %q, want %q", dropped, c.dropped)
			}
			if !reflect.DeepEqual(got.Notices, c.want.Notices) {
				t.Errorf("notices = %v, want %v", got.Notices, c.want.Notices)
			}
			if got.RowsBeforeLimit != c.want.RowsBeforeLimit {
				t.Errorf("RowsBeforeLimit = %d, want %d", got.RowsBeforeLimit, c.want.RowsBeforeLimit)
			}
			if nerr != nil || n != got.Len() {
				t.Errorf("rowCountAt = %d, %v; want %d", n, nerr, got.Len())
			}
		})
	}
}

func TestRollupResultIsIndependentOfInput(t *testing.T) {
	in := &Table{Grain: Daily, Columns: []*Column{
		rtTime("date", "2026-03-02"), rtDim("campaign", "A"), rtSum("clicks", 1),
	}}
	out, _, err := Rollup(in, Weekly)
	if err != nil {
		t.Fatal(err)
	}
	out.Columns[1].Strings[0] = "changed"
	out.Columns[2].Numbers[0] = 42
	out.Columns[2].Name = "renamed"
	if in.Columns[1].Strings[0] != "A" || in.Columns[2].Numbers[0] != 1 || in.Columns[2].Name != "clicks" {
		t.Error("changing the result changed the input")
	}
}

func TestRowCountAtErrors(t *testing.T) {
	in := &Table{Grain: Weekly, Columns: []*Column{rtTime("week", "2026-03-30"), rtDim("c", "x", "y")}}
	if _, err := rowCountAt(in, Total); err == nil {
		t.Error("rowCountAt accepted a dimension column of the wrong length")
	}
	in.Columns[1].Strings = in.Columns[1].Strings[:1]
	if _, err := rowCountAt(in, Monthly); err == nil {
		t.Error("rowCountAt accepted weekly → monthly")
	}
	if n, err := rowCountAt(in, Total); n != 1 || err != nil {
		t.Errorf("rowCountAt = %d, %v; want 1", n, err)
	}
}

func rtDate(s string) time.Time {
	d, err := time.Parse(dayLayout, s)
	if err != nil {
		panic(err)
	}
	return d
}

func TestPeriodOf(t *testing.T) {
	nyc, err := time.LoadLocation("America/New_York")
	if err != nil {
		nyc = time.FixedZone("UTC-5", -5*3600)
	}
	for _, c := range []struct {
		g    Grain
		d    time.Time
		want string
	}{
		{Daily, rtDate("2026-03-04"), "2026-03-04"},
		{Weekly, rtDate("2026-03-04"), "2026-03-02"},
		{Weekly, rtDate("2026-03-02"), "2026-03-02"}, // Monday
		{Weekly, rtDate("2026-03-08"), "2026-03-02"}, // Sunday
		{Weekly, rtDate("2026-03-09"), "2026-03-09"},
		{Weekly, rtDate("2026-01-04"), "2025-12-29"}, // ISO week 2026-W01 starts in 2025
		{Weekly, rtDate("2025-12-29"), "2025-12-29"},
		{Weekly, rtDate("2021-01-03"), "2020-12-28"}, // 2020-W53
		{Weekly, rtDate("2024-03-01"), "2024-02-26"}, // across a leap day
		{Weekly, rtDate("2023-03-01"), "2023-02-27"},
		{Monthly, rtDate("2026-03-04"), "2026-03"},
		{Monthly, rtDate("2024-02-29"), "2024-02"},
		{Monthly, rtDate("2025-12-31"), "2025-12"},
		{Monthly, rtDate("2026-01-01"), "2026-01"},
		{Total, rtDate("2026-03-04"), ""},
		{"hourly", rtDate("2026-03-04"), ""},
		// The calendar day in the time's own location counts: 23:30 in New York on
		// Sunday 2026-03-01 is already Monday in UTC.
		{Weekly, time.Date(2026, 3, 1, 23, 30, 0, 0, nyc), "2026-02-23"},
		{Daily, time.Date(2026, 3, 1, 23, 30, 0, 0, nyc), "2026-03-01"},
	} {
		if got := periodOf(c.g, c.d); got != c.want {
			t.Errorf("periodOf(%s, %v) = %q, want %q", c.g, c.d, got, c.want)
		}
	}
	// Every day of a span lands in the period starting on the latest Monday /
	// first of the month, found by walking back one day at a time.
	for d := rtDate("2023-12-01"); d.Before(rtDate("2025-03-01")); d = d.AddDate(0, 0, 1) {
		m := d
		for m.Weekday() != time.Monday {
			m = m.AddDate(0, 0, -1)
		}
		if got := periodOf(Weekly, d); got != m.Format(dayLayout) {
			t.Fatalf("periodOf(weekly, %s) = %s, want %s", d.Format(dayLayout), got, m.Format(dayLayout))
		}
		y, w := d.ISOWeek()
		if y2, w2 := m.ISOWeek(); y2 != y || w2 != w {
			t.Fatalf("week of %s is not its ISO week", d.Format(dayLayout))
		}
		if got := periodOf(Monthly, d); got != d.Format(dayLayout)[:7] {
			t.Fatalf("periodOf(monthly, %s) = %s", d.Format(dayLayout), got)
		}
	}
}

func TestPartialPeriods(t *testing.T) {
	for _, c := range []struct {
		g                 Grain
		start, end        string
		wantFirst, wantLa bool
	}{
		{Weekly, "2026-03-02", "2026-03-15", false, false}, // Monday .. Sunday
		{Weekly, "2026-03-04", "2026-03-15", true, false},  // Wednesday start
		{Weekly, "2026-03-02", "2026-03-14", false, true},  // Saturday end
		{Weekly, "2026-03-03", "2026-03-05", true, true},   // inside one week
		{Weekly, "2025-12-29", "2026-01-04", false, false}, // a week across the year end
		{Weekly, "2025-12-29", "2025-12-31", false, true},
		{Monthly, "2026-03-01", "2026-03-31", false, false},
		{Monthly, "2026-02-01", "2026-02-28", false, false}, // 28 days
		{Monthly, "2024-02-01", "2024-02-28", false, true},  // leap year: the 29th is missing
		{Monthly, "2024-02-01", "2024-02-29", false, false},
		{Monthly, "2026-04-01", "2026-04-30", false, false}, // 30 days
		{Monthly, "2026-04-02", "2026-05-31", true, false},
		{Monthly, "2026-01-01", "2026-01-30", false, true}, // 31 days
		{Monthly, "2025-12-01", "2026-01-31", false, false},
		{Monthly, "2025-12-15", "2025-12-15", true, true},
		{Daily, "2026-03-04", "2026-03-05", false, false},
		{Total, "2026-03-04", "2026-03-05", false, false},
		{Weekly, "2026-03-10", "2026-03-04", false, false}, // empty range
	} {
		f, l := PartialPeriods(c.g, rtDate(c.start), rtDate(c.end))
		if f != c.wantFirst || l != c.wantLa {
			t.Errorf("PartialPeriods(%s, %s, %s) = %v, %v; want %v, %v", c.g, c.start, c.end, f, l, c.wantFirst, c.wantLa)
		}
	}
	// Times of day do not matter.
	if f, l := PartialPeriods(Weekly, rtDate("2026-03-02").Add(23*time.Hour), rtDate("2026-03-08").Add(time.Hour)); f || l {
		t.Errorf("times of day changed the answer: %v, %v", f, l)
	}
}

// ---- Property tests over random tables ----

// rtGen describes a random table: which columns are what, for the checks.
type rtGen struct {
	t      *Table
	exact  bool // every Sum value is a multiple of 0.25 small enough to add exactly
	sorted bool // rows ordered by date
	dims   []string
	money  map[string]string // Sum column → currency column ("" for a fixed currency)
}

var rtPool = []string{"", "a", "b", "a|", "|b", "a|b", "é", "日本", "x\x00y", "x", "\x00", "Brand \"A\", US", "line\nbreak", " "}

func rtRandom(rng *rand.Rand) *rtGen {
	g := &rtGen{exact: rng.IntN(4) != 0, sorted: rng.IntN(2) == 0, money: map[string]string{}}
	n := rng.IntN(300)
	if rng.IntN(10) == 0 {
		n = rng.IntN(3)
	}
	t := &Table{Grain: Daily}
	base := rtDate("2025-06-01")
	span := 1 + rng.IntN(400)
	dates := make([]string, n)
	for i := range dates {
		dates[i] = base.AddDate(0, 0, rng.IntN(span)).Format(dayLayout)
	}
	if g.sorted {
		slices.Sort(dates)
	}
	var cols []*Column
	cols = append(cols, rtTime("date", dates...))
	nd := rng.IntN(4)
	for d := range nd {
		vals := make([]string, n)
		k := 1 + rng.IntN(len(rtPool))
		off := rng.IntN(len(rtPool))
		for i := range vals {
			vals[i] = rtPool[(off+rng.IntN(k))%len(rtPool)]
		}
		name := fmt.Sprintf("dim%d", d)
		cols = append(cols, rtDim(name, vals...))
		g.dims = append(g.dims, name)
	}
	hasCur := rng.IntN(2) == 0
	if hasCur {
		vals := make([]string, n)
		for i := range vals {
			vals[i] = []string{"USD", "EUR", "JPY"}[rng.IntN(3)]
		}
		cols = append(cols, rtDim("currency", vals...))
		g.dims = append(g.dims, "currency")
	}
	value := func() float64 {
		if g.exact {
			return float64(rng.IntN(4_000_001)-1_000_000) / 4
		}
		return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(8)))
	}
	var sums []string
	for s := range 1 + rng.IntN(4) {
		c := &Column{Name: fmt.Sprintf("sum%d", s), Role: RoleMetric, Aggregation: Sum, Numbers: make([]float64, n), Hidden: rng.IntN(4) == 0}
		nullRate := []float64{0, 0, 0.1, 0.9, 1}[rng.IntN(5)]
		if nullRate > 0 {
			c.Null = make([]bool, n)
		}
		for i := range c.Numbers {
			if c.Null != nil && rng.Float64() < nullRate {
				c.Null[i] = true
				c.Numbers[i] = []float64{0, math.NaN(), 7}[rng.IntN(3)] // ignored
				continue
			}
			c.Numbers[i] = value()
			if rng.IntN(5) == 0 {
				c.Numbers[i] = 0
			}
		}
		if rng.IntN(2) == 0 {
			c.Money = true
			if hasCur {
				c.CurrencyColumn = "currency"
			} else {
				c.Currency = "USD"
			}
			g.money[c.Name] = c.CurrencyColumn
		}
		cols = append(cols, c)
		sums = append(sums, c.Name)
	}
	var distincts []string
	for r := range rng.IntN(3) {
		c := &Column{Name: fmt.Sprintf("distinct%d", r), Role: RoleMetric, Aggregation: NonAdditive, Numbers: make([]float64, n), Hidden: rng.IntN(4) == 0}
		for i := range c.Numbers {
			c.Numbers[i] = float64(rng.IntN(1000))
		}
		cols = append(cols, c)
		distincts = append(distincts, c.Name)
	}
	for r := range rng.IntN(3) {
		num, den := sums[rng.IntN(len(sums))], sums[rng.IntN(len(sums))]
		if len(distincts) > 0 && rng.IntN(5) == 0 { // cannot be recomputed
			den = distincts[rng.IntN(len(distincts))]
		}
		c := &Column{Name: fmt.Sprintf("ratio%d", r), Role: RoleMetric, Aggregation: Ratio, Numerator: num, Denominator: den,
			Scale: []float64{1, 100, 1000, 0}[rng.IntN(4)], Numbers: make([]float64, n), Hidden: rng.IntN(5) == 0}
		for i := range c.Numbers {
			c.Numbers[i] = rng.Float64() // values at the input grain are not checked
		}
		cols = append(cols, c)
	}
	rng.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
	t.Columns = cols
	t.RowsBeforeLimit = n
	g.t = t
	return g
}

// rtRefPeriod is the label of day s at grain g, computed independently of periodOf.
func rtRefPeriod(g Grain, s string) string {
	switch g {
	case Daily:
		return s
	case Weekly:
		d := rtDate(s)
		y, w := d.ISOWeek()
		for {
			if y2, w2 := d.AddDate(0, 0, -1).ISOWeek(); y2 != y || w2 != w {
				return d.Format(dayLayout)
			}
			d = d.AddDate(0, 0, -1)
		}
	case Monthly:
		return s[:7]
	case Quarterly: // from a day's or a month's label alike
		m, _ := strconv.Atoi(s[5:7])
		return fmt.Sprintf("%s-Q%d", s[:4], (m+2)/3)
	}
	return ""
}

// rtKey is a collision-free key of a row's dimension values.
func rtKey(t *Table, dims []string, r int) string {
	var b strings.Builder
	for _, d := range dims {
		fmt.Fprintf(&b, "%q;", t.Column(d).Strings[r])
	}
	return b.String()
}

// rtCheckRollup checks the properties of out = Rollup(in, to) against a reference
// grouping computed independently, and returns the first violation.
func rtCheckRollup(g *rtGen, in, out *Table, dropped []string, to Grain) error {
	tol := 0.0
	if !g.exact {
		tol = 1e-9
	}
	if err := out.Validate(); err != nil {
		return fmt.Errorf("result invalid: %v", err)
	}
	if out.Grain != to {
		return fmt.Errorf("grain %s, want %s", out.Grain, to)
	}

	// Columns: the input's minus the unmergeable ones; hidden flags and metadata kept.
	var wantCols []string
	var wantDropped []string
	for _, c := range in.Columns {
		ok := true
		switch {
		case c.Role == RoleTime:
			if to == Total {
				continue
			}
			wantCols = append(wantCols, to.TimeColumn())
			if oc := out.Column(to.TimeColumn()); oc == nil || oc.Role != RoleTime {
				return fmt.Errorf("no time column %q", to.TimeColumn())
			}
			continue
		case c.Role == RoleMetric && c.Aggregation == NonAdditive:
			ok = false
		case c.Role == RoleMetric && c.Aggregation == Ratio:
			ok = in.Column(c.Numerator).Aggregation == Sum && in.Column(c.Denominator).Aggregation == Sum
		}
		if !ok {
			if !c.Hidden {
				wantDropped = append(wantDropped, c.Name)
			}
			continue
		}
		wantCols = append(wantCols, c.Name)
		oc := out.Column(c.Name)
		if oc == nil || oc.Hidden != c.Hidden || oc.Money != c.Money || oc.CurrencyColumn != c.CurrencyColumn || oc.Aggregation != c.Aggregation {
			return fmt.Errorf("column %q lost its schema: %+v", c.Name, oc)
		}
	}
	if !slices.Equal(rtNames(out), wantCols) {
		return fmt.Errorf("columns %v, want %v", rtNames(out), wantCols)
	}
	if !slices.Equal(dropped, wantDropped) {
		return fmt.Errorf("dropped %v, want %v", dropped, wantDropped)
	}

	// Reference grouping: by (period, dimension values), in input order.
	period := func(tab *Table, r int) string {
		if to == Total {
			return ""
		}
		return rtRefPeriod(to, tab.Column(in.Grain.TimeColumn()).Strings[r])
	}
	type group struct {
		rows []int
	}
	ref := map[string]*group{}
	firstSeen := map[string]int{} // dimension key → first input row
	for r := range in.Len() {
		dk := rtKey(in, g.dims, r)
		if _, ok := firstSeen[dk]; !ok {
			firstSeen[dk] = r
		}
		k := period(in, r) + "\x00" + dk
		if ref[k] == nil {
			ref[k] = &group{}
		}
		ref[k].rows = append(ref[k].rows, r)
	}
	n, err := rowCountAt(in, to)
	if err != nil || n != out.Len() || n != len(ref) {
		return fmt.Errorf("rowCountAt = %d, %v; result has %d rows; %d distinct keys", n, err, out.Len(), len(ref))
	}

	// Every result row is one reference group; together they hold every input row.
	merged := 0
	seen := map[string]bool{}
	prevPeriod, prevFirst := "", -1
	for r := range out.Len() {
		p := ""
		if to != Total {
			p = out.Column(to.TimeColumn()).Strings[r]
		}
		dk := rtKey(out, g.dims, r)
		k := p + "\x00" + dk
		grp := ref[k]
		if grp == nil || seen[k] {
			return fmt.Errorf("row %d (%q) is not a distinct input group", r, k)
		}
		seen[k] = true
		merged += len(grp.rows)
		// Order: period ascending, then first appearance of the dimensions.
		if r > 0 && (p < prevPeriod || p == prevPeriod && firstSeen[dk] <= prevFirst) {
			return fmt.Errorf("row %d out of order", r)
		}
		prevPeriod, prevFirst = p, firstSeen[dk]
		for _, c := range in.Columns {
			oc := out.Column(c.Name)
			if c.Role != RoleMetric || c.Aggregation != Sum {
				continue
			}
			sum, abs, any := 0.0, 0.0, false
			for _, ir := range grp.rows {
				if !c.IsNull(ir) {
					sum += c.Numbers[ir]
					abs += math.Abs(c.Numbers[ir])
					any = true
				}
			}
			if oc.IsNull(r) != !any {
				return fmt.Errorf("%s row %d null=%v, want %v", c.Name, r, oc.IsNull(r), !any)
			}
			if any && oc.Numbers[r] != sum && (tol == 0 || math.Abs(oc.Numbers[r]-sum) > tol*abs) {
				return fmt.Errorf("%s row %d = %v, want %v", c.Name, r, oc.Numbers[r], sum)
			}
		}
	}
	if merged != in.Len() {
		return fmt.Errorf("%d input rows merged, want %d", merged, in.Len())
	}

	// Σ of every Sum column is preserved, per currency for money.
	for _, c := range in.Columns {
		if c.Role != RoleMetric || c.Aggregation != Sum {
			continue
		}
		oc := out.Column(c.Name)
		total := func(tab *Table, col *Column) (map[string]float64, map[string]float64) {
			sums, abs := map[string]float64{}, map[string]float64{}
			for r := range tab.Len() {
				if col.IsNull(r) {
					continue
				}
				cur := ""
				if cc := g.money[c.Name]; cc != "" {
					cur = tab.Column(cc).Strings[r]
				}
				sums[cur] += col.Numbers[r]
				abs[cur] += math.Abs(col.Numbers[r])
			}
			return sums, abs
		}
		is, iabs := total(in, c)
		os, _ := total(out, oc)
		if len(is) != len(os) {
			return fmt.Errorf("%s: currencies %v, want %v", c.Name, os, is)
		}
		for cur, v := range is {
			w := os[cur]
			if g.exact && w != v || !g.exact && math.Abs(w-v) > 1e-9*iabs[cur] {
				return fmt.Errorf("%s %s: Σ = %v, want %v", c.Name, cur, w, v)
			}
		}
	}

	// Every ratio cell is Σnum / Σden × Scale from the rolled-up parts.
	for _, c := range out.Columns {
		if c.Aggregation != Ratio {
			continue
		}
		num, den := out.Column(c.Numerator), out.Column(c.Denominator)
		scale := c.Scale
		if scale == 0 {
			scale = 1
		}
		for r := range out.Len() {
			wantNull := num.IsNull(r) || den.IsNull(r) || den.Numbers[r] == 0
			if c.IsNull(r) != wantNull {
				return fmt.Errorf("%s row %d null=%v, want %v", c.Name, r, c.IsNull(r), wantNull)
			}
			if !wantNull && c.Numbers[r] != num.Numbers[r]/den.Numbers[r]*scale {
				return fmt.Errorf("%s row %d = %v, want %v", c.Name, r, c.Numbers[r], num.Numbers[r]/den.Numbers[r]*scale)
			}
		}
	}
	return nil
}

// rtSortedByKey reorders a table's rows by their dimension key, for comparing two
// tables whose row order legitimately depends on the input order.
func rtSortedByKey(tab *Table, dims []string) *Table {
	rows := make([]int, tab.Len())
	for i := range rows {
		rows[i] = i
	}
	slices.SortFunc(rows, func(a, b int) int { return strings.Compare(rtKey(tab, dims, a), rtKey(tab, dims, b)) })
	out := rtClone(tab)
	for ci, c := range out.Columns {
		src := tab.Columns[ci]
		for i, r := range rows {
			if c.Strings != nil {
				c.Strings[i] = src.Strings[r]
			}
			if c.Numbers != nil {
				c.Numbers[i] = src.Numbers[r]
			}
			if c.Null != nil {
				c.Null[i] = src.Null[r]
			}
		}
	}
	return out
}

func TestRollupProperties(t *testing.T) {
	iterations := 400
	if testing.Short() {
		iterations = 60
	}
	for seed := range uint64(iterations) {
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		g := rtRandom(rng)
		daily := g.t
		before := rtClone(daily)
		// Odd seeds group in hash maps rather than dense tables; seeds 2 and 3
		// modulo 4 number dimension combinations in concurrent chunks; 3 seeds in
		// 8 hash every dimension value alike.
		restore := rtStrategy(seed%2 == 1, seed%4 >= 2, seed%8 >= 5)
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			byGrain := map[Grain]*Table{}
			for _, to := range []Grain{Weekly, Monthly, Quarterly, Total} {
				out, dropped, err := Rollup(daily, to)
				if err != nil {
					t.Fatalf("daily → %s: %v", to, err)
				}
				if err := rtCheckRollup(g, daily, out, dropped, to); err != nil {
					t.Fatalf("daily → %s: %v", to, err)
				}
				byGrain[to] = out
			}
			if d := rtDiff(daily, before, 0); d != "" {
				t.Fatalf("input modified: %s", d)
			}
			tol := 0.0
			if !g.exact {
				tol = 1e-9
			}
			// Months roll up into quarters exactly: in two steps as at once.
			if out, _, err := Rollup(byGrain[Monthly], Quarterly); err != nil {
				t.Fatalf("monthly → quarterly: %v", err)
			} else if err := rtCheckRollup(g, byGrain[Monthly], out, nil, Quarterly); err != nil {
				t.Fatalf("monthly → quarterly: %v", err)
			} else {
				a, b := out, byGrain[Quarterly]
				if !g.sorted {
					keys := append(slices.Clone(g.dims), "quarter")
					a, b = rtSortedByKey(out, keys), rtSortedByKey(b, keys)
				}
				if d := rtDiff(a, b, tol); d != "" {
					t.Fatalf("daily → monthly → quarterly differs from daily → quarterly: %s", d)
				}
			}
			for _, mid := range []Grain{Weekly, Monthly, Quarterly} {
				in := byGrain[mid]
				out, dropped, err := Rollup(in, Total)
				if err != nil {
					t.Fatalf("%s → total: %v", mid, err)
				}
				if len(dropped) != 0 {
					t.Fatalf("%s → total dropped %v again", mid, dropped)
				}
				if err := rtCheckRollup(g, in, out, dropped, Total); err != nil {
					t.Fatalf("%s → total: %v", mid, err)
				}
				// Rolling up in two steps is rolling up at once. The order of rows
				// is the same when the daily rows come in date order.
				direct := byGrain[Total]
				a, b := out, direct
				if !g.sorted {
					a, b = rtSortedByKey(out, g.dims), rtSortedByKey(direct, g.dims)
				}
				if d := rtDiff(a, b, tol); d != "" {
					t.Fatalf("daily → %s → total differs from daily → total: %s", mid, d)
				}
			}
		})
		restore()
	}
}

// rtStrategy makes the roll-up use hash maps rather than dense tables, concurrent
// chunks of a few rows, and/or a hash under which all values collide, and returns
// the function that restores the defaults.
func rtStrategy(maps, chunks, collide bool) (restore func()) {
	m, r, c, p, h := rollupDenseMin, rollupDensePerRow, rollupChunkRows, rollupProcs, rollupHash
	if collide {
		rollupHash = func(maphash.Seed, string) uint64 { return 42 }
	}
	if maps {
		rollupDenseMin, rollupDensePerRow = 0, 0
	}
	if chunks {
		rollupChunkRows, rollupProcs = 7, func(int) int { return 3 }
	}
	return func() { rollupDenseMin, rollupDensePerRow, rollupChunkRows, rollupProcs, rollupHash = m, r, c, p, h }
}

// TestRollupPropertiesCanFail makes sure the property checks catch a wrong roll-up.
func TestRollupPropertiesCanFail(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var g *rtGen
	for g == nil || g.t.Len() < 50 || len(g.dims) == 0 {
		g = rtRandom(rng)
	}
	out, dropped, err := Rollup(g.t, Weekly)
	if err != nil {
		t.Fatal(err)
	}
	for name, spoil := range map[string]func(*Table){
		"a sum changed": func(o *Table) {
			for _, c := range o.Columns {
				if c.Role == RoleMetric && c.Aggregation == Sum {
					c.Numbers[0] += 1
					c.Null = nil
				}
			}
		},
		"two rows swapped": func(o *Table) {
			for _, c := range o.Columns {
				if c.Strings != nil {
					c.Strings[0], c.Strings[1] = c.Strings[1], c.Strings[0]
				} else {
					c.Numbers[0], c.Numbers[1] = c.Numbers[1], c.Numbers[0]
					if c.Null != nil {
						c.Null[0], c.Null[1] = c.Null[1], c.Null[0]
					}
				}
			}
		},
		"a row lost": func(o *Table) {
			for _, c := range o.Columns {
				if c.Strings != nil {
					c.Strings = c.Strings[1:]
				} else {
					c.Numbers = c.Numbers[1:]
					if c.Null != nil {
						c.Null = c.Null[1:]
					}
				}
			}
		},
	} {
		bad := rtClone(out)
		spoil(bad)
		if err := rtCheckRollup(g, g.t, bad, dropped, Weekly); err == nil {
			t.Errorf("%s: the checks passed", name)
		}
	}
	if err := rtCheckRollup(g, g.t, out, dropped, Weekly); err != nil {
		t.Errorf("the unspoiled result fails the checks: %v", err)
	}
}
