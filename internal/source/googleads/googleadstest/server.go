// Package googleadstest is a fake Google Ads API for tests: an httptest server
// speaking the REST endpoints adsmcp's connector uses, in their documented
// format, over the deterministic demo dataset's google_ads accounts (the same
// data as the duckdbtest warehouse by default), with an OAuth token endpoint
// and switchable failure scenarios.
//
// Endpoints:
//
//	POST /token                                           OAuth 2 refresh_token grant
//	GET  /{version}/customers:listAccessibleCustomers
//	POST /{version}/customers/{id}/googleAds:searchStream  body {"query": GAQL}
//
// searchStream answers with a JSON array of batches ({"results": [...],
// "fieldMask": ..., "requestId": ...}), int64 values as strings, doubles as
// numbers, lowerCamel keys, zero metrics omitted; the GAQL it understands is the
// subset documented in gaql.go. Every request is logged (method, path, headers,
// GAQL) for tests to check what was sent.
package googleadstest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
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

// Default credentials the fake's token endpoint accepts.
const (
	ClientID     = "fake-client-id.apps.googleusercontent.com"
	ClientSecret = "fake-client-secret-DO-NOT-LEAK"
	RefreshToken = "1//fake-refresh-token-DO-NOT-LEAK"
	// AccessTokenPrefix starts every access token the fake issues.
	AccessTokenPrefix = "ya29.fake-access-token-DO-NOT-LEAK-"
)

// Config sets up a fake.
type Config struct {
	// Demo is the dataset; zero means duckdbtest.Config, so answers can be
	// compared with the test warehouse.
	Demo demo.Config
	// APIVersion served (default "v25"); other versions are 404.
	APIVersion string
	// ManagerID, when set, makes the credentials' only accessible customer a
	// manager account with this ID, over all the demo's Google accounts: the
	// clients can then only be read with login-customer-id set to it.
	ManagerID string
	// DeveloperToken, when set, must be sent as the developer-token header.
	DeveloperToken string
	// TokenLifetime of the access tokens issued (default 1h).
	TokenLifetime time.Duration
	// GeoTargets overrides country criterion IDs (ISO code → ID), e.g. to serve
	// one the connector does not know and must look up.
	GeoTargets map[string]string
	// Scale, when set, serves that many customers and days instead of Demo
	// (package fakescale), building a customer's data when asked.
	Scale *fakescale.Scale
	// Serving says where to serve and which middleware to run (default: a
	// fresh loopback port, none).
	Serving fakescale.Serving
	// Standalone is for a fake that runs until stopped: it keeps no log of
	// the requests (Requests is empty).
	Standalone bool
}

// Failure is a failure a scenario injects.
type Failure int

const (
	// None: requests succeed.
	None Failure = iota
	// RateLimited: 429 RESOURCE_EXHAUSTED with a quotaError and a retryDelay.
	RateLimited
	// ExpiredToken: 401 UNAUTHENTICATED; the access token used is spent, so a
	// fresh one (from the token endpoint) works once the failures run out.
	ExpiredToken
	// PermissionDenied: 403 PERMISSION_DENIED, authorizationError
	// USER_PERMISSION_DENIED.
	PermissionDenied
	// Internal: 500 INTERNAL before any data.
	Internal
	// MidStream: 200, the first batch of rows, then an INTERNAL error element
	// ending the stream (a 500 in the middle).
	MidStream
	// Truncated: 200, the first batch of rows, then the connection ends
	// without closing the array.
	Truncated
	// Malformed: 200 with a body that is not JSON.
	Malformed
)

// Scenario is how the fake behaves from now on.
type Scenario struct {
	Failure Failure
	// Customers limits Failure to requests for these customer IDs (any format);
	// empty means every searchStream and listAccessibleCustomers request.
	Customers []string
	// Resource limits Failure to searchStream requests whose GAQL reads FROM
	// this resource (e.g. "conversion_action"); empty means any request.
	Resource string
	// Times limits Failure to the first Times matching requests (0: all).
	Times int
	// RetryDelay is the retryDelay a RateLimited error carries (default 30s).
	RetryDelay time.Duration
	// Latency delays every API response (not the token endpoint), unless the
	// client gives up first.
	Latency time.Duration
	// BatchDelay pauses between searchStream batches.
	BatchDelay time.Duration
	// BatchSize is the rows per searchStream batch (default 10000, the API's).
	BatchSize int
	// RevokeRefreshToken makes the token endpoint answer invalid_grant.
	RevokeRefreshToken bool
}

// Request is one request the fake received.
type Request struct {
	Method, Path string
	Header       http.Header
	// CustomerID of a searchStream request (digits).
	CustomerID string
	// Query is the GAQL of a searchStream request.
	Query string
}

// Server is a running fake.
type Server struct {
	// URL is the API base URL (Options.BaseURL); TokenURL the token endpoint.
	URL, TokenURL string

	srv  *httptest.Server
	cfg  Config
	data *fakescale.Accounts[*dataset]

	mu       sync.Mutex
	scenario Scenario
	failed   int
	log      []Request
	tokens   map[string]time.Time // issued access token → expiry
	nextTok  int
	tokenReq int
}

// New starts a fake; Close it when done.
func New(cfg Config) (*Server, error) {
	if cfg.Demo == (demo.Config{}) {
		cfg.Demo = duckdbtest.Config
	}
	if cfg.APIVersion == "" {
		cfg.APIVersion = "v25"
	}
	if cfg.TokenLifetime == 0 {
		cfg.TokenLifetime = time.Hour
	}
	s := &Server{cfg: cfg, tokens: map[string]time.Time{}}
	var err error
	if s.data, err = fakescale.Open(cfg.Scale, catalog.GoogleAds, func() (*dataset, error) { return load(cfg.Demo) }, loadCustomer); err != nil {
		return nil, err
	}
	s.data.WithLight(loadSettings)
	s.srv = cfg.Serving.Start(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	s.TokenURL = s.srv.URL + "/token"
	return s, nil
}

// Start starts a fake closed at the end of the test.
func Start(tb testing.TB, cfg Config) *Server {
	tb.Helper()
	s, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	return s
}

// Close stops the fake.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Accounts are the demo's google_ads accounts the fake serves.
func (s *Server) Accounts() []ads.Account { return slices.Clone(s.data.List()) }

// customer is the data of customer cid (digits), nil if the fake has no
// such customer; without its facts when settings says the request needs no
// numbers.
func (s *Server) customer(cid string, settings bool) (*customer, error) {
	of := s.data.Of
	if settings {
		of = s.data.OfLight
	}
	for _, a := range s.data.List() {
		if digits(a.AccountID) == cid {
			d, _, err := of(a.AccountID)
			if err != nil {
				return nil, err
			}
			return d.customers[cid], nil
		}
	}
	return nil, nil
}

// SetScenario switches the fake's behaviour (and resets its failure count).
func (s *Server) SetScenario(sc Scenario) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scenario, s.failed = sc, 0
}

// Requests returns the API requests received so far (not the token endpoint's).
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// TokenRequests is how many times the token endpoint was called.
func (s *Server) TokenRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokenReq
}

// ResetLog forgets the requests received.
func (s *Server) ResetLog() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log, s.tokenReq = nil, 0
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/token" {
		s.token(w, r)
		return
	}
	prefix := "/" + s.cfg.APIVersion + "/customers"
	if !strings.HasPrefix(r.URL.Path, prefix) {
		writeError(w, http.StatusNotFound, "NOT_FOUND", "The requested URL was not found on this server (API version "+s.cfg.APIVersion+" is served).", nil)
		return
	}
	rest := strings.TrimPrefix(r.URL.Path, prefix)
	req := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone()}
	var body struct {
		Query string `json:"query"`
	}
	search := false
	switch {
	case rest == ":listAccessibleCustomers" && r.Method == http.MethodGet:
	case strings.HasPrefix(rest, "/") && strings.HasSuffix(rest, "/googleAds:searchStream") && r.Method == http.MethodPost:
		search = true
		req.CustomerID = strings.TrimSuffix(strings.TrimPrefix(rest, "/"), "/googleAds:searchStream")
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			s.record(req)
			writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Invalid JSON payload received. "+err.Error(), nil)
			return
		}
		req.Query = body.Query
	default:
		s.record(req)
		writeError(w, http.StatusNotFound, "NOT_FOUND", "The requested URL was not found on this server.", nil)
		return
	}
	sc, fail := s.record(req)

	if sc.Latency > 0 {
		select {
		case <-time.After(sc.Latency):
		case <-r.Context().Done():
			return
		}
	}
	if !s.authorized(w, r) {
		return
	}
	if fail && s.failBefore(w, r, sc) {
		return
	}
	if !search {
		s.listAccessible(w)
		return
	}
	s.searchStream(w, r, req.CustomerID, body.Query, sc, fail)
}

// record logs a request and says whether the scenario's failure applies to it.
func (s *Server) record(req Request) (Scenario, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.cfg.Standalone {
		s.log = append(s.log, req)
	}
	sc := s.scenario
	if sc.Failure == None || req.Path == "" {
		return sc, false
	}
	if len(sc.Customers) > 0 {
		if req.CustomerID == "" || !slices.ContainsFunc(sc.Customers, func(c string) bool { return digits(c) == req.CustomerID }) {
			return sc, false
		}
	}
	if sc.Resource != "" {
		if q, err := ParseQuery(req.Query); err != nil || q.Resource != sc.Resource {
			return sc, false
		}
	}
	if sc.Times > 0 && s.failed >= sc.Times {
		return sc, false
	}
	s.failed++
	return sc, true
}

// authorized checks the bearer token, developer token and login-customer-id.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	auth := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(auth, "Bearer ")
	s.mu.Lock()
	exp, issued := s.tokens[tok]
	s.mu.Unlock()
	if !ok || !issued || time.Now().After(exp) {
		writeError(w, http.StatusUnauthorized, "UNAUTHENTICATED",
			"Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.", nil)
		return false
	}
	if s.cfg.DeveloperToken != "" && r.Header.Get("developer-token") != s.cfg.DeveloperToken {
		writeError(w, http.StatusUnauthorized, "UNAUTHENTICATED", "The developer token is not valid.",
			adsFailure("authenticationError", "DEVELOPER_TOKEN_INVALID", "The developer token is not valid."))
		return false
	}
	login := r.Header.Get("login-customer-id")
	if login != "" && (s.cfg.ManagerID == "" || login != digits(s.cfg.ManagerID)) {
		writeError(w, http.StatusForbidden, "PERMISSION_DENIED", "The caller does not have permission",
			adsFailure("authorizationError", "USER_PERMISSION_DENIED",
				"User doesn't have permission to access customer. Note: If you're accessing a client customer, the manager's customer ID must be set in the 'login-customer-id' header."))
		return false
	}
	return true
}

// failBefore writes the scenario's failure when it happens before any data.
func (s *Server) failBefore(w http.ResponseWriter, r *http.Request, sc Scenario) bool {
	switch sc.Failure {
	case RateLimited:
		d := sc.RetryDelay
		if d == 0 {
			d = 30 * time.Second
		}
		f := adsFailure("quotaError", "RESOURCE_EXHAUSTED", "Too many requests. Retry in "+strconv.Itoa(int(d.Seconds()))+" seconds.")
		f.Errors[0].Details = &errorDetails{QuotaErrorDetails: &quotaDetails{RateScope: "ACCOUNT",
			RateName: "Requests per account", RetryDelay: formatDuration(d)}}
		writeError(w, http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).", f)
	case ExpiredToken:
		s.mu.Lock()
		delete(s.tokens, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		s.mu.Unlock()
		writeError(w, http.StatusUnauthorized, "UNAUTHENTICATED",
			"Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.", nil)
	case PermissionDenied:
		writeError(w, http.StatusForbidden, "PERMISSION_DENIED", "The caller does not have permission",
			adsFailure("authorizationError", "USER_PERMISSION_DENIED",
				"User doesn't have permission to access customer. Note: If you're accessing a client customer, the manager's customer ID must be set in the 'login-customer-id' header."))
	case Internal:
		writeError(w, http.StatusInternalServerError, "INTERNAL", "Internal error encountered.",
			adsFailure("internalError", "INTERNAL_ERROR", "An internal error has occurred."))
	case Malformed:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, "<html><body>502 Bad Gateway</body></html>")
	default:
		return false
	}
	return true
}

// token is the OAuth 2 token endpoint (refresh_token grant only).
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.tokenReq++
	sc := s.scenario
	s.mu.Unlock()
	oauthErr := func(code int, e, desc string) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(map[string]string{"error": e, "error_description": desc})
	}
	if r.Method != http.MethodPost || r.ParseForm() != nil {
		oauthErr(http.StatusBadRequest, "invalid_request", "POST a form")
		return
	}
	id, secret, basic := r.BasicAuth()
	if !basic {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	switch {
	case r.PostForm.Get("grant_type") != "refresh_token":
		oauthErr(http.StatusBadRequest, "unsupported_grant_type", "Invalid grant_type: "+r.PostForm.Get("grant_type"))
	case id != ClientID || secret != ClientSecret:
		oauthErr(http.StatusUnauthorized, "invalid_client", "The OAuth client was not found.")
	case sc.RevokeRefreshToken || r.PostForm.Get("refresh_token") != RefreshToken:
		oauthErr(http.StatusBadRequest, "invalid_grant", "Token has been expired or revoked.")
	default:
		s.mu.Lock()
		s.nextTok++
		tok := AccessTokenPrefix + strconv.Itoa(s.nextTok)
		s.tokens[tok] = time.Now().Add(s.cfg.TokenLifetime)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "expires_in": int(s.cfg.TokenLifetime.Seconds()),
			"scope": "https://www.googleapis.com/auth/adwords", "token_type": "Bearer"})
	}
}

// listAccessible answers customers:listAccessibleCustomers.
func (s *Server) listAccessible(w http.ResponseWriter) {
	var names []string
	if s.cfg.ManagerID != "" {
		names = []string{"customers/" + digits(s.cfg.ManagerID)}
	} else {
		for _, a := range s.data.List() {
			names = append(names, "customers/"+digits(a.AccountID))
		}
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	json.NewEncoder(w).Encode(map[string]any{"resourceNames": names})
}

// Errors in the API's format.

type apiError struct {
	Error struct {
		Code    int       `json:"code"`
		Message string    `json:"message"`
		Status  string    `json:"status"`
		Details []failure `json:"details,omitempty"`
	} `json:"error"`
}

type failure struct {
	Type      string     `json:"@type"`
	Errors    []adsError `json:"errors"`
	RequestID string     `json:"requestId"`
}

type adsError struct {
	ErrorCode map[string]string `json:"errorCode"`
	Message   string            `json:"message"`
	Details   *errorDetails     `json:"details,omitempty"`
}

type errorDetails struct {
	QuotaErrorDetails *quotaDetails `json:"quotaErrorDetails,omitempty"`
}

type quotaDetails struct {
	RateScope  string `json:"rateScope"`
	RateName   string `json:"rateName"`
	RetryDelay string `json:"retryDelay"`
}

func adsFailure(kind, code, msg string) *failure {
	return &failure{Type: "type.googleapis.com/google.ads.googleads.v25.errors.GoogleAdsFailure",
		Errors: []adsError{{ErrorCode: map[string]string{kind: code}, Message: msg}}, RequestID: "fake-request-id"}
}

func errorBody(code int, status, msg string, f *failure) apiError {
	var e apiError
	e.Error.Code, e.Error.Status, e.Error.Message = code, status, msg
	if f != nil {
		e.Error.Details = []failure{*f}
	}
	return e
}

func writeError(w http.ResponseWriter, code int, status, msg string, f *failure) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(errorBody(code, status, msg, f))
}

// formatDuration writes a protobuf Duration in JSON form ("30s", "0.250s").
func formatDuration(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}
