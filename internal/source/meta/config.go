package meta

import (
	"log/slog"
	"time"

	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/config/setting"
	"github.com/adsmcp/adsmcp/internal/source/live"
	"github.com/adsmcp/adsmcp/internal/source/registry"
)

// Plugin is the Meta Marketing API as a source: sources.meta in the
// configuration file (docs/meta.md).
var Plugin = registry.Plugin{Name: "meta", NewSection: func() registry.Section { return new(Config) },
	Platform: catalog.MetaAds, MetricField: metricFieldDoc}

// Config is sources.meta: the connector's settings as the file writes them.
// Zero values keep New's defaults.
type Config struct {
	AccessToken       setting.Secret   `yaml:"access_token"`
	AppSecret         setting.Secret   `yaml:"app_secret"`
	DeviceBreakdown   string           `yaml:"device_breakdown"`
	APIVersion        string           `yaml:"api_version"`
	ActionTypes       []string         `yaml:"action_types"`
	BaseURL           string           `yaml:"base_url"`
	Workers           int              `yaml:"workers"`
	RequestsPerSecond float64          `yaml:"requests_per_second"`
	MaxRetries        int              `yaml:"max_retries"`
	MaxRetryWait      setting.Duration `yaml:"max_retry_wait"`
}

var _ registry.Live = (*Config)(nil)

// Check refuses a section that could not reach the API: without a token, or
// with negative concurrency.
func (c *Config) Check(bad func(string, ...any)) {
	if c.AccessToken == "" {
		bad("sources.meta.access_token is empty: set it to a token with ads_read, e.g. ${META_ACCESS_TOKEN}")
	}
	if c.Workers < 0 || c.RequestsPerSecond < 0 {
		bad("sources.meta: workers and requests_per_second must be positive")
	}
}

// Connector builds the connector the section configures.
func (c *Config) Connector(log *slog.Logger) (live.Connector, error) {
	conn, err := New(Options{
		BaseURL: c.BaseURL, APIVersion: c.APIVersion,
		AccessToken: c.AccessToken.Reveal(), AppSecret: c.AppSecret.Reveal(),
		ActionTypes: c.ActionTypes, DeviceBreakdown: c.DeviceBreakdown,
		Workers: c.Workers, RequestsPerSecond: c.RequestsPerSecond,
		MaxRetries: c.MaxRetries, MaxRetryWait: time.Duration(c.MaxRetryWait),
		Logger: log.With("source", catalog.MetaAds),
	})
	if err != nil {
		return nil, err
	}
	return conn, nil
}
