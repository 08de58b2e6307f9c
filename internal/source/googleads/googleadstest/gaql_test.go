package googleadstest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestParseQueryRejectsOutsideTheSubset(t *testing.T) {
	for q, code := range map[string]string{
		"SELECT campaign.id FROM campaign ORDER BY campaign.id":                                      "UNEXPECTED_INPUT",
		"SELECT campaign.id FROM campaign LIMIT 10":                                                  "UNEXPECTED_INPUT",
		"SELECT campaign.id FROM keyword_view":                                                       "BAD_RESOURCE_TYPE_IN_FROM_CLAUSE",
		"SELECT campaign.bidding_strategy FROM campaign":                                             "UNRECOGNIZED_FIELD",
		"SELECT ad_group.id FROM campaign":                                                           "UNRECOGNIZED_FIELD",
		"SELECT campaign.id FROM campaign WHERE metrics.clicks > 1":                                  "PROHIBITED_METRIC_IN_WHERE_CLAUSE",
		"SELECT campaign.id FROM campaign WHERE segments.device = 'MOBILE'":                          "PROHIBITED_SEGMENT_IN_WHERE_CLAUSE",
		"SELECT segments.date, metrics.clicks FROM campaign":                                         "MISSING_DATE_RANGE",
		"SELECT segments.date FROM campaign WHERE segments.date DURING LAST_30_DAYS":                 "INVALID_OPERATOR",
		"SELECT customer_client.id, metrics.clicks FROM customer_client":                             "PROHIBITED_FIELD_IN_SELECT_CLAUSE",
		"SELECT campaign.id FROM campaign WHERE campaign.name LIKE 'x":                               "UNEXPECTED_END_OF_QUERY",
		"SELECT campaign.id, campaign.id FROM campaign":                                              "DUPLICATE_FIELD_IN_SELECT_CLAUSE",
		"SELECT segments.date FROM campaign WHERE segments.date BETWEEN '2026-1-1' AND '2026-01-31'": "INVALID_DATE",
		// Conversion actions allow conversion metrics only (query error 53).
		"SELECT campaign.id, segments.conversion_action_name, metrics.conversions, metrics.cost_micros FROM campaign":                               "PROHIBITED_SEGMENT_WITH_METRIC_IN_SELECT_OR_WHERE_CLAUSE",
		"SELECT campaign.id, segments.conversion_action_name, metrics.impressions FROM campaign WHERE segments.conversion_action_name = 'Purchase'": "PROHIBITED_SEGMENT_WITH_METRIC_IN_SELECT_OR_WHERE_CLAUSE",
		"SELECT ad_group.id, segments.conversion_action_name, metrics.conversions FROM ad_group":                                                    "NOT_SUPPORTED_BY_FAKE",
		"SELECT ad_group_criterion.age_range.type, segments.device, metrics.clicks FROM age_range_view":                                             "NOT_SUPPORTED_BY_FAKE",
		"SELECT ad_group_criterion.gender.type, segments.conversion_action_name, metrics.conversions FROM gender_view":                              "NOT_SUPPORTED_BY_FAKE",
		"SELECT ad_group_criterion.age_range.type, metrics.clicks FROM campaign":                                                                    "UNRECOGNIZED_FIELD",
		"SELECT conversion_action.name, metrics.conversions FROM conversion_action":                                                                 "PROHIBITED_FIELD_IN_SELECT_CLAUSE",
		"SELECT ad_group_ad.ad.id, metrics.clicks FROM age_range_view":                                                                              "UNRECOGNIZED_FIELD",
	} {
		_, err := ParseQuery(q)
		qe, ok := err.(*queryError)
		if !ok || qe.code != code {
			t.Errorf("%s: got %v, want %s", q, err, code)
		}
	}
	for _, q := range []string{
		"SELECT campaign.id, segments.week, metrics.cost_micros FROM campaign WHERE segments.date BETWEEN '2026-01-01' AND '2026-01-31' AND campaign.name NOT LIKE '%[%]%' AND campaign.status IN ('ENABLED', 'PAUSED')",
		"SELECT campaign.id, ad_group.id, ad_group_criterion.age_range.type, segments.date, metrics.cost_micros, metrics.video_trueview_views FROM age_range_view WHERE segments.date BETWEEN '2026-01-01' AND '2026-01-31' AND ad_group_criterion.age_range.type != 'AGE_RANGE_65_UP'",
		"SELECT customer.id, ad_group_criterion.gender.type, gender_view.resource_name, metrics.impressions FROM gender_view",
		"SELECT campaign.id, segments.conversion_action_name, segments.month, metrics.conversions, metrics.conversions_value FROM campaign WHERE segments.date BETWEEN '2026-01-01' AND '2026-01-31'",
		"SELECT conversion_action.name FROM conversion_action WHERE conversion_action.include_in_conversions_metric = TRUE AND conversion_action.status = ENABLED",
	} {
		if _, err := ParseQuery(q); err != nil {
			t.Errorf("a valid query was rejected: %s: %v", q, err)
		}
	}
}

// TestProhibitedSegmentMessage: the refusal of a metric with
// segments.conversion_action_name says which metrics, as Google does.
func TestProhibitedSegmentMessage(t *testing.T) {
	_, err := ParseQuery("SELECT segments.conversion_action_name, metrics.cost_micros, metrics.conversions, metrics.clicks FROM campaign")
	want := "Cannot select the following segments because at least one unsupported metric is found in SELECT or WHERE clause: 'segments.conversion_action_name'(unsupported metrics: 'cost_micros', 'clicks')."
	if qe, ok := err.(*queryError); !ok || qe.msg != want {
		t.Errorf("got %v, want %q", err, want)
	}
}

// FuzzParseQuery: any text is parsed or refused with a query error code,
// never a panic; what parses is a query of a known resource.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{
		"SELECT campaign.id, segments.conversion_action_name, metrics.conversions FROM campaign WHERE segments.date BETWEEN '2026-01-01' AND '2026-01-31'",
		"SELECT ad_group_criterion.age_range.type, metrics.clicks FROM age_range_view WHERE ad_group_criterion.age_range.type IN ('AGE_RANGE_18_24', AGE_RANGE_65_UP)",
		"SELECT ad_group_criterion.gender.type FROM gender_view WHERE campaign.name NOT LIKE '%[_]%'",
		"SELECT conversion_action.name FROM conversion_action WHERE conversion_action.include_in_conversions_metric = TRUE",
		"SELECT x FROM", "SELECT 'a", "SELECT a.b FROM c WHERE d BETWEEN 1", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		q, err := ParseQuery(text)
		if err != nil {
			if qe, ok := err.(*queryError); !ok || qe.code == "" {
				t.Fatalf("%q: error without a code: %v", text, err)
			}
			return
		}
		if _, ok := compatible[q.Resource]; !ok || len(q.Fields) == 0 {
			t.Fatalf("%q parsed into %+v", text, q)
		}
	})
}

func TestLike(t *testing.T) {
	for _, tc := range []struct {
		s, p string
		want bool
	}{
		{"Brand Search", "%brand%", true},
		{"Brand Search", "brand", false},
		{"BRAND", "brand", true},
		{"50% Off", "%50[%]%", true},
		{"50 Off", "%50[%]%", false},
		{"a_b", "a[_]b", true},
		{"axb", "a[_]b", false},
		{"axb", "a_b", true},
		{"[x]", "[[]x[]]", true},
		{"", "%", true},
		{"abc", "a%c%", true},
	} {
		if got := like(tc.s, tc.p); got != tc.want {
			t.Errorf("like(%q, %q) = %v", tc.s, tc.p, got)
		}
	}
}

// TestHTTPErrorsAreGoogleStyle: a query outside the subset is a 400
// INVALID_ARGUMENT with a GoogleAdsFailure queryError; no token is a 401.
func TestHTTPErrorsAreGoogleStyle(t *testing.T) {
	s := Start(t, Config{})
	resp, err := http.PostForm(s.TokenURL, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {RefreshToken},
		"client_id": {ClientID}, "client_secret": {ClientSecret}})
	if err != nil {
		t.Fatal(err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	post := func(auth, query string) (int, string) {
		body, _ := json.Marshal(map[string]string{"query": query})
		req, _ := http.NewRequest("POST", s.URL+"/v25/customers/6172048851/googleAds:searchStream", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+auth)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return resp.StatusCode, b.String()
	}
	if code, body := post(tok.AccessToken, "SELECT campaign.id FROM campaign ORDER BY campaign.id"); code != 400 ||
		!strings.Contains(body, `"status":"INVALID_ARGUMENT"`) || !strings.Contains(body, `"queryError"`) {
		t.Errorf("bad query: %d %s", code, body)
	}
	if code, body := post("nope", "SELECT campaign.id FROM campaign"); code != 401 || !strings.Contains(body, "UNAUTHENTICATED") {
		t.Errorf("bad token: %d %s", code, body)
	}
	if code, body := post(tok.AccessToken, "SELECT campaign.id, campaign.name FROM campaign"); code != 200 || !strings.HasPrefix(body, `[{"fieldMask":"campaign.id,campaign.name"`) && !strings.Contains(body, `"results"`) {
		t.Errorf("good query: %d %.200s", code, body)
	}
}
