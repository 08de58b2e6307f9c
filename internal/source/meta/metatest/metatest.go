// Package metatest is a fake Meta Marketing API for tests: an httptest server
// that serves the deterministic demo dataset's Meta accounts in the API's own
// format (numbers as strings, cursor paging with next URLs, async report runs,
// Graph error envelopes, usage headers), with switchable failure scenarios and
// a log of the requests it received.
//
// Its data is demo.Generate's, by default with the configuration of the shared
// test warehouse (duckdbtest.Config), so the connector's answers can be
// compared with the warehouse's number for number.
package metatest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/fakescale"
)

// DefaultToken is the access token the fake accepts unless Config says another.
const DefaultToken = "EAAFAKE0metatest0token0do0not0leak"

// Async report statuses, as Meta writes them.
const (
	JobNotStarted = "Job Not Started"
	JobStarted    = "Job Started"
	JobRunning    = "Job Running"
	JobCompleted  = "Job Completed"
	JobFailed     = "Job Failed"
	JobSkipped    = "Job Skipped"
)

// Config chooses the fake's data and credentials. Zero values take defaults.
type Config struct {
	// Demo is the dataset (default duckdbtest.Config).
	Demo demo.Config
	// Token is the access token to accept (default DefaultToken).
	Token string
	// AppSecret, when set, makes every request need a matching appsecret_proof.
	AppSecret string
	// APIVersion is the path prefix served (default v25.0).
	APIVersion string
	// Scale, when set, serves that many accounts and days instead of Demo
	// (package fakescale), building an account's data when asked.
	Scale *fakescale.Scale
	// Serving says where to serve and which middleware to run (default: a
	// fresh loopback port, none).
	Serving fakescale.Serving
	// Standalone is for a fake that runs until stopped: it keeps no log of
	// the requests (Requests is empty) and a bounded cache of reports.
	Standalone bool
}

// Request is one request the fake received.
type Request struct {
	Method string
	// Path without the query, e.g. /v25.0/act_1015823746512093/insights.
	Path string
	// Params are the query string and the form body, merged.
	Params url.Values
	Header http.Header
}

// Server is a running fake. Its scenario can change between requests.
type Server struct {
	// URL is the base URL to give the connector (no version, no trailing slash).
	URL string

	cfg  Config
	data *fakescale.Accounts[*dataset]
	srv  *httptest.Server

	mu        sync.Mutex
	sc        scenario
	rateLeft  int
	failLeft  int
	runs      map[string]*reportRun
	nextRun   int
	requests  []Request
	cache     map[string][]outRow
	traceSeq  int
	callCount map[string]int
}

type reportRun struct {
	account string
	req     *insightsReq
	states  []string
	polls   int
}

type scenario struct {
	pages         int
	async         []string
	rateLimit     int
	regainMinutes int
	expired       bool
	denied        map[string]bool
	reduceData    bool
	slow          time.Duration
	failMidPaging int
}

// Option is one part of a scenario.
type Option func(*scenario)

// Pages splits every paged response into at least n pages (cursor paging with
// next URLs, whatever limit the client asks).
func Pages(n int) Option { return func(s *scenario) { s.pages = n } }

// Async makes report runs go through these statuses, one per poll; the last
// one stays (default: Job Completed at the first poll).
func Async(states ...string) Option { return func(s *scenario) { s.async = states } }

// RateLimit throttles the next n requests with error 80000 (ads_insights
// business-use-case limit) and usage headers saying access returns in
// regainMinutes (0: now).
func RateLimit(n, regainMinutes int) Option {
	return func(s *scenario) { s.rateLimit, s.regainMinutes = n, regainMinutes }
}

// ExpiredToken answers every request with error 190/463 (session expired).
func ExpiredToken() Option { return func(s *scenario) { s.expired = true } }

// PermissionDenied answers requests on the account with error 200.
func PermissionDenied(accountID string) Option {
	return func(s *scenario) {
		if s.denied == nil {
			s.denied = map[string]bool{}
		}
		s.denied[accountID] = true
	}
}

// ReduceData answers synchronous Insights requests with error 1 "Please
// reduce the amount of data you're asking for"; async report runs work.
func ReduceData() Option { return func(s *scenario) { s.reduceData = true } }

// Slow delays every response by d (or until the client gives up).
func Slow(d time.Duration) Option { return func(s *scenario) { s.slow = d } }

// FailMidPaging answers the next n requests for a page after the first with
// HTTP 500 (error 2, transient).
func FailMidPaging(n int) Option { return func(s *scenario) { s.failMidPaging = n } }

// New starts a fake with the default configuration, closed when tb ends.
func New(tb testing.TB) *Server { return NewWith(tb, Config{}) }

// NewWith starts a fake with cfg, closed when tb ends.
func NewWith(tb testing.TB, cfg Config) *Server {
	tb.Helper()
	s, err := Start(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	return s
}

// Start starts a fake with cfg; Close stops it.
func Start(cfg Config) (*Server, error) {
	if cfg.Demo.Anchor.IsZero() {
		cfg.Demo = duckdbtest.Config
	}
	if cfg.Token == "" {
		cfg.Token = DefaultToken
	}
	if cfg.APIVersion == "" {
		cfg.APIVersion = "v25.0"
	}
	s := &Server{cfg: cfg, runs: map[string]*reportRun{}, cache: map[string][]outRow{}, callCount: map[string]int{}}
	var err error
	if s.data, err = fakescale.Open(cfg.Scale, catalog.MetaAds, func() (*dataset, error) { return load(cfg.Demo) }, loadAccount); err != nil {
		return nil, err
	}
	s.srv = cfg.Serving.Start(s)
	s.URL = s.srv.URL
	return s, nil
}

// reportsKept is how many reports a standalone fake keeps: the connector
// pages through a report soon after asking for it.
const reportsKept = 64

// Close stops the fake.
func (s *Server) Close() { s.srv.Close() }

// Scenario resets the fake to normal service, then applies opts.
func (s *Server) Scenario(opts ...Option) {
	var sc scenario
	for _, o := range opts {
		o(&sc)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sc = sc
	s.rateLeft = sc.rateLimit
	s.failLeft = sc.failMidPaging
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// ClearRequests forgets the requests received so far.
func (s *Server) ClearRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
}

// Token is the access token the fake accepts.
func (s *Server) Token() string { return s.cfg.Token }

// Accounts are the fake's ad accounts (the demo's Meta accounts).
func (s *Server) Accounts() []ads.Account { return slices.Clone(s.data.List()) }

// apiErr is a Graph error to answer with.
type apiErr struct {
	status    int
	code      int
	subcode   int
	typ       string
	msg       string
	transient bool
}

func badParam(format string, args ...any) *apiErr {
	return &apiErr{status: 400, code: 100, typ: "OAuthException", msg: "(#100) " + fmt.Sprintf(format, args...)}
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.fail(w, badParam("unreadable parameters"))
		return
	}
	s.mu.Lock()
	if !s.cfg.Standalone {
		s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Params: cloneValues(r.Form), Header: r.Header.Clone()})
	}
	sc := s.sc
	s.mu.Unlock()

	if sc.slow > 0 {
		t := time.NewTimer(sc.slow)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	if e := s.authenticate(r, sc); e != nil {
		s.fail(w, e)
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(parts) < 2 || parts[0] != s.cfg.APIVersion {
		s.fail(w, &apiErr{status: 400, code: 2500, typ: "OAuthException", msg: "Unknown path components: " + r.URL.Path})
		return
	}
	parts = parts[1:]
	account := ""
	var run *reportRun
	switch {
	case strings.HasPrefix(parts[0], "act_"):
		account = parts[0]
		if !s.hasAccount(account) {
			s.fail(w, &apiErr{status: 400, code: 100, subcode: 33, typ: "GraphMethodException",
				msg: fmt.Sprintf("Unsupported get request. Object with ID '%s' does not exist, cannot be loaded due to missing permissions, or does not support this operation.", account)})
			return
		}
	case parts[0] != "me":
		s.mu.Lock()
		run = s.runs[parts[0]]
		s.mu.Unlock()
		if run == nil {
			s.fail(w, &apiErr{status: 400, code: 100, subcode: 33, typ: "GraphMethodException",
				msg: fmt.Sprintf("Unsupported get request. Object with ID '%s' does not exist.", parts[0])})
			return
		}
		account = run.account
	}
	s.usageHeaders(w, account, 0)
	if e := s.throttle(w, account); e != nil {
		s.fail(w, e)
		return
	}
	if account != "" && sc.denied[account] {
		s.fail(w, &apiErr{status: 403, code: 200, typ: "OAuthException",
			msg: "(#200) Ad account owner has NOT grant ads_management or ads_read permission"})
		return
	}
	if r.Form.Get("after") != "" && s.takeMidPagingFailure() {
		s.fail(w, &apiErr{status: 500, code: 2, typ: "OAuthException", transient: true,
			msg: "An unexpected error has occurred. Please retry your request later."})
		return
	}
	route := strings.Join(parts[1:], "/")
	switch {
	case parts[0] == "me" && route == "adaccounts" && r.Method == http.MethodGet:
		s.serveAccounts(w, r)
	case run == nil && route == "insights" && r.Method == http.MethodGet:
		if sc.reduceData {
			s.fail(w, &apiErr{status: 500, code: 1, subcode: 99, typ: "OAuthException",
				msg: "Please reduce the amount of data you're asking for, then retry your request"})
			return
		}
		q, e := s.parseInsights(account, r.Form)
		if e != nil {
			s.fail(w, e)
			return
		}
		s.servePage(w, r, q, r.Form)
	case run == nil && route == "insights" && r.Method == http.MethodPost:
		s.startRun(w, account, r.Form, sc)
	case run == nil && route == "campaigns" && r.Method == http.MethodGet:
		s.serveCampaigns(w, r, account)
	case run != nil && route == "" && r.Method == http.MethodGet:
		s.serveRunStatus(w, parts[0], run)
	case run != nil && route == "insights" && r.Method == http.MethodGet:
		s.mu.Lock()
		state := run.state()
		s.mu.Unlock()
		if state != JobCompleted {
			s.fail(w, badParam("the report run is not complete (%s)", state))
			return
		}
		s.servePage(w, r, run.req, url.Values{"run": {parts[0]}})
	default:
		s.fail(w, &apiErr{status: 400, code: 100, typ: "GraphMethodException",
			msg: fmt.Sprintf("Unsupported %s request to %s", strings.ToLower(r.Method), r.URL.Path)})
	}
}

// authenticate checks the access token (parameter or bearer header) and the
// app secret proof.
func (s *Server) authenticate(r *http.Request, sc scenario) *apiErr {
	token := r.Form.Get("access_token")
	if h := r.Header.Get("Authorization"); token == "" && strings.HasPrefix(h, "Bearer ") {
		token = strings.TrimPrefix(h, "Bearer ")
	}
	if token == "" {
		return &apiErr{status: 400, code: 104, typ: "OAuthException", msg: "An access token is required to request this resource."}
	}
	if token != s.cfg.Token {
		return &apiErr{status: 400, code: 190, typ: "OAuthException", msg: "Invalid OAuth access token - Cannot parse access token"}
	}
	if sc.expired {
		return &apiErr{status: 400, code: 190, subcode: 463, typ: "OAuthException",
			msg: "Error validating access token: Session has expired on Friday, 13-Mar-26 16:00:00 PDT. The current time is Sunday, 15-Mar-26 09:00:00 PDT."}
	}
	if s.cfg.AppSecret != "" {
		m := hmac.New(sha256.New, []byte(s.cfg.AppSecret))
		m.Write([]byte(token))
		if r.Form.Get("appsecret_proof") != hex.EncodeToString(m.Sum(nil)) {
			return &apiErr{status: 400, code: 100, typ: "GraphMethodException", msg: "Invalid appsecret_proof provided in the API argument"}
		}
	}
	return nil
}

func (s *Server) hasAccount(id string) bool { return s.data.Has(id) }

// throttle answers with the business-use-case limit while the scenario says.
func (s *Server) throttle(w http.ResponseWriter, account string) *apiErr {
	s.mu.Lock()
	if s.rateLeft <= 0 {
		s.mu.Unlock()
		return nil
	}
	s.rateLeft--
	regain := s.sc.regainMinutes
	s.mu.Unlock()
	s.usageHeaders(w, account, regain)
	w.Header().Set("X-Business-Use-Case-Usage", s.bucHeader(account, 100, regain))
	return &apiErr{status: 400, code: 80000, subcode: 2446079, typ: "OAuthException", transient: true,
		msg: "There have been too many calls from this ad-account. Wait a bit and try again. For more info, please refer to https://developers.facebook.com/docs/graph-api/overview/rate-limiting."}
}

func (s *Server) takeMidPagingFailure() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failLeft > 0 {
		s.failLeft--
		return true
	}
	return false
}

// usageHeaders are the rate-limit headers Meta sends with ad account calls.
func (s *Server) usageHeaders(w http.ResponseWriter, account string, regain int) {
	if account == "" {
		w.Header().Set("X-App-Usage", `{"call_count":1,"total_cputime":1,"total_time":1}`)
		return
	}
	s.mu.Lock()
	s.callCount[account]++
	n := s.callCount[account]
	s.mu.Unlock()
	w.Header().Set("X-Business-Use-Case-Usage", s.bucHeader(account, min(99, n), regain))
	w.Header().Set("X-FB-Ads-Insights-Throttle", fmt.Sprintf(`{"app_id_util_pct":%.2f,"acc_id_util_pct":%.2f,"ads_api_access_tier":"standard_access"}`, math.Min(99, float64(n)/10), math.Min(99, float64(n)/5)))
	w.Header().Set("X-Ad-Account-Usage", fmt.Sprintf(`{"acc_id_util_pct":%.2f,"reset_time_duration":0,"ads_api_access_tier":"standard_access"}`, math.Min(99, float64(n)/5)))
}

func (s *Server) bucHeader(account string, pct, regain int) string {
	id := strings.TrimPrefix(account, "act_")
	return fmt.Sprintf(`{"%s":[{"type":"ads_insights","call_count":%d,"total_cputime":%d,"total_time":%d,"estimated_time_to_regain_access":%d,"ads_api_access_tier":"standard_access"}]}`,
		id, pct, pct/2, pct/2, regain)
}

func (s *Server) fail(w http.ResponseWriter, e *apiErr) {
	s.mu.Lock()
	s.traceSeq++
	trace := fmt.Sprintf("AFake%06dTrace", s.traceSeq)
	s.mu.Unlock()
	body := map[string]any{"message": e.msg, "type": e.typ, "code": e.code, "fbtrace_id": trace}
	if e.subcode != 0 {
		body["error_subcode"] = e.subcode
	}
	if e.transient {
		body["is_transient"] = true
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("WWW-Authenticate", `OAuth "Facebook Platform" "`+e.typ+`" "`+strings.ReplaceAll(e.msg, `"`, `'`)+`"`)
	w.WriteHeader(e.status)
	json.NewEncoder(w).Encode(map[string]any{"error": body})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// Known Insights fields and breakdowns; anything else is a (#100) error, so a
// connector asking for a misspelled field fails the tests.
var (
	insightsFields = map[string]bool{"account_id": true, "account_name": true, "account_currency": true,
		"campaign_id": true, "campaign_name": true, "adset_id": true, "adset_name": true, "ad_id": true, "ad_name": true,
		"objective": true, "spend": true, "impressions": true, "clicks": true, "inline_link_clicks": true,
		"actions": true, "action_values": true, "video_p100_watched_actions": true, "reach": true, "date_start": true, "date_stop": true}
	breakdownNames = map[string]bool{"country": true, "impression_device": true, "device_platform": true, "publisher_platform": true,
		"age": true, "gender": true, "platform_position": true}
	// breakdownCombinations are the combinations the fake accepts, as Meta
	// documents them (Insights API Breakdowns, "Combining breakdowns"),
	// sorted: anything else is Meta's (#100) "Current combination of data
	// breakdown columns (…) is invalid". The device_platform ones mirror the
	// impression_device ones (not verified against Meta).
	breakdownCombinations = map[string]bool{
		"age": true, "gender": true, "age,gender": true, "country": true,
		"impression_device": true, "device_platform": true, "publisher_platform": true,
		"impression_device,publisher_platform": true, "device_platform,publisher_platform": true,
		"platform_position,publisher_platform": true, "impression_device,platform_position,publisher_platform": true,
		"device_platform,platform_position,publisher_platform": true,
	}
	// attributionWindows are the action_attribution_windows values Meta
	// accepts since 7d_view and 28d_view were withdrawn (2026-01-12).
	attributionWindows = []string{"1d_click", "7d_click", "28d_click", "1d_view", "1d_ev", "dda", "default"}
	levels             = map[string]bool{"account": true, "campaign": true, "adset": true, "ad": true}
)

// parseInsights validates an Insights request's parameters like the API does.
func (s *Server) parseInsights(account string, p url.Values) (*insightsReq, *apiErr) {
	q := &insightsReq{account: account, level: p.Get("level"), fields: map[string]bool{}}
	if q.level == "" {
		q.level = "account"
	}
	if !levels[q.level] {
		return nil, badParam("Param level must be one of {ad, adset, campaign, account}")
	}
	if p.Get("fields") == "" {
		return nil, badParam("fields must be set (the fake requires it)")
	}
	for _, f := range strings.Split(p.Get("fields"), ",") {
		if !insightsFields[f] {
			return nil, badParam("%s is not valid for fields param.", f)
		}
		q.fields[f] = true
	}
	if b := p.Get("breakdowns"); b != "" {
		for _, x := range strings.Split(b, ",") {
			if !breakdownNames[x] {
				return nil, badParam("breakdowns[%d] must be one of the following values: country, impression_device, device_platform, publisher_platform", len(q.breakdowns))
			}
			if slices.Contains(q.breakdowns, x) {
				return nil, badParam("breakdowns: %s is repeated", x)
			}
			q.breakdowns = append(q.breakdowns, x)
		}
		sorted := slices.Sorted(slices.Values(q.breakdowns))
		if !breakdownCombinations[strings.Join(sorted, ",")] {
			return nil, badParam("Current combination of data breakdown columns (action_type, %s) is invalid", strings.Join(sorted, ", "))
		}
	}
	if w := p.Get("action_attribution_windows"); w != "" {
		var ws []string
		if err := json.Unmarshal([]byte(w), &ws); err != nil {
			ws = strings.Split(w, ",")
		}
		for i, x := range ws {
			if !slices.Contains(attributionWindows, x) {
				return nil, badParam("action_attribution_windows[%d] must be one of the following values: %s", i, strings.Join(attributionWindows, ", "))
			}
			if x == "dda" || x == "default" {
				return nil, badParam("the fake serves the windows %s only, not %s", strings.Join(attributionWindows[:5], ", "), x)
			}
			if !slices.Contains(q.windows, x) {
				q.windows = append(q.windows, x)
			}
		}
	}
	if p.Get("date_preset") != "" {
		return nil, badParam("the fake serves time_range or time_ranges only, not date_preset")
	}
	switch {
	case p.Get("time_ranges") != "":
		if p.Get("time_range") != "" || p.Get("time_increment") != "" {
			return nil, badParam("time_ranges cannot be combined with time_range or time_increment")
		}
		var rs []map[string]string
		if err := json.Unmarshal([]byte(p.Get("time_ranges")), &rs); err != nil || len(rs) == 0 {
			return nil, badParam("time_ranges must be a non-empty JSON array of {since, until}")
		}
		for _, r := range rs {
			sp, e := parseSpan(r)
			if e != nil {
				return nil, e
			}
			q.spans = append(q.spans, sp)
		}
		q.increment = "all_days"
	case p.Get("time_range") != "":
		var r map[string]string
		if err := json.Unmarshal([]byte(p.Get("time_range")), &r); err != nil {
			return nil, badParam("time_range must be a JSON object {since, until}")
		}
		sp, e := parseSpan(r)
		if e != nil {
			return nil, e
		}
		q.spans = []span{sp}
		q.increment = p.Get("time_increment")
		if q.increment == "" {
			q.increment = "all_days"
		}
		if q.increment != "all_days" && q.increment != "monthly" {
			n, err := strconv.Atoi(q.increment)
			if err != nil || n < 1 || n > 90 {
				return nil, badParam("time_increment must be all_days, monthly or an integer from 1 to 90")
			}
		}
	default:
		return nil, badParam("the fake needs time_range or time_ranges")
	}
	if f := p.Get("filtering"); f != "" {
		var fs []struct {
			Field    string          `json:"field"`
			Operator string          `json:"operator"`
			Value    json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal([]byte(f), &fs); err != nil {
			return nil, badParam("filtering must be a JSON array of {field, operator, value}")
		}
		for _, x := range fs {
			if x.Field != "campaign.id" && x.Field != "adset.id" && x.Field != "ad.id" {
				return nil, badParam("Filtering field %s is invalid (the fake knows campaign.id, adset.id, ad.id)", x.Field)
			}
			fl := filter{field: x.Field, operator: x.Operator}
			switch x.Operator {
			case "IN", "NOT_IN":
				if err := json.Unmarshal(x.Value, &fl.values); err != nil {
					return nil, badParam("filtering %s %s needs an array of strings", x.Field, x.Operator)
				}
			case "EQUAL", "NOT_EQUAL":
				var v string
				if err := json.Unmarshal(x.Value, &v); err != nil {
					return nil, badParam("filtering %s %s needs a string", x.Field, x.Operator)
				}
				fl.values = []string{v}
			default:
				return nil, badParam("Filtering operator %s is invalid", x.Operator)
			}
			q.filters = append(q.filters, fl)
		}
	}
	return q, nil
}

func parseSpan(r map[string]string) (span, *apiErr) {
	since, err1 := time.Parse(time.DateOnly, r["since"])
	until, err2 := time.Parse(time.DateOnly, r["until"])
	if err1 != nil || err2 != nil || until.Before(since) {
		return span{}, badParam("time range must have since <= until, both YYYY-MM-DD")
	}
	return span{since, until}, nil
}

// rows computes (and caches) a request's rows; key identifies the report.
func (s *Server) rows(q *insightsReq, params url.Values) ([]outRow, error) {
	key := q.account + "?" + reportKey(params)
	s.mu.Lock()
	rows, ok := s.cache[key]
	s.mu.Unlock()
	if ok {
		return rows, nil
	}
	d, _, err := s.data.Of(q.account)
	if err != nil {
		return nil, err
	}
	rows = d.insights(q)
	s.mu.Lock()
	if s.cfg.Standalone && len(s.cache) >= reportsKept {
		clear(s.cache) // recomputed alike when asked again: the data does not change
	}
	s.cache[key] = rows
	s.mu.Unlock()
	return rows, nil
}

func reportKey(p url.Values) string {
	c := cloneValues(p)
	for _, k := range []string{"after", "before", "limit", "access_token", "appsecret_proof"} {
		c.Del(k)
	}
	return c.Encode()
}

// servePage answers one page of rows with cursor paging: paging.next until
// the last page.
// report identifies the report (rows caches it).
func (s *Server) servePage(w http.ResponseWriter, r *http.Request, q *insightsReq, report url.Values) {
	rows, err := s.rows(q, report)
	if err != nil {
		s.fail(w, &apiErr{status: 500, code: 2, typ: "OAuthException", transient: true, msg: err.Error()})
		return
	}
	page, paging, e := s.paginate(r, len(rows))
	if e != nil {
		s.fail(w, e)
		return
	}
	writeJSON(w, map[string]any{"data": rows[page[0]:page[1]], "paging": paging})
}

// paginate picks the page of n items the request asks for.
func (s *Server) paginate(r *http.Request, n int) ([2]int, map[string]any, *apiErr) {
	limit := 25
	if l := r.Form.Get("limit"); l != "" {
		v, err := strconv.Atoi(l)
		if err != nil || v < 1 {
			return [2]int{}, nil, badParam("limit must be a positive integer")
		}
		limit = min(v, 5000)
	}
	s.mu.Lock()
	pages := s.sc.pages
	s.mu.Unlock()
	if pages > 0 {
		limit = min(limit, max(1, n/pages))
	}
	from := 0
	if a := r.Form.Get("after"); a != "" {
		b, err := base64.RawURLEncoding.DecodeString(a)
		v, err2 := strconv.Atoi(strings.TrimPrefix(string(b), "offset:"))
		if err != nil || err2 != nil || v < 0 || v > n {
			return [2]int{}, nil, badParam("Invalid cursor")
		}
		from = v
	}
	to := min(n, from+limit)
	paging := map[string]any{"cursors": map[string]string{"before": cursor(from), "after": cursor(to)}}
	if to < n {
		next := cloneValues(r.Form)
		next.Set("after", cursor(to))
		paging["next"] = s.URL + r.URL.Path + "?" + next.Encode()
	}
	return [2]int{from, to}, paging, nil
}

func cursor(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("offset:" + strconv.Itoa(offset)))
}

// startRun answers POST …/insights with a report run.
func (s *Server) startRun(w http.ResponseWriter, account string, p url.Values, sc scenario) {
	q, e := s.parseInsights(account, p)
	if e != nil {
		s.fail(w, e)
		return
	}
	states := sc.async
	if len(states) == 0 {
		states = []string{JobCompleted}
	}
	s.mu.Lock()
	s.nextRun++
	id := strconv.Itoa(6120000000000000 + s.nextRun)
	s.runs[id] = &reportRun{account: account, req: q, states: slices.Clone(states)}
	s.mu.Unlock()
	writeJSON(w, map[string]string{"report_run_id": id})
}

func (r *reportRun) state() string {
	if r.polls == 0 {
		return JobNotStarted
	}
	return r.states[min(r.polls, len(r.states))-1]
}

func (s *Server) serveRunStatus(w http.ResponseWriter, id string, run *reportRun) {
	s.mu.Lock()
	run.polls++
	state := run.state()
	s.mu.Unlock()
	pct := map[string]int{JobNotStarted: 0, JobStarted: 10, JobRunning: 60, JobCompleted: 100, JobFailed: 40, JobSkipped: 0}[state]
	sp := run.req.spans[0]
	writeJSON(w, map[string]any{"id": id, "account_id": strings.TrimPrefix(run.account, "act_"),
		"async_status": state, "async_percent_completion": pct,
		"date_start": sp.since.Format(time.DateOnly), "date_stop": run.req.spans[len(run.req.spans)-1].until.Format(time.DateOnly)})
}

// serveAccounts answers /me/adaccounts.
func (s *Server) serveAccounts(w http.ResponseWriter, r *http.Request) {
	fields := map[string]bool{"id": true}
	if f := r.Form.Get("fields"); f != "" {
		fields = map[string]bool{}
		for _, x := range strings.Split(f, ",") {
			switch x {
			case "id", "account_id", "name", "currency", "timezone_name", "account_status":
				fields[x] = true
			default:
				s.fail(w, badParam("Tried accessing nonexisting field (%s) on node type (AdAccount)", x))
				return
			}
		}
	}
	accounts := s.data.List()
	page, paging, e := s.paginate(r, len(accounts))
	if e != nil {
		s.fail(w, e)
		return
	}
	var out []map[string]any
	for _, a := range accounts[page[0]:page[1]] {
		m := map[string]any{}
		status := 1
		if a.Status == "CLOSED" {
			status = 101
		}
		for k, v := range map[string]any{"id": a.AccountID, "account_id": strings.TrimPrefix(a.AccountID, "act_"),
			"name": a.AccountName, "currency": a.Currency, "timezone_name": a.Timezone, "account_status": status} {
			if fields[k] {
				m[k] = v
			}
		}
		out = append(out, m)
	}
	writeJSON(w, map[string]any{"data": out, "paging": paging})
}

// serveCampaigns answers /act_<id>/campaigns, with effective_status filtering.
func (s *Server) serveCampaigns(w http.ResponseWriter, r *http.Request, account string) {
	fields := map[string]bool{"id": true}
	if f := r.Form.Get("fields"); f != "" {
		fields = map[string]bool{}
		for _, x := range strings.Split(f, ",") {
			switch x {
			case "id", "name", "objective", "effective_status", "status", "start_time", "stop_time":
				fields[x] = true
			default:
				s.fail(w, badParam("Tried accessing nonexisting field (%s) on node type (Campaign)", x))
				return
			}
		}
	}
	statuses := []string{"ACTIVE", "PAUSED"} // without effective_status, archived campaigns are left out
	if es := r.Form.Get("effective_status"); es != "" {
		if err := json.Unmarshal([]byte(es), &statuses); err != nil {
			s.fail(w, badParam("effective_status must be a JSON array"))
			return
		}
	}
	d, _, err := s.data.Of(account)
	if err != nil {
		s.fail(w, &apiErr{status: 500, code: 2, typ: "OAuthException", transient: true, msg: err.Error()})
		return
	}
	var list []ads.Campaign
	for _, c := range d.campaigns {
		if c.AccountID == account && slices.Contains(statuses, c.Status) {
			list = append(list, c)
		}
	}
	slices.SortFunc(list, func(a, b ads.Campaign) int { return strings.Compare(a.CampaignID, b.CampaignID) })
	page, paging, e := s.paginate(r, len(list))
	if e != nil {
		s.fail(w, e)
		return
	}
	out := []map[string]any{}
	for _, c := range list[page[0]:page[1]] {
		m := map[string]any{}
		vals := map[string]any{"id": c.CampaignID, "name": c.Name, "objective": c.Objective,
			"effective_status": c.Status, "status": c.Status, "start_time": c.StartDate.Format("2006-01-02T15:04:05-0700")}
		if !c.EndDate.IsZero() {
			vals["stop_time"] = c.EndDate.Format("2006-01-02T15:04:05-0700")
		}
		for k, v := range vals {
			if fields[k] {
				m[k] = v
			}
		}
		out = append(out, m)
	}
	writeJSON(w, map[string]any{"data": out, "paging": paging})
}

func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v))
	for k, x := range v {
		out[k] = slices.Clone(x)
	}
	return out
}
