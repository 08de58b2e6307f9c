package importer

import (
	"bytes"
	"encoding/csv"
	"errors"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// fileSums are the sums of a TikTok export's columns, computed from the file
// with encoding/csv and math/big, independently of the importer: a line counts
// when it is not the totals line ("Total…" in its first field) and has a
// metric that is not 0.
type fileSums struct {
	facts                                               int
	spend, value                                        int64 // micros
	impressions, clicks, conversions, videos, videos100 int64
	reach                                               map[string]int64 // campaign name + day → reach
}

func sumTikTokFile(t *testing.T, name string, cols map[string]string) fileSums {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	at := map[string]int{}
	for i, h := range recs[0] {
		at[h] = i
	}
	num := func(rec []string, what string, scale int64) int64 {
		h, ok := cols[what]
		if !ok {
			return 0
		}
		i, ok := at[h]
		if !ok {
			t.Fatalf("%s: no column %q", name, h)
		}
		v := strings.ReplaceAll(rec[i], ",", "")
		if v == "-" || v == "--" || v == "" {
			return 0
		}
		r, ok := new(big.Rat).SetString(v)
		if !ok {
			t.Fatalf("%s: %q is not a number", name, rec[i])
		}
		r.Mul(r, big.NewRat(scale, 1))
		if !r.IsInt() {
			t.Fatalf("%s: %q has more decimals than micros", name, rec[i])
		}
		return r.Num().Int64()
	}
	s := fileSums{reach: map[string]int64{}}
	for _, rec := range recs[1:] {
		if strings.HasPrefix(rec[0], "Total") {
			continue
		}
		line := [...]int64{num(rec, "spend", 1e6), num(rec, "value", 1e6), num(rec, "impressions", 1), num(rec, "clicks", 1),
			num(rec, "conversions", 1), num(rec, "videos", 1), num(rec, "videos100", 1), num(rec, "reach", 1)}
		active := false
		for _, v := range line {
			active = active || v != 0
		}
		if !active {
			continue
		}
		s.facts++
		s.spend += line[0]
		s.value += line[1]
		s.impressions += line[2]
		s.clicks += line[3]
		s.conversions += line[4]
		s.videos += line[5]
		s.videos100 += line[6]
		if _, ok := cols["reach"]; ok {
			s.reach[rec[at[cols["campaign"]]]+" "+rec[at[cols["day"]]]] = line[7]
		}
	}
	return s
}

// exportSums are the same sums of a parsed export's facts and reach rows.
func exportSums(ex *Export) fileSums {
	s := fileSums{facts: len(ex.Facts), reach: map[string]int64{}}
	for _, f := range ex.Facts {
		m := f.Measures
		s.spend += int64(m[catalog.Spend])
		s.value += int64(m[catalog.ConversionValue])
		s.impressions += int64(m[catalog.Impressions])
		s.clicks += int64(m[catalog.Clicks])
		s.conversions += int64(m[catalog.Conversions])
		s.videos += int64(m[catalog.VideoViews])
		s.videos100 += int64(m[catalog.VideoViewsP100])
	}
	names := map[string]string{}
	for _, c := range ex.Campaigns {
		names[c.CampaignID] = c.Name
	}
	for _, r := range ex.Reach {
		s.reach[names[r.ObjectID]+" "+r.PeriodStart.Format("2006-01-02")] = r.Reach
	}
	return s
}

func sameSums(t *testing.T, got, want fileSums) {
	t.Helper()
	type plain struct {
		facts                                               int
		spend, value                                        int64
		impressions, clicks, conversions, videos, videos100 int64
	}
	strip := func(s fileSums) plain {
		return plain{s.facts, s.spend, s.value, s.impressions, s.clicks, s.conversions, s.videos, s.videos100}
	}
	if g, w := strip(got), strip(want); g != w {
		t.Errorf("sums\n got %+v\nwant %+v (from the file)", g, w)
	}
	if len(got.reach) != len(want.reach) {
		t.Errorf("reach rows %v, want %v", got.reach, want.reach)
	}
	for k, v := range want.reach {
		if got.reach[k] != v {
			t.Errorf("reach of %s: %d, want %d", k, got.reach[k], v)
		}
	}
}

// A TikTok custom report by campaign and day: BOM, every field quoted,
// thousands separators, "-" and "--" for empty, a "Total of 3 campaigns" line,
// the currency in a column, ratios and not-stored columns beside the metrics.
func TestTikTokCampaignsDaily(t *testing.T) {
	ex := parseFile(t, "tiktok_en_campaigns_daily.csv", Options{})
	r := ex.Report
	if r.Platform != TikTok || r.Language != "en" || r.NumberStyle != "1,234.56" || r.Level != "campaign" || r.Encoding != "UTF-8 (BOM)" && r.Encoding != "UTF-8" {
		t.Errorf("detected %s/%s/%s/%s/%s", r.Platform, r.Language, r.NumberStyle, r.Level, r.Encoding)
	}
	want := sumTikTokFile(t, "tiktok_en_campaigns_daily.csv", map[string]string{"spend": "Cost", "value": "Total complete payment value",
		"impressions": "Impressions", "clicks": "Clicks (destination)", "conversions": "Conversions", "videos": "Video views",
		"videos100": "Video views at 100%", "reach": "Reach", "campaign": "Campaign name", "day": "By Day"})
	if want.facts != 8 || len(want.reach) != 8 {
		t.Fatalf("the sample changed: %+v", want)
	}
	sameSums(t, exportSums(ex), want)
	if s := skipped(r); s["totals row"] != 1 || s["no activity (every metric 0 or empty)"] != 1 || len(s) != 2 {
		t.Errorf("skipped %v", r.Skipped)
	}
	if r.DataLines != 10 || r.RowsImported != 8 || r.Campaigns != 3 || r.ReachRows != 8 {
		t.Errorf("counts %+v", r)
	}
	for _, n := range []string{"totals line 2 matches the sum of the rows (spend 4338.31)", "reach imported per campaign and day",
		"Clicks (all)", "CTR (destination)", "Frequency", "2-second video views"} {
		if !hasNote(r, n) {
			t.Errorf("no note %q in %q", n, r.Notes)
		}
	}
	if len(ex.Accounts) != 1 {
		t.Fatalf("accounts %+v", ex.Accounts)
	}
	if a := ex.Accounts[0]; a.AccountID != "7201845539016472318" || a.AccountName != "Lumen Outdoor TikTok" || a.Currency != "USD" ||
		a.Platform != TikTok || !a.NameKnown {
		t.Errorf("account %+v", a)
	}
	wantCampaigns := map[string][3]string{
		"1790000000000000001": {"Spark Ads - Creator Whitelisting", "WEB_CONVERSIONS", "ACTIVE"},
		"1790000000000000002": {`Traffic - "Spring" Drop, Test`, "TRAFFIC", "PAUSED"},
		"1790000000000000003": {"Video Views - Brand Story", "VIDEO_VIEWS", "PAUSED"},
	}
	for _, c := range ex.Campaigns {
		if w := wantCampaigns[c.CampaignID]; w != [3]string{c.Name, c.Objective, c.Status} || !c.StartDate.Equal(day("2026-01-05")) {
			t.Errorf("campaign %+v, want %v", c, w)
		}
	}
	for _, f := range ex.Facts {
		if f.Measures[catalog.LinkClicks] != ads.NotReported {
			t.Errorf("link clicks of a TikTok fact are %v, want not reported: %+v", f.Measures[catalog.LinkClicks], f)
		}
	}
	for _, rr := range ex.Reach {
		if rr.Level != "campaign" || rr.Grain != "daily" || rr.AccountID != "7201845539016472318" {
			t.Errorf("reach row %+v", rr)
		}
	}
}

// A TikTok report by ad group and day, without account columns: the currency
// in the header ("Cost (EUR)"), CRLF, unquoted fields. Reach is not imported
// (ad groups' reach cannot be summed to campaigns), nor "Primary status"
// (it is each ad group's), and a line of "-" is no activity.
func TestTikTokAdGroupsDaily(t *testing.T) {
	ex := parseFile(t, "tiktok_en_adgroups_daily.csv", Options{AccountID: "7301122334455667788", AccountName: "Lumen Outdoor ES", Timezone: "Europe/Madrid"})
	r := ex.Report
	if r.Platform != TikTok || r.Level != "adset" {
		t.Errorf("detected %s/%s", r.Platform, r.Level)
	}
	want := sumTikTokFile(t, "tiktok_en_adgroups_daily.csv", map[string]string{"spend": "Cost (EUR)", "value": "Complete payment value",
		"impressions": "Impressions", "clicks": "Clicks (destination)", "conversions": "Conversions", "videos": "Video views",
		"videos100": "Video views at 100%"})
	if want.facts != 3 {
		t.Fatalf("the sample changed: %+v", want)
	}
	sameSums(t, exportSums(ex), want)
	if len(ex.Reach) != 0 || !hasNote(r, "reach not imported: the rows are ad groups") || !hasNote(r, `"Primary status" is each ad group's status`) {
		t.Errorf("reach %+v, notes %q", ex.Reach, r.Notes)
	}
	if s := skipped(r); s["no activity (every metric 0 or empty)"] != 1 {
		t.Errorf("skipped %v", r.Skipped)
	}
	a := ex.Accounts[0]
	if a.AccountID != "7301122334455667788" || a.Currency != "EUR" || a.Timezone != "Europe/Madrid" {
		t.Errorf("account %+v", a)
	}
	if len(ex.Campaigns) != 1 || len(ex.AdSets) != 2 {
		t.Fatalf("%d campaigns, %d ad groups", len(ex.Campaigns), len(ex.AdSets))
	}
	c := ex.Campaigns[0]
	if c.CampaignID != DeriveID(TikTok, a.AccountID, "Smart+ - Outdoor Gear") || c.Status != "" {
		t.Errorf("campaign %+v", c)
	}
	for _, s := range ex.AdSets {
		if s.CampaignID != c.CampaignID || !strings.HasPrefix(s.AdSetID, "18000000000000000") {
			t.Errorf("ad group %+v", s)
		}
	}
}

// TikTok's reach, like Meta's, is only imported where a line is a whole
// campaign on one day: a breakdown (age) sums the lines and leaves reach out.
func TestTikTokBreakdownHasNoReach(t *testing.T) {
	data := "Account ID,Campaign name,By Day,Age,Currency,Cost,Impressions,Reach\n" +
		"7201845539016472318,C,2026-01-05,18-24,USD,10.00,1000,800\n" +
		"7201845539016472318,C,2026-01-05,25-34,USD,20.00,2000,1500\n"
	ex, err := Parse("age.csv", []byte(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Each age is its own age_gender row (never summed into one delivery
	// row), and the reach of the parts is left out.
	if ex.Report.Platform != TikTok || ex.Breakdown != "age_gender" || len(ex.Facts) != 2 || len(ex.Reach) != 0 ||
		ex.Facts[0].Age != "18-24" || ex.Facts[0].Measures[catalog.Spend] != 10_000_000 ||
		ex.Facts[1].Age != "25-34" || ex.Facts[1].Measures[catalog.Spend] != 20_000_000 ||
		!hasNote(ex.Report, "reach not imported: the rows are broken down") {
		t.Errorf("facts %+v reach %+v notes %q", ex.Facts, ex.Reach, ex.Report.Notes)
	}
}

// The platform is the one whose titles the most columns are; a file whose
// columns are titled alike on two platforms is refused, naming --platform.
func TestPlatformDetection(t *testing.T) {
	opt := Options{AccountID: "1", Currency: "USD"}
	for _, c := range []struct {
		header, line string
		want         string // platform, or the flags the refusal names
	}{
		{"Campaign name,By Day,Cost,Impressions", "C,2026-01-05,1.00,1", TikTok},
		{"Campaign name,Date,Cost,Impressions,Clicks", "C,2026-01-05,1.00,1,1", TikTok},
		{"Ad group name,Campaign name,Date,Cost,Impressions", "A,C,2026-01-05,1.00,1", TikTok},
		{"Campaign name,Day,Impressions,Amount spent (USD)", "C,2026-01-05,1,1.00", Meta},
		{"Campaign name,Date,Impressions,Amount spent (USD),Clicks (all)", "C,2026-01-05,1,1.00,1", Meta},
		{"Campaign,Day,Cost,Impr.,Clicks", "C,2026-01-05,1.00,1,1", Google},
		{"Campaign,Ad group,Date,Cost,Impressions,Conversions", "C,A,2026-01-05,1.00,1,1", Google},
		{"Campaign ID,Date,Cost,Impressions,Clicks,Conversions", "1,2026-01-05,1.00,1,1,1", "--platform google_ads or --platform tiktok_ads"},
		{"Campaign name,Date,Impressions,Reach", "C,2026-01-05,1,1", "--platform meta_ads or --platform tiktok_ads"},
		{"Date,Impressions,Campaign ID", "2026-01-05,1,5", "--platform meta_ads, --platform google_ads or --platform tiktok_ads"},
	} {
		data := c.header + "\n" + c.line + "\n"
		ex, err := Parse("p.csv", []byte(data), opt)
		if strings.HasPrefix(c.want, "--") {
			var e *Error
			if !errors.As(err, &e) || e.Line != 1 || !strings.Contains(e.Fix, c.want) || !strings.Contains(e.Reason, "cannot tell") {
				t.Errorf("%s: %v, want a refusal naming %s", c.header, err, c.want)
			}
			continue
		}
		if err != nil || ex.Report.Platform != c.want {
			t.Errorf("%s: %v, %v; want %s", c.header, ex, err, c.want)
		}
	}
	// The refused file imports when the flag says its platform.
	ex, err := Parse("p.csv", []byte("Campaign ID,Date,Cost,Impressions,Clicks,Conversions\n1,2026-01-05,1.00,1,1,1\n"),
		Options{AccountID: "7201845539016472318", Currency: "USD", Platform: TikTok})
	if err != nil || ex.Report.Platform != TikTok || ex.Accounts[0].Platform != TikTok {
		t.Errorf("--platform tiktok_ads: %v", err)
	}
}

// Each way a TikTok file can be wrong is an *Error at its line and column,
// with a fix in TikTok Ads Manager's words.
func TestTikTokErrors(t *testing.T) {
	const head = "Account ID,Campaign name,By Day,Currency,Cost,Impressions,Clicks (destination)\n"
	cases := []struct {
		name      string
		data      string
		line, col int
		header    string
		want      []string
	}{
		{"no day", "Account ID,Campaign name,Ad group name,Currency,Cost,Impressions\n1,C,A,USD,1.00,1\n", 1, 0, "",
			[]string{"no Day column", "Custom reports", "time dimension Day"}},
		{"hours", "Account ID,Campaign name,By Hour,Currency,Cost,Impressions,Clicks (destination)\n1,C,2026-01-05 13:00,USD,1.00,1,1\n", 1, 3, "By Hour",
			[]string{"hours, weeks or months", "Custom reports"}},
		{"no cost", "Account ID,Campaign name,By Day,Currency,Impressions,Clicks (destination),Video views at 100%\n1,C,2026-01-05,USD,1,1,1\n", 1, 0, "",
			[]string{"no spend column", `add the "Cost" column`}},
		{"bad cost", head + "1,C,2026-01-05,USD,1.00,1,1\n1,C,2026-01-06,USD,12.3O,1,1\n", 3, 5, "Cost",
			[]string{"line 3, column 5 (Cost)", `"12.3O"`, "not a number", "fix: write numbers like 1,234.56"}},
		{"fractional impressions", head + "1,C,2026-01-05,USD,1.00,1.5,1\n", 2, 6, "Impressions", []string{"whole number"}},
		{"negative cost", head + "1,C,2026-01-05,USD,-1.00,1,1\n", 2, 5, "Cost", []string{"negative"}},
		{"bad day", head + "1,C,2026-02-30,USD,1.00,1,1\n", 2, 3, "By Day", []string{"not a date"}},
		{"no account", "Campaign name,By Day,Currency,Cost,Impressions\nC,2026-01-05,USD,1.00,1\n", 1, 0, "",
			[]string{"no account ID column", "advertiser ID"}},
		{"no currency", "Account ID,Campaign name,By Day,Cost,Impressions\n1,C,2026-01-05,1.00,1\n", 1, 0, "",
			[]string{"does not say its currency", "--currency"}},
		{"ads without ad groups", "Account ID,Campaign name,Ad name,By Day,Currency,Cost,Impressions\n1,C,A,2026-01-05,USD,1.00,1\n", 1, 0, "",
			[]string{"not their ad group", "Ad group name (TikTok)"}},
		{"missing ad group name", "Account ID,Campaign name,Ad group name,By Day,Currency,Cost,Impressions\n1,C,,2026-01-05,USD,1.00,1\n", 2, 3, "Ad group name",
			[]string{"no ad group name"}},
		{"field count", head + "1,C,2026-01-05,USD,1.00,1\n", 2, 0, "", []string{"6 fields", "has 7"}},
	}
	for _, c := range cases {
		ex, err := Parse("t.csv", []byte(c.data), Options{})
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: Parse = %v, %v; want an *Error", c.name, ex, err)
			continue
		}
		if e.Line != c.line || e.Column != c.col || e.Header != c.header || e.Fix == "" {
			t.Errorf("%s: line %d column %d (%q), want %d %d (%q): %v", c.name, e.Line, e.Column, e.Header, c.line, c.col, c.header, err)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", c.name, err, w)
			}
		}
	}
}

// An .xlsx (a zip archive) is refused with the fix, not read as garbage.
func TestWorkbookRefused(t *testing.T) {
	_, err := Parse("report.xlsx", []byte("PK\x03\x04\x14\x00\x06\x00rest of a workbook"), Options{})
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.Reason, ".xlsx") || !strings.Contains(e.Fix, "CSV") {
		t.Errorf("Parse(xlsx) = %v", err)
	}
}
