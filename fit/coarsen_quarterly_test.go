package fit

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// monthlyCampaigns is a monthly table of n campaigns over the months from
// start (a first of the month) on, one row per campaign and month.
func monthlyCampaigns(n, months int, start time.Time) *Table {
	t := &Table{Grain: Monthly}
	month := &Column{Name: "month", Role: RoleTime}
	campaign := &Column{Name: "campaign_name", Role: RoleDimension}
	spend := &Column{Name: "spend", Role: RoleMetric, Aggregation: Sum, Money: true, Currency: "USD"}
	t.Columns = []*Column{month, campaign, spend}
	for m := range months {
		label := periodOf(Monthly, start.AddDate(0, m, 0))
		for c := range n {
			month.Strings = append(month.Strings, label)
			campaign.Strings = append(campaign.Strings, fmt.Sprintf("Campaign %03d", c))
			spend.Numbers = append(spend.Numbers, float64(100*c+m)+0.25)
		}
	}
	return t
}

// The pipeline coarsens monthly → quarterly → total: when the monthly rows do
// not fit but the quarterly ones do, the answer keeps a trend by quarter (a
// local roll-up: months nest in quarters), with the same totals.
func TestCoarsenMonthlyToQuarterly(t *testing.T) {
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	tab := monthlyCampaigns(40, 24, start) // 960 monthly rows, 320 quarterly, 40 total
	counter := NewO200k()
	quarterly, _, err := Rollup(tab, Quarterly)
	if err != nil {
		t.Fatal(err)
	}
	var csv strings.Builder
	if err := WriteCSV(&csv, quarterly); err != nil {
		t.Fatal(err)
	}
	// Room for the quarterly rows and their _meta, not for three times as many.
	budget := counter.Exact(csv.String()) + 1500
	requeried := false
	resp, err := Fit(context.Background(), tab, Options{Budget: budget, Counter: counter,
		Start: start, End: start.AddDate(2, 0, -1),
		Requery: func(context.Context, Grain) (*Table, error) { requeried = true; return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Kind != KindData || resp.Meta.TimeGranularity.Returned != Quarterly {
		t.Fatalf("returned %s at %v, want data at quarterly grain", resp.Kind, resp.Meta.TimeGranularity)
	}
	if requeried {
		t.Error("months roll up into quarters exactly, yet the source was asked again")
	}
	if resp.Table.Len() != 320 || resp.Table.Column("quarter") == nil {
		t.Fatalf("%d rows, columns %v; want 320 rows with a quarter column", resp.Table.Len(), rtNames(resp.Table))
	}
	var change *Optimization
	for i, o := range resp.Meta.Optimizations {
		if o.Type == "granularity_change" {
			change = &resp.Meta.Optimizations[i]
		}
	}
	if change == nil || change.From != "monthly" || change.To != "quarterly" || change.RowsBefore != 960 || change.RowsAfter != 320 {
		t.Fatalf("granularity_change = %+v, want monthly → quarterly, 960 → 320 rows", change)
	}
	if got, want := sumsOf(resp.Table, "spend"), sumsOf(tab, "spend"); got != want {
		t.Errorf("spend %v at quarterly grain, %v in the months", got, want)
	}
	for _, w := range resp.Meta.Warnings {
		if w.Type == "partial_period" {
			t.Errorf("whole quarters got a partial_period warning: %s", w.Detail)
		}
	}

	// With less room than the quarters need, the next grain is total.
	resp, err = Fit(context.Background(), tab, Options{Budget: budget / 4, Counter: counter})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Kind == KindData && resp.Meta.TimeGranularity.Returned != Total {
		t.Errorf("with a quarter of the budget: %s at %s grain, want total", resp.Kind, resp.Meta.TimeGranularity.Returned)
	}
}

// A daily answer too big for days, weeks and months comes back by quarter.
func TestCoarsenDailyReachesQuarterly(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	tab := &Table{Grain: Daily}
	date := &Column{Name: "date", Role: RoleTime}
	clicks := &Column{Name: "clicks", Role: RoleMetric, Aggregation: Sum}
	campaign := &Column{Name: "campaign_name", Role: RoleDimension}
	tab.Columns = []*Column{date, campaign, clicks}
	for d := range 365 {
		for c := range 30 {
			date.Strings = append(date.Strings, start.AddDate(0, 0, d).Format(dayLayout))
			campaign.Strings = append(campaign.Strings, fmt.Sprintf("C%02d", c))
			clicks.Numbers = append(clicks.Numbers, float64(c+d%7))
		}
	}
	// 30 × 12 = 360 monthly rows cannot fit in 300 tokens a row or less; the
	// 120 quarterly rows do.
	resp, err := Fit(context.Background(), tab, Options{Budget: 2600, Counter: NewO200k(), Start: start, End: start.AddDate(1, 0, -1)})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Kind != KindData || resp.Meta.TimeGranularity.Returned != Quarterly || resp.Table.Len() != 120 {
		t.Fatalf("%s at %v with %d rows; want 120 quarterly rows", resp.Kind, resp.Meta.TimeGranularity, resp.Meta.ReturnedRows)
	}
}

// A quarterly answer whose date range cuts its first or last quarter says so,
// as weekly and monthly answers do.
func TestPartialQuarterWarning(t *testing.T) {
	start := time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC) // mid Q4
	tab := &Table{Grain: Quarterly, Columns: []*Column{
		rtTime("quarter", "2025-Q4", "2026-Q1"),
		rtSum("clicks", 1, 2),
	}}
	for _, c := range []struct {
		end  time.Time
		want string
	}{
		{time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC), "The first quarter is only partly covered by the date range 2025-11-01 to 2026-03-31; compare quarters with care"},
		{time.Date(2026, 2, 14, 0, 0, 0, 0, time.UTC), "The first and last quarter are only partly covered by the date range 2025-11-01 to 2026-02-14; compare quarters with care"},
	} {
		resp, err := Fit(context.Background(), tab, Options{Budget: 4000, Counter: NewO200k(), Start: start, End: c.end})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, w := range resp.Meta.Warnings {
			if w.Type == "partial_period" {
				got = append(got, w.Detail)
			}
		}
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("partial_period warnings %q, want %q", got, c.want)
		}
	}
}

func sumsOf(t *Table, metric string) float64 {
	s := 0.0
	for _, v := range t.Column(metric).Numbers {
		s += v
	}
	return s
}

// Over a date range inside one quarter, quarterly rows would be the totals
// with a constant column: the pipeline goes from monthly straight to total,
// without asking the source again at quarterly grain.
func TestCoarsenSkipsASingleQuarter(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tab := monthlyCampaigns(60, 3, start) // Q1 only: 180 monthly rows, 60 totals
	var asked []Grain
	requery := func(_ context.Context, g Grain) (*Table, error) {
		asked = append(asked, g)
		out, _, err := Rollup(tab, g)
		return out, err
	}
	resp, err := Fit(context.Background(), tab, Options{Budget: 1200, Counter: NewO200k(),
		Start: start, End: start.AddDate(0, 3, -1), Requery: requery})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Kind != KindData || resp.Meta.TimeGranularity.Returned != Total {
		t.Fatalf("%s at %v, want data at total grain", resp.Kind, resp.Meta.TimeGranularity)
	}
	if len(asked) > 0 {
		t.Errorf("the source was asked again at %v", asked)
	}
	// The same rows over two quarters do come back quarterly.
	resp, err = Fit(context.Background(), tab, Options{Budget: 1200, Counter: NewO200k(),
		Start: start.AddDate(0, -1, 0), End: start.AddDate(0, 3, -1), Requery: requery})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Meta.TimeGranularity.Returned != Quarterly {
		t.Errorf("over two quarters: returned %v, want quarterly", resp.Meta.TimeGranularity)
	}
}
