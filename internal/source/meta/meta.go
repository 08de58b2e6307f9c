// Package meta is the connector to the Meta Marketing API (Insights): it lists
// the ad accounts a token can read and maps the live source's fetch plan onto
// Insights requests (plan.go; fields.go says how Insights gives each metric),
// whose rows it hands to the live source's batch. docs/meta.md
// describes what it fetches, how it pages, retries and falls back to async
// report runs, and what its errors mean.
package meta

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/source/apiclient"
	"github.com/adsmcp/adsmcp/internal/source/live"
)

// Defaults of Options.
const (
	DefaultBaseURL           = "https://graph.facebook.com"
	DefaultAPIVersion        = "v25.0"
	DefaultWorkers           = 4
	DefaultRequestsPerSecond = 10
	DefaultMaxRetries        = 4
	DefaultRetryBaseDelay    = time.Second
	DefaultMaxRetryWait      = 30 * time.Second
	DefaultAsyncRows         = 50000
	DefaultPollInterval      = 2 * time.Second
	DefaultPageSize          = 500
	// DefaultDeviceBreakdown maps to the catalog's mobile / desktop / tablet.
	DefaultDeviceBreakdown = "impression_device"
)

// DefaultActionTypes are the actions counted as conversions (and whose values
// are conversion_value) unless Options.ActionTypes says otherwise.
var DefaultActionTypes = []string{"purchase"}

// Options configure the connector. Zero values take the defaults.
type Options struct {
	// BaseURL of the Graph API (default https://graph.facebook.com; tests point
	// it at a fake).
	BaseURL string
	// APIVersion such as "v25.0" (default).
	APIVersion string
	// AccessToken is sent as the access_token parameter of every request. It is
	// never logged nor put in an error.
	AccessToken string
	// AppSecret, when set, adds appsecret_proof (HMAC-SHA256 of the token) to
	// every request, for apps that require it.
	AppSecret string
	// ActionTypes are the action types summed into conversions (actions) and
	// conversion_value (action_values); default ["purchase"]. Types that
	// overlap (purchase and omni_purchase count the same purchases) double count.
	ActionTypes []string
	// DeviceBreakdown is the Meta breakdown behind the device dimension:
	// impression_device (default: iphone, ipad, android_smartphone… mapped to
	// mobile, tablet, desktop) or device_platform (mobile_app and mobile_web map
	// to mobile; it has no tablet).
	DeviceBreakdown string
	// HTTPClient to send requests with (default: a client without a timeout;
	// every request runs under the query's context).
	HTTPClient *http.Client
	// Workers is how many accounts are fetched in parallel (default 4).
	Workers int
	// RequestsPerSecond bounds the connector's request rate over all workers
	// (default 10; bursts up to that many).
	RequestsPerSecond float64
	// MaxRetries of a request after throttling or a transient failure
	// (default 4; negative: none).
	MaxRetries int
	// RetryBaseDelay is the first backoff (default 1 s), doubled per retry,
	// with jitter.
	RetryBaseDelay time.Duration
	// MaxRetryWait is the longest a single retry waits (default 30 s): when
	// Meta says access returns later than that, or later than the query's
	// deadline, the account fails at once as rate_limited, saying when to retry.
	MaxRetryWait time.Duration
	// AsyncRows: requests estimated to return more rows than this run as async
	// report runs (default 50,000; negative: only when Meta asks to reduce the
	// amount of data). See docs/meta.md for the estimate.
	AsyncRows int
	// PollInterval between polls of an async report run (default 2 s).
	PollInterval time.Duration
	// PageSize is the limit parameter of paged requests (default 500).
	PageSize int
	// Logger receives diagnostics (default: discarded). Requests are logged by
	// path only: no query string, no token.
	Logger *slog.Logger
}

// Connector is the Meta Marketing API connector; it implements live.Connector.
type Connector struct {
	opts   Options
	base   *url.URL
	client *http.Client      // counts every request in source_calls
	api    *apiclient.Client // rate limit and retries, shared by all workers
	log    *slog.Logger
	proof  string // appsecret_proof, when an app secret is set
}

var _ live.Connector = (*Connector)(nil)

var versionRE = regexp.MustCompile(`^v[0-9]+\.[0-9]+$`)

// New returns a connector, or an error naming the option that is wrong.
func New(opts Options) (*Connector, error) {
	if opts.AccessToken == "" {
		return nil, errors.New("meta: an access token is required (a system user token with ads_read; see docs/meta.md)")
	}
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultBaseURL
	}
	base, err := url.Parse(strings.TrimRight(opts.BaseURL, "/"))
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" || base.RawQuery != "" {
		return nil, fmt.Errorf("meta: base URL %q: want an http(s) URL such as %s", opts.BaseURL, DefaultBaseURL)
	}
	if opts.APIVersion == "" {
		opts.APIVersion = DefaultAPIVersion
	}
	if !versionRE.MatchString(opts.APIVersion) {
		return nil, fmt.Errorf("meta: API version %q: want the form v25.0", opts.APIVersion)
	}
	if len(opts.ActionTypes) == 0 {
		opts.ActionTypes = DefaultActionTypes
	}
	opts.ActionTypes = slices.Clone(opts.ActionTypes)
	for _, t := range opts.ActionTypes {
		if strings.TrimSpace(t) == "" {
			return nil, errors.New("meta: action types must not be empty strings")
		}
	}
	switch opts.DeviceBreakdown {
	case "":
		opts.DeviceBreakdown = DefaultDeviceBreakdown
	case "impression_device", "device_platform":
	default:
		return nil, fmt.Errorf("meta: device breakdown %q: want impression_device or device_platform", opts.DeviceBreakdown)
	}
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.RequestsPerSecond <= 0 {
		opts.RequestsPerSecond = DefaultRequestsPerSecond
	}
	policy := apiclient.Policy{MaxRetries: opts.MaxRetries, BaseDelay: opts.RetryBaseDelay, MaxWait: opts.MaxRetryWait}.
		Or(apiclient.Policy{MaxRetries: DefaultMaxRetries, BaseDelay: DefaultRetryBaseDelay, MaxWait: DefaultMaxRetryWait})
	opts.MaxRetries, opts.RetryBaseDelay, opts.MaxRetryWait = policy.MaxRetries, policy.BaseDelay, policy.MaxWait
	if opts.AsyncRows == 0 {
		opts.AsyncRows = DefaultAsyncRows
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.PageSize <= 0 {
		opts.PageSize = DefaultPageSize
	}
	c := &Connector{opts: opts, base: base, client: apiclient.CountingClient(opts.HTTPClient), log: opts.Logger}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	// Bursts of about one second's worth of requests (the Burst default).
	c.api = apiclient.New(apiclient.Options{Name: "meta", RequestsPerSecond: opts.RequestsPerSecond,
		Policy: policy, Classify: retryVerdict, Logger: c.log, Redact: c.redact})
	if opts.AppSecret != "" {
		c.proof = appSecretProof(opts.AccessToken, opts.AppSecret)
	}
	return c, nil
}

// Platform is meta_ads.
func (c *Connector) Platform() string { return catalog.MetaAds }

// accountFields are what Accounts asks of /me/adaccounts.
const accountFields = "id,account_id,name,currency,timezone_name,account_status"

// Accounts lists the ad accounts the token can read (GET /me/adaccounts,
// paged), with IDs in Meta's act_<id> form. Each carries the attribution its
// conversions are counted under (DefaultAttributionWindow: the ad account has
// no attribution field; ad sets do) and the conversion actions conversions
// counts (the configured ActionTypes, named as conversion_action names them).
func (c *Connector) Accounts(ctx context.Context) ([]ads.Account, error) {
	params := url.Values{"fields": {accountFields}, "limit": {fmt.Sprint(c.opts.PageSize)}}
	req := request{method: http.MethodGet, path: "/me/adaccounts", params: params}
	var out []ads.Account
	actions := strings.Join(c.conversionActionNames(), ", ")
	for {
		body, err := c.do(ctx, req)
		if err != nil {
			return nil, c.describe(ctx, err, "")
		}
		var page accountsPage
		if err := decodePage(body, "ad accounts", &page, func() bool { return page.Data != nil }); err != nil {
			return nil, c.describe(ctx, err, "")
		}
		for _, a := range *page.Data {
			id := a.ID
			if id == "" && a.AccountID != "" {
				id = "act_" + a.AccountID
			}
			if id == "" {
				continue
			}
			status, _ := optionalCount("account_status", a.AccountStatus)
			out = append(out, ads.Account{AccountID: id, Platform: catalog.MetaAds, AccountName: a.Name,
				Currency: a.Currency, Timezone: a.TimezoneName, Status: accountStatus(status),
				AttributionWindow: DefaultAttributionWindow, ConversionActions: actions})
		}
		if page.Paging.Next == "" {
			return out, nil
		}
		req = request{method: http.MethodGet, next: page.Paging.Next}
	}
}

// accountStatus names Meta's account_status codes.
func accountStatus(code int64) string {
	switch code {
	case 1:
		return "ACTIVE"
	case 2:
		return "DISABLED"
	case 3:
		return "UNSETTLED"
	case 7:
		return "PENDING_RISK_REVIEW"
	case 8:
		return "PENDING_SETTLEMENT"
	case 9:
		return "IN_GRACE_PERIOD"
	case 100:
		return "PENDING_CLOSURE"
	case 101:
		return "CLOSED"
	case 201:
		return "ANY_ACTIVE"
	case 202:
		return "ANY_CLOSED"
	}
	return fmt.Sprintf("STATUS_%d", code)
}

// actPath is the Graph path of an account: act_<id>.
func actPath(accountID string) string {
	if strings.HasPrefix(accountID, "act_") {
		return accountID
	}
	return "act_" + accountID
}
