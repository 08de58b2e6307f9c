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
	} {
		_, err := ParseQuery(q)
		qe, ok := err.(*queryError)
		if !ok || qe.code != code {
			t.Errorf("%s: got %v, want %s", q, err, code)
		}
	}
	if _, err := ParseQuery("SELECT campaign.id, segments.week, metrics.cost_micros FROM campaign WHERE segments.date BETWEEN '2026-01-01' AND '2026-01-31' AND campaign.name NOT LIKE '%[%]%' AND campaign.status IN ('ENABLED', 'PAUSED')"); err != nil {
		t.Errorf("a valid query was rejected: %v", err)
	}
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
