package meta

import (
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestParseMicros(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"123.45", 123_450000, true},
		{"0", 0, true},
		{"5339.5", 5339_500000, true},
		{"12", 12_000000, true},
		{"-0.5", -500000, true},
		{"+7.", 7_000000, true},
		{".25", 250000, true},
		{"0.1234565", 123457, true},
		{"0.1234564", 123456, true},
		{"000000000000001.5", 1_500000, true},
		{"999999999999.999999", 999999999999_999999, true},
		{"1000000000000", 0, false},
		{"", 0, false},
		{"-", 0, false},
		{".", 0, false},
		{"1e3", 0, false},
		{"1,5", 0, false},
		{" 1", 0, false},
		{"NaN", 0, false},
	} {
		got, err := parseMicros(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseMicros(%q) = %d, %v", tc.in, got, err)
		}
	}
	for _, m := range []int64{0, 1, 10000, 123_450000, -5_500000, 999999999999_999999} {
		if got, err := parseMicros(formatMicros(m)); err != nil || got != m {
			t.Errorf("round trip %d: %s → %d %v", m, formatMicros(m), got, err)
		}
	}
}

// TestParseInsightsDocumentedShape parses the response shape Meta documents for
// Insights (developers.facebook.com/docs/marketing-api/insights: numbers as strings, actions, paging).
func TestParseInsightsDocumentedShape(t *testing.T) {
	body := `{"data":[{"campaign_id":"120","campaign_name":"Brand","spend":"123.45","impressions":"10234",
	"clicks":"321","inline_link_clicks":"200","reach":"8011","actions":[{"action_type":"purchase","value":"12"},{"action_type":"video_view","value":"90"}],
	"action_values":[{"action_type":"purchase","value":"980.1"}],"country":"US","impression_device":"iphone",
	"date_start":"2026-03-01","date_stop":"2026-03-01"}],
	"paging":{"cursors":{"before":"MAZDZD","after":"MjQZD"},"next":"https://graph.facebook.com/v25.0/act_1/insights?after=MjQZD"}}`
	p, err := ParseInsights([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	r := p.Rows[0]
	if len(p.Rows) != 1 || p.Next == "" || r.CampaignID != "120" || r.Number("spend") != 123_450000 || r.Number("impressions") != 10234 || r.Number("clicks") != 321 ||
		r.Number("inline_link_clicks") != 200 || !r.Has("reach") || r.Number("reach") != 8011 || len(r.Actions["actions"]) != 2 || r.Actions["actions"][0].Micros != 12e6 ||
		r.Actions["action_values"][0].Micros != 980_100000 || r.Country != "US" || r.ImpressionDevice != "iphone" || !r.DateStart.Equal(day("2026-03-01")) {
		t.Errorf("parsed %+v", p)
	}
	last, err := ParseInsights([]byte(`{"data":[],"paging":{"cursors":{"before":"a","after":"b"}}}`))
	if err != nil || last.Next != "" || len(last.Rows) != 0 {
		t.Errorf("last page: %+v %v", last, err)
	}
	// Numbers as bare JSON numbers and nulls are accepted too.
	loose, err := ParseInsights([]byte(`{"data":[{"spend":1.5,"impressions":10,"reach":null,"date_start":"2026-03-01","date_stop":"2026-03-31"}]}`))
	if err != nil || loose.Rows[0].Number("spend") != 1_500000 || loose.Rows[0].Has("reach") {
		t.Errorf("loose: %+v %v", loose, err)
	}
}

// TestParseInsightsBreakdownsAndWindows: age, gender and platform_position
// are read, and an action asked with action_attribution_windows keeps its
// default "value" and its value per window.
func TestParseInsightsBreakdownsAndWindows(t *testing.T) {
	body := `{"data":[{"age":"25-34","gender":"female","publisher_platform":"instagram","platform_position":"instagram_reels",
	"actions":[{"action_type":"purchase","value":"12","7d_click":"10","1d_view":"2","1d_click":7}],"date_start":"2026-03-01","date_stop":"2026-03-01"}]}`
	p, err := ParseInsights([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	r := p.Rows[0]
	a := r.Actions["actions"][0]
	if r.Age != "25-34" || r.Gender != "female" || r.PlatformPosition != "instagram_reels" || r.PublisherPlatform != "instagram" ||
		a.Micros != 12e6 || a.Windows["7d_click"] != 10e6 || a.Windows["1d_view"] != 2e6 || a.Windows["1d_click"] != 7e6 || len(a.Windows) != 3 {
		t.Errorf("parsed %+v %+v", r, a)
	}
	if _, err := ParseInsights([]byte(`{"data":[{"actions":[{"action_type":"purchase","value":"1","7d_click":"x"}],"date_start":"2026-03-01","date_stop":"2026-03-01"}]}`)); err == nil ||
		!strings.Contains(err.Error(), "7d_click") {
		t.Errorf("an unreadable window value: %v", err)
	}
}

func TestParseInsightsErrors(t *testing.T) {
	for body, want := range map[string]string{
		``:              "malformed",
		`[]`:            "malformed",
		`{}`:            "no data array",
		`{"data":{}}`:   "malformed",
		`{"data":[{}]}`: "date_start is missing",
		`{"data":[{"date_start":"2026-3-1","date_stop":"2026-03-01"}]}`:                             "not a YYYY-MM-DD date",
		`{"data":[{"date_start":"2026-03-02","date_stop":"2026-03-01"}]}`:                           "before date_start",
		`{"data":[{"date_start":"2026-03-01","date_stop":"2026-03-01","spend":"1e9"}]}`:             "spend",
		`{"data":[{"date_start":"2026-03-01","date_stop":"2026-03-01","impressions":"-1"}]}`:        "whole non-negative",
		`{"data":[{"date_start":"2026-03-01","date_stop":"2026-03-01","clicks":"1.5"}]}`:            "whole non-negative",
		`{"data":[{"date_start":"2026-03-01","date_stop":"2026-03-01","spend":true}]}`:              "want a number",
		`{"data":[{"date_start":"2026-03-01","date_stop":"2026-03-01","actions":[{"value":"x"}]}]}`: "actions",
		`{"error":{"message":"Invalid OAuth access token","type":"OAuthException","code":190}}`:     "Meta API error 190",
	} {
		_, err := ParseInsights([]byte(body))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", body, err, want)
		}
	}
}

func TestParseError(t *testing.T) {
	e, err := ParseError([]byte(`{"error":{"message":"(#80000) There have been too many calls from this ad-account.","type":"OAuthException","code":80000,"error_subcode":2446079,"is_transient":true,"fbtrace_id":"AbC"}}`))
	if err != nil || e.Code != 80000 || e.Subcode != 2446079 || !e.IsTransient || !e.throttled() || e.FBTraceID != "AbC" {
		t.Fatalf("%+v %v", e, err)
	}
	if s := e.Error(); !strings.Contains(s, "80000/2446079") || !strings.Contains(s, "fbtrace_id AbC") {
		t.Errorf("text %q", s)
	}
	for body, class := range map[string]func(*APIError) bool{
		`{"error":{"message":"Please reduce the amount of data you're asking for, then retry your request","code":1}}`:             (*APIError).reduceData,
		`{"error":{"message":"An unknown error occurred","code":1,"error_subcode":99}}`:                                            (*APIError).transient,
		`{"error":{"message":"Session has expired","code":190,"error_subcode":463}}`:                                               (*APIError).tokenProblem,
		`{"error":{"message":"(#200) no permission","code":200}}`:                                                                  (*APIError).permission,
		`{"error":{"message":"Object does not exist, cannot be loaded due to missing permissions","code":100,"error_subcode":33}}`: (*APIError).permission,
		`{"error":{"message":"(#17) User request limit reached","code":"17"}}`:                                                     (*APIError).throttled,
	} {
		e, err := ParseError([]byte(body))
		if err != nil || !class(e) {
			t.Errorf("%s: %+v %v", body, e, err)
		}
	}
	if e, _ := ParseError([]byte(`{"error":{"message":"Please reduce the amount of data you're asking for","code":1}}`)); e.transient() {
		t.Error("reduce-data must not be retried as transient")
	}
	for _, body := range []string{``, `null`, `{}`, `{"error":null}`, `{"error":{}}`, `{"error":{"code":"x"}}`, `{"error":{"code":1e99}}`, `{"data":[]}`} {
		if _, err := ParseError([]byte(body)); err == nil {
			t.Errorf("%s: want an error", body)
		}
	}
}

func TestRegainAccess(t *testing.T) {
	h := http.Header{}
	h.Set("X-Business-Use-Case-Usage", `{"1015823746512093":[{"type":"ads_insights","call_count":100,"total_cputime":20,"total_time":20,"estimated_time_to_regain_access":7},{"type":"ads_management","estimated_time_to_regain_access":2}]}`)
	if d := regainAccess(h); d != 7*time.Minute {
		t.Errorf("BUC: %v", d)
	}
	h = http.Header{}
	h.Set("X-Ad-Account-Usage", `{"acc_id_util_pct":100,"reset_time_duration":45}`)
	h.Set("Retry-After", "30")
	if d := regainAccess(h); d != 45*time.Second {
		t.Errorf("ad account usage: %v", d)
	}
	h = http.Header{}
	h.Set("X-Ad-Account-Usage", `{"acc_id_util_pct":40,"reset_time_duration":45}`)
	h.Set("X-Business-Use-Case-Usage", `not json`)
	if d := regainAccess(h); d != 0 {
		t.Errorf("under the limit: %v", d)
	}
}

// FuzzParseInsights: arbitrary bodies never panic; what parses is consistent.
func FuzzParseInsights(f *testing.F) {
	for _, s := range []string{
		`{"data":[{"campaign_id":"1","spend":"123.45","impressions":"10","actions":[{"action_type":"purchase","value":"2"}],"date_start":"2026-03-01","date_stop":"2026-03-01"}],"paging":{"next":"https://x"}}`,
		`{"data":[{"spend":1.5,"reach":null,"date_start":"2026-03-01","date_stop":"2026-03-31"}]}`,
		`{"data":[{"age":"Unknown","gender":"male","platform_position":"feed","actions":[{"action_type":"purchase","value":"3","7d_click":"2","1d_view":"1","28d_view":null}],"date_start":"2026-03-01","date_stop":"2026-03-01"}]}`,
		`{"data":[{"action_values":[{"action_type":"omni_purchase","value":"3.5","1d_ev":-1,"7d_click":{}}],"date_start":"2026-03-01","date_stop":"2026-03-01"}]}`,
		`{"error":{"message":"m","code":190,"error_subcode":463}}`,
		`{"data":[]}`, `{"data":null}`, `{"data":[null]}`, `[]`, `"x"`, ``, `{"data":[{"date_start":"2026-03-01","date_stop":"2026-03-01","spend":"99999999999999999999"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := ParseInsights(body)
		if err != nil {
			if err.Error() == "" {
				t.Error("empty error text")
			}
			return
		}
		for _, r := range p.Rows {
			if r.DateStart.IsZero() || r.DateStop.Before(r.DateStart) || r.Number("impressions") < 0 || r.Number("clicks") < 0 || r.Number("reach") < 0 {
				t.Errorf("inconsistent row %+v", r)
			}
		}
	})
}

// FuzzParseError: arbitrary bodies never panic; a parsed error has a code or
// a message.
func FuzzParseError(f *testing.F) {
	for _, s := range []string{
		`{"error":{"message":"(#80000) too many calls","type":"OAuthException","code":80000,"error_subcode":2446079,"is_transient":true,"fbtrace_id":"A"}}`,
		`{"error":{"message":"Please reduce the amount of data you're asking for","code":"1"}}`,
		`{"error":{}}`, `{"error":null}`, `{"error":{"code":-1.5}}`, `{}`, ``, `<html>502</html>`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		e, err := ParseError(body)
		if err != nil {
			if err.Error() == "" {
				t.Error("empty error text")
			}
			return
		}
		if e.Code == 0 && e.Message == "" {
			t.Errorf("an error with neither code nor message: %+v", e)
		}
		_ = e.Error()
		_, _, _, _ = e.throttled(), e.reduceData(), e.permission(), e.transient()
	})
}

// FuzzParseMicros: whatever parses equals the exact decimal value, rounded
// half away from zero at the sixth decimal.
func FuzzParseMicros(f *testing.F) {
	for _, s := range []string{"123.45", "-0.0000005", "0.1234565", "999999999999.9999995", "7", ".5", "1.", "+3.25"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := parseMicros(s)
		if err != nil {
			return
		}
		// The same number in a form big.Rat reads: sign, integer part, fraction.
		norm, neg := s, false
		if norm[0] == '-' || norm[0] == '+' {
			neg, norm = norm[0] == '-', norm[1:]
		}
		ip, fp, _ := strings.Cut(norm, ".")
		if ip == "" {
			ip = "0"
		}
		if fp == "" {
			fp = "0"
		}
		r, ok := new(big.Rat).SetString(ip + "." + fp)
		if !ok {
			t.Fatalf("%q parsed as %d but is not a decimal", s, m)
		}
		if neg {
			r.Neg(r)
		}
		r.Mul(r, big.NewRat(1e6, 1))
		// round half away from zero
		abs := new(big.Rat).Abs(r)
		abs.Add(abs, big.NewRat(1, 2))
		q := new(big.Int).Quo(abs.Num(), abs.Denom())
		if r.Sign() < 0 {
			q.Neg(q)
		}
		if !q.IsInt64() || q.Int64() != m {
			t.Errorf("%q: parsed %d, exact %s", s, m, q)
		}
	})
}
