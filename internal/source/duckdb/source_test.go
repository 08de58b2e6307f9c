package duckdb

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/query"
)

// The fixed-anchor test warehouse: 400 days ending 2026-03-14, so it spans the
// 2025/2026 year end; a small fraction of the campaigns keeps it quick.
var (
	testAnchor = time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC)
	testConfig = demo.Config{Anchor: testAnchor, Seed: 42, Days: 400, Scale: 0.05}

	testOnce   sync.Once
	testSource *Source
	testErr    error
)

func openTestSource(t testing.TB) *Source {
	t.Helper()
	testOnce.Do(func() {
		dir, err := tempDirForPackage()
		if err != nil {
			testErr = err
			return
		}
		testSource, testErr = Open(context.Background(), filepath.Join(dir, "test.duckdb"), Options{Demo: testConfig})
	})
	if testErr != nil {
		t.Fatalf("open test warehouse: %v", testErr)
	}
	return testSource
}

// run normalizes raw arguments against the test warehouse's accounts, with the
// clock at the anchor date, and runs them.
func run(t *testing.T, src *Source, raw string) (*query.Query, *fit.Table) {
	t.Helper()
	q := normalize(t, src, raw)
	tab, err := src.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("query %s: %v", raw, err)
	}
	if err := tab.Validate(); err != nil {
		t.Fatalf("query %s: invalid table: %v", raw, err)
	}
	return q, tab
}

func normalize(t *testing.T, src *Source, raw string) *query.Query {
	t.Helper()
	accounts, err := src.Accounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	q, err := query.ParseAndNormalize([]byte(raw), query.Options{Accounts: accounts,
		Now: func() time.Time { return testAnchor.Add(10 * time.Hour) }})
	if err != nil {
		t.Fatalf("normalize %s: %v", raw, err)
	}
	return q
}

func accountsWhere(t *testing.T, src *Source, keep func(ads.Account) bool) []ads.Account {
	t.Helper()
	all, err := src.Accounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []ads.Account
	for _, a := range all {
		if keep(a) {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		t.Fatal("no test account matches")
	}
	return out
}

func ids(accts []ads.Account) string {
	b, _ := json.Marshal(func() []string {
		var s []string
		for _, a := range accts {
			s = append(s, a.AccountID)
		}
		return s
	}())
	return string(b)
}

// sumBy adds a metric column per value of a dimension column.
func sumBy(t *testing.T, tab *fit.Table, dim, metric string) map[string]float64 {
	t.Helper()
	d, m := tab.Column(dim), tab.Column(metric)
	if d == nil || m == nil {
		t.Fatalf("table lacks %s or %s", dim, metric)
	}
	out := map[string]float64{}
	for i := range tab.Len() {
		if !m.IsNull(i) {
			out[d.Strings[i]] += m.Numbers[i]
		}
	}
	return out
}

func cents(x float64) int64 { return int64(math.Round(x * 100)) }

func TestAdditiveTotalsEqualAtEveryGrain(t *testing.T) {
	src := openTestSource(t)
	usd := accountsWhere(t, src, func(a ads.Account) bool { return a.Currency == "USD" })
	if len(usd) > 10 {
		usd = usd[:10]
	}
	metrics := []string{"spend", "impressions", "clicks", "conversions", "conversion_value", "video_views"}
	totals := map[fit.Grain]map[string]map[string]float64{}
	for _, g := range fit.Grains {
		_, tab := run(t, src, `{"account_ids":`+ids(usd)+`,"date_range":{"start":"2025-11-20","end":"2026-02-10"},
			"dimensions":["account_id"],"metrics":["spend","impressions","clicks","conversions","conversion_value","video_views"],
			"time_granularity":"`+string(g)+`"}`)
		if tab.Len() == 0 {
			t.Fatalf("%s: no rows", g)
		}
		totals[g] = map[string]map[string]float64{}
		for _, m := range metrics {
			totals[g][m] = sumBy(t, tab, "account_id", m)
		}
	}
	for _, m := range metrics {
		for acct, want := range totals[fit.Total][m] {
			for _, g := range []fit.Grain{fit.Daily, fit.Weekly, fit.Monthly} {
				if got := totals[g][m][acct]; cents(got) != cents(want) {
					t.Errorf("%s of %s: %s rows add up to %.2f, total grain says %.2f", m, acct, g, got, want)
				}
			}
		}
	}
	// And the total equals the facts themselves.
	var want float64
	if err := src.DB().QueryRow(`SELECT SUM(spend_micros)::DOUBLE/1e6 FROM facts WHERE breakdown = 'delivery' AND date BETWEEN '2025-11-20' AND '2026-02-10' AND account_id = ?`,
		usd[0].AccountID).Scan(&want); err != nil {
		t.Fatal(err)
	}
	if got := totals[fit.Total]["spend"][usd[0].AccountID]; cents(got) != cents(want) {
		t.Errorf("total spend %.2f, facts say %.2f", got, want)
	}
}

func TestRatiosRecomputedFromSummedParts(t *testing.T) {
	src := openTestSource(t)
	usd := accountsWhere(t, src, func(a ads.Account) bool { return a.Currency == "USD" })[:3]
	base := `{"account_ids":` + ids(usd) + `,"date_range":{"start":"2026-01-01","end":"2026-02-28"},"metrics":["ctr","cpc","cpm","roas","conversion_rate","cpa"]`
	_, total := run(t, src, base+`,"time_granularity":"total"}`)
	_, daily := run(t, src, base+`,"time_granularity":"daily"}`)
	if total.Len() != 1 {
		t.Fatalf("total grain without dimensions: %d rows, want 1", total.Len())
	}
	// The hidden parts are there, and summing them over days gives the total ratio.
	for _, name := range []string{"ctr", "cpc", "cpm", "roas", "conversion_rate", "cpa"} {
		c := daily.Column(name)
		num, den := daily.Column(c.Numerator), daily.Column(c.Denominator)
		if num == nil || den == nil || !num.Hidden || !den.Hidden {
			t.Fatalf("%s: ratio parts %s/%s missing or not hidden", name, c.Numerator, c.Denominator)
		}
		var sn, sd float64
		for i := range daily.Len() {
			sn += num.Numbers[i]
			sd += den.Numbers[i]
			if !c.IsNull(i) && den.Numbers[i] != 0 {
				if want := num.Numbers[i] / den.Numbers[i] * c.Scale; math.Abs(c.Numbers[i]-want) > 1e-9*math.Max(1, want) {
					t.Errorf("%s on day %s = %v, parts give %v", name, daily.Column("date").Strings[i], c.Numbers[i], want)
				}
			}
		}
		want := sn / sd * c.Scale
		got := total.Column(name).Numbers[0]
		if math.Abs(got-want) > 1e-9*math.Max(1, want) {
			t.Errorf("total %s = %v, Σ%s/Σ%s×%g over days = %v", name, got, c.Numerator, c.Denominator, c.Scale, want)
		}
	}
}

func TestRatioOverZeroIsEmpty(t *testing.T) {
	src := openTestSource(t)
	all, _ := src.Accounts(context.Background())
	// The account with no permissions reports zero everything.
	var zero *ads.Account
	for _, a := range all {
		_, tab := run(t, src, `{"account_ids":["`+a.AccountID+`"],"date_preset":"last_90d","metrics":["impressions"]}`)
		if tab.Len() == 1 && tab.Column("impressions").Numbers[0] == 0 {
			zero = &a
			break
		}
	}
	if zero == nil {
		t.Fatal("the demo dataset has no all-zero account")
	}
	_, tab := run(t, src, `{"account_ids":["`+zero.AccountID+`"],"date_preset":"last_30d","metrics":["ctr","cpc","spend"],"time_granularity":"daily"}`)
	if tab.Len() == 0 {
		t.Fatal("the zero account has no rows")
	}
	for i := range tab.Len() {
		for _, name := range []string{"ctr", "cpc"} {
			if c := tab.Column(name); !c.IsNull(i) {
				t.Fatalf("%s over a zero denominator = %v, want empty", name, c.Numbers[i])
			}
		}
	}
}

func TestISOWeeksAcrossYearEnd(t *testing.T) {
	src := openTestSource(t)
	usd := accountsWhere(t, src, func(a ads.Account) bool { return a.Currency == "USD" })[:4]
	base := `{"account_ids":` + ids(usd) + `,"date_range":{"start":"2025-12-22","end":"2026-01-11"},"metrics":["spend"]`
	_, weekly := run(t, src, base+`,"time_granularity":"weekly"}`)
	_, daily := run(t, src, base+`,"time_granularity":"daily"}`)
	weeks := weekly.Column("week").Strings
	if want := []string{"2025-12-22", "2025-12-29", "2026-01-05"}; !slices.Equal(weeks, want) {
		t.Fatalf("weeks = %v, want %v (ISO weeks labelled by their Monday)", weeks, want)
	}
	// 2025-12-29 … 2026-01-04 is one ISO week (2026-W01) although it spans two years.
	var want float64
	for i, d := range daily.Column("date").Strings {
		if d >= "2025-12-29" && d <= "2026-01-04" {
			want += daily.Column("spend").Numbers[i]
		}
	}
	if got := weekly.Column("spend").Numbers[1]; cents(got) != cents(want) {
		t.Errorf("week of 2025-12-29: spend %.2f, its days add up to %.2f", got, want)
	}
	_, monthly := run(t, src, base+`,"time_granularity":"monthly"}`)
	if got := monthly.Column("month").Strings; !slices.Equal(got, []string{"2025-12", "2026-01"}) {
		t.Errorf("months = %v", got)
	}
}

func TestMetricFiltersApplyToAggregatedRows(t *testing.T) {
	src := openTestSource(t)
	usd := accountsWhere(t, src, func(a ads.Account) bool { return a.Currency == "USD" })[:5]
	base := `{"account_ids":` + ids(usd) + `,"date_range":{"start":"2026-01-05","end":"2026-02-22"},"dimensions":["campaign_id"],"metrics":["spend","clicks"],"time_granularity":"weekly"`
	_, all := run(t, src, base+`}`)
	// A threshold above most single days but below many weekly totals: WHERE on
	// facts would return nearly nothing, HAVING on weekly rows returns those weeks.
	threshold := 500.0
	want := 0
	for i := range all.Len() {
		if all.Column("spend").Numbers[i] > threshold {
			want++
		}
	}
	_, filtered := run(t, src, base+`,"filters":[{"field":"spend","operator":"GREATER_THAN","value":500}]}`)
	if filtered.Len() != want || want == 0 {
		t.Fatalf("spend > %v kept %d weekly rows, the unfiltered result has %d such rows", threshold, filtered.Len(), want)
	}
	for i := range filtered.Len() {
		if v := filtered.Column("spend").Numbers[i]; v <= threshold {
			t.Errorf("row %d has spend %v", i, v)
		}
	}
	_, between := run(t, src, base+`,"filters":[{"field":"clicks","operator":"BETWEEN","value":[10,20]}]}`)
	for i := range between.Len() {
		if v := between.Column("clicks").Numbers[i]; v < 10 || v > 20 {
			t.Errorf("BETWEEN 10 and 20 kept clicks %v", v)
		}
	}
}

func TestCurrencyColumnWhenCurrenciesMix(t *testing.T) {
	src := openTestSource(t)
	all, _ := src.Accounts(context.Background())
	var mixed []ads.Account
	seen := map[string]bool{}
	for _, a := range all {
		if !seen[a.Currency] {
			seen[a.Currency] = true
			mixed = append(mixed, a)
		}
	}
	if len(mixed) < 3 {
		t.Fatalf("demo data has currencies %v, want USD, EUR and ARS", seen)
	}
	q, tab := run(t, src, `{"account_ids":`+ids(mixed)+`,"date_preset":"last_30d","metrics":["spend","cpc","clicks"]}`)
	if !slices.Contains(q.Dimensions, "currency") {
		t.Fatalf("currency dimension not added: %v", q.Dimensions)
	}
	if tab.Len() != len(mixed) {
		t.Fatalf("%d rows, want one per currency (%d)", tab.Len(), len(mixed))
	}
	for _, name := range []string{"spend", "cpc"} {
		if c := tab.Column(name); !c.Money || c.CurrencyColumn != "currency" {
			t.Errorf("%s: money=%v currency column %q", name, c.Money, c.CurrencyColumn)
		}
	}
	if c := tab.Column("clicks"); c.Money {
		t.Error("clicks marked as money")
	}
	// A single-currency query gets no currency column but knows its currency.
	q, tab = run(t, src, `{"account_ids":["`+mixed[0].AccountID+`"],"date_preset":"last_30d","metrics":["spend"]}`)
	if slices.Contains(q.Dimensions, "currency") || tab.Column("spend").Currency != mixed[0].Currency {
		t.Errorf("single currency: dims %v, spend currency %q", q.Dimensions, tab.Column("spend").Currency)
	}
}

func TestTextFiltersAreCaseInsensitiveParameters(t *testing.T) {
	src := openTestSource(t)
	usd := accountsWhere(t, src, func(a ads.Account) bool { return a.Currency == "USD" })[:5]
	base := `{"account_ids":` + ids(usd) + `,"date_preset":"last_90d","dimensions":["campaign_name"],"metrics":["spend"]`
	_, all := run(t, src, base+`}`)
	if all.Len() == 0 {
		t.Fatal("no campaigns")
	}
	name := all.Column("campaign_name").Strings[all.Len()-1]
	_, lower := run(t, src, base+`,"filters":[{"field":"campaign_name","operator":"EQUALS","value":"`+toLower(name)+`"}]}`)
	if lower.Len() != 1 || lower.Column("campaign_name").Strings[0] != name {
		t.Errorf("EQUALS %q (lowercased) returned %v", name, lower.Column("campaign_name").Strings)
	}
	for _, evil := range []string{`x'); DROP TABLE facts; --`, `%' OR '1'='1`, `\"; SELECT 1; --`, `_`, `%`} {
		b, _ := json.Marshal(evil)
		_, tab := run(t, src, base+`,"filters":[{"field":"campaign_name","operator":"CONTAINS","value":`+string(b)+`}]}`)
		for _, got := range tab.Column("campaign_name").Strings {
			if !containsFold(got, evil) {
				t.Errorf("CONTAINS %q returned %q", evil, got)
			}
		}
		_, in := run(t, src, base+`,"filters":[{"field":"campaign_name","operator":"IN","value":[`+string(b)+`]}]}`)
		if in.Len() != 0 {
			t.Errorf("IN [%q] returned %d rows", evil, in.Len())
		}
	}
	var n int
	if err := src.DB().QueryRow(`SELECT count(*) FROM facts`).Scan(&n); err != nil || n == 0 {
		t.Fatalf("facts after injection attempts: %d rows, %v", n, err)
	}
}

func TestLimitReportsRowsBeforeIt(t *testing.T) {
	src := openTestSource(t)
	usd := accountsWhere(t, src, func(a ads.Account) bool { return a.Currency == "USD" })[:5]
	base := `{"account_ids":` + ids(usd) + `,"date_preset":"last_90d","dimensions":["campaign_id"],"metrics":["spend"]`
	_, all := run(t, src, base+`}`)
	_, top := run(t, src, base+`,"sort":[{"field":"spend","direction":"desc"}],"limit":5}`)
	// Rows without a campaign take no place in the top 5: they come after it,
	// all of them, for the pipeline to remove and report.
	empty := 0
	for _, id := range all.Column("campaign_id").Strings {
		if id == "" {
			empty++
		}
	}
	ranked := top.Column("campaign_id").Strings
	if empty == 0 || top.Len() != 5+empty || top.RowsBeforeLimit != all.Len() || slices.Contains(ranked[:5], "") {
		t.Fatalf("top 5: %d rows (%d without a campaign in the data), %d before limit; unlimited has %d: %q",
			top.Len(), empty, top.RowsBeforeLimit, all.Len(), ranked)
	}
	top = top.Select([]int{0, 1, 2, 3, 4})
	max := 0.0
	for _, v := range all.Column("spend").Numbers {
		max = math.Max(max, v)
	}
	if top.Column("spend").Numbers[0] != max || !slices.IsSortedFunc(top.Column("spend").Numbers, func(a, b float64) int { return int(math.Copysign(1, b-a)) * boolInt(a != b) }) {
		t.Errorf("top rows not sorted by spend desc: %v (max %v)", top.Column("spend").Numbers, max)
	}
}

func TestEmptyDimensionRowsAreKept(t *testing.T) {
	src := openTestSource(t)
	usd := accountsWhere(t, src, func(a ads.Account) bool { return a.Currency == "USD" })[:5]
	_, tab := run(t, src, `{"account_ids":`+ids(usd)+`,"date_preset":"last_90d","dimensions":["campaign_name"],"metrics":["spend","impressions"],"time_granularity":"daily"}`)
	empty := 0
	for _, s := range tab.Column("campaign_name").Strings {
		if s == "" {
			empty++
		}
	}
	if empty == 0 {
		t.Error("no rows with an empty campaign_name: the source must return API artifacts for the fit pipeline to count, not hide them")
	}
}

func TestReachOnlyWhereStored(t *testing.T) {
	src := openTestSource(t)
	meta := accountsWhere(t, src, func(a ads.Account) bool { return a.Platform == "meta_ads" && a.Currency == "USD" })[:1]
	base := `{"account_ids":` + ids(meta) + `,"date_range":{"start":"2026-01-05","end":"2026-02-01"},"metrics":["reach","impressions","frequency"]`
	_, daily := run(t, src, base+`,"dimensions":["campaign_id"],"time_granularity":"daily"}`)
	_, weekly := run(t, src, base+`,"dimensions":["campaign_id"],"time_granularity":"weekly"}`)
	if daily.Column("reach") == nil || weekly.Column("reach") == nil {
		t.Fatal("reach missing at a stored grain")
	}
	maxDaily := map[string]float64{} // campaign|week → max daily reach
	sumDaily := map[string]float64{}
	for i := range daily.Len() {
		r := daily.Column("reach")
		if r.IsNull(i) {
			continue
		}
		if imp := daily.Column("impressions").Numbers[i]; r.Numbers[i] > imp {
			t.Errorf("daily reach %v above impressions %v", r.Numbers[i], imp)
		}
		d, _ := query.ParseDate(daily.Column("date").Strings[i])
		k := daily.Column("campaign_id").Strings[i] + "|" + periodStart(fit.Weekly, d).Format(time.DateOnly)
		maxDaily[k] = math.Max(maxDaily[k], r.Numbers[i])
		sumDaily[k] += r.Numbers[i]
	}
	checked := 0
	for i := range weekly.Len() {
		r := weekly.Column("reach")
		if r.IsNull(i) {
			continue
		}
		k := weekly.Column("campaign_id").Strings[i] + "|" + weekly.Column("week").Strings[i]
		if r.Numbers[i] < maxDaily[k] || r.Numbers[i] > sumDaily[k] {
			t.Errorf("%s: weekly reach %v outside [max daily %v, sum daily %v]", k, r.Numbers[i], maxDaily[k], sumDaily[k])
		}
		if f := weekly.Column("frequency"); !f.IsNull(i) && math.Abs(f.Numbers[i]-weekly.Column("impressions").Numbers[i]/r.Numbers[i]) > 1e-9 {
			t.Errorf("frequency %v ≠ impressions/reach", f.Numbers[i])
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no weekly reach values to check")
	}
	// Not stored: total over an arbitrary range, or per country.
	for _, raw := range []string{
		`{"account_ids":` + ids(meta) + `,"date_range":{"start":"2026-01-03","end":"2026-02-01"},"metrics":["reach","spend"]}`,
		base + `,"dimensions":["country"],"time_granularity":"daily"}`,
	} {
		_, tab := run(t, src, raw)
		if tab.Column("reach") != nil {
			t.Errorf("%s: reach returned where it is not stored", raw)
		}
		if len(tab.Notices) == 0 || tab.Notices[0].Type != "metric_unavailable_at_grain" {
			t.Errorf("%s: notices %v, want metric_unavailable_at_grain", raw, tab.Notices)
		}
	}
	// A whole calendar month at total grain is stored.
	_, month := run(t, src, `{"account_ids":`+ids(meta)+`,"date_range":{"start":"2026-01-01","end":"2026-01-31"},"metrics":["reach"]}`)
	if c := month.Column("reach"); c == nil || c.IsNull(0) || c.Numbers[0] <= 0 {
		t.Errorf("reach for exactly January 2026 missing")
	}
}

func TestCancelledContextStopsTheQuery(t *testing.T) {
	src := openTestSource(t)
	q := normalize(t, src, `{"account_ids":["`+accountsWhere(t, src, func(ads.Account) bool { return true })[0].AccountID+`"],"metrics":["spend"]}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := src.Query(ctx, q); err == nil {
		t.Error("query with a cancelled context succeeded")
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
