package tiktok

import (
	"errors"
	"strings"
	"testing"
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
