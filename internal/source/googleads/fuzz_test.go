package googleads

import (
	"bytes"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/catalog"
)

// Seeds in the API's real format, and broken variants.
var streamSeeds = []string{
	`[]`,
	`[{"fieldMask":"campaign.id,metrics.clicks","requestId":"r1"}]`,
	`[{"results":[{"campaign":{"resourceName":"customers/1/campaigns/2","id":"2","name":"Brand","advertisingChannelType":"SEARCH","status":"ENABLED"},"segments":{"date":"2026-03-01","device":"MOBILE"},"metrics":{"costMicros":"123450000","impressions":"10234","clicks":"321","conversions":12.25,"conversionsValue":1234.56}}],"fieldMask":"campaign.id","requestId":"r"}]`,
	`[{"results":[{"adGroupAd":{"ad":{"id":"612345678901","name":"RSA 1"}},"metrics":{"videoTrueviewViews":7}}]},{"results":[]}]`,
	`[{"results":[{"metrics":{"clicks":"1"}}]},{"error":{"code":500,"message":"Internal error encountered.","status":"INTERNAL"}}]`,
	`[{"results":[{"metrics":{"clicks":"1"}}]}`,
	`[{"results":[{"metrics":{"clicks":"x"}}]}]`,
	`[{"results":[{"campaign":{"id":"12a"}}]}]`,
	`{"error":{"code":401,"status":"UNAUTHENTICATED"}}`,
	`<html>502</html>`,
	`[1,2,3]`,
	`[{"results":[{"metrics":{"conversionsValue":"1e400"}}]}]`,
	`[{"results":[{"campaign":{"id":"2"},"adGroupCriterion":{"ageRange":{"type":"AGE_RANGE_25_34"}},"segments":{"date":"2026-03-02"},"metrics":{"costMicros":"5000","impressions":"7"}},{"campaign":{"id":"2"},"adGroupCriterion":{"ageRange":{"type":"AGE_RANGE_25_34"}},"segments":{"date":"2026-03-02"},"metrics":{"costMicros":"1"}}]}]`,
	`[{"results":[{"campaign":{"id":"2"},"adGroupCriterion":{"gender":{"type":"FEMALE"}},"segments":{"date":"2026-03-02"}}]}]`,
	`[{"results":[{"campaign":{"id":"2"},"segments":{"date":"2026-03-03","conversionActionName":"Lead form"},"metrics":{"conversions":1.5,"conversionsValue":12.5}}]}]`,
	`[{"results":[{"adGroupCriterion":{"ageRange":"x"}}]}]`,
	`[{"results":[{"conversionAction":{"name":"Purchase"}}]}]`,
	"",
}

// FuzzReadStream: arbitrary searchStream bodies never panic; what is not the
// documented shape is a clear error, and rows that parse convert into facts.
func FuzzReadStream(f *testing.F) {
	for _, s := range streamSeeds {
		f.Add([]byte(s))
	}
	start, end := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC)
	plans := []*plan{
		{level: catalog.LevelAd, device: true, network: true, dateSegment: "segments.date", start: start, end: end},
		{level: catalog.LevelAdSet, key: locationSet, country: true, device: true, network: true, dateSegment: "segments.date", start: start, end: end},
		{level: catalog.LevelCampaign, set: "age", key: "age", dateSegment: "segments.date", start: start, end: end},
		{level: catalog.LevelCampaign, set: "gender", key: "gender", dateSegment: "segments.week", start: start, end: end},
		{level: catalog.LevelCampaign, set: "conversion_action", key: "conversion_action", start: start, end: end},
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, p := range plans {
			r := newResult()
			err := readStream(bytes.NewReader(body), func(rows []row) error {
				for i := range rows {
					if err := r.add(p, "123-456-7890", &rows[i]); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				msg := err.Error()
				if msg == "" || !(strings.Contains(msg, "Google Ads API")) {
					t.Fatalf("unclear error %q", msg)
				}
				_ = describe(err) // every error can be described
				continue
			}
			// A set's facts are one per campaign, date and value, of the set.
			seen := map[setKey]bool{}
			for _, f := range r.facts {
				if f.Breakdown != p.key || p.set != "" && (f.AdSetID != "" || f.AdID != "") || p.key == locationSet && f.AdID != "" {
					t.Fatalf("fact %+v in set %q", f, p.key)
				}
				if p.set == "" {
					continue
				}
				k := setKey{f.CampaignID, f.Date, f.Age + f.Gender + f.ConversionAction}
				if seen[k] {
					t.Fatalf("two facts for %+v", k)
				}
				seen[k] = true
			}
		}
	})
}

// FuzzParseError: arbitrary error bodies give an error naming the status.
func FuzzParseError(f *testing.F) {
	for _, s := range []string{
		`{"error":{"code":403,"message":"The caller does not have permission","status":"PERMISSION_DENIED","details":[{"@type":"type.googleapis.com/google.ads.googleads.v25.errors.GoogleAdsFailure","errors":[{"errorCode":{"authorizationError":"USER_PERMISSION_DENIED"},"message":"User doesn't have permission to access customer."}],"requestId":"abc"}]}}`,
		`{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"errors":[{"errorCode":{"quotaError":"RESOURCE_EXHAUSTED"},"details":{"quotaErrorDetails":{"retryDelay":"30s"}}}]}]}}`,
		`{"error":{"code":401,"status":"UNAUTHENTICATED"}}`,
		`{"error":"x"}`, `{"error":{"details":[{"errors":[{"errorCode":{"a":1}}]}]}}`, `not json`, ``,
	} {
		f.Add(403, []byte(s))
	}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		e := parseError(status, nil, body)
		if e == nil || e.Error() == "" || e.RetryDelay < 0 || e.RetryDelay > 7*24*time.Hour {
			t.Fatalf("bad error for %q: %+v", body, e)
		}
		d := describe(e)
		if d.kind == "" || d.cause == "" || d.fix == "" {
			t.Fatalf("incomplete description %+v", d)
		}
	})
}

// FuzzParseAccessible: arbitrary listAccessibleCustomers bodies give digit IDs
// or an error.
func FuzzParseAccessible(f *testing.F) {
	for _, s := range []string{`{"resourceNames":["customers/1234567890","customers/42"]}`, `{"resourceNames":["accounts/1"]}`, `{}`, `[]`, `x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ids, err := parseAccessible(body)
		if err != nil {
			return
		}
		for _, id := range ids {
			if id == "" || digits(id) != id {
				t.Fatalf("bad ID %q from %q", id, body)
			}
		}
	})
}

// FuzzParseMicros: decimal amounts become exact micros (checked with big.Rat).
func FuzzParseMicros(f *testing.F) {
	for _, s := range []string{"0", "123.45", "-0.5", "1e3", "0.0000005", "0.0000004", "99999999999.999999", "1.5E-7", ".5", "5.", "abc", "1e99", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseMicros(s)
		if err != nil {
			return
		}
		r, ok := new(big.Rat).SetString(strings.TrimPrefix(s, "+"))
		if !ok {
			return // accepted forms big.Rat does not read ("5.", ".5e1") are checked by the seeds
		}
		r.Mul(r, big.NewRat(1_000_000, 1))
		// Round half away from zero.
		abs := new(big.Rat).Abs(r)
		abs.Add(abs, big.NewRat(1, 2))
		q := new(big.Int).Quo(abs.Num(), abs.Denom())
		if r.Sign() < 0 {
			q.Neg(q)
		}
		if !q.IsInt64() || q.Int64() != got {
			t.Fatalf("parseMicros(%q) = %d, want %s", s, got, q)
		}
	})
}

func TestParseMicros(t *testing.T) {
	for s, want := range map[string]int64{"123.45": 123450000, "-0.5": -500000, "1e3": 1000000000, "0.0000005": 1,
		"0.0000004": 0, "5.": 5000000, ".5": 500000, "1234.5600000000002": 1234560000, "1.5E-7": 0} {
		got, err := parseMicros(s)
		if err != nil || got != want {
			t.Errorf("parseMicros(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "-", ".", "1e", "1.2.3", "0x10", "1e99", "99999999999999999999"} {
		if _, err := parseMicros(s); err == nil {
			t.Errorf("parseMicros(%q) accepted", s)
		}
	}
}

// TestDescribe: Google's error codes become the right kind and advice.
func TestDescribe(t *testing.T) {
	failure := func(status int, rpc, kind, code string) *apiError {
		return parseError(status, nil, []byte(`{"error":{"code":`+itoa(status)+`,"status":"`+rpc+`","message":"m","details":[{"@type":"type.googleapis.com/google.ads.googleads.v25.errors.GoogleAdsFailure","errors":[{"errorCode":{"`+kind+`":"`+code+`"},"message":"msg"}],"requestId":"rid"}]}}`))
	}
	for _, tc := range []struct {
		err        error
		kind, fix  string
		retry      bool
		retryAfter time.Duration
	}{
		{failure(403, "PERMISSION_DENIED", "authorizationError", "CUSTOMER_NOT_ENABLED"), "permission_denied", "deactivated", false, 0},
		{failure(403, "PERMISSION_DENIED", "authorizationError", "DEVELOPER_TOKEN_NOT_APPROVED"), "permission_denied", "Basic or Standard", false, 0},
		{failure(403, "PERMISSION_DENIED", "authorizationError", "CLOUD_PROJECT_NOT_APPROVED_FOR_PRODUCTION"), "permission_denied", "Basic or Standard", false, 0},
		{failure(401, "UNAUTHENTICATED", "authenticationError", "NOT_ADS_USER"), "permission_denied", "access to Google Ads", false, 0},
		{failure(400, "INVALID_ARGUMENT", "queryError", "UNRECOGNIZED_FIELD"), "rejected", "request ID", false, 0},
		{failure(503, "UNAVAILABLE", "internalError", "TRANSIENT_ERROR"), "unavailable", "retry", true, 0},
		{parseError(429, map[string][]string{"Retry-After": {"17"}}, []byte(`{}`)), "rate_limited", "retry after 17s", true, 17 * time.Second},
		{parseError(404, nil, []byte(`<html>Not Found</html>`)), "rejected", "api_version", false, 0},
		{&tokenError{Code: "invalid_grant", Description: "Token has been expired or revoked."}, "permission_denied", "re-authorize", false, 0},
		{&tokenError{Code: "invalid_client"}, "permission_denied", "client_secret", false, 0},
		{&streamError{msg: "x"}, "unavailable", "retry", true, 0},
	} {
		d := describe(tc.err)
		if string(d.kind) != tc.kind || !strings.Contains(d.fix, tc.fix) || d.retry != tc.retry || d.retryAfter != tc.retryAfter {
			t.Errorf("%v: got %+v", tc.err, d)
		}
	}
	if e := failure(403, "PERMISSION_DENIED", "authorizationError", "USER_PERMISSION_DENIED"); !strings.Contains(e.Error(), "rid") || !e.has("USER_PERMISSION_DENIED") {
		t.Errorf("error text %q", e.Error())
	}
}
