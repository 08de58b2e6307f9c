// Package googleads is adsmcp's connector to the Google Ads API (REST): it
// lists the customer accounts the credentials can read and fetches the rows a
// live.Plan asks with one GAQL searchStream request per account, mapped from
// the plan (resource by its level, date segment by its grain, metric fields
// from metricFields, dimension filters pushed into WHERE where that is
// exact). The live source plans, runs the accounts on its worker pool, stages
// the rows and answers with the warehouse's SQL.
//
// Authentication is OAuth 2: a refresh token with the client ID and secret it
// was issued to (golang.org/x/oauth2), or any oauth2.TokenSource. A manager
// account is used through login-customer-id. Requests run under a
// per-connector rate limit, are retried when Google says to
// (quota, transient errors) only while the deadline allows, and every HTTP
// request counts in source_calls. Secrets are never logged nor put in errors.
//
// See docs/googleads.md for setup, what each query fetches, errors and limits.
package googleads

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/outcome"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/apiclient"
	"github.com/adsmcp/adsmcp/internal/source/live"
)

// Platform is the catalog's name of Google Ads.
const Platform = catalog.GoogleAds

// Defaults.
const (
	DefaultBaseURL    = "https://googleads.googleapis.com"
	DefaultAPIVersion = "v25"
	// DefaultTokenURL is Google's OAuth 2 token endpoint.
	DefaultTokenURL = "https://oauth2.googleapis.com/token"
	// Scope is the OAuth scope the refresh token must carry.
	Scope                    = "https://www.googleapis.com/auth/adwords"
	DefaultWorkers           = 4
	DefaultRequestsPerSecond = 10
	DefaultMaxRetries        = 2
	DefaultRetryBaseDelay    = 500 * time.Millisecond
	DefaultMaxRetryWait      = 10 * time.Second
)

// Options configure a Connector. Credentials are either TokenSource or
// ClientID, ClientSecret and RefreshToken.
type Options struct {
	// BaseURL of the API (default DefaultBaseURL).
	BaseURL string
	// APIVersion such as "v25" (default DefaultAPIVersion).
	APIVersion string
	// DeveloperToken, sent as the developer-token header when set (optional
	// since Google's 2026 change; keep it if your project still has one).
	DeveloperToken string
	// LoginCustomerID is the manager account the client accounts are reached
	// through (login-customer-id header); accounts are then its clients.
	LoginCustomerID string
	// TokenSource gives access tokens; when nil, the refresh-token flow below.
	TokenSource oauth2.TokenSource
	// ClientID, ClientSecret and RefreshToken: the OAuth client and the refresh
	// token a user authorized with the adwords scope.
	ClientID, ClientSecret, RefreshToken string
	// TokenURL is the OAuth token endpoint (default DefaultTokenURL).
	TokenURL string
	// CustomerIDs, when set, are the only accounts used (any format:
	// "123-456-7890" or "1234567890").
	CustomerIDs []string
	// HTTPClient makes the requests (default: a client over
	// http.DefaultTransport). Its Transport is wrapped to count requests.
	HTTPClient *http.Client
	// Workers is how many accounts are fetched at once (default 4).
	Workers int
	// RequestsPerSecond caps the request rate of this connector (default 10;
	// negative: no limit).
	RequestsPerSecond float64
	// MaxRetries of a failed request when Google says it may be retried (quota,
	// internal errors): default 2; negative: none.
	MaxRetries int
	// RetryBaseDelay is the first backoff when Google gives no retry delay
	// (default 500ms, doubling).
	RetryBaseDelay time.Duration
	// MaxRetryWait is the longest the connector waits before a retry; a rate
	// limit asking for longer fails at once with its retry time (default 10s).
	MaxRetryWait time.Duration
	// Logger gets request diagnostics (never secrets); nil discards them.
	Logger *slog.Logger
}

// String describes the options without their secrets.
func (o Options) String() string {
	red := func(s string) string {
		if s == "" {
			return ""
		}
		return "[redacted]"
	}
	return fmt.Sprintf("googleads.Options{BaseURL:%q APIVersion:%q LoginCustomerID:%q ClientID:%q ClientSecret:%s RefreshToken:%s DeveloperToken:%s TokenSource:%t CustomerIDs:%v Workers:%d RequestsPerSecond:%g MaxRetries:%d}",
		o.BaseURL, o.APIVersion, o.LoginCustomerID, o.ClientID, red(o.ClientSecret), red(o.RefreshToken),
		red(o.DeveloperToken), o.TokenSource != nil, o.CustomerIDs, o.Workers, o.RequestsPerSecond, o.MaxRetries)
}

// GoString is String, so %#v does not print secrets either.
func (o Options) GoString() string { return o.String() }

// LogValue keeps secrets out of structured logs.
func (o Options) LogValue() slog.Value { return slog.StringValue(o.String()) }

// Connector is the Google Ads API as a live.Connector.
type Connector struct {
	base, version  string
	developerToken string
	login          string // manager customer ID, digits
	allow          []string
	http           *http.Client // counts every request in source_calls
	api            *apiclient.Client
	tokens         *tokens
	workers        int
	log            *slog.Logger

	geoMu sync.Mutex
	geo   map[string]string // country criterion IDs looked up → ISO code
}

var _ live.Connector = (*Connector)(nil)

// New returns a connector; it makes no request until used.
func New(opts Options) (*Connector, error) {
	c := &Connector{
		base:           strings.TrimRight(opts.BaseURL, "/"),
		version:        opts.APIVersion,
		developerToken: opts.DeveloperToken,
		login:          digits(opts.LoginCustomerID),
		workers:        opts.Workers,
		log:            opts.Logger,
		geo:            map[string]string{},
	}
	if c.base == "" {
		c.base = DefaultBaseURL
	}
	if c.version == "" {
		c.version = DefaultAPIVersion
	}
	if !validVersion(c.version) {
		return nil, fmt.Errorf("googleads: api_version %q is not a version such as %q", c.version, DefaultAPIVersion)
	}
	if opts.LoginCustomerID != "" && len(c.login) != 10 {
		return nil, fmt.Errorf("googleads: login_customer_id %q is not a 10-digit customer ID such as 123-456-7890", opts.LoginCustomerID)
	}
	for _, id := range opts.CustomerIDs {
		d := digits(id)
		if len(d) != 10 {
			return nil, fmt.Errorf("googleads: customer ID %q is not a 10-digit customer ID such as 123-456-7890", id)
		}
		c.allow = append(c.allow, d)
	}
	if c.workers <= 0 {
		c.workers = DefaultWorkers
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	rps := opts.RequestsPerSecond
	if rps == 0 {
		rps = DefaultRequestsPerSecond
	}
	// Bursts of one request per worker; a negative rate is no limit.
	c.api = apiclient.New(apiclient.Options{Name: "google ads", RequestsPerSecond: rps, Burst: c.workers,
		Policy: apiclient.Policy{MaxRetries: opts.MaxRetries, BaseDelay: opts.RetryBaseDelay, MaxWait: opts.MaxRetryWait}.
			Or(apiclient.Policy{MaxRetries: DefaultMaxRetries, BaseDelay: DefaultRetryBaseDelay, MaxWait: DefaultMaxRetryWait}),
		Classify: retryVerdict, Logger: c.log})
	c.http = apiclient.CountingClient(opts.HTTPClient)

	switch {
	case opts.TokenSource != nil:
		c.tokens = &tokens{src: opts.TokenSource}
	case opts.RefreshToken != "" && opts.ClientID != "" && opts.ClientSecret != "":
		tokenURL := opts.TokenURL
		if tokenURL == "" {
			tokenURL = DefaultTokenURL
		}
		c.tokens = &tokens{client: c.http, refresh: opts.RefreshToken, conf: &oauth2.Config{
			ClientID: opts.ClientID, ClientSecret: opts.ClientSecret, Scopes: []string{Scope},
			Endpoint: oauth2.Endpoint{TokenURL: tokenURL, AuthStyle: oauth2.AuthStyleInParams},
		}}
	default:
		var missing []string
		for _, kv := range [][2]string{{"client_id", opts.ClientID}, {"client_secret", opts.ClientSecret}, {"refresh_token", opts.RefreshToken}} {
			if kv[1] == "" {
				missing = append(missing, kv[0])
			}
		}
		return nil, fmt.Errorf("googleads: no credentials: set %s (see docs/googleads.md)", strings.Join(missing, ", "))
	}
	return c, nil
}

// String describes the connector without its secrets.
func (c *Connector) String() string {
	return fmt.Sprintf("googleads.Connector{%s/%s login:%q}", c.base, c.version, c.login)
}

// GoString is String.
func (c *Connector) GoString() string { return c.String() }

// Platform is "google_ads".
func (c *Connector) Platform() string { return Platform }

func validVersion(v string) bool {
	if len(v) < 2 || v[0] != 'v' {
		return false
	}
	for _, r := range v[1:] {
		if (r < '0' || r > '9') && r != '_' {
			return false
		}
	}
	return true
}

// Accounts lists the accounts the credentials can read: with a manager
// (LoginCustomerID), its non-manager client accounts at every level of its
// hierarchy (one customer_client query); else the customers
// listAccessibleCustomers returns (or CustomerIDs, when set), each described
// by a customer query, leaving out manager accounts (they have no metrics of
// their own) and accounts Google reports as not enabled.
func (c *Connector) Accounts(ctx context.Context) ([]ads.Account, error) {
	var accts []ads.Account
	var err error
	if c.login != "" {
		accts, err = c.managerClients(ctx)
	} else {
		accts, err = c.directCustomers(ctx)
	}
	if err != nil {
		return nil, err
	}
	if err := c.conversionActions(ctx, accts); err != nil {
		return nil, err
	}
	sort.SliceStable(accts, func(i, j int) bool { return accts[i].AccountName < accts[j].AccountName })
	return accts, nil
}

// conversionActionGAQL lists the conversion actions the conversions metric
// counts: enabled, with include_in_conversions_metric (Google's "primary"
// actions; secondary ones count only in all_conversions).
const conversionActionGAQL = "SELECT conversion_action.name FROM conversion_action WHERE conversion_action.include_in_conversions_metric = TRUE AND conversion_action.status = ENABLED"

// conversionActions fills in each account's ConversionActions — the names of
// its primary conversion actions, sorted and joined by ", " — with one
// conversion_action query per account on the worker pool. It is a
// description, not data: an account whose query fails keeps "" (logged), and
// only the context's end fails the listing.
func (c *Connector) conversionActions(ctx context.Context, accts []ads.Account) error {
	names := make([][]string, len(accts))
	errs := make([]error, len(accts))
	c.forEach(ctx, len(accts), func(i int) {
		begin := func() { names[i] = nil }
		errs[i] = c.searchAttempts(ctx, digits(accts[i].AccountID), conversionActionGAQL, begin, func(rows []row) error {
			for _, r := range rows {
				if ca := r.ConversionAction; ca != nil && ca.Name != "" && !slices.Contains(names[i], ca.Name) {
					names[i] = append(names[i], ca.Name)
				}
			}
			return nil
		})
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	for i := range accts {
		if errs[i] != nil {
			c.log.Warn("google ads conversion actions not listed; the account's conversion_actions is left empty",
				"customer", accts[i].AccountID, "error", errs[i])
			continue
		}
		slices.Sort(names[i])
		accts[i].ConversionActions = strings.Join(names[i], ", ")
	}
	return nil
}

const customerClientGAQL = "SELECT customer_client.id, customer_client.descriptive_name, customer_client.currency_code, customer_client.time_zone, customer_client.status, customer_client.manager, customer_client.level FROM customer_client WHERE customer_client.manager = FALSE"

const customerGAQL = "SELECT customer.id, customer.descriptive_name, customer.currency_code, customer.time_zone, customer.status, customer.manager FROM customer"

func (c *Connector) managerClients(ctx context.Context) ([]ads.Account, error) {
	var accts []ads.Account
	var seen map[string]bool
	begin := func() { accts, seen = nil, map[string]bool{} } // each attempt starts over
	err := c.searchAttempts(ctx, c.login, customerClientGAQL, begin, func(rows []row) error {
		for _, r := range rows {
			cc := r.CustomerClient
			if cc == nil || cc.ID == "" || cc.Manager || seen[string(cc.ID)] {
				continue
			}
			if len(c.allow) > 0 && !slices.Contains(c.allow, string(cc.ID)) {
				continue
			}
			seen[string(cc.ID)] = true
			accts = append(accts, account(string(cc.ID), cc.DescriptiveName, cc.CurrencyCode, cc.TimeZone, cc.Status))
		}
		return nil
	})
	if err != nil {
		return nil, c.listError(ctx, "listing the client accounts of manager "+formatID(c.login), err, formatID(c.login))
	}
	return accts, nil
}

func (c *Connector) directCustomers(ctx context.Context) ([]ads.Account, error) {
	ids := c.allow
	if len(ids) == 0 {
		var err error
		if ids, err = c.listAccessible(ctx); err != nil {
			return nil, c.listError(ctx, "listing the accessible customers", err, "")
		}
	}
	accts := make([]*ads.Account, len(ids))
	errs := make([]error, len(ids))
	c.forEach(ctx, len(ids), func(i int) {
		errs[i] = c.search(ctx, ids[i], customerGAQL, func(rows []row) error {
			for _, r := range rows {
				cu := r.Customer
				if cu == nil || cu.Manager {
					continue
				}
				a := account(ids[i], cu.DescriptiveName, cu.CurrencyCode, cu.TimeZone, cu.Status)
				accts[i] = &a
			}
			return nil
		})
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []ads.Account
	var failed []error
	for i, id := range ids {
		var ae *apiError
		switch {
		case errs[i] == nil:
			if accts[i] != nil {
				out = append(out, *accts[i])
			}
		case errors.As(errs[i], &ae) && ae.has("CUSTOMER_NOT_ENABLED"):
			c.log.Info("google ads customer not enabled, left out", "customer", formatID(id))
		default:
			failed = append(failed, c.accountError(formatID(id), errs[i]))
		}
	}
	if len(failed) > 0 {
		return nil, errors.Join(failed...)
	}
	return out, nil
}

// account builds an account row from a customer's fields.
func account(id, name, currency, tz, status string) ads.Account {
	return ads.Account{AccountID: formatID(id), Platform: Platform, AccountName: name,
		Currency: currency, Timezone: tz, Status: customerStatus(status),
		// Each conversion action has its own click-through and view-through
		// windows: there is no account-wide one.
		AttributionWindow: catalog.PerActionWindow}
}

// customerStatus normalizes customer.status like the other platforms'.
func customerStatus(s string) string {
	switch s {
	case "ENABLED":
		return "ACTIVE"
	case "CANCELED", "CLOSED":
		return "CLOSED"
	case "SUSPENDED":
		return "SUSPENDED"
	case "", "UNSPECIFIED", "UNKNOWN":
		return "UNKNOWN"
	}
	return s
}

// digits keeps the digits of a customer ID.
func digits(id string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, id)
}

// formatID writes a 10-digit customer ID as Google Ads shows it: 123-456-7890.
func formatID(id string) string {
	d := digits(id)
	if len(d) != 10 {
		return id
	}
	return d[:3] + "-" + d[3:6] + "-" + d[6:]
}

// forEach runs fn(0..n-1) on at most c.workers goroutines, stopping handing
// out work once ctx is done: the listing's per-customer queries (fetches run
// on the live source's pool).
func (c *Connector) forEach(ctx context.Context, n int, fn func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(c.workers, n) {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	for i := 0; i < n && ctx.Err() == nil; i++ {
		select {
		case next <- i:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
}

// listError describes a failed listing call with what to do: an
// *source.AccountError when it was about one account, else a *listingError.
func (c *Connector) listError(ctx context.Context, what string, err error, accountID string) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if accountID != "" {
		return c.accountError(accountID, err)
	}
	d := describe(err)
	msg := fmt.Sprintf("google_ads: %s: %s: %s", what, d.kind, d.cause)
	if d.fix != "" {
		msg += " (" + d.fix + ")"
	}
	return &listingError{msg: msg, kind: d.kind, retryAfter: d.retryAfter, err: err}
}

// listingError is a failure to list the accessible accounts, saying the cause
// and what to do.
type listingError struct {
	msg        string
	kind       outcome.Code
	retryAfter time.Duration
	err        error
}

func (e *listingError) Error() string { return e.msg }
func (e *listingError) Unwrap() error { return e.err }

// Kind is one of source.PermissionDenied, RateLimited, Unavailable, Rejected.
func (e *listingError) Kind() outcome.Code { return e.kind }

// accountError turns a request's failure into the account's error.
func (c *Connector) accountError(accountID string, err error) *source.AccountError {
	d := describe(err)
	return &source.AccountError{AccountID: accountID, Platform: Platform, Kind: d.kind, Cause: d.cause,
		Fix: d.fix, RetryAfter: d.retryAfter, Err: err}
}
