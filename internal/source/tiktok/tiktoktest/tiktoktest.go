// Package tiktoktest is a fake TikTok API for Business (v1.3) for tests: an
// httptest server that serves the deterministic demo dataset's TikTok
// advertisers in the API's own format (the {code, message, request_id, data}
// envelope, every value a string, page/total_page paging), validates requests
// as the real API does (unknown metrics and dimensions, ranges longer than
// allowed, too many IDs in a filter, each with TikTok's return code), and can
// inject every failure: rate limits, expired or wrong tokens, missing
// permission, system errors and HTTP 5xx, malformed bodies. It keeps a log of
// the requests it received.
//
// Its data is demo.Generate's, by default with the configuration of the shared
// test warehouse (duckdbtest.Config), so the connector's answers can be
// compared with the warehouse's number for number.
//
// It serves the demo's breakdown sets (ads.Fact.BreakdownKey) as TikTok
// reports them: age and gender AUDIENCE reports from the age_gender rows (the
// demo's 55-64 and 65+ summed into AGE_55_100), the per-event metrics of a
// BASIC report (web_event_add_to_cart, form, …) from the conversion_action
// rows, and placement and platform from the delivery rows — which the demo's
// TikTok placement rows equal campaign by campaign and day by day (for TikTok
// placement is the publisher platform), so one request shape has one
// answer whichever set the connector reads. It refuses what its data cannot
// answer with 40002: age or gender with another AUDIENCE dimension or below
// campaign level, event metrics in AUDIENCE reports or below campaign level.
//
// Extending it with an AUDIENCE dimension is an entry in audience (data.go:
// how a demo fact's value is written) and in audienceDims below (which
// dimension the real API accepts).
package tiktoktest

import (
	"encoding/json"
	"fmt"
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

// Defaults of Config.
const (
	DefaultToken     = "ttFAKE0tiktoktest0token0do0not0leak"
	DefaultAppID     = "7000000000000000001"
	DefaultAppSecret = "ttFAKE0app0secret0do0not0leak"
)

// Limits the fake enforces, as the real API documents them.
const (
	MaxDailySpan = 30   // days per report with stat_time_day
	MaxSpan      = 365  // days per report without a time dimension
	MaxFilterIDs = 100  // IDs per filter
	MaxPageSize  = 1000 // page_size
)

// Return codes the fake answers with.
const (
	CodeOK           = 0
	CodePermission   = 40001
	CodeInvalidParam = 40002
	CodeRateLimit    = 40100
	CodeAppInvalid   = 40101
	CodeTokenExpired = 40102
	CodeTokenEmpty   = 40104
	CodeTokenInvalid = 40105
	CodeSystemError  = 50000
)

// Config chooses the fake's data and credentials. Zero values take defaults.
type Config struct {
	Demo             demo.Config // default duckdbtest.Config
	Token            string      // the access token to accept (default DefaultToken)
	AppID, AppSecret string      // the app's credentials (defaults above)
	// Scale, when set, serves that many advertisers and days instead of Demo
	// (package fakescale), building an advertiser's data when asked.
	Scale *fakescale.Scale
	// Serving says where to serve and which middleware to run (default: a
	// fresh loopback port, none).
	Serving fakescale.Serving
	// Standalone is for a fake that runs until stopped: it keeps no log of
	// the requests (Requests is empty).
	Standalone bool
}

// Request is one request the fake received.
type Request struct {
	Path   string // e.g. /open_api/v1.3/report/integrated/get/
	Params url.Values
	Header http.Header
}

// Server is a running fake. Its scenario can change between requests.
type Server struct {
	// URL is the base URL to give the connector (no /open_api, no trailing slash).
	URL string

	cfg  Config
	data *fakescale.Accounts[*dataset]
	srv  *httptest.Server

	mu       sync.Mutex
	sc       scenario
	left     map[string]int // failures left, by kind
	requests []Request
	seq      int
}

type scenario struct {
	pages      int
	retryAfter int
	expired    bool
	denied     map[string]bool
	// reportsDenied: the advertiser is listed, but its data is not readable.
	reportsDenied map[string]bool
	counts        map[string]int
	revised       map[time.Time]float64
}

// Option is one part of a scenario.
type Option func(*scenario)

// Pages splits every report into at least n pages, whatever page_size the
// client asks (page_info says the page size used).
func Pages(n int) Option { return func(s *scenario) { s.pages = n } }

// RateLimit answers the next n requests with 40100 (requests too frequent),
// HTTP 200 as TikTok does, with a Retry-After of retryAfter seconds when it is
// positive.
func RateLimit(n, retryAfter int) Option {
	return func(s *scenario) { s.counts["rate"], s.retryAfter = n, retryAfter }
}

// ExpiredToken answers every request with 40102 (access token expired).
func ExpiredToken() Option { return func(s *scenario) { s.expired = true } }

// PermissionDenied answers requests on the advertiser with 40001.
func PermissionDenied(advertiserID string) Option {
	return func(s *scenario) { s.denied[advertiserID] = true }
}

// Revise reports every measure of day (all advertisers; not reach) multiplied by
// factor, as a platform revises a day's figures after the fact (late
// conversions): what a sync's lookback picks up. A whole factor keeps
// counts whole.
func Revise(day time.Time, factor float64) Option {
	return func(s *scenario) {
		if s.revised == nil {
			s.revised = map[time.Time]float64{}
		}
		s.revised[day] = factor
	}
}

// ReportsDenied answers the advertiser's report and campaign requests with
// 40001 while it is still listed (authorized, with its info readable): the
// app lost the Reporting permission on it, as when the advertiser's Business
// Center narrows the app's scopes. PermissionDenied, by contrast, denies the
// listing too.
func ReportsDenied(advertiserID string) Option {
	return func(s *scenario) { s.reportsDenied[advertiserID] = true }
}

// SystemError answers the next n requests with 50000 (HTTP 200).
func SystemError(n int) Option { return func(s *scenario) { s.counts["system"] = n } }

// ServerError answers the next n requests with HTTP 503 and no envelope.
func ServerError(n int) Option { return func(s *scenario) { s.counts["http"] = n } }

// RejectCombination answers the next n AUDIENCE report requests with 40002
// "The combination of … is not supported", as TikTok answers a grouping of
// audience dimensions it does not report (which groupings those are is not
// documented where we looked: the fake serves every grouping its data holds).
func RejectCombination(n int) Option { return func(s *scenario) { s.counts["combination"] = n } }

// Malformed answers the next n report requests with a body that is not JSON.
func Malformed(n int) Option { return func(s *scenario) { s.counts["malformed"] = n } }

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
	if cfg.AppID == "" {
		cfg.AppID = DefaultAppID
	}
	if cfg.AppSecret == "" {
		cfg.AppSecret = DefaultAppSecret
	}
	s := &Server{cfg: cfg}
	var err error
	if s.data, err = fakescale.Open(cfg.Scale, catalog.TikTokAds, func() (*dataset, error) { return load(cfg.Demo) }, loadAccount); err != nil {
		return nil, err
	}
	s.Scenario()
	s.srv = cfg.Serving.Start(s)
	s.URL = s.srv.URL
	return s, nil
}

// Close stops the fake.
func (s *Server) Close() { s.srv.Close() }

// Scenario resets the fake to normal service, then applies opts.
func (s *Server) Scenario(opts ...Option) {
	sc := scenario{denied: map[string]bool{}, reportsDenied: map[string]bool{}, counts: map[string]int{}}
	for _, o := range opts {
		o(&sc)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sc = sc
	s.left = sc.counts
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

// AppID and AppSecret are the app's credentials the fake accepts.
func (s *Server) AppID() string     { return s.cfg.AppID }
func (s *Server) AppSecret() string { return s.cfg.AppSecret }

// Accounts are the fake's advertisers (the demo's TikTok accounts).
func (s *Server) Accounts() []ads.Account { return slices.Clone(s.data.List()) }

// apiErr is an error envelope to answer with.
type apiErr struct {
	code int
	msg  string
}

func invalid(format string, args ...any) *apiErr {
	return &apiErr{code: CodeInvalidParam, msg: fmt.Sprintf(format, args...)}
}

const prefix = "/open_api/v1.3"

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	params := r.URL.Query()
	s.mu.Lock()
	if !s.cfg.Standalone {
		s.requests = append(s.requests, Request{Path: r.URL.Path, Params: params, Header: r.Header.Clone()})
	}
	sc := s.sc
	s.mu.Unlock()
	if r.Method != http.MethodGet {
		s.fail(w, &apiErr{code: 40000, msg: "method not allowed: " + r.Method})
		return
	}
	if s.take("http") {
		http.Error(w, "<html>503 Service Temporarily Unavailable</html>", http.StatusServiceUnavailable)
		return
	}
	switch token := r.Header.Get("Access-Token"); {
	case token == "":
		s.fail(w, &apiErr{code: CodeTokenEmpty, msg: "Access token is null, please add Access-Token in the request header."})
		return
	case token != s.cfg.Token:
		s.fail(w, &apiErr{code: CodeTokenInvalid, msg: "Access token is incorrect or has been revoked."})
		return
	case sc.expired:
		s.fail(w, &apiErr{code: CodeTokenExpired, msg: "The access token has expired, please re-authorize."})
		return
	}
	if s.take("rate") {
		if sc.retryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(sc.retryAfter))
		}
		s.fail(w, &apiErr{code: CodeRateLimit, msg: "Requests made too frequently. Please try again later."})
		return
	}
	if s.take("system") {
		s.fail(w, &apiErr{code: CodeSystemError, msg: "System error. Please try again later."})
		return
	}
	if adv := params.Get("advertiser_id"); adv != "" && sc.denied[adv] {
		s.fail(w, &apiErr{code: CodePermission, msg: fmt.Sprintf("No permission to operate advertiser %s.", adv)})
		return
	}
	path := strings.TrimPrefix(r.URL.Path, prefix)
	if adv := params.Get("advertiser_id"); adv != "" && sc.reportsDenied[adv] && (path == "/report/integrated/get/" || path == "/campaign/get/") {
		s.fail(w, &apiErr{code: CodePermission, msg: fmt.Sprintf("No permission to operate advertiser %s.", adv)})
		return
	}
	switch path {
	case "/oauth2/advertiser/get/":
		s.serveAuthorized(w, params)
	case "/advertiser/info/":
		s.serveInfo(w, params, sc)
	case "/report/integrated/get/":
		if s.take("malformed") {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"code":0,"message":"OK","data":{"list":[{"dimensions":`)
			return
		}
		q, e := s.parseReport(params)
		if e != nil {
			s.fail(w, e)
			return
		}
		if len(q.audience) > 0 && s.take("combination") {
			s.fail(w, invalid("dimensions: The combination of %v is not supported.", q.audience))
			return
		}
		d, _, err := s.data.Of(q.advertiser)
		if err != nil {
			s.fail(w, &apiErr{code: 50000, msg: err.Error()})
			return
		}
		q.revised = sc.revised
		s.servePaged(w, params, d.rows(q), sc)
	case "/campaign/get/":
		s.serveCampaigns(w, params, sc)
	default:
		s.fail(w, &apiErr{code: 40000, msg: "unknown path " + r.URL.Path})
	}
}

func (s *Server) take(kind string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.left[kind] > 0 {
		s.left[kind]--
		return true
	}
	return false
}

// respond writes an envelope with code 0 and data.
func (s *Server) respond(w http.ResponseWriter, data any) {
	s.write(w, map[string]any{"code": CodeOK, "message": "OK", "request_id": s.requestID(), "data": data})
}

// fail writes an error envelope, with HTTP 200 as TikTok does.
func (s *Server) fail(w http.ResponseWriter, e *apiErr) {
	s.write(w, map[string]any{"code": e.code, "message": e.msg, "request_id": s.requestID(), "data": map[string]any{}})
}

func (s *Server) write(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) requestID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return fmt.Sprintf("2026030112000%08d", s.seq)
}

func (s *Server) serveAuthorized(w http.ResponseWriter, p url.Values) {
	if p.Get("app_id") != s.cfg.AppID || p.Get("secret") != s.cfg.AppSecret {
		s.fail(w, &apiErr{code: CodeAppInvalid, msg: "App ID or secret is invalid."})
		return
	}
	var list []map[string]string
	for _, a := range s.data.List() {
		list = append(list, map[string]string{"advertiser_id": a.AccountID, "advertiser_name": a.AccountName})
	}
	s.respond(w, map[string]any{"list": list})
}

func (s *Server) serveInfo(w http.ResponseWriter, p url.Values, sc scenario) {
	var ids, fields []string
	if err := json.Unmarshal([]byte(p.Get("advertiser_ids")), &ids); err != nil || len(ids) == 0 {
		s.fail(w, invalid("advertiser_ids: Field must be set to a JSON list of IDs."))
		return
	}
	if len(ids) > MaxFilterIDs {
		s.fail(w, invalid("advertiser_ids: Length must be between 1 and %d.", MaxFilterIDs))
		return
	}
	if f := p.Get("fields"); f != "" && json.Unmarshal([]byte(f), &fields) != nil {
		s.fail(w, invalid("fields: Not a valid list."))
		return
	}
	list := []map[string]string{}
	for _, id := range ids {
		if sc.denied[id] {
			s.fail(w, &apiErr{code: CodePermission, msg: fmt.Sprintf("No permission to operate advertiser %s.", id)})
			return
		}
		for _, a := range s.data.List() {
			if a.AccountID != id {
				continue
			}
			status := "STATUS_ENABLE"
			if a.Status == "CLOSED" {
				status = "STATUS_DISABLE"
			}
			list = append(list, map[string]string{"advertiser_id": a.AccountID, "name": a.AccountName, "currency": a.Currency,
				"timezone": "Etc/GMT+5", "display_timezone": a.Timezone, "status": status})
		}
	}
	s.respond(w, map[string]any{"list": list})
}

// levelDims are the data levels and the ID dimension of each.
var levelDims = map[string][2]string{
	"AUCTION_ADVERTISER": {"advertiser", "advertiser_id"},
	"AUCTION_CAMPAIGN":   {"campaign", "campaign_id"},
	"AUCTION_ADGROUP":    {"adgroup", "adgroup_id"},
	"AUCTION_AD":         {"ad", "ad_id"},
}

// audienceDims are the AUDIENCE report's dimensions the fake serves.
var audienceDims = []string{"country_code", "platform", "placement", "age", "gender"}

// attributes are the attribute metrics, by the lowest level they need.
var attributes = map[string]int{"campaign_id": 1, "campaign_name": 1, "objective_type": 1, "adgroup_id": 2, "adgroup_name": 2, "ad_name": 3}

var levelRank = map[string]int{"advertiser": 0, "campaign": 1, "adgroup": 2, "ad": 3}

// parseReport validates a report request as the API does.
func (s *Server) parseReport(p url.Values) (*reportReq, *apiErr) {
	q := &reportReq{advertiser: p.Get("advertiser_id"), filters: map[string][]string{}}
	if !s.data.Has(q.advertiser) {
		return nil, &apiErr{code: CodePermission, msg: fmt.Sprintf("No permission to operate advertiser %s.", q.advertiser)}
	}
	lv, ok := levelDims[p.Get("data_level")]
	if !ok {
		return nil, invalid("data_level: Invalid enum value %q.", p.Get("data_level"))
	}
	q.level, q.idDim = lv[0], lv[1]
	reportType := p.Get("report_type")
	if reportType != "BASIC" && reportType != "AUDIENCE" {
		return nil, invalid("report_type: Invalid enum value %q.", reportType)
	}
	var dims []string
	if err := json.Unmarshal([]byte(p.Get("dimensions")), &dims); err != nil || len(dims) == 0 {
		return nil, invalid("dimensions: Field must be set to a JSON list.")
	}
	seenID := false
	for _, d := range dims {
		switch {
		case d == q.idDim:
			seenID = true
		case d == "stat_time_day":
			q.daily = true
		case slices.Contains(audienceDims, d) && reportType == "AUDIENCE":
			if slices.Contains(q.audience, d) {
				return nil, invalid("dimensions: %s appears twice.", d)
			}
			q.audience = append(q.audience, d)
		default:
			return nil, invalid("dimensions: Invalid dimension %q for report_type %s and data_level %s.", d, reportType, p.Get("data_level"))
		}
	}
	if !seenID && !q.daily {
		return nil, invalid("dimensions: The ID dimension %s or a time dimension is required.", q.idDim)
	}
	if reportType == "AUDIENCE" && len(q.audience) == 0 {
		return nil, invalid("dimensions: An AUDIENCE report needs an audience dimension.")
	}
	if q.demographic() {
		// Age and gender come in the demo's age_gender rows, per campaign: with
		// no other audience dimension, at campaign or advertiser level.
		for _, d := range q.audience {
			if d != "age" && d != "gender" {
				return nil, invalid("dimensions: The combination of %v is not supported.", q.audience)
			}
		}
		if levelRank[q.level] > levelRank["campaign"] {
			return nil, invalid("dimensions: age and gender are not supported at data_level %s in this fake (its demographic rows are per campaign).", p.Get("data_level"))
		}
	}
	if err := json.Unmarshal([]byte(p.Get("metrics")), &q.metrics); err != nil || len(q.metrics) == 0 {
		return nil, invalid("metrics: Field must be set to a JSON list.")
	}
	for _, m := range q.metrics {
		if need, ok := attributes[m]; ok {
			if levelRank[q.level] < need {
				return nil, invalid("metrics: %s is not supported at data_level %s.", m, p.Get("data_level"))
			}
			continue
		}
		if _, ok := eventMetrics[m]; ok {
			q.events = true
			continue
		}
		if _, ok := measureOf[m]; !ok && m != "reach" {
			return nil, invalid("metrics: Invalid metric %q.", m)
		}
	}
	if q.events && (reportType != "BASIC" || levelRank[q.level] > levelRank["campaign"]) {
		// The demo's conversion_action rows are per campaign.
		return nil, invalid("metrics: event metrics are served by this fake only in BASIC reports at campaign or advertiser level.")
	}
	var err error
	if q.start, err = time.Parse(time.DateOnly, p.Get("start_date")); err != nil {
		return nil, invalid("start_date: Field must be set to a date (YYYY-MM-DD).")
	}
	if q.end, err = time.Parse(time.DateOnly, p.Get("end_date")); err != nil {
		return nil, invalid("end_date: Field must be set to a date (YYYY-MM-DD).")
	}
	days := int(q.end.Sub(q.start).Hours()/24) + 1
	switch {
	case days < 1:
		return nil, invalid("end_date: end_date must not be earlier than start_date.")
	case q.daily && days > MaxDailySpan:
		return nil, invalid("start_date, end_date: The time span cannot exceed %d days when stat_time_day is a dimension.", MaxDailySpan)
	case days > MaxSpan:
		return nil, invalid("start_date, end_date: The time span cannot exceed %d days.", MaxSpan)
	}
	if f := p.Get("filtering"); f != "" {
		var filters []struct {
			FieldName   string `json:"field_name"`
			FilterType  string `json:"filter_type"`
			FilterValue string `json:"filter_value"`
		}
		if err := json.Unmarshal([]byte(f), &filters); err != nil {
			return nil, invalid("filtering: Not a valid JSON list of filters.")
		}
		for _, fl := range filters {
			var ids []string
			if fl.FilterType != "IN" || json.Unmarshal([]byte(fl.FilterValue), &ids) != nil {
				return nil, invalid("filtering: filter_type must be IN and filter_value a JSON list of IDs.")
			}
			switch fl.FieldName {
			case "campaign_ids", "adgroup_ids", "ad_ids":
			default:
				return nil, invalid("filtering: Invalid field_name %q.", fl.FieldName)
			}
			if len(ids) > MaxFilterIDs {
				return nil, invalid("filtering: filter_value of %s can have at most %d IDs.", fl.FieldName, MaxFilterIDs)
			}
			q.filters[fl.FieldName] = ids
		}
	}
	return q, nil
}

// servePaged answers a page of rows (page and page_size as asked; Pages forces
// smaller pages).
func (s *Server) servePaged(w http.ResponseWriter, p url.Values, rows []map[string]any, sc scenario) {
	page, size, e := paging(p)
	if e != nil {
		s.fail(w, e)
		return
	}
	if sc.pages > 0 {
		size = max(1, min(size, (len(rows)+sc.pages-1)/sc.pages))
	}
	total := max(1, (len(rows)+size-1)/size)
	lo, hi := min(len(rows), (page-1)*size), min(len(rows), page*size)
	s.respond(w, map[string]any{"list": rows[lo:hi], "page_info": map[string]int{
		"page": page, "page_size": size, "total_number": len(rows), "total_page": total}})
}

func paging(p url.Values) (page, size int, e *apiErr) {
	page, size = 1, 10
	var err error
	if v := p.Get("page"); v != "" {
		if page, err = strconv.Atoi(v); err != nil || page < 1 {
			return 0, 0, invalid("page: Must be a positive integer.")
		}
	}
	if v := p.Get("page_size"); v != "" {
		if size, err = strconv.Atoi(v); err != nil || size < 1 || size > MaxPageSize {
			return 0, 0, invalid("page_size: Must be between 1 and %d.", MaxPageSize)
		}
	}
	return page, size, nil
}

func (s *Server) serveCampaigns(w http.ResponseWriter, p url.Values, sc scenario) {
	adv := p.Get("advertiser_id")
	d, ok, err := s.data.Of(adv)
	if err != nil {
		s.fail(w, &apiErr{code: 50000, msg: err.Error()})
		return
	}
	if !ok {
		s.fail(w, &apiErr{code: CodePermission, msg: fmt.Sprintf("No permission to operate advertiser %s.", adv)})
		return
	}
	all := strings.Contains(p.Get("filtering"), "CAMPAIGN_STATUS_ALL")
	var rows []map[string]any
	var ids []string
	for id, c := range d.campaigns {
		if c.AccountID == adv {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		c := d.campaigns[id]
		op, sec := "ENABLE", "CAMPAIGN_STATUS_ENABLE"
		switch c.Status {
		case "PAUSED":
			op, sec = "DISABLE", "CAMPAIGN_STATUS_DISABLE"
		case "ARCHIVED":
			op, sec = "DISABLE", "CAMPAIGN_STATUS_DELETE"
		}
		if sec == "CAMPAIGN_STATUS_DELETE" && !all {
			continue // deleted campaigns only with CAMPAIGN_STATUS_ALL
		}
		rows = append(rows, map[string]any{"campaign_id": id, "campaign_name": c.Name, "objective_type": c.Objective,
			"operation_status": op, "secondary_status": sec})
	}
	s.servePaged(w, p, rows, sc)
}

// Ads are the IDs of an advertiser's ads, sorted (for tests of ID filters).
func (s *Server) Ads(advertiserID string) []string {
	var out []string
	d, ok, _ := s.data.Of(advertiserID)
	if !ok {
		return nil
	}
	for id, a := range d.ads {
		if a.AccountID == advertiserID {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}
