package tiktok

import (
	"log/slog"
	"time"

	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/config/setting"
	"github.com/adsmcp/adsmcp/internal/source/live"
	"github.com/adsmcp/adsmcp/internal/source/registry"
)

// Plugin is the TikTok API for Business as a source: sources.tiktok in the
// configuration file (docs/tiktok.md).
var Plugin = registry.Plugin{Name: "tiktok", NewSection: func() registry.Section { return new(Config) },
	Platform: catalog.TikTokAds, MetricField: metricFieldDoc}

// Config is sources.tiktok: the connector's settings as the file writes them.
// Zero values keep New's defaults.
type Config struct {
	AccessToken       setting.Secret   `yaml:"access_token"`
	AppID             string           `yaml:"app_id"`
	AppSecret         setting.Secret   `yaml:"app_secret"`
	AdvertiserIDs     []string         `yaml:"advertiser_ids"`
	APIVersion        string           `yaml:"api_version"`
	BaseURL           string           `yaml:"base_url"`
	Workers           int              `yaml:"workers"`
	RequestsPerSecond float64          `yaml:"requests_per_second"`
	MaxRetries        int              `yaml:"max_retries"`
	MaxRetryWait      setting.Duration `yaml:"max_retry_wait"`
}

var _ registry.Live = (*Config)(nil)

// Check refuses a section that could not reach the API: without a token,
// without a way to know the advertisers, or with negative concurrency.
func (c *Config) Check(bad func(string, ...any)) {
	if c.AccessToken == "" {
		bad("sources.tiktok.access_token is empty: set it to the long-term token of an app the advertisers authorized, e.g. ${TIKTOK_ACCESS_TOKEN}")
	}
	if len(c.AdvertiserIDs) == 0 && (c.AppID == "" || c.AppSecret == "") {
		bad("sources.tiktok: set app_id and app_secret (to list the advertisers that authorized the app) or advertiser_ids")
	}
	if c.Workers < 0 || c.RequestsPerSecond < 0 {
		bad("sources.tiktok: workers and requests_per_second must be positive")
	}
}

// Connector builds the connector the section configures.
func (c *Config) Connector(log *slog.Logger) (live.Connector, error) {
	conn, err := New(Options{
		BaseURL: c.BaseURL, APIVersion: c.APIVersion,
		AccessToken: c.AccessToken.Reveal(), AppID: c.AppID, AppSecret: c.AppSecret.Reveal(),
		AdvertiserIDs: c.AdvertiserIDs,
		Workers:       c.Workers, RequestsPerSecond: c.RequestsPerSecond,
		MaxRetries: c.MaxRetries, MaxRetryWait: time.Duration(c.MaxRetryWait),
		Logger: log.With("source", catalog.TikTokAds),
	})
	if err != nil {
		return nil, err
	}
	return conn, nil
}
