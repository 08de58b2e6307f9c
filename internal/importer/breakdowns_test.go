package importer

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// The breakdown tests compare the import with sums computed from the files
// themselves (encoding/csv, math/big), keyed by campaign name, day and the
// breakdown values as the file writes them; the stored values they expect
// are spelled out here, not taken from the importer's mappings.

// measureCols are the columns a test sums, by measure.
type measureCols map[catalog.Measure]string

// fileGroups sums the file's lines by campaign name + day + the key
// columns' values (mapped by values where given), in micros for money and
// in hundredths for the other measures (Google's conversions have decimals).
func fileGroups(t *testing.T, name string, skip int, keys []string, values map[string]string, cols measureCols) map[string]map[catalog.Measure]int64 {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff"))))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	recs = recs[skip:]
	at := map[string]int{}
	for i, h := range recs[0] {
		at[h] = i
	}
	col := func(h string) int {
		i, ok := at[h]
		if !ok {
			t.Fatalf("%s: no column %q", name, h)
		}
		return i
	}
	out := map[string]map[catalog.Measure]int64{}
	for _, rec := range recs[1:] {
		if strings.HasPrefix(rec[0], "Total") || rec[col(keys[0])] == "" { // totals lines
			continue
		}
		parts := make([]string, len(keys))
		for i, k := range keys {
			v := rec[col(k)]
			if m, ok := values[v]; ok {
				v = m
			}
			parts[i] = v
		}
		key := strings.Join(parts, " | ")
		if out[key] == nil {
			out[key] = map[catalog.Measure]int64{}
		}
		for m, h := range cols {
			v := strings.ReplaceAll(rec[col(h)], ",", "")
			if v == "" || v == "-" || v == "--" {
				continue
			}
			x, ok := new(big.Rat).SetString(v)
			if !ok {
				t.Fatalf("%s: %q is not a number", name, v)
			}
			scale := int64(100)
			if m == catalog.Spend || m == catalog.ConversionValue {
				scale = 1e6
			}
			x.Mul(x, big.NewRat(scale, 1))
			if !x.IsInt() {
				t.Fatalf("%s: %q has too many decimals", name, v)
			}
			out[key][m] += x.Num().Int64()
		}
	}
	for k, ms := range out { // lines without activity are not rows
		active := false
		for _, v := range ms {
			active = active || v != 0
		}
		if !active {
			delete(out, k)
		}
	}
	return out
}

// perCampaignSet says whether set's rows are kept per campaign, without ad
// sets or ads.
func perCampaignSet(set string) bool {
	s, _ := catalog.BreakdownSetByKey(set)
	return s.Level == catalog.LevelCampaign
}

// importGroups are the export's facts of set, keyed as fileGroups keys them:
// campaign name, day, then the values dims gives.
func importGroups(t *testing.T, ex *Export, set string, dims func(f ads.Fact) []string, cols measureCols) map[string]map[catalog.Measure]int64 {
	t.Helper()
	names := map[string]string{}
	for _, c := range ex.Campaigns {
		names[c.CampaignID] = c.Name
	}
	out := map[string]map[catalog.Measure]int64{}
	for _, f := range ex.Facts {
		if f.BreakdownKey() != set {
			continue
		}
		if perCampaignSet(set) && (f.AdSetID != "" || f.AdID != "") {
			t.Fatalf("a %s row below its campaign: %+v", set, f)
		}
		key := strings.Join(append([]string{names[f.CampaignID], f.Date.Format("2006-01-02")}, dims(f)...), " | ")
		if out[key] != nil {
			t.Fatalf("two %s rows for %s", set, key)
		}
		out[key] = map[catalog.Measure]int64{}
		for m := range cols {
			v := f.Measures[m]
			if m != catalog.Spend && m != catalog.ConversionValue {
				v *= 100
			}
			out[key][m] = int64(v)
		}
	}
	return out
}

func sameGroups(t *testing.T, what string, file, got map[string]map[catalog.Measure]int64) {
	t.Helper()
	if len(file) != len(got) {
		t.Errorf("%s: %d rows, the file has %d groups", what, len(got), len(file))
	}
	for k, want := range file {
		for m, v := range want {
			if got[k][m] != v {
				t.Errorf("%s: %s: %s = %d, the file's sum is %d", what, k, catalog.MeasureField(m).Name, got[k][m], v)
			}
		}
	}
}

var metaCols = measureCols{catalog.Spend: "Amount spent (USD)", catalog.Impressions: "Impressions", catalog.Clicks: "Clicks (all)",
	catalog.LinkClicks: "Link clicks", catalog.Conversions: "Purchases", catalog.ConversionValue: "Purchases conversion value"}

// Meta's age and gender export, by ad set: one age_gender row per campaign,
// day, age and gender, whose sums are the file's; no delivery row, no reach;
// the attribution setting and the conversions' action on the account.
func TestMetaAgeGender(t *testing.T) {
	ex := parseFile(t, "meta_en_age_gender_daily.csv", Options{})
	if ex.Breakdown != "age_gender" || ex.BreakdownKey() != "age_gender" || len(ex.Reach) != 0 || ex.Report.Level != "adset" {
		t.Fatalf("breakdown %q, %d reach rows, level %s", ex.Breakdown, len(ex.Reach), ex.Report.Level)
	}
	file := fileGroups(t, "meta_en_age_gender_daily.csv", 0, []string{"Campaign name", "Day", "Age", "Gender"}, nil, metaCols)
	got := importGroups(t, ex, "age_gender", func(f ads.Fact) []string { return []string{f.Age, f.Gender} }, metaCols)
	sameGroups(t, "age_gender", file, got)
	if a := ex.Accounts[0]; a.AttributionWindow != "7d_click_1d_view" || a.ConversionActions != "purchase" {
		t.Errorf("account %+v", a.Account)
	}
	if !strings.Contains(ex.Report.String(), "breakdown set age_gender (stored per campaign)") || !hasNote(ex.Report, "lines summed up into the age_gender rows") {
		t.Errorf("report:\n%s", ex.Report.String())
	}
}

// Meta's placement export: placements in the catalog's short form, the
// publisher platform from "Platform", the device from "Impression device".
func TestMetaPlacement(t *testing.T) {
	ex := parseFile(t, "meta_en_placement_daily.csv", Options{})
	if ex.Breakdown != "placement" {
		t.Fatalf("breakdown %q", ex.Breakdown)
	}
	values := map[string]string{"Facebook": "facebook", "Instagram": "instagram", "Audience Network": "audience_network", "Messenger": "messenger",
		"Feed": "feed", "Instagram Reels": "reels", "Facebook Stories": "story", "Instagram Explore": "explore",
		"Native, banner and interstitial": "an_classic", "Messenger Inbox": "messenger_inbox", "Right column": "right_hand_column",
		"Android Smartphone": "mobile", "iPhone": "mobile", "iPad": "tablet", "Desktop": "desktop"}
	file := fileGroups(t, "meta_en_placement_daily.csv", 0, []string{"Campaign name", "Day", "Platform", "Placement", "Impression device"}, values, metaCols)
	got := importGroups(t, ex, "placement", func(f ads.Fact) []string { return []string{f.PublisherPlatform, f.Placement, f.Device} }, metaCols)
	sameGroups(t, "placement", file, got)
	if a := ex.Accounts[0]; a.AttributionWindow != "" {
		t.Errorf("no attribution setting column, but window %q", a.AttributionWindow)
	}
}

// Without a Platform column, a placement's label names its platform.
func TestMetaPlacementNamesItsPlatform(t *testing.T) {
	data := "Account ID,Campaign name,Day,Placement,Impressions,Amount spent (USD)\n" +
		"1,C,2026-01-01,Instagram Stories,10,1.00\n1,C,2026-01-01,Facebook Stories,10,2.00\n1,C,2026-01-01,Feed,10,3.00\n"
	ex, err := Parse("p.csv", []byte(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range ex.Facts {
		got = append(got, f.PublisherPlatform+"/"+f.Placement)
	}
	if strings.Join(got, " ") != "/feed facebook/story instagram/story" {
		t.Errorf("placements %v", got)
	}
}

var tiktokCols = measureCols{catalog.Spend: "Cost", catalog.Impressions: "Impressions", catalog.Clicks: "Clicks (destination)",
	catalog.Conversions: "Conversions", catalog.ConversionValue: "Total complete payment value"}

// TikTok's age and gender export: each line its own age_gender row (they
// were summed into delivery rows before), TikTok's 55+ kept as it is.
func TestTikTokAgeGender(t *testing.T) {
	ex := parseFile(t, "tiktok_en_age_gender_daily.csv", Options{})
	if ex.Report.Platform != TikTok || ex.Breakdown != "age_gender" || len(ex.Reach) != 0 {
		t.Fatalf("platform %s, breakdown %q, %d reach rows", ex.Report.Platform, ex.Breakdown, len(ex.Reach))
	}
	values := map[string]string{"Male": "male", "Female": "female", "Unknown": "unknown"}
	file := fileGroups(t, "tiktok_en_age_gender_daily.csv", 0, []string{"Campaign name", "By Day", "Age", "Gender"}, values, tiktokCols)
	got := importGroups(t, ex, "age_gender", func(f ads.Fact) []string { return []string{f.Age, f.Gender} }, tiktokCols)
	sameGroups(t, "age_gender", file, got)
	if _, ok := got["Spark Ads - Creators | 2026-01-06 | 55+ | female"]; !ok {
		t.Errorf("no 55+ row: %v", got)
	}
	if a := ex.Accounts[0]; a.ConversionActions != "the optimization event (Conversions)" || a.AttributionWindow != "" {
		t.Errorf("account %+v", a.Account)
	}
}

// TikTok's placement export by ad group: summed up to campaign × day ×
// placement, the placement also the publisher platform.
func TestTikTokPlacement(t *testing.T) {
	ex := parseFile(t, "tiktok_en_placement_daily.csv", Options{AccountID: "7201845539016472318", AccountName: "T"})
	if ex.Breakdown != "placement" || ex.Report.Level != "adset" {
		t.Fatalf("breakdown %q level %s", ex.Breakdown, ex.Report.Level)
	}
	cols := measureCols{catalog.Spend: "Cost (USD)", catalog.Impressions: "Impressions", catalog.Clicks: "Clicks (destination)",
		catalog.Conversions: "Conversions", catalog.ConversionValue: "Total complete payment value"}
	values := map[string]string{"TikTok": "tiktok", "Pangle": "pangle", "Global App Bundle": "global_app_bundle"}
	file := fileGroups(t, "tiktok_en_placement_daily.csv", 0, []string{"Campaign name", "By Day", "Placement", "Placement"}, values, cols)
	got := importGroups(t, ex, "placement", func(f ads.Fact) []string { return []string{f.Placement, f.PublisherPlatform} }, cols)
	sameGroups(t, "placement", file, got)
}

// Google's age report and gender report are separate downloads, each its
// own set; the account's window is each conversion action's.
func TestGoogleAgeAndGender(t *testing.T) {
	cols := measureCols{catalog.Spend: "Cost", catalog.Impressions: "Impr.", catalog.Clicks: "Clicks",
		catalog.Conversions: "Conversions", catalog.ConversionValue: "Conv. value"}
	opt := Options{AccountID: "482-915-3307", AccountName: "G"}
	for _, c := range []struct {
		file, set, column string
		values            map[string]string
		dim               func(ads.Fact) []string
	}{
		{"google_en_age_daily.csv", "age", "Age", map[string]string{"18 - 24": "18-24", "25 - 34": "25-34", "35 - 44": "35-44", "65+": "65+", "Unknown": "unknown"},
			func(f ads.Fact) []string { return []string{f.Age} }},
		{"google_en_gender_daily.csv", "gender", "Gender", map[string]string{"Female": "female", "Male": "male", "Unknown": "unknown"},
			func(f ads.Fact) []string { return []string{f.Gender} }},
	} {
		ex := parseFile(t, c.file, opt)
		if ex.Breakdown != c.set {
			t.Fatalf("%s: breakdown %q", c.file, ex.Breakdown)
		}
		file := fileGroups(t, c.file, 2, []string{"Campaign", "Day", c.column}, c.values, cols)
		sameGroups(t, c.file, file, importGroups(t, ex, c.set, c.dim, cols))
		if a := ex.Accounts[0]; a.AttributionWindow != catalog.PerActionWindow || a.ConversionActions != "the conversion actions in Conversions" {
			t.Errorf("%s: account %+v", c.file, a.Account)
		}
	}
}

// A Meta delivery export with per-action columns: delivery rows as before,
// plus conversion_action rows per campaign, day and action whose counts and
// values are the columns'; the purchase rows are the delivery conversions.
func TestMetaConversionsByAction(t *testing.T) {
	ex := parseFile(t, "meta_en_actions_daily.csv", Options{})
	if ex.BreakdownKey() != catalog.Delivery || len(ex.Reach) != 6 {
		t.Fatalf("breakdown %q, %d reach", ex.BreakdownKey(), len(ex.Reach))
	}
	sameGroups(t, "delivery", fileGroups(t, "meta_en_actions_daily.csv", 0, []string{"Campaign name", "Day"}, nil, metaCols),
		importGroups(t, ex, catalog.Delivery, func(ads.Fact) []string { return nil }, metaCols))
	actionCols := map[string][2]string{"purchase": {"Purchases", "Purchases conversion value"}, "add_to_cart": {"Adds to cart", "Adds to cart conversion value"},
		"initiate_checkout": {"Checkouts initiated", ""}, "lead": {"Leads", ""}, "complete_registration": {"Registrations completed", ""}}
	want := map[string]map[catalog.Measure]int64{}
	for action, c := range actionCols {
		cols := measureCols{catalog.Conversions: c[0]}
		if c[1] != "" {
			cols[catalog.ConversionValue] = c[1]
		}
		for k, v := range fileGroups(t, "meta_en_actions_daily.csv", 0, []string{"Campaign name", "Day"}, nil, cols) {
			want[k+" | "+action] = v
		}
	}
	convCols := measureCols{catalog.Conversions: "", catalog.ConversionValue: "", catalog.Spend: "", catalog.Impressions: ""}
	got := importGroups(t, ex, ConversionActionSet, func(f ads.Fact) []string { return []string{f.ConversionAction} }, convCols)
	sameGroups(t, "conversion_action", want, got)
	for k, v := range got {
		if v[catalog.Spend] != 0 || v[catalog.Impressions] != 0 {
			t.Errorf("%s: spend or impressions on a conversion_action row: %v", k, v)
		}
	}
	for _, f := range ex.Facts {
		if f.Breakdown == ConversionActionSet && f.Measures[catalog.VideoViewsP100] != ads.NotReported {
			t.Errorf("video_views_p100 of a file without the column is not NotReported: %+v", f)
		}
	}
	if a := ex.Accounts[0]; a.AttributionWindow != "7d_click_1d_view" || a.ConversionActions != "purchase" {
		t.Errorf("account %+v", a.Account)
	}
	if !hasNote(ex.Report, "conversions by action stored per campaign and day") {
		t.Errorf("notes %q", ex.Report.Notes)
	}

	// Without Purchases the conversions are the Results: no action rows.
	data := "Account ID,Campaign name,Day,Impressions,Amount spent (USD),Results,Adds to cart\n1,C,2026-01-01,10,1.00,2,5\n"
	ex2, err := Parse("r.csv", []byte(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex2.Facts) != 1 || ex2.Accounts[0].ConversionActions != "each campaign's result (Results)" || !hasNote(ex2.Report, "the file has no Purchases column") {
		t.Errorf("facts %+v accounts %+v notes %q", ex2.Facts, ex2.Accounts, ex2.Report.Notes)
	}
}

// Meta's attribution settings, as Ads Manager writes them, read as the
// catalog's window names.
func TestAttributionSetting(t *testing.T) {
	for in, want := range map[string]string{
		"7-day click or 1-day view":                              "7d_click_1d_view",
		"1-day click":                                            "1d_click",
		"7-day click":                                            "7d_click",
		"28-day click or 1-day view":                             "28d_click_1d_view",
		"7-day click, 1-day view or 1-day engaged-view":          "7d_click_1d_ev_1d_view",
		"1-day view or 1-day click":                              "1d_click_1d_view",
		"Clic de 7 días o visualización de 1 día":                "7d_click_1d_view",
		"Clic de 1 día":                                          "1d_click",
		"7-day click, 1-day engaged view and 1-day view":         "7d_click_1d_ev_1d_view",
		"  7-Day Click Or 1-Day View ":                           "7d_click_1d_view",
		"clic de 7 dias, visualizacion con interaccion de 1 dia": "7d_click_1d_ev",
	} {
		if got, err := attributionSetting(in); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"Multiple attribution settings", "7-day click or 7-day view", "3-day click", "7-day click or 1-day click", "default"} {
		if got, err := attributionSetting(bad); err == nil {
			t.Errorf("%q read as %q", bad, got)
		}
	}
}

// What is refused: breakdowns no set holds together, several attribution
// settings, values that are not ages or genders; each names the fix.
func TestBreakdownRefusals(t *testing.T) {
	for _, c := range []struct {
		name, data string
		opt        Options
		want       []string
	}{
		{"meta age and placement", "Account ID,Campaign name,Day,Age,Placement,Impressions,Amount spent (USD)\n1,C,2026-01-01,18-24,Feed,10,1.00\n", Options{},
			[]string{`column 4 (Age)`, `"Age", "Placement" are not reported together by Meta Ads`, "Age and Gender (age and gender)",
				"Platform, Placement and Impression device (placement with publisher_platform and device)", "Country or none (delivery)", "Impression device and Platform (device and publisher_platform)"}},
		// Insights reports country alone ("Combining breakdowns"): no Meta
		// export has it with the device.
		{"meta country and device", "Account ID,Campaign name,Day,Country,Impression device,Impressions,Amount spent (USD)\n1,C,2026-01-01,US,iPhone,10,1.00\n", Options{},
			[]string{`column 5 (Impression device)`, `"Country", "Impression device" are not reported together by Meta Ads`, "Country or none (delivery)", "Impression device and Platform (device and publisher_platform)"}},
		{"meta country and age", "Account ID,Campaign name,Day,Country,Age,Impressions,Amount spent (USD)\n1,C,2026-01-01,US,18-24,10,1.00\n", Options{},
			[]string{`"Country", "Age" are not reported together by Meta Ads`}},
		{"google age and gender", "Day,Campaign,Age,Gender,Cost,Impr.\n2026-01-01,C,18 - 24,Male,1.00,1\n", Options{AccountID: "1", Currency: "USD"},
			[]string{`"Age", "Gender" are not reported together by Google Ads`, "Age (age (alone)); Gender (gender (alone))"}},
		{"google age and device", "Day,Campaign,Age,Device,Cost,Impr.\n2026-01-01,C,18 - 24,Computers,1.00,1\n", Options{AccountID: "1", Currency: "USD"},
			[]string{`"Device", "Age" are not reported together by Google Ads`}},
		{"tiktok age and placement", "By Day,Campaign name,Age,Placement,Cost,Impressions\n2026-01-05,C,18-24,TikTok,1.00,1\n", Options{AccountID: "1", Currency: "USD"},
			[]string{`"Age", "Placement" are not reported together by TikTok Ads`, "Age and Gender", "Placement (placement with"}},
		{"two attribution settings", "Account ID,Campaign name,Day,Attribution setting,Impressions,Amount spent (USD)\n" +
			"1,C,2026-01-01,7-day click or 1-day view,10,1.00\n1,D,2026-01-01,1-day click,10,1.00\n", Options{},
			[]string{"line 3, column 4 (Attribution setting)", "1d_click, line 2's is 7d_click_1d_view", "export one attribution setting per file"}},
		{"unreadable attribution", "Account ID,Campaign name,Day,Attribution setting,Impressions,Amount spent (USD)\n1,C,2026-01-01,Multiple,10,1.00\n", Options{},
			[]string{`"Multiple": not an attribution setting`}},
		{"not an age", "Account ID,Campaign name,Day,Age,Impressions,Amount spent (USD)\n1,C,2026-01-01,Feed,10,1.00\n", Options{},
			[]string{`column 4 (Age): "Feed": not an age bracket`, "18-24"}},
		{"not a gender", "Account ID,Campaign name,Day,Gender,Impressions,Amount spent (USD)\n1,C,2026-01-01,18-24,10,1.00\n", Options{},
			[]string{`"18-24": not a gender`}},
	} {
		_, err := Parse("x.csv", []byte(c.data), c.opt)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: %v, want an *Error", c.name, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q lacks %q", c.name, err, w)
			}
		}
	}
}

// The engine replaces a file's own breakdown sets: a delivery export its
// delivery and conversion_action rows and the reach of its periods, an age
// export its age_gender rows and no reach. An account's attribution window
// is kept, set, or — when a file's differs — refused.
func TestWriteReplacesOwnBreakdownSet(t *testing.T) {
	m := &memStore{state: State{Kind: KindImport}, accounts: []ads.Account{{AccountID: "act_1", Platform: Meta, Currency: "USD",
		AccountName: "A", Timezone: "UTC", AttributionWindow: "7d_click_1d_view", ConversionActions: "purchase"}}}
	delivery := export("d.csv", "act_1", "USD", 1, 3, "c1")
	age := export("a.csv", "act_1", "USD", 2, 3, "c1")
	age.Breakdown = "age_gender"
	res, err := Write(context.Background(), m, []*Export{delivery, age}, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.files) != 2 {
		t.Fatalf("%d plans", len(m.files))
	}
	d, a := m.files[0].Ranges[0], m.files[1].Ranges[0]
	if fmt.Sprint(d.Breakdowns) != "[delivery conversion_action]" || !d.HasReach() ||
		fmt.Sprint(a.Breakdowns) != "[age_gender]" || a.HasReach() || !a.First.Equal(jan(2)) {
		t.Errorf("ranges %+v / %+v", d, a)
	}
	if len(res.Files) != 2 {
		t.Errorf("result %+v", res)
	}
	where, args := a.FactWhere("f.", func(n int, date bool) string { return fmt.Sprintf("$%d", n) })
	if where != "f.account_id = $1 AND f.date BETWEEN $2 AND $3 AND f.breakdown IN ($4)" || len(args) != 4 || args[3] != "age_gender" {
		t.Errorf("FactWhere %q %v", where, args)
	}
	where, args = d.FactWhere("", func(int, bool) string { return "?" })
	if where != "account_id = ? AND date BETWEEN ? AND ? AND breakdown IN (?, ?)" || len(args) != 5 {
		t.Errorf("FactWhere %q %v", where, args)
	}

	other := export("o.csv", "act_1", "USD", 5, 5, "c1")
	other.Accounts[0].AttributionWindow = "1d_click"
	_, err = Write(context.Background(), m, []*Export{other}, WriteOptions{})
	if err == nil || !strings.Contains(err.Error(), "counted under the attribution window 7d_click_1d_view, and this file's under 1d_click") {
		t.Errorf("another window: %v", err)
	}
	same := export("s.csv", "act_1", "USD", 6, 6, "c1")
	same.Accounts[0].ConversionActions = "each campaign's result (Results)"
	m.files = nil
	if _, err := Write(context.Background(), m, []*Export{same}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if pa := m.files[0].Accounts[0]; pa.AttributionWindow != "7d_click_1d_view" || pa.ConversionActions != "purchase; each campaign's result (Results)" || !pa.Changed {
		t.Errorf("planned account %+v", pa)
	}
}
