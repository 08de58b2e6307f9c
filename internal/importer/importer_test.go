package importer

import (
	"errors"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/adsmcp/adsmcp/internal/ads"
)

// totals are the sums of an export's facts.
type totals struct {
	facts                                            int
	spend, value, impressions, clicks, links, videos int64
	conversions                                      float64
}

func sum(ex *Export) totals {
	t := totals{facts: len(ex.Facts)}
	for _, f := range ex.Facts {
		t.spend += int64(f.Measures[catalog.Spend])
		t.value += int64(f.Measures[catalog.ConversionValue])
		t.impressions += int64(f.Measures[catalog.Impressions])
		t.clicks += int64(f.Measures[catalog.Clicks])
		if f.Measures[catalog.LinkClicks] != ads.NotReported {
			t.links += int64(f.Measures[catalog.LinkClicks])
		}
		t.videos += int64(f.Measures[catalog.VideoViews])
		t.conversions += f.Measures[catalog.Conversions]
	}
	return t
}

func parseFile(t *testing.T, name string, opt Options) *Export {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := Parse(name, data, opt)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return ex
}

func skipped(r Report) map[string]int {
	out := map[string]int{}
	for _, s := range r.Skipped {
		out[s.Reason] = s.Count
	}
	return out
}

func hasNote(r Report, sub string) bool {
	for _, n := range r.Notes {
		if strings.Contains(n, sub) {
			return true
		}
	}
	return false
}

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// English Meta export: totals line first, thousands separators, account columns,
// Results of two kinds, reach per campaign and day.
func TestMetaEnglishCampaignsDaily(t *testing.T) {
	ex := parseFile(t, "meta_en_campaigns_daily.csv", Options{})
	r := ex.Report
	if r.Platform != Meta || r.Language != "en" || r.NumberStyle != "1,234.56" || r.Level != "campaign" || r.Delimiter != "comma" {
		t.Errorf("detected %s/%s/%s/%s/%s", r.Platform, r.Language, r.NumberStyle, r.Level, r.Delimiter)
	}
	got := sum(ex)
	want := totals{facts: 6, spend: 4_321_090_000, value: 7_450_250_000, impressions: 123_456, clicks: 3_001, links: 2_345, conversions: 36}
	if got != want {
		t.Errorf("sums\n got %+v\nwant %+v", got, want)
	}
	if !ex.First.Equal(day("2026-01-01")) || !ex.Last.Equal(day("2026-01-03")) {
		t.Errorf("range %v – %v", ex.First, ex.Last)
	}
	if s := skipped(r); s["totals row"] != 1 || s["no activity (every metric 0 or empty)"] != 1 || len(s) != 2 {
		t.Errorf("skipped %v", r.Skipped)
	}
	if r.DataLines != 8 || r.RowsImported != 6 || r.Facts != 6 || r.ReachRows != 6 || r.Campaigns != 3 {
		t.Errorf("counts: %+v", r)
	}
	for _, n := range []string{"totals line 2 matches", "Results that are not conversions (reach)", "reach imported per campaign and day", "Frequency"} {
		if !hasNote(r, n) {
			t.Errorf("no note %q in %q", n, r.Notes)
		}
	}
	if len(ex.Accounts) != 1 {
		t.Fatalf("accounts %+v", ex.Accounts)
	}
	a := ex.Accounts[0]
	if a.AccountID != "act_1015823746512093" || a.AccountName != "Lumen Outdoor US" || a.Currency != "USD" ||
		a.Timezone != "UTC" || a.TimezoneKnown || !a.NameKnown || a.Platform != Meta {
		t.Errorf("account %+v", a)
	}
	byName := map[string]ads.Campaign{}
	for _, c := range ex.Campaigns {
		byName[c.Name] = c
	}
	ws := byName["Winter Sale | Prospecting"]
	if ws.CampaignID != DeriveID(Meta, "act_1015823746512093", "Winter Sale | Prospecting") || ws.Objective != "OUTCOME_SALES" ||
		ws.Status != "ACTIVE" || !ws.StartDate.Equal(day("2026-01-01")) {
		t.Errorf("campaign %+v", ws)
	}
	if c, ok := byName[`Brand Awareness — Ñandú "Q1"`]; !ok || c.Objective != "OUTCOME_AWARENESS" {
		t.Errorf("quoted, accented name lost: %+v", ex.Campaigns)
	}
	if c := byName["Retargeting (paused)"]; c.Status != "PAUSED" {
		t.Errorf("paused campaign %+v", c)
	}
	var reach int64
	for _, rr := range ex.Reach {
		if rr.Level != "campaign" || rr.Grain != "daily" || rr.AccountID != a.AccountID {
			t.Errorf("reach row %+v", rr)
		}
		reach += rr.Reach
	}
	if reach != 10234+11002+8765+15000+14500+16100 {
		t.Errorf("reach sum %d", reach)
	}
	// Facts come in account, date order.
	for i := 1; i < len(ex.Facts); i++ {
		if ex.Facts[i].Date.Before(ex.Facts[i-1].Date) {
			t.Fatalf("facts out of date order at %d", i)
		}
	}
}

// Spanish Meta export: Spanish headers, EUR in the header, decimal commas and
// thousands dots, ad sets without IDs; the account from Options.
func TestMetaSpanishAdSets(t *testing.T) {
	ex := parseFile(t, "meta_es_adsets_daily.csv", Options{AccountID: "2284619037465520", AccountName: "Lumen Outdoor EU", Timezone: "Europe/Berlin"})
	r := ex.Report
	if r.Platform != Meta || r.Language != "es" || r.NumberStyle != "1.234,56" || r.Level != "adset" {
		t.Errorf("detected %s/%s/%s/%s", r.Platform, r.Language, r.NumberStyle, r.Level)
	}
	got := sum(ex)
	want := totals{facts: 4, spend: 1_234_560_000, value: 5_432_100_000, impressions: 45_678, clicks: 1_500, links: 1_111, conversions: 44}
	if got != want {
		t.Errorf("sums\n got %+v\nwant %+v", got, want)
	}
	a := ex.Accounts[0]
	if a.AccountID != "act_2284619037465520" || a.Currency != "EUR" || a.Timezone != "Europe/Berlin" || !a.TimezoneKnown {
		t.Errorf("account %+v", a)
	}
	if len(ex.AdSets) != 2 || len(ex.Campaigns) != 1 || len(ex.Reach) != 0 {
		t.Errorf("%d ad sets, %d campaigns, %d reach rows", len(ex.AdSets), len(ex.Campaigns), len(ex.Reach))
	}
	cid := DeriveID(Meta, "act_2284619037465520", "Rebajas de invierno")
	for _, s := range ex.AdSets {
		if s.CampaignID != cid || s.AdSetID != DeriveID(Meta, "act_2284619037465520", "Rebajas de invierno", s.Name) {
			t.Errorf("ad set %+v", s)
		}
	}
	if !hasNote(r, "reach not imported") || !hasNote(r, "Purchases") || !hasNote(r, "totals line 2 matches") {
		t.Errorf("notes %q", r.Notes)
	}
}

// Google Ads export: report name and date range lines, quoted numbers with
// thousands separators, "--", several "Total: …" lines, campaign IDs.
func TestGoogleEnglish(t *testing.T) {
	ex := parseFile(t, "google_en_campaigns_daily.csv", Options{AccountID: "1112223333", AccountName: "Brand Co"})
	r := ex.Report
	if r.Platform != Google || r.ReportName != "Campaign performance report" || r.First != "2026-01-01" || r.Last != "2026-01-03" {
		t.Errorf("detected %+v", r)
	}
	got := sum(ex)
	want := totals{facts: 5, spend: 4_514_720_000, value: 4_280_750_000, impressions: 125_900, clicks: 2_031, conversions: 34.75}
	if got != want {
		t.Errorf("sums\n got %+v\nwant %+v", got, want)
	}
	if s := skipped(r); s["totals row"] != 3 || s["no activity (every metric 0 or empty)"] != 1 {
		t.Errorf("skipped %v", r.Skipped)
	}
	for _, f := range ex.Facts {
		if f.Measures[catalog.LinkClicks] != ads.NotReported || f.AccountID != "111-222-3333" {
			t.Errorf("fact %+v", f)
		}
	}
	want2 := map[string][2]string{"11223344": {"SEARCH", "ACTIVE"}, "55667788": {"PERFORMANCE_MAX", "ACTIVE"}, "99887766": {"SEARCH", "PAUSED"}}
	for _, c := range ex.Campaigns {
		if w := want2[c.CampaignID]; w != [2]string{c.Objective, c.Status} {
			t.Errorf("campaign %+v, want %v", c, w)
		}
	}
	if !hasNote(r, "totals line 10 matches") {
		t.Errorf("notes %q", r.Notes)
	}
}

// Google Ads in Spanish: semicolons, CRLF, 1.234,56, fractional conversions.
func TestGoogleSpanishSemicolons(t *testing.T) {
	ex := parseFile(t, "google_es_semicolon.csv", Options{AccountID: "111-222-3334", Timezone: "Europe/Madrid"})
	r := ex.Report
	if r.Platform != Google || r.Language != "es" || r.Delimiter != "semicolon" || r.NumberStyle != "1.234,56" {
		t.Errorf("detected %+v", r)
	}
	got := sum(ex)
	want := totals{facts: 2, spend: 2_222_210_000, value: 2_400_000_000, impressions: 22_221, clicks: 1_221, conversions: 19.75}
	if got != want {
		t.Errorf("sums\n got %+v\nwant %+v", got, want)
	}
	if a := ex.Accounts[0]; a.AccountName != "111-222-3334" || a.NameKnown || a.Currency != "EUR" {
		t.Errorf("account %+v", a)
	}
}

// The same file in UTF-16 (with a BOM, tab-separated as Excel saves it) and in
// Windows-1252 gives the same rows.
func TestEncodings(t *testing.T) {
	data, err := os.ReadFile("testdata/meta_es_adsets_daily.csv")
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{AccountID: "1"}
	want, err := Parse("a.csv", data, opt)
	if err != nil {
		t.Fatal(err)
	}
	tabbed := strings.ReplaceAll(string(data), `","`, "\"\t\"")
	u := utf16.Encode([]rune(tabbed))
	le := []byte{0xFF, 0xFE}
	for _, c := range u {
		le = append(le, byte(c), byte(c>>8))
	}
	var latin []byte
	for _, r := range string(data) {
		switch {
		case r < 0x100:
			latin = append(latin, byte(r))
		default:
			t.Fatalf("sample has %q, not in Latin-1", r)
		}
	}
	for name, in := range map[string][]byte{"UTF-16LE": le, "Windows-1252": latin} {
		got, err := Parse("b.csv", in, opt)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got.Report.Encoding != name || !reflect.DeepEqual(got.Facts, want.Facts) || !reflect.DeepEqual(got.AdSets, want.AdSets) {
			t.Errorf("%s: %s, facts differ: %+v", name, got.Report.Encoding, got.Facts)
		}
	}
}

// A malformed line rejects the whole file, naming the line, the column and the fix.
func TestMalformedFile(t *testing.T) {
	data, err := os.ReadFile("testdata/meta_en_malformed.csv")
	if err != nil {
		t.Fatal(err)
	}
	ex, err := Parse("meta_en_malformed.csv", data, Options{AccountID: "act_1"})
	var e *Error
	if ex != nil || !errors.As(err, &e) {
		t.Fatalf("Parse = %v, %v", ex, err)
	}
	if e.Line != 4 || e.Column != 7 || e.Header != "Amount spent (USD)" || e.Value != "1OO.00" || e.Fix == "" {
		t.Errorf("error %+v", e)
	}
	for _, w := range []string{"meta_en_malformed.csv, line 4, column 7 (Amount spent (USD))", `"1OO.00"`, "fix:"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q does not say %q", err, w)
		}
	}
}

// Each way a file can be wrong is an *Error at the right line, with a fix.
func TestErrors(t *testing.T) {
	const metaHead = `"Campaign name","Day","Impressions","Amount spent (USD)"` + "\n"
	cases := []struct {
		name string
		opt  Options
		data string
		line int
		want []string
	}{
		{"empty", Options{}, "", 0, []string{"no header row", "Amount spent"}},
		{"no header", Options{}, "a,b,c\n1,2,3\n", 0, []string{"no header row"}},
		{"no account", Options{}, metaHead + "C,2026-01-01,1,1.00\n", 1, []string{"no account ID column", "--account-id"}},
		{"no currency", Options{AccountID: "1"}, `"Campaign name","Day","Impressions","Amount spent"` + "\nC,2026-01-01,1,1.00\n", 1,
			[]string{"does not say its currency", "--currency"}},
		{"currency flag disagrees", Options{AccountID: "1", Currency: "EUR"}, metaHead + "C,2026-01-01,1,1.00\n", 1, []string{"USD", "EUR"}},
		{"bad currency flag", Options{AccountID: "1", Currency: "dollars"}, `"Campaign name","Day","Impressions","Amount spent"` + "\nC,2026-01-01,1,1\n", 0, []string{"ISO 4217"}},
		{"bad timezone", Options{AccountID: "1", Timezone: "Mars/Olympus"}, metaHead + "C,2026-01-01,1,1.00\n", 0, []string{"IANA"}},
		{"no day", Options{AccountID: "1"}, `"Campaign name","Impressions","Amount spent (USD)"` + "\nC,1,1.00\n", 1, []string{"no Day column", "Breakdown → By time → Day"}},
		{"weeks", Options{AccountID: "1"}, `"Campaign name","Week","Impressions","Amount spent (USD)"` + "\nC,2026-01-05,1,1.00\n", 1, []string{"weeks or months"}},
		{"period rows", Options{AccountID: "1"}, `"Reporting starts","Reporting ends","Campaign name","Impressions","Amount spent (USD)"` + "\n2026-01-01,2026-03-31,C,1,1.00\n", 2,
			[]string{"2026-01-01 to 2026-03-31", "By time → Day"}},
		{"account-level periods", Options{AccountID: "1"}, `"Reporting starts","Reporting ends","Impressions","Amount spent (USD)"` + "\n2026-01-01,2026-03-31,1,1.00\n", 2,
			[]string{"several days", "By time → Day"}},
		{"no spend", Options{AccountID: "1", Currency: "USD"}, `"Campaign name","Day","Impressions","Reach"` + "\nC,2026-01-01,1,1\n", 1, []string{"no spend column"}},
		{"single field among data", Options{AccountID: "1"}, metaHead + "C,2026-01-01,1,1.00\nC;2026-01-02;1;1.00\nC,2026-01-03,1,1.00\n", 3, []string{"single field", "comma-separated"}},
		{"field count", Options{AccountID: "1"}, metaHead + "C,2026-01-01,1,1.00\nC,2026-01-02,1\n", 3, []string{"3 fields", "has 4"}},
		{"bad date", Options{AccountID: "1"}, metaHead + "C,2026-13-45,1,1.00\n", 2, []string{"not a date"}},
		{"negative", Options{AccountID: "1"}, metaHead + "C,2026-01-01,1,-1.00\n", 2, []string{"negative"}},
		{"fraction of impressions", Options{AccountID: "1"}, metaHead + "C,2026-01-01,1.5,1.00\n", 2, []string{"whole number"}},
		{"mixed styles", Options{AccountID: "1"}, metaHead + "C,2026-01-01,1,\"1,234.50\"\nC,2026-01-02,1,\"1.234,50\"\n", 3, []string{"1,234.56 on line 2", "1.234,56 on line 3"}},
		{"bare quote", Options{AccountID: "1"}, metaHead + "C,2026-01-01,1,1.00\nC \"x\" y,2026-01-02,1,1.00\n", 3, []string{"malformed CSV", "quote"}},
		{"missing name", Options{AccountID: "1"}, `"Campaign name","Ad set name","Day","Impressions","Amount spent (USD)"` + "\n,A,2026-01-01,1,1.00\n", 2, []string{"no campaign name"}},
		{"ads without ad sets", Options{AccountID: "1"}, `"Campaign name","Ad name","Day","Impressions","Amount spent (USD)"` + "\nC,A,2026-01-01,1,1.00\n", 1, []string{"not their ad set"}},
		{"duplicate column", Options{AccountID: "1"}, `"Campaign name","Day","Impressions","Amount spent (USD)","Impressions"` + "\nC,2026-01-01,1,1.00,1\n", 1, []string{"second impressions column"}},
		{"ambiguous platform", Options{AccountID: "1", Currency: "USD"}, "Day,Impressions,Campaign ID\n2026-01-01,1,5\n", 1, []string{"--platform"}},
		{"unknown platform", Options{Platform: "linkedin_ads"}, metaHead + "C,2026-01-01,1,1.00\n", 0, []string{"unknown platform"}},
		{"only totals", Options{AccountID: "1"}, metaHead + ",,10,1.00\n", 1, []string{"no data rows"}},
		{"outside range", Options{AccountID: "1", Currency: "USD"}, "Report\n\"January 1, 2026 - January 2, 2026\"\nDay,Campaign,Cost,Impr.\n2026-01-03,C,1.00,1\n", 4,
			[]string{"outside the report's range 2026-01-01 to 2026-01-02"}},
		{"account flag disagrees", Options{AccountID: "act_2"}, `"Account ID","Campaign name","Day","Impressions","Amount spent (USD)"` + "\n1,C,2026-01-01,1,1.00\n", 2, []string{"differs from --account-id"}},
		{"currency changes", Options{AccountID: "1"}, "Day,Campaign,Currency code,Cost,Impr.\n2026-01-01,C,USD,1.00,1\n2026-01-02,C,EUR,1.00,1\n", 3, []string{"is in USD on an earlier line"}},
	}
	for _, c := range cases {
		ex, err := Parse("x.csv", []byte(c.data), c.opt)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: Parse = %v, %v; want an *Error", c.name, ex, err)
			continue
		}
		if e.Line != c.line || e.File != "x.csv" {
			t.Errorf("%s: line %d, want %d: %v", c.name, e.Line, c.line, err)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", c.name, err, w)
			}
		}
	}
}

// Lines with the same day and names (an age breakdown) are summed; their reach
// is left out, since reach cannot be summed. A Meta export by platform and
// device holds Meta's device_platform rows (Insights reports them apart from
// country), kept per ad like delivery.
func TestBreakdownsAreSummed(t *testing.T) {
	data := `"Account ID","Campaign name","Day","Region","Reach","Impressions","Amount spent (USD)","Link clicks","Clicks (all)","Platform","Device platform"
1,C,2026-01-01,California,100,1000,10.00,5,6,facebook,mobile_app
1,C,2026-01-01,Texas,200,2000,20.00,5,6,facebook,mobile_app
1,C,2026-01-01,England,200,2000,20.00,5,6,instagram,desktop
`
	ex, err := Parse("b.csv", []byte(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Facts) != 2 || len(ex.Reach) != 0 || ex.BreakdownKey() != "device_platform" {
		t.Fatalf("breakdown %q facts %+v reach %+v", ex.BreakdownKey(), ex.Facts, ex.Reach)
	}
	for _, f := range ex.Facts {
		if f.Breakdown != "device_platform" || f.Country != "" || f.CampaignID == "" {
			t.Errorf("fact %+v", f)
		}
		switch f.PublisherPlatform {
		case "facebook":
			if f.Device != "mobile" || f.Measures[catalog.Impressions] != 3000 || f.Measures[catalog.Spend] != 30_000_000 || f.Measures[catalog.LinkClicks] != 10 {
				t.Errorf("fact %+v", f)
			}
		case "instagram":
			if f.Device != "desktop" || f.Measures[catalog.Impressions] != 2000 {
				t.Errorf("fact %+v", f)
			}
		default:
			t.Errorf("fact %+v", f)
		}
	}
	if !hasNote(ex.Report, "1 lines summed") || !hasNote(ex.Report, "reach not imported") || !hasNote(ex.Report, "per ad and day") {
		t.Errorf("notes %q", ex.Report.Notes)
	}
}

// Account-level daily files give account reach; one-day reporting periods need no Day column.
func TestAccountLevelOneDayPeriods(t *testing.T) {
	data := `"Reporting starts","Reporting ends","Reach","Impressions","Amount spent (ARS)","Results"
"2026-03-01","2026-03-02","1.500","3.000","20.000,00",""
"2026-03-01","2026-03-01","1.000","1.500","10.000,00","3"
"2026-03-02","2026-03-02","1.100","1.500","10.000,00","4"
`
	ex, err := Parse("acct.csv", []byte(data), Options{AccountID: "act_9", AccountName: "Casa", Timezone: "America/Argentina/Buenos_Aires"})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Report.Level != "account" || ex.Report.NumberStyle != "1.234,56" || len(ex.Facts) != 2 || len(ex.Reach) != 2 {
		t.Fatalf("report %+v facts %+v reach %+v", ex.Report, ex.Facts, ex.Reach)
	}
	if r := ex.Reach[0]; r.Level != "account" || r.ObjectID != "act_9" || r.Reach != 1000 || !r.PeriodStart.Equal(day("2026-03-01")) {
		t.Errorf("reach %+v", r)
	}
	if s := sum(ex); s.spend != 20_000_000_000 || s.conversions != 7 || ex.Facts[0].CampaignID != "" {
		t.Errorf("sums %+v", s)
	}
}

// Text after the data (a footer) is skipped and reported.
func TestFooterLines(t *testing.T) {
	data := "\"Campaign name\",\"Day\",\"Impressions\",\"Amount spent (USD)\"\nC,2026-01-01,1,1.00\nReport generated by Ads Manager\n"
	ex, err := Parse("f.csv", []byte(data), Options{AccountID: "1"})
	if err != nil {
		t.Fatal(err)
	}
	if s := skipped(ex.Report); s["text after the data (a single field)"] != 1 || len(ex.Facts) != 1 {
		t.Errorf("skipped %v, %d facts", ex.Report.Skipped, len(ex.Facts))
	}
}

func TestParseIsDeterministic(t *testing.T) {
	data, _ := os.ReadFile("testdata/meta_en_campaigns_daily.csv")
	a, err1 := Parse("a.csv", data, Options{})
	b, err2 := Parse("a.csv", data, Options{})
	if err1 != nil || err2 != nil || !reflect.DeepEqual(a, b) {
		t.Errorf("two parses differ (%v, %v)", err1, err2)
	}
}

func TestNumbers(t *testing.T) {
	cases := []struct {
		in     string
		style  NumberStyle
		micros int64
		ok     bool
	}{
		{"1,234.56", English, 1_234_560_000, true},
		{"1.234,56", Spanish, 1_234_560_000, true},
		{"1234,56", Spanish, 1_234_560_000, true},
		{"1 234,56", Spanish, 1_234_560_000, true},
		{"1\u00a0234,56", Spanish, 1_234_560_000, true},
		{"$1,234,567.891", English, 1_234_567_891_000, true},
		{"12,50 €", Spanish, 12_500_000, true},
		{"US$ 0.99", English, 990_000, true},
		{"1.234 ARS", Spanish, 1_234_000_000, true},
		{"R$ 10,5", Spanish, 10_500_000, true},
		{"12.3O", English, 0, false}, // a letter O for a zero
		{"l2.30", English, 0, false},
		{"12.30 ab", English, 0, false},
		{"0.1234565", English, 123_457, true}, // rounded half up past micros
		{".5", English, 500_000, true},
		{"007", English, 7_000_000, true},
		{"-0.00", English, 0, true},
		{"1,23.4", English, 0, false},
		{"1,,234", English, 0, false},
		{",234", English, 0, false},
		{"1,234,", English, 0, false},
		{"1.2.3", English, 0, false},
		{"12.", English, 0, false},
		{"1.234,56", English, 0, false},
		{"1,234.56", Spanish, 0, false},
		{"1e5", English, 0, false},
		{"abc", English, 0, false},
		{"-5", English, 0, false},
		{"(5.00)", English, 0, false},
		{"99999999999999999999", English, 0, false},
	}
	for _, c := range cases {
		d, err := parseDecimal(c.in, c.style)
		var m int64
		if err == nil {
			m, err = d.micros()
		}
		if (err == nil) != c.ok || c.ok && m != c.micros {
			t.Errorf("%q in %s: %d, %v; want %d ok=%v", c.in, c.style, m, err, c.micros, c.ok)
		}
	}
	for _, c := range []struct {
		in      string
		integer bool
		want    int
	}{
		{"1,234.5", false, styleEN}, {"1.234,5", false, styleES}, {"12,5", false, styleES}, {"12.5", false, styleEN},
		{"1,234", true, styleEN}, {"1.234", true, styleES}, {"1,234", false, 0}, {"0,123", false, styleES},
		{"1,234,567", false, styleEN}, {"1.234.567", false, styleES}, {"1234", false, 0}, {"--", false, 0},
	} {
		if got := styleEvidence(c.in, c.integer); got != c.want {
			t.Errorf("styleEvidence(%q, %v) = %d, want %d", c.in, c.integer, got, c.want)
		}
	}
}

func TestDates(t *testing.T) {
	cases := []struct {
		in, lang, want string
	}{
		{"2026-01-05", "en", "2026-01-05"},
		{"2026-01-05 00:00:00", "en", "2026-01-05"},
		{"2026/01/05", "en", "2026-01-05"},
		{"01/05/2026", "en", "2026-01-05"},
		{"05/01/2026", "es", "2026-01-05"},
		{"13/01/2026", "en", "2026-01-13"},
		{"1/5/26", "en", "2026-01-05"},
		{"Jan 5, 2026", "en", "2026-01-05"},
		{"Mon, Jan 5, 2026", "en", "2026-01-05"},
		{"January 5, 2026", "en", "2026-01-05"},
		{"5 ene. 2026", "es", "2026-01-05"},
		{"mar, 3 mar 2026", "es", "2026-03-03"},
		{"5 de enero de 2026", "es", "2026-01-05"},
		{"mié, 4 feb 2026", "es", "2026-02-04"},
		{"2026-02-30", "en", ""},
		{"soon", "en", ""},
		{"5 2026", "en", ""},
		{"", "en", ""},
	}
	for _, c := range cases {
		d, err := parseDate(c.in, c.lang)
		got := ""
		if err == nil {
			got = d.Format(time.DateOnly)
		}
		if got != c.want {
			t.Errorf("parseDate(%q, %s) = %q, %v; want %q", c.in, c.lang, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, first, last string }{
		{"January 1, 2026 - March 31, 2026", "2026-01-01", "2026-03-31"},
		{"1 ene 2026 - 31 mar 2026", "2026-01-01", "2026-03-31"},
		{"Date range: 2026-01-01 – 2026-01-31", "2026-01-01", "2026-01-31"},
		{"All time", "", ""},
	} {
		f, l, ok := parseRange(c.in, "en")
		if !ok {
			f, l, ok = parseRange(c.in, "es")
		}
		if c.first == "" {
			if ok {
				t.Errorf("parseRange(%q) = %v %v", c.in, f, l)
			}
			continue
		}
		if !ok || f.Format(time.DateOnly) != c.first || l.Format(time.DateOnly) != c.last {
			t.Errorf("parseRange(%q) = %v %v %v", c.in, f, l, ok)
		}
	}
}

func TestFormatMicros(t *testing.T) {
	for m, want := range map[int64]string{0: "0.00", 1_234_500_000: "1234.50", 1_234_567_891: "1234.567891", -10_000: "-0.01"} {
		if got := FormatMicros(m); got != want {
			t.Errorf("FormatMicros(%d) = %s, want %s", m, got, want)
		}
	}
}
