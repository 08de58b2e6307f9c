package googleads

import (
	"log/slog"
	"time"

	"github.com/adsmcp/adsmcp/internal/config/setting"
	"github.com/adsmcp/adsmcp/internal/source/live"
	"github.com/adsmcp/adsmcp/internal/source/registry"
)

// Plugin is the Google Ads API as a source: sources.google_ads in the
// configuration file (docs/googleads.md).
var Plugin = registry.Plugin{Name: "google_ads", NewSection: func() registry.Section { return new(Config) },
	Platform: Platform, MetricField: metricFieldDoc}

// Config is sources.google_ads: the connector's settings as the file writes
// them. Zero values keep New's defaults.
type Config struct {
	ClientID          string           `yaml:"client_id"`
	ClientSecret      setting.Secret   `yaml:"client_secret"`
	RefreshToken      setting.Secret   `yaml:"refresh_token"`
	DeveloperToken    setting.Secret   `yaml:"developer_token"`
	LoginCustomerID   string           `yaml:"login_customer_id"`
	CustomerIDs       []string         `yaml:"customer_ids"`
	APIVersion        string           `yaml:"api_version"`
	BaseURL           string           `yaml:"base_url"`
	TokenURL          string           `yaml:"token_url"`
	Workers           int              `yaml:"workers"`
	RequestsPerSecond float64          `yaml:"requests_per_second"`
	MaxRetries        int              `yaml:"max_retries"`
	MaxRetryWait      setting.Duration `yaml:"max_retry_wait"`
}

var _ registry.Live = (*Config)(nil)

// Check refuses a section the OAuth refresh-token flow could not run with.
func (c *Config) Check(bad func(string, ...any)) {
	for _, s := range []struct {
		name string
		set  bool
	}{{"client_id", c.ClientID != ""}, {"client_secret", c.ClientSecret != ""}, {"refresh_token", c.RefreshToken != ""}} {
		if !s.set {
			bad("sources.google_ads.%s is empty: the OAuth refresh-token flow needs client_id, client_secret and refresh_token (docs/googleads.md)", s.name)
		}
	}
	if c.Workers < 0 {
		bad("sources.google_ads.workers must be positive")
	}
}

// Connector builds the connector the section configures.
func (c *Config) Connector(log *slog.Logger) (live.Connector, error) {
	conn, err := New(Options{
		BaseURL: c.BaseURL, APIVersion: c.APIVersion, TokenURL: c.TokenURL,
		ClientID: c.ClientID, ClientSecret: c.ClientSecret.Reveal(), RefreshToken: c.RefreshToken.Reveal(),
		DeveloperToken: c.DeveloperToken.Reveal(), LoginCustomerID: c.LoginCustomerID, CustomerIDs: c.CustomerIDs,
		Workers: c.Workers, RequestsPerSecond: c.RequestsPerSecond,
		MaxRetries: c.MaxRetries, MaxRetryWait: time.Duration(c.MaxRetryWait),
		Logger: log.With("source", Platform),
	})
	if err != nil {
		return nil, err
	}
	return conn, nil
}
