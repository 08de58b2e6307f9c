package query

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// ---- Dimension sanitization and granularity ----

func TestDimensionSanitized(t *testing.T) {
	tests := []struct {
		dims     []string
		grain    string    // time_granularity given
		want     fit.Grain // resulting grain
		inferred bool      // a granularity_inferred change is expected
		keep     []string  // dimensions left
	}{
		{[]string{"date"}, "", fit.Daily, true, nil},
		{[]string{"day"}, "", fit.Daily, true, nil},
		{[]string{"Date"}, "", fit.Daily, true, nil},
		{[]string{"DATE"}, "", fit.Daily, true, nil},
		{[]string{"date_start"}, "", fit.Daily, true, nil},
		{[]string{"date_stop"}, "", fit.Daily, true, nil},
		{[]string{"segments.date"}, "", fit.Daily, true, nil},
		{[]string{"insights.date_start"}, "", fit.Daily, true, nil},
		{[]string{"time"}, "", fit.Daily, true, nil},
		{[]string{"stat_time_day"}, "", fit.Daily, true, nil},
		{[]string{"Reporting Starts"}, "", fit.Daily, true, nil},
		{[]string{"week"}, "", fit.Weekly, true, nil},
		{[]string{"segments.week"}, "", fit.Weekly, true, nil},
		{[]string{"Week"}, "", fit.Weekly, true, nil},
		{[]string{"month"}, "", fit.Monthly, true, nil},
		{[]string{"segments.month"}, "", fit.Monthly, true, nil},
		{[]string{"year"}, "", fit.Total, false, nil},
		{[]string{"hour"}, "", fit.Total, false, nil},
		{[]string{"quarter"}, "", fit.Quarterly, true, nil},
		{[]string{"segments.quarter"}, "", fit.Quarterly, true, nil},
		{[]string{"quarter", "month"}, "", fit.Monthly, true, nil},
		{[]string{"year", "quarter"}, "", fit.Quarterly, true, nil},
		{[]string{"day_of_week"}, "", fit.Total, false, nil},
		// The finest grain wins, whatever the order.
		{[]string{"month", "date"}, "", fit.Daily, true, nil},
		{[]string{"date", "month"}, "", fit.Daily, true, nil},
		{[]string{"week", "month", "year"}, "", fit.Weekly, true, nil},
		{[]string{"year", "month"}, "", fit.Monthly, true, nil},
		// Other dimensions stay, in order.
		{[]string{"campaign_name", "date", "country"}, "", fit.Daily, true, []string{"campaign_name", "country"}},
		// An explicit granularity is kept.
		{[]string{"date"}, "monthly", fit.Monthly, false, nil},
		{[]string{"month"}, "daily", fit.Daily, false, nil},
		{[]string{"week"}, "total", fit.Total, false, nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.dims, tt.grain), func(t *testing.T) {
			a := base()
			a.Dimensions = tt.dims
			a.TimeGranularity = tt.grain
			q := mustNormalize(t, a)
			if q.Grain != tt.want {
				t.Errorf("grain %q, want %q", q.Grain, tt.want)
			}
			if !slices.Equal(q.Dimensions, tt.keep) {
				t.Errorf("dimensions %v, want %v", q.Dimensions, tt.keep)
			}
			var removed []string
			for _, c := range changesOf(q, ChangeDimensionSanitized) {
				removed = append(removed, c.From)
				if c.Field != "dimensions" || !strings.Contains(c.Detail, "time_granularity") {
					t.Errorf("change %+v", c)
				}
			}
			var times []string
			for _, d := range tt.dims {
				if !slices.Contains(tt.keep, d) {
					times = append(times, d)
				}
			}
			if !slices.Equal(removed, times) {
				t.Errorf("sanitized %v, want %v", removed, times)
			}
			inf := changesOf(q, ChangeGranularityInferred)
			if tt.inferred != (len(inf) == 1) || len(inf) > 1 {
				t.Errorf("granularity_inferred changes %+v, want inferred=%v", inf, tt.inferred)
			}
			if len(inf) == 1 && inf[0].To != string(tt.want) {
				t.Errorf("inferred %q, want %q", inf[0].To, tt.want)
			}
		})
	}
}

func TestTimeWordInMetricsRemoved(t *testing.T) {
	a := base()
	a.Metrics = []string{"spend", "date"}
	q := mustNormalize(t, a)
	if !slices.Equal(q.Metrics, []string{"spend"}) || q.Grain != fit.Daily {
		t.Errorf("metrics %v grain %s", q.Metrics, q.Grain)
	}
	if c := oneChange(t, q, ChangeDimensionSanitized); c.Field != "metrics" || c.From != "date" {
		t.Errorf("change %+v", c)
	}
	// Only time words among the metrics: nothing left to measure.
	a.Metrics = []string{"date"}
	problemAt(t, mustFail(t, a), "metrics")
}

// No catalog name or synonym may be mistaken for a time word (it would be
// silently removed), and every time word must be unknown to the catalog.
func TestTimeWordsDoNotShadowFields(t *testing.T) {
	for _, f := range catalog.Fields() {
		for _, s := range append([]string{f.Name}, f.Synonyms...) {
			if IsTimeWord(s) {
				t.Errorf("%s (of %s) is a time word", s, f.Name)
			}
		}
	}
	for w := range timeWords {
		if f, _, ok := catalog.Resolve(w); ok {
			t.Errorf("time word %q resolves to field %s", w, f.Name)
		}
	}
	for _, w := range []string{"date", "Date", "segments.date", "DAY", "date-start", "insights.date_stop", "Week", "month", "year"} {
		if !IsTimeWord(w) {
			t.Errorf("IsTimeWord(%q) = false", w)
		}
	}
	for _, w := range []string{"spend", "campaign_name", "", "dates_of_birth", "metrics", "segments"} {
		if IsTimeWord(w) {
			t.Errorf("IsTimeWord(%q) = true", w)
		}
	}
}

func TestGranularity(t *testing.T) {
	tests := []struct {
		in      string
		want    fit.Grain
		changed bool
	}{
		{"", fit.Total, false},
		{"daily", fit.Daily, false},
		{"weekly", fit.Weekly, false},
		{"monthly", fit.Monthly, false},
		{"quarterly", fit.Quarterly, false},
		{"total", fit.Total, false},
		{"Quarter", fit.Quarterly, true},
		{"quarters", fit.Quarterly, true},
		{"Daily", fit.Daily, true},
		{"day", fit.Daily, true},
		{"WEEK", fit.Weekly, true},
		{"month", fit.Monthly, true},
		{"all_days", fit.Total, true},
		{"1", fit.Daily, true},
		{"7", fit.Weekly, true},
	}
	for _, tt := range tests {
		a := base()
		a.TimeGranularity = tt.in
		q := mustNormalize(t, a)
		if q.Grain != tt.want {
			t.Errorf("%q → %q, want %q", tt.in, q.Grain, tt.want)
		}
		if got := len(changesOf(q, ChangeValueNormalized)) == 1; got != tt.changed {
			t.Errorf("%q: changes %+v", tt.in, q.Changes)
		}
		if q.TimeColumn() != tt.want.TimeColumn() {
			t.Errorf("TimeColumn %q", q.TimeColumn())
		}
	}
	for _, bad := range []string{"hourly", "yearly", "dialy", "quartely", "x"} {
		a := base()
		a.TimeGranularity = bad
		p := problemAt(t, mustFail(t, a), "time_granularity")
		if !slices.Equal(p.Valid, []string{"daily", "weekly", "monthly", "quarterly", "total"}) {
			t.Errorf("%q: valid %v", bad, p.Valid)
		}
		if bad == "dialy" && (len(p.Closest) == 0 || p.Closest[0] != "daily") {
			t.Errorf("dialy: closest %v", p.Closest)
		}
		if bad == "quartely" && (len(p.Closest) == 0 || p.Closest[0] != "quarterly") {
			t.Errorf("quartely: closest %v", p.Closest)
		}
	}
}

// ---- Field names ----

func TestFieldRenamed(t *testing.T) {
	tests := []struct {
		arg  string // "dimensions" or "metrics"
		in   string
		want string
	}{
		{"dimensions", "Campaign Name", "campaign_name"},
		{"dimensions", "campaign.name", "campaign_name"},
		{"dimensions", "campaignName", "campaign_name"},
		{"dimensions", "CAMPAIGN_NAME", "campaign_name"},
		{"dimensions", "ad group name", "adset_name"},
		{"dimensions", "segments.device", "device"},
		{"dimensions", "customer_id", "account_id"},
		{"dimensions", "campaign", "campaign_name"},
		{"metrics", "cost", "spend"},
		{"metrics", "COST", "spend"},
		{"metrics", "Amount Spent", "spend"},
		{"metrics", "metrics.clicks", "clicks"},
		{"metrics", "metrics.cost", "spend"},
		{"metrics", "revenue", "conversion_value"},
		{"metrics", "purchases", "conversions"},
		{"metrics", "CTR", "ctr"},
		{"metrics", "cost-per-click", "cpc"},
	}
	for _, tt := range tests {
		a := base()
		if tt.arg == "dimensions" {
			a.Dimensions = []string{tt.in}
		} else {
			a.Metrics = []string{tt.in}
		}
		q := mustNormalize(t, a)
		got := q.Metrics
		if tt.arg == "dimensions" {
			got = q.Dimensions
		}
		if !slices.Equal(got, []string{tt.want}) {
			t.Errorf("%s %q → %v, want %s", tt.arg, tt.in, got, tt.want)
			continue
		}
		c := oneChange(t, q, ChangeFieldRenamed)
		if c.Field != tt.arg || c.From != tt.in || c.To != tt.want {
			t.Errorf("%q: change %+v", tt.in, c)
		}
	}
	// Canonical names are not reported.
	a := base()
	a.Dimensions = []string{"campaign_name", "country"}
	a.Metrics = []string{"spend", "ctr"}
	q := mustNormalize(t, a)
	if len(q.Changes) != 0 {
		t.Errorf("canonical query reported changes: %+v", q.Changes)
	}
}

func TestFieldMoved(t *testing.T) {
	a := base()
	a.Dimensions = []string{"campaign_name", "clicks"}
	a.Metrics = []string{"spend", "country"}
	q := mustNormalize(t, a)
	if !slices.Equal(q.Dimensions, []string{"campaign_name", "country"}) || !slices.Equal(q.Metrics, []string{"clicks", "spend"}) {
		t.Fatalf("dimensions %v metrics %v", q.Dimensions, q.Metrics)
	}
	moved := changesOf(q, ChangeFieldMoved)
	if len(moved) != 2 {
		t.Fatalf("moved: %+v", moved)
	}
	want := []Change{
		{Type: ChangeFieldMoved, Field: "clicks", From: "dimensions", To: "metrics"},
		{Type: ChangeFieldMoved, Field: "country", From: "metrics", To: "dimensions"},
	}
	for i, c := range moved {
		c.Detail = ""
		if c != want[i] {
			t.Errorf("moved[%d] = %+v, want %+v", i, c, want[i])
		}
	}
	// A synonym in the wrong list is both renamed and moved.
	a = base()
	a.Dimensions = []string{"cost"}
	a.Metrics = []string{"clicks"}
	q = mustNormalize(t, a)
	if len(q.Dimensions) != 0 || !slices.Equal(q.Metrics, []string{"spend", "clicks"}) {
		t.Errorf("dimensions %v metrics %v", q.Dimensions, q.Metrics)
	}
	oneChange(t, q, ChangeFieldRenamed)
	oneChange(t, q, ChangeFieldMoved)
}

// A metric that was only given among the dimensions still counts as the query's
// metric: the mistake is corrected and reported, not rejected.
func TestMetricOnlyInDimensions(t *testing.T) {
	a := Args{AccountIDs: usdMeta, Dimensions: []string{"campaign_name", "spend"}}
	q := mustNormalize(t, a)
	if !slices.Equal(q.Metrics, []string{"spend"}) || !slices.Equal(q.Dimensions, []string{"campaign_name"}) {
		t.Errorf("dimensions %v metrics %v", q.Dimensions, q.Metrics)
	}
	oneChange(t, q, ChangeFieldMoved)
}

func TestDuplicatesRemoved(t *testing.T) {
	a := base()
	a.Dimensions = []string{"campaign_name", "Campaign Name", "campaign"}
	a.Metrics = []string{"spend", "cost", "Spend", "clicks"}
	q := mustNormalize(t, a)
	if !slices.Equal(q.Dimensions, []string{"campaign_name"}) || !slices.Equal(q.Metrics, []string{"spend", "clicks"}) {
		t.Errorf("dimensions %v metrics %v", q.Dimensions, q.Metrics)
	}
	if d := changesOf(q, ChangeDuplicateRemoved); len(d) != 4 {
		t.Errorf("duplicate_removed: %+v", d)
	}
}

func TestUnknownFields(t *testing.T) {
	a := base()
	a.Dimensions = []string{"campaign_name", "campain_name"}
	a.Metrics = []string{"spnd", "clicks"}
	e := mustFail(t, a)
	if len(e.Problems) != 2 {
		t.Errorf("want 2 problems, got %v", e)
	}
	p := problemAt(t, e, "dimensions[1]")
	if p.Value != "campain_name" || len(p.Closest) == 0 || p.Closest[0] != "campaign_name" {
		t.Errorf("dimension problem %+v", p)
	}
	if !slices.Equal(p.Valid, catalog.Names(catalog.Dimension)) {
		t.Errorf("valid dimensions %v", p.Valid)
	}
	p = problemAt(t, e, "metrics[0]")
	if len(p.Closest) == 0 || p.Closest[0] != "spend" {
		t.Errorf("metric problem %+v", p)
	}
	if !slices.Equal(p.Valid, catalog.Names(catalog.Metric)) {
		t.Errorf("valid metrics %v", p.Valid)
	}
	if !strings.Contains(e.Error(), "did you mean spend") {
		t.Errorf("message %q", e.Error())
	}
}

func TestMetricsRequired(t *testing.T) {
	for name, m := range map[string][]string{"omitted": nil, "empty": {}} {
		a := base()
		a.Metrics = m
		p := problemAt(t, mustFail(t, a), "metrics")
		if len(p.Valid) == 0 || p.Fix == "" {
			t.Errorf("%s: %+v", name, p)
		}
	}
}

// SQL in a field name is an unknown field, never a field: names are only ever
// matched against the catalog.
func TestSQLInFieldNamesRejected(t *testing.T) {
	evil := []string{
		"spend; DROP TABLE facts",
		"campaign_name' OR 1=1 --",
		"spend) UNION SELECT * FROM accounts --",
		"campaign_name, (SELECT 1)",
		"1; DELETE FROM facts",
		"spend/**/OR/**/1=1",
		`campaign_name" OR ""="`,
	}
	for _, s := range evil {
		for _, arg := range []string{"dimensions", "metrics", "filter", "sort"} {
			a := base()
			a.Dimensions = []string{"campaign_name"}
			field := arg + "s[0]"
			switch arg {
			case "dimensions":
				a.Dimensions = []string{s}
				field = "dimensions[0]"
			case "metrics":
				a.Metrics = []string{s}
				field = "metrics[0]"
			case "filter":
				a.Filters = []FilterArg{{Field: s, Operator: "EQUALS", Value: "x"}}
				field = "filters[0].field"
			case "sort":
				a.Sort = []SortArg{{Field: s}}
				field = "sort[0].field"
			}
			q, err := Normalize(a, testOptions())
			if err == nil {
				t.Errorf("%s %q accepted: dims %v metrics %v filters %+v sort %+v", arg, s, q.Dimensions, q.Metrics, q.Filters, q.Sort)
				continue
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%T", err)
			}
			checkProblems(t, e)
			problemAt(t, e, field)
		}
	}
}

// SQL in a value is only a value: sources pass values as parameters.
func TestSQLInValuesIsPlainValue(t *testing.T) {
	for _, v := range []string{"x'; DROP TABLE facts; --", `' OR '1'='1`, "Robert'); DROP TABLE Students;--", "%_\\"} {
		a := base()
		a.Filters = []FilterArg{
			{Field: "campaign_name", Operator: "CONTAINS", Value: v},
			{Field: "ad_name", Operator: "IN", Value: []any{v, "b"}},
		}
		q := mustNormalize(t, a)
		if q.Filters[0].Values[0] != v || q.Filters[1].Values[0] != v {
			t.Errorf("value %q became %v / %v", v, q.Filters[0].Values, q.Filters[1].Values)
		}
	}
}

// ---- Accounts ----

func ids(n int) []string {
	var out []string
	for _, a := range testAccounts()[:n] {
		out = append(out, a.AccountID)
	}
	return out
}

func TestAccountGuardrail(t *testing.T) {
	if DefaultMaxAccounts != 10 {
		t.Fatalf("DefaultMaxAccounts = %d", DefaultMaxAccounts)
	}
	tooMany := func(t *testing.T, a Args, opt Options) *TooManyAccountsError {
		t.Helper()
		q, err := Normalize(a, opt)
		var e *TooManyAccountsError
		if !errors.As(err, &e) {
			t.Fatalf("got %v, %v; want *TooManyAccountsError", q, err)
		}
		if q != nil {
			t.Errorf("query returned with the error")
		}
		if !strings.Contains(e.Error(), fmt.Sprint(e.Max)) || !strings.Contains(e.Error(), fmt.Sprint(e.Requested)) {
			t.Errorf("message %q lacks the numbers", e.Error())
		}
		return e
	}
	t.Run("11 explicit", func(t *testing.T) {
		e := tooMany(t, Args{AccountIDs: ids(11), Metrics: []string{"spend"}}, testOptions())
		if e.Max != 10 || e.Requested != 11 || !e.Explicit {
			t.Errorf("%+v", e)
		}
	})
	t.Run("10 explicit", func(t *testing.T) {
		q := mustNormalize(t, Args{AccountIDs: ids(10), Metrics: []string{"spend"}})
		if len(q.Accounts) != 10 {
			t.Errorf("%d accounts", len(q.Accounts))
		}
	})
	t.Run("11 given, 10 distinct", func(t *testing.T) {
		mustNormalize(t, Args{AccountIDs: append(ids(10), "act_1011"), Metrics: []string{"spend"}})
	})
	t.Run("omitted, 14 visible", func(t *testing.T) {
		e := tooMany(t, Args{Metrics: []string{"spend"}}, testOptions())
		if e.Max != 10 || e.Requested != 14 || e.Explicit {
			t.Errorf("%+v", e)
		}
		if !strings.Contains(e.Error(), "omitting account_ids") {
			t.Errorf("message %q", e.Error())
		}
	})
	t.Run("omitted, platforms narrow it", func(t *testing.T) {
		q := mustNormalize(t, Args{Platforms: []string{"meta_ads"}, Metrics: []string{"spend"}})
		if got := q.AccountIDs(); !slices.Equal(got, ids(6)) {
			t.Errorf("accounts %v", got)
		}
		q = mustNormalize(t, Args{Platforms: []string{"meta_ads", "tiktok_ads"}, Metrics: []string{"clicks"}})
		if len(q.Accounts) != 9 {
			t.Errorf("%d accounts", len(q.Accounts))
		}
	})
	t.Run("omitted, platforms still too many", func(t *testing.T) {
		e := tooMany(t, Args{Platforms: []string{"meta_ads", "google_ads"}, Metrics: []string{"spend"}}, testOptions())
		if e.Requested != 11 || e.Explicit {
			t.Errorf("%+v", e)
		}
	})
	t.Run("configurable", func(t *testing.T) {
		opt := testOptions()
		opt.MaxAccounts = 3
		e := tooMany(t, Args{AccountIDs: ids(4), Metrics: []string{"spend"}}, opt)
		if e.Max != 3 || e.Requested != 4 {
			t.Errorf("%+v", e)
		}
		mustNormalizeWith(t, Args{AccountIDs: ids(3), Metrics: []string{"spend"}}, opt)
		opt.MaxAccounts = 20
		q := mustNormalizeWith(t, Args{Metrics: []string{"clicks"}}, opt)
		if len(q.Accounts) != 14 {
			t.Errorf("%d accounts", len(q.Accounts))
		}
	})
	t.Run("invalid query wins over too many", func(t *testing.T) {
		mustFail(t, Args{AccountIDs: ids(11), Metrics: []string{"spnd"}})
	})
}

func TestAccountForgiveness(t *testing.T) {
	tests := []struct {
		in, want string
		changed  bool
	}{
		{"act_1015", "act_1015", false},
		{"1015", "act_1015", true},
		{"ACT_1015", "act_1015", true},
		{" act_1015 ", "act_1015", true},
		{"1234567801", "123-456-7801", true},
		{"123-456-7801", "123-456-7801", false},
		{"Acme Brand", "act_1015", true},
		{"acme brand", "act_1015", true},
		{"7100000000000000002", "7100000000000000002", false},
	}
	for _, tt := range tests {
		q := mustNormalize(t, Args{AccountIDs: []string{tt.in}, Metrics: []string{"spend"}})
		if got := q.AccountIDs(); !slices.Equal(got, []string{tt.want}) {
			t.Errorf("%q → %v, want %s", tt.in, got, tt.want)
			continue
		}
		cs := changesOf(q, ChangeValueNormalized)
		if tt.changed != (len(cs) == 1) || len(cs) > 1 {
			t.Errorf("%q: changes %+v", tt.in, q.Changes)
		} else if tt.changed && (cs[0].From != tt.in || cs[0].To != tt.want || cs[0].Field != "account_ids") {
			t.Errorf("%q: change %+v", tt.in, cs[0])
		}
	}
	// The same account twice, written differently, is queried once.
	q := mustNormalize(t, Args{AccountIDs: []string{"act_1015", "1015", "Acme Brand"}, Metrics: []string{"spend"}})
	if !slices.Equal(q.AccountIDs(), []string{"act_1015"}) {
		t.Errorf("accounts %v", q.AccountIDs())
	}
	if len(changesOf(q, ChangeDuplicateRemoved)) != 2 {
		t.Errorf("changes %+v", q.Changes)
	}
	// Order is kept as given.
	q = mustNormalize(t, Args{AccountIDs: []string{"act_1013", "act_1011"}, Metrics: []string{"spend"}})
	if !slices.Equal(q.AccountIDs(), []string{"act_1013", "act_1011"}) {
		t.Errorf("accounts %v", q.AccountIDs())
	}
}

func TestUnknownAccounts(t *testing.T) {
	e := mustFail(t, Args{AccountIDs: []string{"act_1011", "act_1019", "act_9999999", "Acme Shoes"}, Metrics: []string{"spend"}})
	if len(e.Problems) != 3 {
		t.Errorf("problems: %v", e)
	}
	p := problemAt(t, e, "account_ids[1]")
	if p.Value != "act_1019" || len(p.Closest) == 0 {
		t.Errorf("%+v", p)
	}
	known := map[string]bool{}
	for _, a := range testAccounts() {
		known[a.AccountID] = true
	}
	for _, c := range p.Closest {
		if !known[c] {
			t.Errorf("closest %q is not an account id", c)
		}
	}
	if !strings.Contains(p.Fix, "list_accounts") {
		t.Errorf("fix %q", p.Fix)
	}
	// A misspelt name suggests the account's ID.
	p = problemAt(t, e, "account_ids[3]")
	if len(p.Closest) == 0 || p.Closest[0] != "act_1011" {
		t.Errorf("closest to %q: %v", p.Value, p.Closest)
	}
	// An SQL fragment is just an unknown id.
	problemAt(t, mustFail(t, Args{AccountIDs: []string{"act_1011' OR 1=1 --"}, Metrics: []string{"spend"}}), "account_ids[0]")
}

func TestAmbiguousAccountName(t *testing.T) {
	opt := testOptions()
	opt.Accounts = append(opt.Accounts, ads.Account{AccountID: "act_2000", Platform: "meta_ads", AccountName: "Acme Brand", Currency: "USD", Timezone: "UTC"})
	p := problemAt(t, mustFailWith(t, Args{AccountIDs: []string{"acme brand"}, Metrics: []string{"spend"}}, opt), "account_ids[0]")
	if !slices.Equal(p.Valid, []string{"act_1015", "act_2000"}) {
		t.Errorf("%+v", p)
	}
	// The ID still works.
	mustNormalizeWith(t, Args{AccountIDs: []string{"act_2000"}, Metrics: []string{"spend"}}, opt)
}

func TestAccountsEdgeCases(t *testing.T) {
	problemAt(t, mustFail(t, Args{AccountIDs: []string{}, Metrics: []string{"spend"}}), "account_ids")
	// Account on a platform that platforms excludes.
	p := problemAt(t, mustFail(t, Args{AccountIDs: []string{"act_1011"}, Platforms: []string{"google_ads"}, Metrics: []string{"spend"}}), "account_ids[0]")
	if !strings.Contains(p.Problem, "meta_ads") {
		t.Errorf("%+v", p)
	}
	// No account at all.
	opt := testOptions()
	opt.Accounts = nil
	p = problemAt(t, mustFailWith(t, Args{Metrics: []string{"spend"}}, opt), "account_ids")
	if strings.Contains(p.Problem, "platforms") {
		t.Errorf("no accounts and no platforms given, yet: %+v", p)
	}
	// Platforms with no account.
	opt.Accounts = testAccounts()[:6]
	p = problemAt(t, mustFailWith(t, Args{Platforms: []string{"tiktok"}, Metrics: []string{"spend"}}, opt), "platforms")
	if !slices.Equal(p.Valid, []string{"meta_ads"}) {
		t.Errorf("%+v", p)
	}
}

// ---- Platforms ----

func TestPlatforms(t *testing.T) {
	tests := []struct {
		in   []string
		want []string
	}{
		{[]string{"meta_ads"}, []string{"meta_ads"}},
		{[]string{"Facebook"}, []string{"meta_ads"}},
		{[]string{"facebook ads"}, []string{"meta_ads"}},
		{[]string{"Meta"}, []string{"meta_ads"}},
		{[]string{"Google Ads"}, []string{"google_ads"}},
		{[]string{"adwords"}, []string{"google_ads"}},
		{[]string{"TikTok"}, []string{"tiktok_ads"}},
		{[]string{"meta", "facebook", "meta_ads"}, []string{"meta_ads"}},
		{[]string{"tiktok_ads", "META_ADS"}, []string{"tiktok_ads", "meta_ads"}},
	}
	for _, tt := range tests {
		q := mustNormalize(t, Args{Platforms: tt.in, Metrics: []string{"clicks"}})
		if !slices.Equal(q.Platforms, tt.want) {
			t.Errorf("%v → %v, want %v", tt.in, q.Platforms, tt.want)
		}
		for _, a := range q.Accounts {
			if !slices.Contains(tt.want, a.Platform) {
				t.Errorf("%v: account %s on %s", tt.in, a.AccountID, a.Platform)
			}
		}
		renamed := 0
		for _, s := range tt.in {
			if !slices.Contains(catalog.AllPlatforms, s) {
				renamed++
			}
		}
		if got := len(changesOf(q, ChangeValueNormalized)); got != renamed {
			t.Errorf("%v: %d value_normalized changes, want %d", tt.in, got, renamed)
		}
	}
	e := mustFail(t, Args{Platforms: []string{"myspace", "facebok"}, Metrics: []string{"spend"}})
	p := problemAt(t, e, "platforms[0]")
	if !slices.Equal(p.Valid[:3], catalog.AllPlatforms) || !slices.Contains(p.Valid, "instagram") || len(p.Closest) != 0 {
		t.Errorf("%+v", p)
	}
	p = problemAt(t, e, "platforms[1]")
	if len(p.Closest) == 0 || p.Closest[0] != "meta_ads" {
		t.Errorf("facebok: %+v", p)
	}
	problemAt(t, mustFail(t, Args{Platforms: []string{}, Metrics: []string{"spend"}}), "platforms")
}

// ---- Filters ----

func TestOperators(t *testing.T) {
	tests := []struct {
		field string
		op    string
		value any
		want  Operator // "" = rejected at .operator
	}{
		{"spend", "GREATER_THAN", 100, GreaterThan},
		{"spend", ">", 100, GreaterThan},
		{"spend", " > ", 100, GreaterThan},
		{"spend", "gt", 100, GreaterThan},
		{"spend", ">=", 100, GreaterThanOrEqual},
		{"spend", "gte", 100, GreaterThanOrEqual},
		{"spend", "greater than or equal", 100, GreaterThanOrEqual},
		{"spend", "<", 100, LessThan},
		{"spend", "lte", 100, LessThanOrEqual},
		{"spend", "less_than_or_equal", 100, LessThanOrEqual},
		{"spend", "=", 100, Equals},
		{"spend", "!=", 100, NotEquals},
		{"spend", "between", []any{1, 2}, Between},
		{"spend", "in", []any{1, 2}, In},
		{"spend", "CONTAINS", "1", ""},
		{"spend", "STARTS_WITH", "1", ""},
		{"clicks", "NOT_CONTAINS", "1", ""},
		{"campaign_name", "EQUALS", "Brand", Equals},
		{"campaign_name", "equals", "Brand", Equals},
		{"campaign_name", "==", "Brand", Equals},
		{"campaign_name", "<>", "Brand", NotEquals},
		{"campaign_name", "not equals", "Brand", NotEquals},
		{"campaign_name", "contains", "brand", Contains},
		{"campaign_name", "LIKE", "brand", Contains},
		{"campaign_name", "Not Contains", "brand", NotContains},
		{"campaign_name", "starts with", "brand", StartsWith},
		{"campaign_name", "not in", []any{"a"}, NotIn},
		{"campaign_name", "GREATER_THAN", "a", ""},
		{"campaign_name", ">", "a", ""},
		{"campaign_name", "BETWEEN", []any{"a", "b"}, ""},
		{"campaign_name", "LESS_THAN_OR_EQUAL", "a", ""},
		{"campaign_name", "~=", "a", ""},
		{"campaign_name", "", "a", ""},
	}
	for _, tt := range tests {
		a := base()
		a.Filters = []FilterArg{{Field: tt.field, Operator: tt.op, Value: tt.value}}
		if tt.want == "" {
			p := problemAt(t, mustFail(t, a), "filters[0].operator")
			valid := opNames(TextOperators)
			if f := catalog.MustLookup(tt.field); f.IsMetric() {
				valid = opNames(NumberOperators)
			}
			if !slices.Equal(p.Valid, valid) {
				t.Errorf("%s %q: valid %v, want %v", tt.field, tt.op, p.Valid, valid)
			}
			continue
		}
		q := mustNormalize(t, a)
		if len(q.Filters) != 1 || q.Filters[0].Operator != tt.want {
			t.Errorf("%s %q → %+v, want %s", tt.field, tt.op, q.Filters, tt.want)
			continue
		}
		cs := changesOf(q, ChangeValueNormalized)
		if (tt.op != string(tt.want)) != (len(cs) == 1) {
			t.Errorf("%q: changes %+v", tt.op, q.Changes)
		}
	}
	// Every operator is valid on some type, and the lists are the documented ones.
	for _, op := range Operators {
		if !slices.Contains(TextOperators, op) && !slices.Contains(NumberOperators, op) {
			t.Errorf("%s is valid on no type", op)
		}
		if got, ok := parseOperator(string(op)); !ok || got != op {
			t.Errorf("parseOperator(%s) = %s, %v", op, got, ok)
		}
	}
	if len(Operators) != 12 {
		t.Errorf("%d operators, spec lists 12", len(Operators))
	}
}

func TestFilterValues(t *testing.T) {
	long := strings.Repeat("x", MaxValueLength+1)
	many := make([]any, MaxFilterValues+1)
	for i := range many {
		many[i] = fmt.Sprint(i)
	}
	tests := []struct {
		name  string
		field string
		op    string
		value any
		want  []any // nil: rejected at filters[0].value
	}{
		// Metrics take numbers, numeric strings included.
		{"float", "spend", ">", 100.5, []any{100.5}},
		{"int", "spend", ">", 100, []any{100.0}},
		{"json number", "spend", ">", json.Number("100"), []any{100.0}},
		{"numeric string", "spend", ">", "100", []any{100.0}},
		{"numeric string, spaces", "ctr", ">=", " 2.5 ", []any{2.5}},
		{"negative", "roas", "<", "-1e2", []any{-100.0}},
		{"word", "spend", ">", "lots", nil},
		{"empty string", "spend", ">", "", nil},
		{"bool", "spend", ">", true, nil},
		{"null", "spend", ">", nil, nil},
		{"object", "spend", ">", map[string]any{"a": 1}, nil},
		{"NaN", "spend", ">", "NaN", nil},
		{"Inf", "spend", ">", "Inf", nil},
		{"overflow", "spend", ">", json.Number("1e999"), nil},
		{"array to single", "spend", ">", []any{1}, nil},
		// Dimensions take strings, numbers converted.
		{"string", "campaign_name", "EQUALS", "Brand", []any{"Brand"}},
		{"number to text", "campaign_id", "EQUALS", json.Number("120210000000001"), []any{"120210000000001"}},
		{"float to text", "campaign_name", "EQUALS", 1.5, []any{"1.5"}},
		{"int to text", "campaign_name", "EQUALS", 42, []any{"42"}},
		{"empty text ok", "campaign_name", "EQUALS", "", []any{""}},
		{"bool text", "campaign_name", "EQUALS", false, nil},
		{"null text", "campaign_name", "EQUALS", nil, nil},
		{"array to EQUALS", "campaign_name", "EQUALS", []any{"a", "b"}, nil},
		{"too long", "campaign_name", "CONTAINS", long, nil},
		{"at max length", "campaign_name", "CONTAINS", long[1:], []any{long[1:]}},
		{"platform canonical", "platform", "EQUALS", "Facebook", []any{"meta_ads"}},
		{"platform IN canonical", "platform", "IN", []any{"google", "TikTok"}, []any{"google_ads", "tiktok_ads"}},
		{"account_id canonical", "account_id", "EQUALS", "1015", []any{"act_1015"}},
		{"account_id by name", "account_id", "NOT_EQUALS", "Acme Brand", []any{"act_1015"}},
		{"account_id IN canonical", "account_id", "IN", []any{"1234567801", "act_1011"}, []any{"123-456-7801", "act_1011"}},
		{"account_id CONTAINS untouched", "account_id", "CONTAINS", "1015", []any{"1015"}},
		{"account_id unknown kept", "account_id", "EQUALS", "999", []any{"999"}},
		// IN / NOT_IN need non-empty arrays.
		{"IN", "country", "IN", []any{"US", "AR"}, []any{"US", "AR"}},
		{"IN numbers", "clicks", "IN", []any{json.Number("1"), "2"}, []any{1.0, 2.0}},
		{"NOT_IN one", "country", "NOT_IN", []any{"US"}, []any{"US"}},
		{"IN empty", "country", "IN", []any{}, nil},
		{"NOT_IN empty", "country", "NOT_IN", []any{}, nil},
		{"IN scalar", "country", "IN", "US", nil},
		{"IN null", "country", "IN", nil, nil},
		{"IN with null item", "country", "IN", []any{"US", nil}, nil},
		{"IN too many", "country", "IN", many, nil},
		{"IN at max", "country", "IN", many[1:], many[1:]},
		// BETWEEN: exactly two numbers, low ≤ high.
		{"BETWEEN", "spend", "BETWEEN", []any{10, 100}, []any{10.0, 100.0}},
		{"BETWEEN equal", "spend", "BETWEEN", []any{5, 5}, []any{5.0, 5.0}},
		{"BETWEEN strings", "spend", "BETWEEN", []any{"10", json.Number("20")}, []any{10.0, 20.0}},
		{"BETWEEN reversed", "spend", "BETWEEN", []any{100, 10}, nil},
		{"BETWEEN one", "spend", "BETWEEN", []any{10}, nil},
		{"BETWEEN three", "spend", "BETWEEN", []any{1, 2, 3}, nil},
		{"BETWEEN empty", "spend", "BETWEEN", []any{}, nil},
		{"BETWEEN scalar", "spend", "BETWEEN", 10, nil},
		{"BETWEEN text", "spend", "BETWEEN", []any{"a", 10}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := base()
			a.Filters = []FilterArg{{Field: tt.field, Operator: tt.op, Value: tt.value}}
			if tt.want == nil {
				p := problemAt(t, mustFail(t, a), "filters[0].value")
				if p.Fix == "" || !strings.Contains(p.Fix, tt.field) {
					t.Errorf("fix %q", p.Fix)
				}
				return
			}
			q := mustNormalize(t, a)
			f := q.Filters[0]
			if !reflect.DeepEqual(f.Values, tt.want) {
				t.Errorf("values %#v, want %#v", f.Values, tt.want)
			}
			if f.Field != tt.field || f.Metric != catalog.MustLookup(tt.field).IsMetric() {
				t.Errorf("filter %+v", f)
			}
			// A text value rewritten is reported.
			rewritten := 0
			if in, ok := tt.value.([]any); ok && !f.Metric {
				for i := range in {
					if s, isStr := in[i].(string); isStr && s != f.Values[i] {
						rewritten++
					}
				}
			} else if s, isStr := tt.value.(string); isStr && !f.Metric && s != f.Values[0] {
				rewritten++
			}
			var vc []Change
			for _, c := range changesOf(q, ChangeValueNormalized) {
				if c.Field == "filters[0].value" {
					vc = append(vc, c)
				}
			}
			if len(vc) != rewritten {
				t.Errorf("%d value changes, want %d: %+v", len(vc), rewritten, q.Changes)
			}
		})
	}
}

func TestFilterFields(t *testing.T) {
	// Time cannot be filtered: the fix points to date_range.
	for _, f := range []string{"date", "Date", "segments.date", "day", "date_start", "month"} {
		a := base()
		a.Filters = []FilterArg{{Field: f, Operator: ">", Value: "2026-01-01"}}
		p := problemAt(t, mustFail(t, a), "filters[0].field")
		if !strings.Contains(p.Fix, "date_range") {
			t.Errorf("%s: fix %q", f, p.Fix)
		}
	}
	// Unknown and missing fields.
	a := base()
	a.Filters = []FilterArg{{Field: "campain_name", Operator: "CONTAINS", Value: "x"}, {Field: " ", Operator: "EQUALS", Value: "x"}}
	e := mustFail(t, a)
	if p := problemAt(t, e, "filters[0].field"); len(p.Closest) == 0 || p.Closest[0] != "campaign_name" {
		t.Errorf("%+v", p)
	}
	if p := problemAt(t, e, "filters[1].field"); p.Problem != "is missing" {
		t.Errorf("%+v", p)
	}
	// Forgiven names, metric and dimension filters; the filter field needn't be returned.
	a = base()
	a.Filters = []FilterArg{{Field: "Cost", Operator: ">", Value: 10}, {Field: "Campaign Name", Operator: "contains", Value: "brand"}}
	q := mustNormalize(t, a)
	want := []Filter{
		{Field: "spend", Operator: GreaterThan, Values: []any{10.0}, Metric: true},
		{Field: "campaign_name", Operator: Contains, Values: []any{"brand"}, Metric: false},
	}
	if !reflect.DeepEqual(q.Filters, want) {
		t.Errorf("filters %+v, want %+v", q.Filters, want)
	}
	rn := changesOf(q, ChangeFieldRenamed)
	if len(rn) != 2 || rn[0].Field != "filters[0].field" || rn[0].To != "spend" || rn[1].Field != "filters[1].field" {
		t.Errorf("renames %+v", rn)
	}
	// Every problem of every filter is reported, not the first only.
	a = base()
	a.Filters = []FilterArg{{Field: "spend", Operator: "CONTAINS", Value: "1"}, {Field: "nope", Operator: "=", Value: 1}, {Field: "clicks", Operator: ">", Value: "x"}}
	e = mustFail(t, a)
	for _, f := range []string{"filters[0].operator", "filters[1].field", "filters[2].value"} {
		problemAt(t, e, f)
	}
}

func TestOperatorTypeErrorsNameTheField(t *testing.T) {
	a := base()
	a.Filters = []FilterArg{{Field: "spend", Operator: "CONTAINS", Value: "1"}}
	p := problemAt(t, mustFail(t, a), "filters[0].operator")
	if !strings.Contains(p.Problem, "spend") || !strings.Contains(p.Problem, "number") {
		t.Errorf("%+v", p)
	}
	a.Filters = []FilterArg{{Field: "campaign_name", Operator: "GREATER_THAN", Value: "a"}}
	p = problemAt(t, mustFail(t, a), "filters[0].operator")
	if !strings.Contains(p.Problem, "campaign_name") || !strings.Contains(p.Problem, "string") {
		t.Errorf("%+v", p)
	}
}

// ---- Sort and limit ----

func TestSort(t *testing.T) {
	a := base()
	a.Dimensions = []string{"campaign_name"}
	a.Metrics = []string{"spend", "clicks"}
	a.TimeGranularity = "daily"
	a.Sort = []SortArg{{Field: "spend"}, {Field: "campaign_name"}, {Field: "date"}, {Field: "Clicks", Direction: "ASC"}, {Field: "cost", Direction: "descending"}}
	q := mustNormalize(t, a)
	want := []SortKey{{"spend", true}, {"campaign_name", false}, {"date", false}, {"clicks", false}, {"spend", true}}
	if !reflect.DeepEqual(q.Sort, want) {
		t.Errorf("sort %+v, want %+v", q.Sort, want)
	}
	if rn := changesOf(q, ChangeFieldRenamed); len(rn) != 2 {
		t.Errorf("renames %+v", rn)
	}

	// The time column is named after the grain.
	a = base()
	a.TimeGranularity = "weekly"
	a.Sort = []SortArg{{Field: "date", Direction: "desc"}}
	q = mustNormalize(t, a)
	if !reflect.DeepEqual(q.Sort, []SortKey{{"week", true}}) {
		t.Errorf("weekly sort %+v", q.Sort)
	}
	a.TimeGranularity = "total"
	p := problemAt(t, mustFail(t, a), "sort[0].field")
	if !strings.Contains(p.Fix, "time_granularity") {
		t.Errorf("%+v", p)
	}

	// A field not returned is rejected, listing the returned columns.
	a = base()
	a.Dimensions = []string{"campaign_name"}
	a.Metrics = []string{"spend"}
	a.TimeGranularity = "monthly"
	a.Sort = []SortArg{{Field: "clicks", Direction: "desc"}}
	p = problemAt(t, mustFail(t, a), "sort[0].field")
	if !slices.Equal(p.Valid, []string{"campaign_name", "spend", "month"}) {
		t.Errorf("valid %v", p.Valid)
	}
	// Unknown direction.
	a.Sort = []SortArg{{Field: "spend", Direction: "biggest"}}
	p = problemAt(t, mustFail(t, a), "sort[0].direction")
	if !slices.Equal(p.Valid, []string{"asc", "desc"}) {
		t.Errorf("%+v", p)
	}
	// The automatic currency column can be sorted on.
	a = Args{AccountIDs: mixedCurr, Metrics: []string{"spend"}, Sort: []SortArg{{Field: "currency"}}}
	q = mustNormalize(t, a)
	if !reflect.DeepEqual(q.Sort, []SortKey{{"currency", false}}) {
		t.Errorf("%+v", q.Sort)
	}
}

func TestLimit(t *testing.T) {
	sorted := func(l int) Args {
		a := base()
		a.Sort = []SortArg{{Field: "spend", Direction: "desc"}}
		a.Limit = intp(l)
		return a
	}
	q := mustNormalize(t, sorted(20))
	if q.Limit != 20 {
		t.Errorf("limit %d", q.Limit)
	}
	mustNormalize(t, sorted(1))
	mustNormalize(t, sorted(MaxLimit))
	for _, l := range []int{0, -1, MaxLimit + 1} {
		p := problemAt(t, mustFail(t, sorted(l)), "limit")
		if !strings.Contains(p.Problem, fmt.Sprint(MaxLimit)) {
			t.Errorf("limit %d: %+v", l, p)
		}
	}
	a := base()
	a.Limit = intp(20)
	p := problemAt(t, mustFail(t, a), "limit")
	if !strings.Contains(p.Problem, "sort") || !strings.Contains(p.Fix, "sort") {
		t.Errorf("limit without sort: %+v", p)
	}
	if q := mustNormalize(t, base()); q.Limit != 0 {
		t.Errorf("default limit %d", q.Limit)
	}
}

func TestTokenBudget(t *testing.T) {
	for b, ok := range map[int]bool{MinTokenBudget - 1: false, MinTokenBudget: true, 30000: true, MaxTokenBudget: true, MaxTokenBudget + 1: false, 0: false, -5: false} {
		a := base()
		a.TokenBudget = intp(b)
		if ok {
			if q := mustNormalize(t, a); q.TokenBudget != b {
				t.Errorf("budget %d → %d", b, q.TokenBudget)
			}
			continue
		}
		p := problemAt(t, mustFail(t, a), "token_budget")
		if !strings.Contains(p.Problem, fmt.Sprint(MinTokenBudget)) {
			t.Errorf("%+v", p)
		}
	}
	if q := mustNormalize(t, base()); q.TokenBudget != 0 {
		t.Errorf("default budget %d", q.TokenBudget)
	}
}

// ---- Currency ----

func TestCurrencyColumn(t *testing.T) {
	tests := []struct {
		name     string
		accounts []string
		platform []string
		dims     []string
		metrics  []string
		added    bool
	}{
		{"spend, USD+EUR+ARS", mixedCurr, nil, nil, []string{"spend"}, true},
		{"cpc, mixed", mixedCurr, nil, []string{"campaign_name"}, []string{"clicks", "cpc"}, true},
		{"conversion_value, mixed", []string{"act_1011", "123-456-7805"}, nil, nil, []string{"conversion_value"}, true},
		// ROAS is unitless, but conversion_value and spend are summed before dividing.
		{"roas, mixed", mixedCurr, nil, nil, []string{"roas"}, true},
		{"all meta accounts", nil, []string{"meta_ads"}, nil, []string{"cpm"}, true},
		{"clicks only, mixed", mixedCurr, nil, nil, []string{"clicks", "impressions", "ctr", "reach", "frequency"}, false},
		{"spend, one currency", usdMeta, nil, nil, []string{"spend", "cpa"}, false},
		{"spend, USD on two platforms", []string{"act_1011", "123-456-7801", "7100000000000000001"}, nil, nil, []string{"spend"}, false},
		{"currency already a dimension", mixedCurr, nil, []string{"currency"}, []string{"spend"}, false},
		{"currency as synonym", mixedCurr, nil, []string{"Currency Code"}, []string{"spend"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := mustNormalize(t, Args{AccountIDs: tt.accounts, Platforms: tt.platform, Dimensions: tt.dims, Metrics: tt.metrics})
			n := 0
			for _, d := range q.Dimensions {
				if d == "currency" {
					n++
				}
			}
			cs := changesOf(q, ChangeCurrencyColumnAdded)
			if tt.added {
				if n != 1 || q.Dimensions[len(q.Dimensions)-1] != "currency" {
					t.Errorf("dimensions %v, want currency appended", q.Dimensions)
				}
				if len(cs) != 1 || cs[0].To != "currency" || !strings.Contains(cs[0].Detail, "currenc") {
					t.Errorf("changes %+v", q.Changes)
				}
				return
			}
			if len(cs) != 0 {
				t.Errorf("currency column added: %+v", cs)
			}
			if n != len(slicesFilter(tt.dims, func(s string) bool { return catalog.Key(s) == "currency" || catalog.Key(s) == "currencycode" })) {
				t.Errorf("dimensions %v", q.Dimensions)
			}
		})
	}
}

func slicesFilter(s []string, keep func(string) bool) []string {
	var out []string
	for _, x := range s {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

// ---- Whole-query behaviour ----

func TestAllProblemsReported(t *testing.T) {
	a := Args{
		AccountIDs:      []string{"act_nope"},
		Platforms:       []string{"myspace"},
		DateRange:       &DateRange{Start: "2026-13-01", End: "x"},
		Dimensions:      []string{"campain"},
		Metrics:         []string{"spnd"},
		TimeGranularity: "hourly",
		Filters:         []FilterArg{{Field: "spend", Operator: "CONTAINS", Value: "x"}},
		Sort:            []SortArg{{Field: "clicks"}},
		Limit:           intp(0),
		TokenBudget:     intp(5),
	}
	e := mustFail(t, a)
	for _, f := range []string{"platforms[0]", "account_ids[0]", "date_range.start", "date_range.end", "dimensions[0]",
		"metrics[0]", "time_granularity", "filters[0].operator", "sort[0].field", "limit", "token_budget"} {
		if !hasProblemAt(e, f) {
			t.Errorf("no problem at %s", f)
		}
	}
	for _, p := range e.Problems {
		if strings.HasPrefix(p.Problem, "unknown") && p.Field != "platforms[0]" && p.Field != "time_granularity" && len(p.Valid) == 0 {
			t.Errorf("unknown name without valid values: %+v", p)
		}
	}
	if !strings.HasPrefix(e.Error(), "invalid query: ") {
		t.Errorf("%q", e.Error())
	}
}

func TestNormalizeDoesNotMutateInput(t *testing.T) {
	opt := testOptions()
	a := Args{Platforms: []string{"Facebook"}, Dimensions: []string{"date", "Campaign Name"}, Metrics: []string{"cost", "clicks"},
		Filters: []FilterArg{{Field: "platform", Operator: "IN", Value: []any{"fb"}}}, Sort: []SortArg{{Field: "cost"}}}
	before, _ := json.Marshal(a)
	accts := fmt.Sprint(opt.Accounts)
	mustNormalizeWith(t, a, opt)
	after, _ := json.Marshal(a)
	if string(before) != string(after) || fmt.Sprint(opt.Accounts) != accts {
		t.Errorf("input mutated:\n%s\n%s", before, after)
	}
}

func TestErrorStrings(t *testing.T) {
	p := Problem{Field: "metrics[0]", Value: "spnd", Problem: "unknown metric", Closest: []string{"spend"}, Fix: "use a name from list_fields", Valid: []string{"clicks", "spend"}}
	s := p.String()
	for _, want := range []string{"metrics[0]", "unknown metric", "spnd", "did you mean spend", "list_fields", "valid: clicks, spend"} {
		if !strings.Contains(s, want) {
			t.Errorf("%q lacks %q", s, want)
		}
	}
	e := &TooManyAccountsError{Max: 10, Requested: 14, Explicit: true}
	if !strings.Contains(e.Error(), "14 named") {
		t.Errorf("%q", e.Error())
	}
}

func TestClosestStrings(t *testing.T) {
	valid := []string{"daily", "weekly", "monthly", "total"}
	if got := closestStrings("dayly", valid, 2); len(got) == 0 || got[0] != "daily" {
		t.Errorf("dayly: %v", got)
	}
	for _, s := range []string{"", "!!", "🙂", "zzzzzzzz"} {
		if got := closestStrings(s, valid, 2); len(got) != 0 {
			t.Errorf("closestStrings(%q) = %v", s, got)
		}
	}
	if got := closestStrings("", opNames(Operators), 3); len(got) != 0 {
		t.Errorf("empty operator closest %v", got)
	}
}

// ---- Args round trip ----

// equalQueries compares two normalized queries, ignoring how they were written
// (Changes) and which preset the dates came from.
func equalQueries(a, b *Query) bool {
	x, y := *a, *b
	x.Changes, y.Changes = nil, nil
	x.Preset, y.Preset = "", ""
	return reflect.DeepEqual(x, y)
}

// genArgs generates query arguments, valid more often than not, using the
// spellings AI clients use.
func genArgs(r *rand.Rand) Args {
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	var a Args
	accts := testAccounts()
	switch r.IntN(4) {
	case 0: // omitted: needs platforms to stay under the guardrail
		a.Platforms = []string{pick([]string{"meta_ads", "Facebook", "tiktok", "google_ads"})}
		if r.IntN(3) == 0 {
			a.Platforms = append(a.Platforms, "TikTok")
		}
	default:
		n := 1 + r.IntN(10)
		for _, i := range r.Perm(len(accts))[:n] {
			ac := accts[i]
			switch r.IntN(4) {
			case 0:
				a.AccountIDs = append(a.AccountIDs, ads.FoldID(ac.AccountID))
			case 1:
				a.AccountIDs = append(a.AccountIDs, strings.ToUpper(ac.AccountName))
			default:
				a.AccountIDs = append(a.AccountIDs, ac.AccountID)
			}
		}
	}
	switch r.IntN(3) {
	case 0:
		a.DatePreset = pick(append(slices.Clone(Presets), "Last 7 Days", "LAST_30D"))
	case 1:
		end := testNow.AddDate(0, 0, 5-r.IntN(400))
		start := end.AddDate(0, 0, -r.IntN(500))
		a.DateRange = &DateRange{Start: start.Format(time.DateOnly), End: end.Format(time.DateOnly)}
		if r.IntN(4) == 0 {
			a.DatePreset = "last_7d"
		}
	}
	dimPool := []string{"campaign_name", "Campaign Name", "adset_name", "ad group name", "country", "device",
		"segments.device", "platform", "account_name", "currency", "date", "week", "month", "Day", "ad_name", "publisher_platform"}
	for range r.IntN(4) {
		a.Dimensions = append(a.Dimensions, pick(dimPool))
	}
	metricPool := []string{"spend", "cost", "impressions", "clicks", "metrics.clicks", "ctr", "CPC", "cpm", "cpa", "roas",
		"conversions", "purchases", "conversion_value", "revenue", "reach", "frequency", "video_views", "link_clicks", "conversion_rate"}
	for range 1 + r.IntN(4) {
		a.Metrics = append(a.Metrics, pick(metricPool))
	}
	if r.IntN(3) == 0 && len(a.Dimensions) > 0 {
		a.Metrics = append(a.Metrics[:0], a.Dimensions[0]) // sometimes only misplaced names
		a.Dimensions = append(a.Dimensions, "spend")
	}
	a.TimeGranularity = pick([]string{"", "", "daily", "weekly", "monthly", "total", "Day", "all_days"})
	filterPool := []FilterArg{
		{Field: "campaign_name", Operator: "CONTAINS", Value: "brand"},
		{Field: "Campaign Name", Operator: "not contains", Value: "test'; --"},
		{Field: "spend", Operator: ">", Value: json.Number("100")},
		{Field: "cost", Operator: "gte", Value: "10.5"},
		{Field: "country", Operator: "IN", Value: []any{"US", "AR", json.Number("7")}},
		{Field: "clicks", Operator: "BETWEEN", Value: []any{10, "1000"}},
		{Field: "platform", Operator: "equals", Value: "Facebook"},
		{Field: "ctr", Operator: "LESS_THAN", Value: 2.25},
		{Field: "device", Operator: "NOT_IN", Value: []any{"tablet"}},
		{Field: "ad_name", Operator: "starts with", Value: "UGC"},
		{Field: "reach", Operator: "!=", Value: 0},
		{Field: "campaign_id", Operator: "=", Value: json.Number("120210000000001")},
	}
	for range r.IntN(3) {
		a.Filters = append(a.Filters, filterPool[r.IntN(len(filterPool))])
	}
	if r.IntN(2) == 0 {
		sortPool := append(slices.Clone(a.Dimensions), a.Metrics...)
		sortPool = append(sortPool, "date", "spend")
		for range 1 + r.IntN(2) {
			a.Sort = append(a.Sort, SortArg{Field: pick(sortPool), Direction: pick([]string{"", "asc", "desc", "DESC", "descending"})})
		}
		if r.IntN(2) == 0 {
			a.Limit = intp(1 + r.IntN(500))
		}
	}
	if r.IntN(4) == 0 {
		a.TokenBudget = intp(1000 + r.IntN(100000))
	}
	switch r.IntN(6) {
	case 0, 1:
		a.Compare = &CompareArg{Mode: pick([]string{"previous_period", "previous_year", "Previous Period", "yoy", "prior_period"})}
	case 2:
		end := testNow.AddDate(0, 0, 30-r.IntN(900))
		start := end.AddDate(0, 0, -r.IntN(120))
		a.Compare = &CompareArg{Window: &DateRange{Start: start.Format(time.DateOnly), End: end.Format(time.DateOnly)}}
	}
	if a.Compare != nil && r.IntN(2) == 0 {
		m := pick(a.Metrics)
		a.Sort = append(a.Sort, SortArg{Field: m + pick([]string{"_change", "_change_pct", "_compare", " Change %"})})
		if r.IntN(2) == 0 {
			a.Filters = append(a.Filters, FilterArg{Field: m + "_change", Operator: ">", Value: json.Number("-5")})
		}
	}
	return a
}

// The Args of a normalized query, run again, give the same query with nothing
// left to correct — directly and through JSON, as _meta and re-query
// suggestions hand them to clients.
func TestArgsRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	opt := testOptions()
	ok, compared := 0, 0
	for i := range 3000 {
		a := genArgs(r)
		q, err := Normalize(a, opt)
		if err != nil {
			var e *Error
			var tm *TooManyAccountsError
			if errors.As(err, &e) {
				checkProblems(t, e)
			} else if !errors.As(err, &tm) {
				t.Fatalf("case %d: error %T %v", i, err, err)
			}
			continue
		}
		ok++
		if q.Compare != nil {
			compared++
		}
		args := q.Args()
		q2, err := Normalize(args, opt)
		if err != nil {
			t.Fatalf("case %d: %+v\nnormalized to %+v\nwhose args %+v fail: %v", i, a, q, args, err)
		}
		if !equalQueries(q, q2) {
			t.Fatalf("case %d: round trip differs:\n%+v\n%+v", i, q, q2)
		}
		if len(q2.Changes) != 0 {
			t.Fatalf("case %d: canonical args still corrected: %+v\nargs %+v", i, q2.Changes, args)
		}
		if !reflect.DeepEqual(q2.Args(), args) {
			t.Fatalf("case %d: Args not stable:\n%+v\n%+v", i, q2.Args(), args)
		}
		b, err := json.Marshal(q)
		if err != nil {
			t.Fatal(err)
		}
		q3, err := ParseAndNormalize(b, opt)
		if err != nil {
			t.Fatalf("case %d: JSON %s fails: %v", i, b, err)
		}
		if !equalQueries(q, q3) || len(q3.Changes) != 0 {
			t.Fatalf("case %d: JSON round trip differs:\n%s\n%+v\n%+v", i, b, q, q3)
		}
	}
	if ok < 1000 {
		t.Errorf("only %d of 3000 generated queries were valid; the property is barely exercised", ok)
	}
	if compared < 300 {
		t.Errorf("only %d valid generated queries compare two windows; compare is barely exercised", compared)
	}
}

func TestQueryJSONByValue(t *testing.T) {
	q := mustNormalize(t, base())
	byPtr, err1 := json.Marshal(q)
	byVal, err2 := json.Marshal(struct{ Query Query }{*q})
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if want := `{"Query":` + string(byPtr) + `}`; string(byVal) != want {
		t.Errorf("by value %s\nwant %s", byVal, want)
	}
	if !strings.Contains(string(byPtr), `"date_range"`) || strings.Contains(string(byPtr), "Changes") {
		t.Errorf("%s", byPtr)
	}
}

func TestArgsShape(t *testing.T) {
	a := Args{AccountIDs: []string{"1015"}, DatePreset: "last_7d", Dimensions: []string{"date", "Campaign Name"},
		Metrics: []string{"cost"}, Filters: []FilterArg{
			{Field: "country", Operator: "in", Value: []any{"US"}},
			{Field: "spend", Operator: ">", Value: "5"},
			{Field: "clicks", Operator: "between", Value: []any{1, 2}},
		}, Sort: []SortArg{{Field: "cost"}}, Limit: intp(5), TokenBudget: intp(5000)}
	b, err := json.Marshal(mustNormalize(t, a))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"account_ids":["act_1015"],"date_range":{"start":"2026-03-08","end":"2026-03-14"},` +
		`"dimensions":["campaign_name"],"metrics":["spend"],"time_granularity":"daily",` +
		`"filters":[{"field":"country","operator":"IN","value":["US"]},{"field":"spend","operator":"GREATER_THAN","value":5},` +
		`{"field":"clicks","operator":"BETWEEN","value":[1,2]}],"sort":[{"field":"spend","direction":"desc"}],"limit":5,"token_budget":5000}`
	if string(b) != want {
		t.Errorf("JSON\n%s\nwant\n%s", b, want)
	}
}

func TestMoneyFilterAcrossCurrenciesAddsCurrencyColumn(t *testing.T) {
	var mixed []string
	seen := map[string]bool{}
	for _, a := range testAccounts() {
		if !seen[a.Currency] {
			seen[a.Currency] = true
			mixed = append(mixed, a.AccountID)
		}
	}
	q := mustNormalize(t, Args{AccountIDs: mixed, Metrics: []string{"clicks"},
		Filters: []FilterArg{{Field: "spend", Operator: ">", Value: 100.0}}})
	if !slices.Contains(q.Dimensions, "currency") {
		t.Errorf("spend filter over %d currencies: dimensions %v lack currency", len(seen), q.Dimensions)
	}
}

// UnknownAccounts names exactly the account_ids normalization refuses as
// unknown: forgiven spellings and names are known, and so is a name two
// accounts share (normalization asks which one).
func TestUnknownAccountsAgreesWithNormalization(t *testing.T) {
	accts := append(testAccounts(), ads.Account{AccountID: "act_1017", Platform: "meta_ads", AccountName: "Acme Outlet", Currency: "USD", Timezone: "UTC"})
	for _, id := range []string{"act_1011", "1011", "1234567801", "123-456-7801", "acme shoes us", "Acme Outlet", "nope", "act_9999", "", "7100000000000000003"} {
		_, err := Normalize(Args{AccountIDs: []string{id}, Metrics: []string{"spend"}}, Options{Accounts: accts, Now: func() time.Time { return time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC) }})
		refused := err != nil && strings.Contains(err.Error(), "no account with this ID")
		if got := UnknownAccounts(accts, []string{id}); (len(got) == 1) != refused {
			t.Errorf("%q: UnknownAccounts %v, normalization %v", id, got, err)
		}
	}
}
