package query

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
)

// presetCases: for each "today", the expected [start, end] of every preset in the
// order of Presets. Computed independently (by hand and checked with another
// language's date library), not with the code under test.
var presetCases = []struct {
	today string
	want  [14][2]string
}{
	{"2026-01-14", [14][2]string{ // Wednesday
		{"2026-01-14", "2026-01-14"}, // today
		{"2026-01-13", "2026-01-13"}, // yesterday
		{"2026-01-07", "2026-01-13"}, // last_7d
		{"2025-12-31", "2026-01-13"}, // last_14d
		{"2025-12-15", "2026-01-13"}, // last_30d
		{"2025-10-16", "2026-01-13"}, // last_90d
		{"2026-01-12", "2026-01-14"}, // this_week
		{"2026-01-05", "2026-01-11"}, // last_week
		{"2026-01-01", "2026-01-14"}, // this_month
		{"2025-12-01", "2025-12-31"}, // last_month
		{"2026-01-01", "2026-01-14"}, // this_quarter
		{"2025-10-01", "2025-12-31"}, // last_quarter
		{"2026-01-01", "2026-01-14"}, // this_year
		{"2025-01-01", "2025-12-31"}, // last_year
	}},
	{"2026-03-15", [14][2]string{ // Sunday: the week is Monday 9 .. Sunday 15
		{"2026-03-15", "2026-03-15"},
		{"2026-03-14", "2026-03-14"},
		{"2026-03-08", "2026-03-14"},
		{"2026-03-01", "2026-03-14"},
		{"2026-02-13", "2026-03-14"},
		{"2025-12-15", "2026-03-14"},
		{"2026-03-09", "2026-03-15"},
		{"2026-03-02", "2026-03-08"},
		{"2026-03-01", "2026-03-15"},
		{"2026-02-01", "2026-02-28"},
		{"2026-01-01", "2026-03-15"},
		{"2025-10-01", "2025-12-31"},
		{"2026-01-01", "2026-03-15"},
		{"2025-01-01", "2025-12-31"},
	}},
	{"2026-03-16", [14][2]string{ // Monday: this_week is today alone
		{"2026-03-16", "2026-03-16"},
		{"2026-03-15", "2026-03-15"},
		{"2026-03-09", "2026-03-15"},
		{"2026-03-02", "2026-03-15"},
		{"2026-02-14", "2026-03-15"},
		{"2025-12-16", "2026-03-15"},
		{"2026-03-16", "2026-03-16"},
		{"2026-03-09", "2026-03-15"},
		{"2026-03-01", "2026-03-16"},
		{"2026-02-01", "2026-02-28"},
		{"2026-01-01", "2026-03-16"},
		{"2025-10-01", "2025-12-31"},
		{"2026-01-01", "2026-03-16"},
		{"2025-01-01", "2025-12-31"},
	}},
	{"2026-01-01", [14][2]string{ // Thursday, first day of month, quarter and year
		{"2026-01-01", "2026-01-01"},
		{"2025-12-31", "2025-12-31"},
		{"2025-12-25", "2025-12-31"},
		{"2025-12-18", "2025-12-31"},
		{"2025-12-02", "2025-12-31"},
		{"2025-10-03", "2025-12-31"},
		{"2025-12-29", "2026-01-01"}, // the ISO week straddles the year
		{"2025-12-22", "2025-12-28"},
		{"2026-01-01", "2026-01-01"},
		{"2025-12-01", "2025-12-31"},
		{"2026-01-01", "2026-01-01"},
		{"2025-10-01", "2025-12-31"},
		{"2026-01-01", "2026-01-01"},
		{"2025-01-01", "2025-12-31"},
	}},
	{"2026-01-04", [14][2]string{ // Sunday after new year: last_week is in the old year
		{"2026-01-04", "2026-01-04"},
		{"2026-01-03", "2026-01-03"},
		{"2025-12-28", "2026-01-03"},
		{"2025-12-21", "2026-01-03"},
		{"2025-12-05", "2026-01-03"},
		{"2025-10-06", "2026-01-03"},
		{"2025-12-29", "2026-01-04"},
		{"2025-12-22", "2025-12-28"},
		{"2026-01-01", "2026-01-04"},
		{"2025-12-01", "2025-12-31"},
		{"2026-01-01", "2026-01-04"},
		{"2025-10-01", "2025-12-31"},
		{"2026-01-01", "2026-01-04"},
		{"2025-01-01", "2025-12-31"},
	}},
	{"2026-03-31", [14][2]string{ // last day of Q1; last_month is February
		{"2026-03-31", "2026-03-31"},
		{"2026-03-30", "2026-03-30"},
		{"2026-03-24", "2026-03-30"},
		{"2026-03-17", "2026-03-30"},
		{"2026-03-01", "2026-03-30"},
		{"2025-12-31", "2026-03-30"},
		{"2026-03-30", "2026-03-31"},
		{"2026-03-23", "2026-03-29"},
		{"2026-03-01", "2026-03-31"},
		{"2026-02-01", "2026-02-28"},
		{"2026-01-01", "2026-03-31"},
		{"2025-10-01", "2025-12-31"},
		{"2026-01-01", "2026-03-31"},
		{"2025-01-01", "2025-12-31"},
	}},
	{"2026-04-01", [14][2]string{ // first day of Q2
		{"2026-04-01", "2026-04-01"},
		{"2026-03-31", "2026-03-31"},
		{"2026-03-25", "2026-03-31"},
		{"2026-03-18", "2026-03-31"},
		{"2026-03-02", "2026-03-31"},
		{"2026-01-01", "2026-03-31"},
		{"2026-03-30", "2026-04-01"},
		{"2026-03-23", "2026-03-29"},
		{"2026-04-01", "2026-04-01"},
		{"2026-03-01", "2026-03-31"},
		{"2026-04-01", "2026-04-01"},
		{"2026-01-01", "2026-03-31"},
		{"2026-01-01", "2026-04-01"},
		{"2025-01-01", "2025-12-31"},
	}},
	{"2024-02-29", [14][2]string{ // leap day
		{"2024-02-29", "2024-02-29"},
		{"2024-02-28", "2024-02-28"},
		{"2024-02-22", "2024-02-28"},
		{"2024-02-15", "2024-02-28"},
		{"2024-01-30", "2024-02-28"},
		{"2023-12-01", "2024-02-28"},
		{"2024-02-26", "2024-02-29"},
		{"2024-02-19", "2024-02-25"},
		{"2024-02-01", "2024-02-29"},
		{"2024-01-01", "2024-01-31"},
		{"2024-01-01", "2024-02-29"},
		{"2023-10-01", "2023-12-31"},
		{"2024-01-01", "2024-02-29"},
		{"2023-01-01", "2023-12-31"},
	}},
	{"2024-03-01", [14][2]string{ // day after a leap day: last_month ends on the 29th
		{"2024-03-01", "2024-03-01"},
		{"2024-02-29", "2024-02-29"},
		{"2024-02-23", "2024-02-29"},
		{"2024-02-16", "2024-02-29"},
		{"2024-01-31", "2024-02-29"},
		{"2023-12-02", "2024-02-29"},
		{"2024-02-26", "2024-03-01"},
		{"2024-02-19", "2024-02-25"},
		{"2024-03-01", "2024-03-01"},
		{"2024-02-01", "2024-02-29"},
		{"2024-01-01", "2024-03-01"},
		{"2023-10-01", "2023-12-31"},
		{"2024-01-01", "2024-03-01"},
		{"2023-01-01", "2023-12-31"},
	}},
	{"2024-12-31", [14][2]string{ // last day of Q4 and of the year
		{"2024-12-31", "2024-12-31"},
		{"2024-12-30", "2024-12-30"},
		{"2024-12-24", "2024-12-30"},
		{"2024-12-17", "2024-12-30"},
		{"2024-12-01", "2024-12-30"},
		{"2024-10-02", "2024-12-30"},
		{"2024-12-30", "2024-12-31"},
		{"2024-12-23", "2024-12-29"},
		{"2024-12-01", "2024-12-31"},
		{"2024-11-01", "2024-11-30"},
		{"2024-10-01", "2024-12-31"},
		{"2024-07-01", "2024-09-30"},
		{"2024-01-01", "2024-12-31"},
		{"2023-01-01", "2023-12-31"},
	}},
}

func TestResolvePreset(t *testing.T) {
	if len(Presets) != 14 {
		t.Fatalf("%d presets, docs/contract.md §4 lists 14", len(Presets))
	}
	spec := []string{"today", "yesterday", "last_7d", "last_14d", "last_30d", "last_90d", "this_week",
		"last_week", "this_month", "last_month", "this_quarter", "last_quarter", "this_year", "last_year"}
	if !slices.Equal(Presets, spec) {
		t.Fatalf("Presets = %v, spec %v", Presets, spec)
	}
	for _, c := range presetCases {
		for i, p := range Presets {
			// The clock's time of day and location must not matter, only its date.
			for _, clock := range []time.Time{
				date(c.today),
				date(c.today).Add(23*time.Hour + 59*time.Minute),
				time.Date(date(c.today).Year(), date(c.today).Month(), date(c.today).Day(), 1, 0, 0, 0, time.FixedZone("X", 13*3600)),
			} {
				start, end, err := ResolvePreset(p, clock)
				if err != nil {
					t.Fatalf("ResolvePreset(%s, %s): %v", p, clock, err)
				}
				got := [2]string{start.Format(time.DateOnly), end.Format(time.DateOnly)}
				if got != c.want[i] {
					t.Errorf("today %s (%s), %s = %v, want %v", c.today, clock.Weekday(), p, got, c.want[i])
				}
				if start.Location() != time.UTC || end.Location() != time.UTC || start.Hour() != 0 || end.Hour() != 0 {
					t.Errorf("%s: dates must be UTC midnights, got %s .. %s", p, start, end)
				}
			}
		}
	}
}

func TestResolvePresetLengths(t *testing.T) {
	today := date("2026-07-09")
	for p, days := range map[string]int{"today": 1, "yesterday": 1, "last_7d": 7, "last_14d": 14, "last_30d": 30, "last_90d": 90, "last_week": 7, "last_year": 365} {
		s, e, err := ResolvePreset(p, today)
		if err != nil {
			t.Fatal(err)
		}
		if got := int(e.Sub(s).Hours()/24) + 1; got != days {
			t.Errorf("%s spans %d days, want %d", p, got, days)
		}
		if p != "today" && !e.Before(today) {
			t.Errorf("%s ends %s, not before today", p, e.Format(time.DateOnly))
		}
	}
}

func TestResolvePresetUnknown(t *testing.T) {
	for _, p := range []string{"", "last_31d", "Last_7d", "tomorrow", "last_7_days"} {
		if _, _, err := ResolvePreset(p, testNow); err == nil {
			t.Errorf("ResolvePreset(%q) succeeded", p)
		}
	}
}

func TestParseDate(t *testing.T) {
	if d, err := ParseDate("2026-02-28"); err != nil || d != time.Date(2026, 2, 28, 0, 0, 0, 0, time.UTC) {
		t.Errorf("ParseDate(2026-02-28) = %v, %v", d, err)
	}
	for _, s := range []string{"", "2026/02/28", "28-02-2026", "2026-2-28", "2026-02-30", "2026-13-01",
		"2026-02-28T00:00:00Z", "20260228", "yesterday", "2026-02-28 ", " 2026-02-28"} {
		if _, err := ParseDate(s); err == nil {
			t.Errorf("ParseDate(%q) succeeded", s)
		}
	}
}

func TestDefaultPresetIsLast30d(t *testing.T) {
	if DefaultPreset != "last_30d" {
		t.Errorf("DefaultPreset = %q", DefaultPreset)
	}
	q := mustNormalize(t, base())
	if q.Preset != "last_30d" || q.Start != date("2026-02-13") || q.End != date("2026-03-14") {
		t.Errorf("default dates: preset %q %s .. %s; want last_30d 2026-02-13 .. 2026-03-14", q.Preset, q.Start, q.End)
	}
	if q.Days() != 30 {
		t.Errorf("Days() = %d, want 30", q.Days())
	}
	noChange(t, q, ChangeValueNormalized) // the default is not a correction
}

func TestEveryPresetThroughNormalize(t *testing.T) {
	c := presetCases[1] // 2026-03-15, the test clock's date
	for i, p := range Presets {
		a := base()
		a.DatePreset = p
		q := mustNormalize(t, a)
		got := [2]string{q.Start.Format(time.DateOnly), q.End.Format(time.DateOnly)}
		if got != c.want[i] || q.Preset != p {
			t.Errorf("%s: %v (preset %q), want %v", p, got, q.Preset, c.want[i])
		}
		noChange(t, q, ChangeValueNormalized)
	}
}

func TestPresetSpellings(t *testing.T) {
	for in, want := range map[string]string{
		"LAST_7D": "last_7d", "Last 30 Days": "last_30d", "last-14-days": "last_14d", " yesterday ": "yesterday",
		"last_90_days": "last_90d", "This Month": "this_month", "last7days": "last_7d", "last_week_mon_sun": "last_week",
	} {
		a := base()
		a.DatePreset = in
		q := mustNormalize(t, a)
		if q.Preset != want {
			t.Errorf("%q read as %q, want %q", in, q.Preset, want)
		}
		c := oneChange(t, q, ChangeValueNormalized)
		if c.Field != "date_preset" || c.From != in || c.To != want {
			t.Errorf("%q: change %+v", in, c)
		}
	}
}

func TestUnknownPreset(t *testing.T) {
	a := base()
	a.DatePreset = "last_31d"
	e := mustFail(t, a)
	p := problemAt(t, e, "date_preset")
	if !slices.Equal(p.Valid, Presets) {
		t.Errorf("valid = %v", p.Valid)
	}
	if len(p.Closest) == 0 || !strings.HasPrefix(p.Closest[0], "last_") {
		t.Errorf("closest = %v", p.Closest)
	}
	if !strings.Contains(p.Fix, "date_range") {
		t.Errorf("fix %q does not mention date_range", p.Fix)
	}
}

// Presets resolve in the accounts' timezone when they share one, else in UTC.
func TestPresetTimezone(t *testing.T) {
	tests := []struct {
		name     string
		now      time.Time
		accounts []string
		platform []string
		loc      string
		today    string
	}{
		// 05:00 UTC on the 15th is still the 14th in Los Angeles.
		{"shared LA", time.Date(2026, 3, 15, 5, 0, 0, 0, time.UTC), laGoogle, nil, "America/Los_Angeles", "2026-03-14"},
		// LA and New York differ: UTC.
		{"mixed", time.Date(2026, 3, 15, 5, 0, 0, 0, time.UTC), []string{"123-456-7801", "act_1011"}, nil, "UTC", "2026-03-15"},
		// 23:30 UTC on the 14th is already the 15th in Madrid.
		{"shared Madrid", time.Date(2026, 3, 14, 23, 30, 0, 0, time.UTC), []string{"act_1014", "123-456-7805"}, nil, "Europe/Madrid", "2026-03-15"},
		{"single NY", time.Date(2026, 3, 15, 3, 0, 0, 0, time.UTC), []string{"act_1011"}, nil, "America/New_York", "2026-03-14"},
		// Omitted account_ids: every TikTok account, all UTC.
		{"all tiktok", time.Date(2026, 3, 15, 5, 0, 0, 0, time.UTC), nil, []string{"tiktok_ads"}, "UTC", "2026-03-15"},
		// Omitted account_ids on google_ads: LA and Madrid, so UTC.
		{"all google", time.Date(2026, 3, 15, 5, 0, 0, 0, time.UTC), nil, []string{"google_ads"}, "UTC", "2026-03-15"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := testOptions()
			opt.Now = clockAt(tt.now)
			a := Args{AccountIDs: tt.accounts, Platforms: tt.platform, Metrics: []string{"clicks"}, DatePreset: "today"}
			q := mustNormalizeWith(t, a, opt)
			if q.Location != tt.loc {
				t.Errorf("location %q, want %q", q.Location, tt.loc)
			}
			if got := q.Start.Format(time.DateOnly); got != tt.today || q.End != q.Start {
				t.Errorf("today = %s .. %s, want %s", got, q.End.Format(time.DateOnly), tt.today)
			}
			// A date range is checked against the same "today".
			a.DatePreset = ""
			a.DateRange = &DateRange{Start: tt.today, End: tt.today}
			if q := mustNormalizeWith(t, a, opt); len(changesOf(q, ChangeDateRangeClamped)) > 0 {
				t.Errorf("today's date was clamped: %+v", q.Changes)
			}
			next := date(tt.today).AddDate(0, 0, 1).Format(time.DateOnly)
			a.DateRange = &DateRange{Start: next, End: next}
			mustFailWith(t, a, opt)
		})
	}
}

func TestDateRange(t *testing.T) {
	// testNow: today is 2026-03-15 everywhere.
	tests := []struct {
		name       string
		start, end string
		maxSpan    int
		wantStart  string
		wantEnd    string
		problems   []string // fields with problems; empty: valid
		clampedTo  string
	}{
		{name: "ok", start: "2026-01-01", end: "2026-01-31", wantStart: "2026-01-01", wantEnd: "2026-01-31"},
		{name: "single day", start: "2026-03-01", end: "2026-03-01", wantStart: "2026-03-01", wantEnd: "2026-03-01"},
		{name: "today", start: "2026-03-15", end: "2026-03-15", wantStart: "2026-03-15", wantEnd: "2026-03-15"},
		{name: "spaces trimmed", start: " 2026-01-01", end: "2026-01-31 ", wantStart: "2026-01-01", wantEnd: "2026-01-31"},
		{name: "start after end", start: "2026-02-10", end: "2026-02-01", problems: []string{"date_range"}},
		{name: "bad start format", start: "2026/01/01", end: "2026-01-31", problems: []string{"date_range.start"}},
		{name: "bad end format", start: "2026-01-01", end: "31-01-2026", problems: []string{"date_range.end"}},
		{name: "both bad", start: "jan 1", end: "", problems: []string{"date_range.start", "date_range.end"}},
		{name: "no such day", start: "2026-02-29", end: "2026-03-01", problems: []string{"date_range.start"}},
		{name: "single digit month", start: "2026-1-05", end: "2026-01-31", problems: []string{"date_range.start"}},
		{name: "timestamp", start: "2026-01-01T00:00:00Z", end: "2026-01-31", problems: []string{"date_range.start"}},
		{name: "future start", start: "2026-03-16", end: "2026-03-20", problems: []string{"date_range.start"}},
		{name: "future end clamped", start: "2026-03-01", end: "2026-03-31", wantStart: "2026-03-01", wantEnd: "2026-03-15", clampedTo: "2026-03-15"},
		{name: "span at limit", start: "2023-02-13", end: "2026-03-15", wantStart: "2023-02-13", wantEnd: "2026-03-15"},
		{name: "span over limit", start: "2023-02-12", end: "2026-03-15", problems: []string{"date_range"}},
		{name: "span over limit, old", start: "2001-01-01", end: "2020-12-31", problems: []string{"date_range"}},
		{name: "span measured after clamping", start: "2023-02-14", end: "2026-12-31", wantStart: "2023-02-14", wantEnd: "2026-03-15", clampedTo: "2026-03-15"},
		{name: "custom span ok", start: "2026-01-01", end: "2026-01-30", maxSpan: 30, wantStart: "2026-01-01", wantEnd: "2026-01-30"},
		{name: "custom span over", start: "2026-01-01", end: "2026-01-31", maxSpan: 30, problems: []string{"date_range"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := testOptions()
			opt.MaxSpanDays = tt.maxSpan
			a := base()
			a.DateRange = &DateRange{Start: tt.start, End: tt.end}
			if len(tt.problems) > 0 {
				e := mustFailWith(t, a, opt)
				if len(e.Problems) != len(tt.problems) {
					t.Errorf("problems %v, want at %v", e, tt.problems)
				}
				for _, f := range tt.problems {
					p := problemAt(t, e, f)
					if p.Fix == "" {
						t.Errorf("%s: no fix", f)
					}
				}
				return
			}
			q := mustNormalizeWith(t, a, opt)
			if q.Start != date(tt.wantStart) || q.End != date(tt.wantEnd) {
				t.Errorf("range %s .. %s, want %s .. %s", q.Start.Format(time.DateOnly), q.End.Format(time.DateOnly), tt.wantStart, tt.wantEnd)
			}
			if q.Preset != "" {
				t.Errorf("preset %q for an explicit range", q.Preset)
			}
			if tt.clampedTo == "" {
				noChange(t, q, ChangeDateRangeClamped)
				return
			}
			c := oneChange(t, q, ChangeDateRangeClamped)
			if c.Field != "date_range.end" || c.From != strings.TrimSpace(tt.end) || c.To != tt.clampedTo {
				t.Errorf("clamp change %+v", c)
			}
		})
	}
}

func TestDateRangeSpanMessage(t *testing.T) {
	a := base()
	a.DateRange = &DateRange{Start: "2020-01-01", End: "2026-03-01"}
	p := problemAt(t, mustFail(t, a), "date_range")
	if !strings.Contains(p.Problem, "1127") || !strings.Contains(p.Problem, "37 months") || !strings.Contains(p.Problem, "Meta") {
		t.Errorf("span problem %q must name the limit (1127 days, 37 months) and why", p.Problem)
	}
	opt := testOptions()
	opt.MaxSpanDays = 90
	p = problemAt(t, mustFailWith(t, a, opt), "date_range")
	if !strings.Contains(p.Problem, "90 days") {
		t.Errorf("span problem %q must name the configured limit", p.Problem)
	}
	if DefaultMaxSpanDays != 1127 {
		t.Errorf("DefaultMaxSpanDays = %d", DefaultMaxSpanDays)
	}
}

func TestFutureStartNamesToday(t *testing.T) {
	opt := testOptions()
	opt.Now = clockAt(time.Date(2026, 3, 15, 5, 0, 0, 0, time.UTC))
	a := Args{AccountIDs: laGoogle, Metrics: []string{"spend"}, DateRange: &DateRange{Start: "2026-03-15", End: "2026-03-15"}}
	p := problemAt(t, mustFailWith(t, a, opt), "date_range.start")
	if !strings.Contains(p.Problem, "2026-03-14") || !strings.Contains(p.Problem, "America/Los_Angeles") {
		t.Errorf("future start problem %q should name today and the timezone", p.Problem)
	}
}

func TestRangeAndPresetBoth(t *testing.T) {
	a := base()
	a.DateRange = &DateRange{Start: "2026-01-01", End: "2026-01-31"}
	a.DatePreset = "last_7d"
	q := mustNormalize(t, a)
	if q.Start != date("2026-01-01") || q.End != date("2026-01-31") || q.Preset != "" {
		t.Errorf("range+preset: %s .. %s preset %q; the range wins", q.Start, q.End, q.Preset)
	}
	c := oneChange(t, q, ChangeDatePresetIgnored)
	if c.Field != "date_preset" || c.From != "last_7d" {
		t.Errorf("change %+v", c)
	}
	// An invalid preset next to a valid range is ignored, not an error.
	a.DatePreset = "bogus"
	mustNormalize(t, a)
}

func TestDays(t *testing.T) {
	q := &Query{Start: date("2024-02-01"), End: date("2024-03-01")}
	if q.Days() != 30 {
		t.Errorf("Days = %d", q.Days())
	}
	// Across a DST change: dates are UTC midnights, so whole days.
	q = &Query{Start: date("2026-03-01"), End: date("2026-03-31")}
	if q.Days() != 31 {
		t.Errorf("Days = %d", q.Days())
	}
}

// The quarter presets are calendar quarters, as the quarterly grain's rows
// are: last_quarter is exactly one whole quarter and this_quarter starts one,
// for every day of several years, leap days included.
func TestQuarterPresetsAlignWithQuarterlyGrain(t *testing.T) {
	for today := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC); today.Year() < 2027; today = today.AddDate(0, 0, 1) {
		for _, preset := range []string{"this_quarter", "last_quarter"} {
			start, end, err := ResolvePreset(preset, today)
			if err != nil {
				t.Fatal(err)
			}
			first, last := fit.PartialPeriods(fit.Quarterly, start, end)
			next := end.AddDate(0, 0, 1)
			endsQuarter := next.Day() == 1 && (next.Month()-1)%3 == 0
			sameQuarter := start.Year() == end.Year() && (start.Month()-1)/3 == (end.Month()-1)/3
			if first || last == endsQuarter || !sameQuarter {
				t.Fatalf("%s on %s is %s … %s: partial first %v, last %v", preset, today.Format(time.DateOnly),
					start.Format(time.DateOnly), end.Format(time.DateOnly), first, last)
			}
		}
	}
}
