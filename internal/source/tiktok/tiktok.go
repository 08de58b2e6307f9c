// Package tiktok is the connector to the TikTok API for Business (v1.3): it
// lists the advertisers a token can read and maps the live source's fetch
// plan (live.Plan) onto synchronous integrated reports
// (/report/integrated/get/), whose rows it hands to the live source's batch. docs/tiktok.md describes what it fetches,
// how it splits and pages requests, retries, and what its errors mean.
package tiktok

import (
	"context"
	"encoding/json"
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

// Defaults and limits of Options.
const (
	DefaultBaseURL           = "https://business-api.tiktok.com"
	DefaultAPIVersion        = "v1.3"
	DefaultWorkers           = 4
	DefaultRequestsPerSecond = 5
	DefaultMaxRetries        = 4
	DefaultRetryBaseDelay    = time.Second
	DefaultMaxRetryWait      = 30 * time.Second
	// DefaultPageSize is page_size, TikTok's largest (1,000 rows a page).
	DefaultPageSize = 1000
	// MaxDailySpan is the longest range of one report with stat_time_day: 30
	// days (docs/tiktok.md "Limits").
	MaxDailySpan = 30
	// MaxSpan is the longest range of one report without a time dimension.
	MaxSpan = 365
	// MaxFilterIDs is the most IDs one filter of the report takes.
	MaxFilterIDs = 100
)

// Options configure the connector. Zero values take the defaults.
type Options struct {
	// BaseURL of the API (default https://business-api.tiktok.com; tests point
	// it at a fake; the sandbox is https://sandbox-ads.tiktok.com).
	BaseURL string
	// APIVersion such as "v1.3" (default).
	APIVersion string
	// AccessToken is sent as the Access-Token header of every request. It is
	// never logged nor put in an error.
	AccessToken string
	// AppID and AppSecret of the developer app list the advertisers that
	// authorized it (/oauth2/advertiser/get/). Needed unless AdvertiserIDs is
	// set; the secret is redacted like the token.
	AppID, AppSecret string
	// AdvertiserIDs, when set, are the advertisers to read (their details from
	// /advertiser/info/), instead of every one the app is authorized for.
	AdvertiserIDs []string
	// HTTPClient to send requests with (default: a client without a timeout;
	// every request runs under the query's context).
	HTTPClient *http.Client
	// Workers is how many advertisers are fetched in parallel (default 4).
	Workers int
	// RequestsPerSecond bounds the connector's request rate over all workers
	// (default 5; bursts up to that many).
	RequestsPerSecond float64
	// MaxRetries of a request after throttling or a transient failure
	// (default 4; negative: none).
	MaxRetries int
	// RetryBaseDelay is the first backoff (default 1 s), doubled per retry,
	// with jitter.
	RetryBaseDelay time.Duration
	// MaxRetryWait is the longest a single retry waits (default 30 s): when
	// TikTok asks to wait longer, or past the query's deadline, the advertiser
	// fails at once as rate_limited.
	MaxRetryWait time.Duration
	// PageSize is page_size of the report and the lists (default and most 1000).
	PageSize int
	// Logger receives diagnostics (default: discarded). Requests are logged by
	// path only: no query string, no token, no secret.
	Logger *slog.Logger
}

// Connector is the TikTok API for Business connector: a live.Connector,
// mapping the live source's plan onto integrated reports.
type Connector struct {
	opts   Options
	base   *url.URL
	client *http.Client      // counts every request in source_calls
	api    *apiclient.Client // rate limit and retries, shared by all workers
	log    *slog.Logger
}

var _ live.Connector = (*Connector)(nil)

var (
	versionRE = regexp.MustCompile(`^v[0-9]+\.[0-9]+$`)
	idRE      = regexp.MustCompile(`^[0-9]{1,25}$`)
)

// New returns a connector, or an error naming the option that is wrong.
func New(opts Options) (*Connector, error) {
	if opts.AccessToken == "" {
		return nil, errors.New("tiktok: an access token is required (a long-term token of an app authorized by the advertisers; see docs/tiktok.md)")
	}
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultBaseURL
	}
	base, err := url.Parse(strings.TrimRight(opts.BaseURL, "/"))
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" || base.RawQuery != "" {
		return nil, fmt.Errorf("tiktok: base URL %q: want an http(s) URL such as %s", opts.BaseURL, DefaultBaseURL)
	}
	if opts.APIVersion == "" {
		opts.APIVersion = DefaultAPIVersion
	}
	if !versionRE.MatchString(opts.APIVersion) {
		return nil, fmt.Errorf("tiktok: API version %q: want the form v1.3", opts.APIVersion)
	}
	opts.AdvertiserIDs = slices.Clone(opts.AdvertiserIDs)
	for i, id := range opts.AdvertiserIDs {
		id = strings.TrimSpace(id)
		if !idRE.MatchString(id) {
			return nil, fmt.Errorf("tiktok: advertiser ID %q: want the advertiser's digits, e.g. 7201845539016472318", truncate(id, 40))
		}
		opts.AdvertiserIDs[i] = id
	}
	if len(opts.AdvertiserIDs) == 0 && (opts.AppID == "" || opts.AppSecret == "") {
		return nil, errors.New("tiktok: set the app's app_id and app_secret (to list the advertisers that authorized it), or advertiser_ids")
	}
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.RequestsPerSecond <= 0 {
		opts.RequestsPerSecond = DefaultRequestsPerSecond
	}
	if opts.PageSize <= 0 || opts.PageSize > DefaultPageSize {
		opts.PageSize = DefaultPageSize
	}
	policy := apiclient.Policy{MaxRetries: opts.MaxRetries, BaseDelay: opts.RetryBaseDelay, MaxWait: opts.MaxRetryWait}.
		Or(apiclient.Policy{MaxRetries: DefaultMaxRetries, BaseDelay: DefaultRetryBaseDelay, MaxWait: DefaultMaxRetryWait})
	opts.MaxRetries, opts.RetryBaseDelay, opts.MaxRetryWait = policy.MaxRetries, policy.BaseDelay, policy.MaxWait
	c := &Connector{opts: opts, base: base, client: apiclient.CountingClient(opts.HTTPClient), log: opts.Logger}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.api = apiclient.New(apiclient.Options{Name: "tiktok", RequestsPerSecond: opts.RequestsPerSecond,
		Policy: policy, Classify: retryVerdict, Logger: c.log, Redact: c.redact})
	return c, nil
}

// Platform is tiktok_ads.
func (c *Connector) Platform() string { return catalog.TikTokAds }

// infoFields are what Accounts asks of /advertiser/info/.
var infoFields = mustJSON([]string{"advertiser_id", "name", "currency", "timezone", "display_timezone", "status"})

// Accounts lists the advertisers: the configured IDs, or every advertiser that
// authorized the app (/oauth2/advertiser/get/), with their names, currencies,
// time zones and statuses from /advertiser/info/ (100 IDs a request). Every
// advertiser's AttributionWindow is DefaultAttributionWindow and its
// ConversionActions DefaultConversionAction: TikTok keeps both per ad group,
// and the advertiser's details have neither.
func (c *Connector) Accounts(ctx context.Context) ([]ads.Account, error) {
	ids := c.opts.AdvertiserIDs
	if len(ids) == 0 {
		var err error
		if ids, err = c.authorizedAdvertisers(ctx); err != nil {
			return nil, c.describe(ctx, err)
		}
	}
	var out []ads.Account
	for chunk := range slices.Chunk(ids, MaxFilterIDs) {
		body, err := c.do(ctx, request{path: "/advertiser/info/", params: url.Values{
			"advertiser_ids": {mustJSON(chunk)}, "fields": {infoFields}}})
		if err != nil {
			return nil, c.describe(ctx, err)
		}
		var data advertiserInfoData
		if err := decodeData(body, "advertiser info", &data); err != nil || data.List == nil {
			if err == nil {
				err = errors.New("no list")
			}
			return nil, c.describe(ctx, &malformedError{"advertiser info: " + err.Error()})
		}
		for _, a := range *data.List {
			if !a.AdvertiserID.present || !idRE.MatchString(a.AdvertiserID.s) {
				continue
			}
			tz := a.DisplayTimezone
			if tz == "" {
				tz = a.Timezone
			}
			out = append(out, ads.Account{AccountID: a.AdvertiserID.s, Platform: catalog.TikTokAds, AccountName: a.Name,
				Currency: a.Currency, Timezone: tz, Status: accountStatus(a.Status),
				AttributionWindow: DefaultAttributionWindow, ConversionActions: DefaultConversionAction})
		}
	}
	return out, nil
}

// authorizedAdvertisers are the advertisers that authorized the app.
func (c *Connector) authorizedAdvertisers(ctx context.Context) ([]string, error) {
	body, err := c.do(ctx, request{path: "/oauth2/advertiser/get/", params: url.Values{
		"app_id": {c.opts.AppID}, "secret": {c.opts.AppSecret}}})
	if err != nil {
		return nil, err
	}
	var data advertisersData
	if err := decodeData(body, "authorized advertisers", &data); err != nil || data.List == nil {
		if err == nil {
			err = errors.New("no list")
		}
		return nil, &malformedError{"authorized advertisers: " + err.Error()}
	}
	var ids []string
	for _, a := range *data.List {
		if a.AdvertiserID.present && idRE.MatchString(a.AdvertiserID.s) && !slices.Contains(ids, a.AdvertiserID.s) {
			ids = append(ids, a.AdvertiserID.s)
		}
	}
	return ids, nil
}

// accountStatus names TikTok's advertiser statuses as the warehouse does:
// STATUS_ENABLE is ACTIVE, STATUS_DISABLE CLOSED; others pass through.
func accountStatus(s string) string {
	switch s {
	case "STATUS_ENABLE":
		return "ACTIVE"
	case "STATUS_DISABLE":
		return "CLOSED"
	}
	return s
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
