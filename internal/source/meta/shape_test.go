package meta

import (
	"context"
	"errors"
	"fmt"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/live"
	"github.com/adsmcp/adsmcp/internal/source/meta/metatest"
	"github.com/adsmcp/adsmcp/internal/source/sourcetest"
)

const lumenUS = "act_1015823746512093"

// fetchOne runs Fetch for the query over its accounts and returns the
// requests the fake received.
func (f *fixture) fetchOne(t *testing.T, raw string) []metatest.Request {
	t.Helper()
	q := normalize(t, f.srv.Accounts(), raw)
	f.srv.ClearRequests()
	if err := live.Fetch(context.Background(), f.conn, q, q.Accounts, live.NewBatch()); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return f.srv.Requests()
}

// wantParams checks a request's parameters are exactly want (plus the token).
func wantParams(t *testing.T, r metatest.Request, token string, want map[string]string) {
	t.Helper()
	if r.Params.Get("access_token") != token {
		t.Errorf("%s: access_token parameter missing or wrong", r.Path)
	}
	for k, v := range want {
		if got := r.Params.Get(k); got != v {
			t.Errorf("%s: %s = %q, want %q", r.Path, k, got, v)
		}
	}
	for k := range r.Params {
		if _, ok := want[k]; !ok && k != "access_token" {
			t.Errorf("%s: unexpected parameter %s=%q", r.Path, k, r.Params.Get(k))
		}
	}
	if r.Header.Get("Authorization") != "" {
		t.Errorf("%s: the token also went in an Authorization header", r.Path)
	}
}

// TestRequestShape: the Insights requests sent for each kind of query match
// the documented shape: path, level, fields, time_range JSON,
// time_increment, breakdowns, filtering JSON, limit, the token as
// access_token and nothing else.
func TestRequestShape(t *testing.T) {
	f := newFixture(t, nil)
	tok := f.srv.Token()
	week := `{"since":"2026-03-08","until":"2026-03-14"}`

	t.Run("daily campaign × country with an ID filter", func(t *testing.T) {
		reqs := f.fetchOne(t, `{"metrics":["spend","cpc"],"dimensions":["campaign_name","country"],"account_ids":["`+lumenUS+`"],"time_granularity":"daily","date_preset":"last_7d","filters":[{"field":"campaign_id","operator":"IN","value":["120330000000000001","120330000000000002"]}]}`)
		if len(reqs) != 1 || reqs[0].Method != "GET" || reqs[0].Path != "/v25.0/"+lumenUS+"/insights" {
			t.Fatalf("requests: %+v", reqs)
		}
		wantParams(t, reqs[0], tok, map[string]string{
			"level": "campaign", "fields": "campaign_id,campaign_name,spend,clicks", "time_range": week,
			"time_increment": "1", "breakdowns": "country", "limit": "500",
			"filtering": `[{"field":"campaign.id","operator":"IN","value":["120330000000000001","120330000000000002"]}]`,
		})
		if ua := reqs[0].Header.Get("User-Agent"); ua != "adsmcp" {
			t.Errorf("User-Agent %q", ua)
		}
	})
	t.Run("monthly reach per campaign", func(t *testing.T) {
		reqs := f.fetchOne(t, `{"metrics":["frequency"],"dimensions":["campaign_name"],"account_ids":["`+lumenUS+`"],"time_granularity":"monthly","date_range":{"start":"2025-11-01","end":"2026-01-31"}}`)
		wantParams(t, reqs[0], tok, map[string]string{"level": "campaign", "fields": "campaign_id,campaign_name,impressions,reach",
			"time_range": `{"since":"2025-11-01","until":"2026-01-31"}`, "time_increment": "monthly", "limit": "500"})
	})
	t.Run("weekly reach per campaign: daily facts, then the whole ISO weeks", func(t *testing.T) {
		reqs := f.fetchOne(t, `{"metrics":["spend","reach"],"dimensions":["campaign_id"],"account_ids":["`+lumenUS+`"],"time_granularity":"weekly","date_range":{"start":"2026-01-07","end":"2026-02-03"}}`)
		if len(reqs) != 2 {
			t.Fatalf("%d requests, want facts then reach", len(reqs))
		}
		wantParams(t, reqs[0], tok, map[string]string{"level": "campaign", "fields": "campaign_id,campaign_name,spend",
			"time_range": `{"since":"2026-01-07","until":"2026-02-03"}`, "time_increment": "1", "limit": "500"})
		wantParams(t, reqs[1], tok, map[string]string{"level": "campaign", "fields": "campaign_id,campaign_name,reach", "limit": "500",
			"time_ranges": `[{"since":"2026-01-12","until":"2026-01-18"},{"since":"2026-01-19","until":"2026-01-25"},{"since":"2026-01-26","until":"2026-02-01"}]`})
	})
	t.Run("total over exactly one ISO week, reach per account", func(t *testing.T) {
		reqs := f.fetchOne(t, `{"metrics":["reach","spend"],"dimensions":["account_name"],"account_ids":["`+lumenUS+`"],"date_range":{"start":"2026-03-02","end":"2026-03-08"}}`)
		wantParams(t, reqs[0], tok, map[string]string{"level": "account", "fields": "spend,reach",
			"time_range": `{"since":"2026-03-02","until":"2026-03-08"}`, "time_increment": "all_days", "limit": "500"})
	})
	t.Run("ad level, device and publisher platform, objective", func(t *testing.T) {
		reqs := f.fetchOne(t, `{"metrics":["conversions","conversion_value","video_views","link_clicks"],"dimensions":["ad_name","device","publisher_platform","campaign_objective"],"account_ids":["`+lumenUS+`"],"date_preset":"last_7d"}`)
		wantParams(t, reqs[0], tok, map[string]string{"level": "ad",
			"fields":     "campaign_id,campaign_name,adset_id,adset_name,ad_id,ad_name,objective,actions,action_values,inline_link_clicks",
			"time_range": week, "time_increment": "all_days", "breakdowns": "publisher_platform,impression_device", "limit": "500",
			// Conversions are asked under the window Accounts states, never
			// each ad set's own setting.
			"action_attribution_windows": `["7d_click","1d_view"]`})
	})
	t.Run("campaign status from /campaigns", func(t *testing.T) {
		reqs := f.fetchOne(t, `{"metrics":["spend"],"dimensions":["campaign_status"],"account_ids":["`+lumenUS+`"],"date_preset":"last_7d"}`)
		if len(reqs) != 2 || reqs[0].Path != "/v25.0/"+lumenUS+"/campaigns" {
			t.Fatalf("requests: %d, first %s", len(reqs), reqs[0].Path)
		}
		wantParams(t, reqs[0], tok, map[string]string{"fields": "id,name,objective,effective_status,start_time,stop_time",
			"effective_status": `["ACTIVE","PAUSED","ARCHIVED","IN_PROCESS","WITH_ISSUES"]`, "limit": "500"})
	})
}

// TestRequestShapeOptions: the API version, device breakdown, page size and
// app secret proof follow the options.
func TestRequestShapeOptions(t *testing.T) {
	srv := metatest.NewWith(t, metatest.Config{APIVersion: "v24.0", AppSecret: "s3cr3t-app"})
	conn, err := New(Options{BaseURL: srv.URL + "/", AccessToken: srv.Token(), APIVersion: "v24.0", AppSecret: "s3cr3t-app",
		DeviceBreakdown: "device_platform", PageSize: 50, RequestsPerSecond: 1000})
	if err != nil {
		t.Fatal(err)
	}
	q := normalize(t, srv.Accounts(), `{"metrics":["spend"],"dimensions":["device"],"account_ids":["`+lumenUS+`"],"date_preset":"last_7d"}`)
	b := live.NewBatch()
	if err := live.Fetch(context.Background(), conn, q, q.Accounts, b); err != nil {
		t.Fatal(err) // the fake checks appsecret_proof
	}
	r := srv.Requests()[0]
	if r.Path != "/v24.0/"+lumenUS+"/insights" || r.Params.Get("breakdowns") != "device_platform" || r.Params.Get("limit") != "50" || len(r.Params.Get("appsecret_proof")) != 64 {
		t.Errorf("request %s %v", r.Path, redactedParams(r.Params))
	}
	_, _, _, facts, _ := b.Snapshot()
	devices := map[string]bool{}
	for _, f := range facts {
		devices[f.Device] = true
	}
	if !devices["mobile"] || !devices["desktop"] || devices["tablet"] || devices["mobile_app"] {
		t.Errorf("devices from device_platform: %v", devices)
	}
}

// TestPagingStaysOnTheAPIHost: a next URL pointing at another host is not
// followed, so the token goes nowhere else.
func TestPagingStaysOnTheAPIHost(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"data":[{"date_start":"2026-03-01","date_stop":"2026-03-01","spend":"1"}],"paging":{"next":%q}}`, other.URL+"/v25.0/act_1/insights?after=x")
	}))
	defer api.Close()
	conn, _ := New(Options{BaseURL: api.URL, AccessToken: "tok-123456", RequestsPerSecond: 1000})
	q := normalize(t, metatest.New(t).Accounts(), `{"metrics":["spend"],"account_ids":["`+lumenUS+`"],"date_range":{"start":"2026-03-01","end":"2026-03-01"}}`)
	err := live.Fetch(context.Background(), conn, q, q.Accounts, live.NewBatch())
	if err == nil || !strings.Contains(err.Error(), "refusing to follow") || elsewhere.Load() != 0 {
		t.Errorf("err = %v, requests elsewhere = %d", err, elsewhere.Load())
	}
}

// TestSecretsNeverEchoed: transport failures, Graph errors that quote the
// token and the logs never contain the token.
func TestSecretsNeverEchoed(t *testing.T) {
	const token = "EAAsecret|token/with+chars"
	var logs sourcetest.SyncBuffer
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"error":{"message":"Malformed access token %s (url %s)","type":"OAuthException","code":190}}`, r.FormValue("access_token"), r.URL.String())
	}))
	defer echo.Close()
	for _, base := range []string{dead.URL, echo.URL} {
		conn, _ := New(Options{BaseURL: base, AccessToken: token, RequestsPerSecond: 1000, MaxRetries: -1,
			Logger: slogTo(&logs)})
		_, err := conn.Accounts(context.Background())
		if err == nil {
			t.Fatalf("%s: want an error", base)
		}
		q := normalize(t, metatest.New(t).Accounts(), `{"metrics":["spend"],"account_ids":["`+lumenUS+`"],"date_preset":"last_7d"}`)
		ferr := live.Fetch(context.Background(), conn, q, q.Accounts, live.NewBatch())
		if base == echo.URL && !strings.Contains(err.Error(), "Malformed access token [redacted]") {
			t.Errorf("the echoed token is not redacted: %v", err)
		}
		for _, s := range []string{err.Error(), ferr.Error(), fmt.Sprintf("%+v", ferr), logs.String()} {
			if strings.Contains(s, token) || strings.Contains(s, url.QueryEscape(token)) || strings.Contains(s, "EAAsecret") {
				t.Errorf("%s: the token leaked: %s", base, s)
			}
		}
	}
}

// TestNewOptions: defaults and rejected options.
func TestNewOptions(t *testing.T) {
	c, err := New(Options{AccessToken: "x"})
	if err != nil {
		t.Fatal(err)
	}
	o := c.opts
	if o.BaseURL != DefaultBaseURL || o.APIVersion != "v25.0" || !slices.Equal(o.ActionTypes, []string{"purchase"}) || o.Workers != 4 ||
		o.RequestsPerSecond != 10 || o.MaxRetries != 4 || o.PageSize != 500 || o.DeviceBreakdown != "impression_device" || c.Platform() != "meta_ads" {
		t.Errorf("defaults: %+v", o)
	}
	for _, bad := range []Options{
		{},
		{AccessToken: "x", BaseURL: "ftp://graph.facebook.com"},
		{AccessToken: "x", APIVersion: "25"},
		{AccessToken: "x", DeviceBreakdown: "platform"},
		{AccessToken: "x", ActionTypes: []string{""}},
	} {
		if _, err := New(bad); err == nil {
			t.Errorf("%+v: want an error", bad)
		} else if bad.AccessToken != "" && strings.Contains(err.Error(), bad.AccessToken+"\"") {
			t.Errorf("error echoes the token: %v", err)
		}
	}
}

// TestActionTypes: conversions and their value sum the configured action
// types; video views are video_view actions.
func TestActionTypes(t *testing.T) {
	row := Row{DateStart: day("2026-03-01"), DateStop: day("2026-03-01"),
		Actions: map[string][]Action{
			"actions":       {{Type: "purchase", Micros: 3e6}, {Type: "omni_purchase", Micros: 3e6}, {Type: "lead", Micros: 2e6}, {Type: "video_view", Micros: 40e6}},
			"action_values": {{Type: "purchase", Micros: 120_500000}, {Type: "omni_purchase", Micros: 120_500000}, {Type: "lead", Micros: 9e6}}}}
	p := &fetchPlan{start: row.DateStart, end: row.DateStart, increment: "1"}
	for _, tc := range []struct {
		types []string
		conv  float64
		value int64
	}{{nil, 3, 120_500000}, {[]string{"omni_purchase"}, 3, 120_500000}, {[]string{"purchase", "lead"}, 5, 129_500000}} {
		c, _ := New(Options{AccessToken: "x", ActionTypes: tc.types})
		f, err := c.fact(p, "act_1", &row)
		if err != nil || f.Measures[catalog.Conversions] != tc.conv || f.Measures[catalog.ConversionValue] != float64(tc.value) || f.Measures[catalog.VideoViews] != 40 {
			t.Errorf("%v: %+v %v", tc.types, f, err)
		}
	}
}

func day(s string) time.Time {
	t, _ := time.Parse(time.DateOnly, s)
	return t
}

func TestReachPlanMirrorsTheWarehouse(t *testing.T) {
	accounts := metatest.New(t).Accounts()
	conn, err := New(Options{AccessToken: "tok-123456"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		raw         string
		level       string
		grain       string
		first, last string
	}{
		{`{"metrics":["reach"],"dimensions":["campaign_name"],"time_granularity":"weekly","date_range":{"start":"2026-01-05","end":"2026-01-25"}}`, "campaign", "weekly", "2026-01-05", "2026-01-19"},
		{`{"metrics":["reach"],"dimensions":["account_id"],"time_granularity":"monthly","date_range":{"start":"2025-11-02","end":"2026-01-31"}}`, "account", "monthly", "2025-12-01", "2026-01-01"},
		{`{"metrics":["frequency"],"account_ids":["` + lumenUS + `"],"date_range":{"start":"2026-02-01","end":"2026-02-28"}}`, "account", "monthly", "2026-02-01", "2026-02-01"},
		{`{"metrics":["reach"],"account_ids":["` + lumenUS + `"],"date_range":{"start":"2026-02-01","end":"2026-02-27"}}`, "", "", "", ""},
		{`{"metrics":["reach"],"dimensions":["country"],"account_ids":["` + lumenUS + `"],"time_granularity":"daily","date_preset":"last_7d"}`, "", "", "", ""},
		{`{"metrics":["reach"],"dimensions":["campaign_objective"],"platforms":["meta_ads"],"time_granularity":"daily","date_preset":"last_7d"}`, "", "", "", ""},
		{`{"metrics":["reach"],"platforms":["meta_ads"],"time_granularity":"daily","date_preset":"last_7d"}`, "", "", "", ""},
		{`{"metrics":["spend"],"dimensions":["account_name"],"platforms":["meta_ads"],"filters":[{"field":"reach","operator":"GREATER_THAN","value":5}],"time_granularity":"daily","date_preset":"last_7d"}`, "account", "daily", "2026-03-08", "2026-03-14"},
	} {
		q := normalize(t, accounts, tc.raw)
		p, err := compileQuery(conn, q)
		if err != nil {
			t.Fatalf("%s: %v", tc.raw, err)
		}
		rp := p.reach
		switch {
		case tc.level == "" && rp != nil:
			t.Errorf("%s: reach planned, the warehouse has none", tc.raw)
		case tc.level != "" && (rp == nil || rp.level.String() != tc.level || string(rp.grain) != tc.grain ||
			rp.first.Format(time.DateOnly) != tc.first || rp.last.Format(time.DateOnly) != tc.last):
			t.Errorf("%s: plan %+v", tc.raw, rp)
		}
	}
}

func slogTo(w *sourcetest.SyncBuffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// TestMalformedResponses: bodies the connector cannot use fail the account as
// unavailable, saying the response was unexpected — never a panic, never
// partial rows.
func TestMalformedResponses(t *testing.T) {
	accounts := metatest.New(t).Accounts()
	q := normalize(t, accounts, `{"metrics":["spend"],"account_ids":["`+lumenUS+`"],"time_granularity":"daily","date_range":{"start":"2026-03-01","end":"2026-03-02"}}`)
	for _, body := range []string{
		`<html>oops</html>`,
		`{"data":[{"date_start":"2026-03-01","date_stop":"2026-03-01","spend":"twelve"}]}`,
		`{"data":[{"date_start":"2026-02-27","date_stop":"2026-02-27","spend":"1"}]}`,
		`{"data":[{"date_start":"2026-03-01","date_stop":"2026-03-02","spend":"1"}]}`,
		`{"nodata":true}`,
	} {
		api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) }))
		conn, _ := New(Options{BaseURL: api.URL, AccessToken: "tok-123456", RequestsPerSecond: 1000})
		b := live.NewBatch()
		err := live.Fetch(context.Background(), conn, q, q.Accounts, b)
		api.Close()
		var ae *source.AccountsError
		if !errors.As(err, &ae) || ae.Kind() != source.Unavailable || !strings.Contains(err.Error(), "unexpected Meta response") {
			t.Errorf("%s: err = %v", body, err)
		}
		if _, _, _, facts, _ := b.Snapshot(); len(facts) != 0 {
			t.Errorf("%s: %d facts staged from a failed account", body, len(facts))
		}
	}
}
