package tiktok

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/catalog"
)

// FuzzParseReport: whatever the body, ParseReport returns a page or an error,
// never panics; a page's numbers read back exactly or fail with an error.
func FuzzParseReport(f *testing.F) {
	for _, s := range []string{
		`{"code":0,"message":"OK","request_id":"1","data":{"list":[{"dimensions":{"campaign_id":"17","stat_time_day":"2026-03-01 00:00:00"},"metrics":{"spend":"12.34","impressions":"1000","campaign_name":"x"}}],"page_info":{"page":1,"page_size":1000,"total_number":1,"total_page":1}}}`,
		`{"code":40100,"message":"Requests made too frequently","request_id":"2","data":{}}`,
		`{"code":0,"data":{"list":[],"page_info":{"page":"1","total_page":"0","total_number":0}}}`,
		`{"code":0,"data":{"list":[{"metrics":{"spend":12.5,"reach":null}}],"page_info":{"page":1,"total_page":2,"total_number":"9"}}}`,
		`{"code":"x"}`, `{"code":0,"data":{"list":null}}`, `[]`, `{"code":0,"data":{"list":[{"metrics":{"spend":"1e9"}}],"page_info":{"page":1,"total_page":1,"total_number":1}}}`,
		`{"code":0,"data":{"list":[{"metrics":{"spend":"99999999999999999.99"}}],"page_info":{"page":1,"total_page":1,"total_number":1}}}`, ``,
		// breakdown sets: age and gender, placement and platform, events
		`{"code":0,"data":{"list":[{"dimensions":{"campaign_id":"17","age":"AGE_55_100","gender":"FEMALE","stat_time_day":"2026-03-01 00:00:00"},"metrics":{"spend":"1.5","impressions":"10"}}],"page_info":{"page":1,"total_page":1,"total_number":1}}}`,
		`{"code":0,"data":{"list":[{"dimensions":{"campaign_id":"17","age":"NONE","gender":"-"},"metrics":{"conversion":"2"}}],"page_info":{"page":1,"total_page":1,"total_number":1}}}`,
		`{"code":0,"data":{"list":[{"dimensions":{"campaign_id":"17","placement":"PLACEMENT_PANGLE","platform":"-"},"metrics":{"clicks":"3"}}],"page_info":{"page":1,"total_page":1,"total_number":1}}}`,
		`{"code":0,"data":{"list":[{"dimensions":{"campaign_id":"17"},"metrics":{"conversion":"3","total_complete_payment_rate":"45.10","web_event_add_to_cart":"7","total_web_event_add_to_cart_value":"12.5","form":"1","total_form_value":"-"}}],"page_info":{"page":1,"total_page":1,"total_number":1}}}`,
		`{"code":0,"data":{"list":[{"dimensions":{"campaign_id":"17"},"metrics":{"conversion":"1.5","form":"x"}}],"page_info":{"page":1,"total_page":1,"total_number":1}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		page, err := ParseReport(body)
		if err != nil {
			if page != nil {
				t.Fatal("a page with an error")
			}
			var ae *APIError
			if errors.As(err, &ae) && ae.Code == 0 {
				t.Fatal("an API error with code 0")
			}
			return
		}
		if page.Page < 0 || page.TotalPage < 0 {
			t.Fatalf("negative page_info %+v", page)
		}
		for i := range page.Rows {
			r := &page.Rows[i]
			for name := range r.Metrics {
				m, ok, err := r.Micros(name)
				if err == nil && ok && (m > 1e18 || m < -1e18) {
					t.Fatalf("%s: %d micros out of the bounds", name, m)
				}
			}
			_, _ = r.Day()
		}
	})
}

// FuzzParseMicros: an exact decimal parses to the micros its digits say, and
// formatMicros writes them back as the same number.
func FuzzParseMicros(f *testing.F) {
	for _, s := range []string{"0", "12.34", "-0.5", "1000", "0.000001", "123456789012.999999", "1.2345675", "+3", ".5", "5.", "-", "1e3", "12,5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := parseMicros(s)
		if err != nil {
			return
		}
		back, err := parseMicros(formatMicros(m))
		if err != nil || back != m {
			t.Fatalf("%q → %d → %q → %d (%v)", s, m, formatMicros(m), back, err)
		}
		if !strings.ContainsAny(s, ".") && m%1e6 != 0 {
			t.Fatalf("%q: an integer with a fraction (%d micros)", s, m)
		}
	})
}

// TestParseMicrosExact: money is exact to the micro, never through a float.
func TestParseMicrosExact(t *testing.T) {
	for s, want := range map[string]int64{"0.1": 100000, "0.29": 290000, "12.34": 12340000, "1234567.89": 1234567890000,
		"0.0000015": 2, "-0.0000015": -2, "100": 100e6, "0.7": 700000} {
		if got, err := parseMicros(s); err != nil || got != want {
			t.Errorf("%s: %d, %v; want %d", s, got, err, want)
		}
	}
	for _, bad := range []string{"", "-", "1e3", "12,5", "abc", "1.2.3", "1234567890123"} {
		if _, err := parseMicros(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// FuzzBreakdownRows: whatever a report row holds, turning it into the facts
// of every breakdown set never panics; a set's rows (other than delivery)
// never have an empty breakdown value, and an event row holds only
// conversions and conversion_value.
func FuzzBreakdownRows(f *testing.F) {
	for _, s := range []string{
		`{"code":0,"data":{"list":[{"dimensions":{"campaign_id":"17","age":"AGE_18_24","gender":"MALE","placement":"PLACEMENT_TIKTOK","platform":"IOS"},"metrics":{"conversion":"3","total_complete_payment_rate":"45.10","web_event_add_to_cart":"7","form":"1"}}],"page_info":{"page":1,"total_page":1,"total_number":1}}}`,
		`{"code":0,"data":{"list":[{"dimensions":{"campaign_id":"","age":"","gender":"GENDER_FEMALE","placement":"-","platform":"PC"},"metrics":{"conversion":"-1","total_form_value":"99999999999.999999"}}],"page_info":{"page":1,"total_page":1,"total_number":1}}}`,
		`{"code":0,"data":{"list":[{"dimensions":{"age":"AGE_13_17_X","gender":"\u0000"},"metrics":{"web_event_add_to_cart":"1e3"}}],"page_info":{"page":1,"total_page":1,"total_number":1}}}`,
	} {
		f.Add([]byte(s))
	}
	plans := []*fetchPlan{
		{level: catalog.LevelCampaign, set: "age_gender", audience: []string{"age", "gender"}},
		{level: catalog.LevelCampaign, set: "placement", audience: []string{"placement", "platform"}},
		{level: catalog.LevelCampaign, set: "conversion_action", events: true},
		{level: catalog.LevelAccount, set: catalog.Delivery, audience: []string{"country_code", "placement"}},
	}
	c := &Connector{}
	sp := span{time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
	f.Fuzz(func(t *testing.T, body []byte) {
		page, err := ParseReport(body)
		if err != nil {
			return
		}
		for i := range page.Rows {
			r := &page.Rows[i]
			for _, p := range plans {
				fact, err := c.fact(p, sp, "7", r)
				if err != nil {
					continue
				}
				switch p.set {
				case "age_gender":
					if fact.Age == "" || fact.Gender == "" || fact.Breakdown != p.set {
						t.Fatalf("age %q, gender %q, set %q", fact.Age, fact.Gender, fact.Breakdown)
					}
				case "placement":
					if fact.Placement == "" || fact.PublisherPlatform != fact.Placement || fact.Device == "" {
						t.Fatalf("placement %q, publisher %q, device %q", fact.Placement, fact.PublisherPlatform, fact.Device)
					}
				case "conversion_action":
					fs, err := eventFacts(fact, DefaultConversionAction, r)
					if err != nil {
						continue
					}
					for _, e := range fs {
						if e.ConversionAction == "" || e.Measures[catalog.Spend] != 0 || e.Measures[catalog.Impressions] != 0 {
							t.Fatalf("event row %+v", e)
						}
					}
				}
			}
		}
	})
}
