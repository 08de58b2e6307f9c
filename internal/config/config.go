// Package config reads adsmcp's YAML configuration file: token budgets per
// client, the per-call deadline, the account limit, the warehouse path and the
// HTTP listener. Values may name environment variables as ${NAME} (or
// ${NAME:-default}), so secrets and per-machine paths stay out of the file.
//
// Every setting is optional: an absent key keeps the built-in default, and
// command-line flags override the file. Unknown keys are errors (with their
// line), because a misspelled setting that silently does nothing is worse than
// a refusal to start.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/adsmcp/adsmcp/internal/budget"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/rowbudget"
)

// File is the configuration file's content. Zero values mean "not set".
type File struct {
	// Database is the embedded DuckDB warehouse file.
	Database string `yaml:"database"`
	// Deadline bounds every tool call (e.g. "55s").
	Deadline Duration `yaml:"deadline"`
	// MaxAccounts is the most accounts one query may span.
	MaxAccounts int `yaml:"max_accounts"`
	// Budgets are token budgets by client name (clientInfo.name); "*" applies
	// to every client without its own line.
	Budgets map[string]int `yaml:"budgets"`
	// ClientLimits are size limits by client name, replacing the client's
	// profile's (docs/clients.md): bytes, lines, error_chars; 0 for none.
	ClientLimits map[string]budget.Sizes `yaml:"client_limits"`
	// HTTP configures `adsmcp serve --http`.
	HTTP HTTP `yaml:"http"`
	// Log configures the diagnostic log on stderr.
	Log Log `yaml:"log"`
	// Sources are the ad platforms' APIs to query live. When any is set, they
	// replace the embedded warehouse.
	Sources Sources `yaml:"sources"`
	// Tenants are the organizations a remote server serves, by name: the
	// accounts each may see. API keys and tokens map to one.
	Tenants map[string]Tenant `yaml:"tenants"`
	// Auth configures who may call `serve --http` (docs/auth.md).
	Auth Auth `yaml:"auth"`
	// Limits bound each principal's calls.
	Limits Limits `yaml:"limits"`
}

// Tenant is the accounts (IDs, or "*" for all) and platforms one tenant sees.
type Tenant struct {
	Accounts  []string `yaml:"accounts"`
	Platforms []string `yaml:"platforms"`
}

// Auth is the HTTP server's authentication: API keys, OAuth, or both.
type Auth struct {
	APIKeys []APIKey `yaml:"api_keys"`
	OAuth   *OAuth   `yaml:"oauth"`
}

// Enabled reports whether any authentication is configured.
func (a Auth) Enabled() bool { return len(a.APIKeys) > 0 || a.OAuth != nil }

// APIKey is one key, stored as the SHA-256 of the key (adsmcp keygen).
type APIKey struct {
	ID                string `yaml:"id"`
	SHA256            string `yaml:"sha256"`
	Tenant            string `yaml:"tenant"`
	Client            string `yaml:"client"`
	Budget            int    `yaml:"budget"`
	Revoked           bool   `yaml:"revoked"`
	RequestsPerMinute int    `yaml:"requests_per_minute"`
	MaxConcurrent     int    `yaml:"max_concurrent"`
}

// OAuth makes the server an OAuth 2.1 resource server: JWT bearer tokens from
// Issuer, for Audience, checked against JWKSURL.
type OAuth struct {
	Issuer               string   `yaml:"issuer"`
	Audience             string   `yaml:"audience"`
	JWKSURL              string   `yaml:"jwks_url"`
	Scopes               []string `yaml:"scopes"`
	TenantClaim          string   `yaml:"tenant_claim"`
	ClientClaim          string   `yaml:"client_claim"`
	Resource             string   `yaml:"resource"`
	AuthorizationServers []string `yaml:"authorization_servers"`
	Leeway               Duration `yaml:"leeway"`
	// MaxTokenLifetime refuses tokens valid longer (exp − iat); 0: 24h.
	MaxTokenLifetime Duration `yaml:"max_token_lifetime"`
}

// Limits bound each principal (an API key or a token's subject).
type Limits struct {
	RequestsPerMinute int `yaml:"requests_per_minute"`
	MaxConcurrent     int `yaml:"max_concurrent"`
	// MaxRowsPerCall and MaxRowsInFlight bound the rows read from the source
	// for one call and for all calls in flight (server-wide; rowbudget's
	// defaults when 0).
	MaxRowsPerCall  int64 `yaml:"max_rows_per_call"`
	MaxRowsInFlight int64 `yaml:"max_rows_in_flight"`
	// MaxSessionsPerPrincipal caps each API key's or OAuth user's open
	// sessions (default 20), so one cannot take every slot of http.max_sessions.
	MaxSessionsPerPrincipal int `yaml:"max_sessions_per_principal"`
}

// Sources are the live ad-platform connectors, or a PostgreSQL or ClickHouse
// warehouse.
type Sources struct {
	Meta       *Meta       `yaml:"meta"`
	GoogleAds  *GoogleAds  `yaml:"google_ads"`
	Postgres   *Postgres   `yaml:"postgres"`
	ClickHouse *ClickHouse `yaml:"clickhouse"`
}

// ClickHouse configures a warehouse in ClickHouse (internal/source/clickhouse,
// schema in internal/source/clickhouse/schema.sql) in place of the embedded one.
type ClickHouse struct {
	// DSN is clickhouse://user:password@host:9000/database; it may hold a
	// password, so it is a Secret (use ${CH_DSN}).
	DSN Secret `yaml:"dsn"`
	// MaxConns caps the connection pool (default: clickhouse-go's).
	MaxConns int `yaml:"max_conns"`
	// StatementTimeout bounds a query run without a call deadline; a call's
	// deadline always bounds its query (max_execution_time, and cancellation).
	StatementTimeout Duration `yaml:"statement_timeout"`
}

// Postgres configures a warehouse in PostgreSQL (internal/source/postgres,
// schema in internal/source/postgres/schema.sql) in place of the embedded one.
type Postgres struct {
	// DSN is a postgres:// URL or libpq key=value string; it may hold a
	// password, so it is a Secret (use ${PG_DSN}).
	DSN Secret `yaml:"dsn"`
	// MaxConns caps the connection pool (default: pgx's, 4 or the CPU count).
	MaxConns int `yaml:"max_conns"`
	// StatementTimeout bounds a query run without a call deadline; a call's
	// deadline always bounds its statement.
	StatementTimeout Duration `yaml:"statement_timeout"`
}

// Live reports whether any API source is configured.
func (s Sources) Live() bool { return s.Meta != nil || s.GoogleAds != nil }

// Meta configures the Meta Marketing API connector (docs/meta.md).
type Meta struct {
	AccessToken       Secret   `yaml:"access_token"`
	AppSecret         Secret   `yaml:"app_secret"`
	DeviceBreakdown   string   `yaml:"device_breakdown"`
	APIVersion        string   `yaml:"api_version"`
	ActionTypes       []string `yaml:"action_types"`
	BaseURL           string   `yaml:"base_url"`
	Workers           int      `yaml:"workers"`
	RequestsPerSecond float64  `yaml:"requests_per_second"`
	MaxRetries        int      `yaml:"max_retries"`
	MaxRetryWait      Duration `yaml:"max_retry_wait"`
}

// GoogleAds configures the Google Ads API connector (docs/googleads.md).
type GoogleAds struct {
	ClientID          string   `yaml:"client_id"`
	ClientSecret      Secret   `yaml:"client_secret"`
	RefreshToken      Secret   `yaml:"refresh_token"`
	DeveloperToken    Secret   `yaml:"developer_token"`
	LoginCustomerID   string   `yaml:"login_customer_id"`
	CustomerIDs       []string `yaml:"customer_ids"`
	APIVersion        string   `yaml:"api_version"`
	BaseURL           string   `yaml:"base_url"`
	TokenURL          string   `yaml:"token_url"`
	Workers           int      `yaml:"workers"`
	RequestsPerSecond float64  `yaml:"requests_per_second"`
	MaxRetries        int      `yaml:"max_retries"`
	MaxRetryWait      Duration `yaml:"max_retry_wait"`
}

// Secret is a credential from the file. It prints, logs and marshals as
// [redacted], so it cannot leak through a log line or an error.
type Secret string

func (Secret) String() string               { return "[redacted]" }
func (Secret) GoString() string             { return "[redacted]" }
func (Secret) LogValue() slog.Value         { return slog.StringValue("[redacted]") }
func (Secret) MarshalText() ([]byte, error) { return []byte("[redacted]"), nil }
func (s Secret) Reveal() string             { return string(s) }

// HTTP is the streamable HTTP listener's configuration.
type HTTP struct {
	// Listen is the address to serve on, e.g. "127.0.0.1:8080". Setting it
	// makes `adsmcp serve` serve HTTP without --http.
	Listen string `yaml:"listen"`
	// MaxRequestBytes bounds one request body.
	MaxRequestBytes int64 `yaml:"max_request_bytes"`
	// SessionIdleTimeout closes sessions idle this long.
	SessionIdleTimeout Duration `yaml:"session_idle_timeout"`
	// AllowedOrigins are browser origins (scheme://host[:port]) allowed to call
	// the server cross-origin, e.g. a web MCP client's page.
	AllowedOrigins []string `yaml:"allowed_origins"`
	// Stateless serves requests without sessions (replicas need no sticky
	// sessions; see docs/deployment.md).
	Stateless bool `yaml:"stateless"`
	// MaxSessions caps open sessions (0: no cap).
	MaxSessions int `yaml:"max_sessions"`
	// ReadTimeout bounds reading one request, headers and body (default 30s).
	ReadTimeout Duration `yaml:"read_timeout"`
	// WriteTimeout bounds each write of a response (default 30s); SSE streams
	// last as long as they keep writing.
	WriteTimeout Duration `yaml:"write_timeout"`
	// IdleTimeout closes keep-alive connections idle this long (default 2m).
	IdleTimeout Duration `yaml:"idle_timeout"`
	// MaxConnections caps open connections (default 900).
	MaxConnections int `yaml:"max_connections"`
	// UnauthenticatedPerMinute is each client address's allowance of requests
	// that fail authentication (default 60).
	UnauthenticatedPerMinute int `yaml:"unauthenticated_per_minute"`
	// Metrics serves Prometheus metrics at /metrics.
	Metrics *bool `yaml:"metrics"`
}

// checkSlowClients checks the connection and session limits of issue 13.
func (f *File) checkSlowClients(bad func(string, ...any)) {
	for _, d := range []struct {
		name      string
		v         Duration
		least, eg time.Duration
	}{
		{"http.read_timeout", f.HTTP.ReadTimeout, time.Second, 30 * time.Second},
		{"http.write_timeout", f.HTTP.WriteTimeout, time.Second, 30 * time.Second},
		{"http.idle_timeout", f.HTTP.IdleTimeout, time.Second, 2 * time.Minute},
	} {
		if d.v < 0 || d.v > 0 && time.Duration(d.v) < d.least {
			bad("%s %s: want at least %s, e.g. %s (or leave it out for the default)", d.name, time.Duration(d.v), d.least, d.eg)
		}
	}
	for _, n := range []struct {
		name  string
		v, eg int
	}{
		{"http.max_connections", f.HTTP.MaxConnections, 900},
		{"http.unauthenticated_per_minute", f.HTTP.UnauthenticatedPerMinute, 60},
		{"limits.max_sessions_per_principal", f.Limits.MaxSessionsPerPrincipal, 20},
	} {
		if n.v < 0 {
			bad("%s %d: want a positive number, e.g. %d (or leave it out for the default)", n.name, n.v, n.eg)
		}
	}
	if m, p := f.HTTP.MaxSessions, f.Limits.MaxSessionsPerPrincipal; m > 0 && p > m {
		bad("limits.max_sessions_per_principal %d is over http.max_sessions %d: one principal could take every session; lower it", p, m)
	}
}

// Log configures logging.
type Log struct {
	// Level is debug, info, warn or error.
	Level string `yaml:"level"`
	// Format is text or json.
	Format string `yaml:"format"`
}

// Duration is a time.Duration written as "55s", "1m30s".
type Duration time.Duration

// UnmarshalYAML reads a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	v, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		if _, nerr := strconv.ParseFloat(strings.TrimSpace(s), 64); nerr == nil {
			return fmt.Errorf("line %d: %q is not a duration: write %ss (a duration needs its unit: 55s, 2m, 1h30m)", n.Line, s, strings.TrimSpace(s))
		}
		return fmt.Errorf("line %d: %q is not a duration: write it like 55s, 2m or 1h30m", n.Line, s)
	}
	*d = Duration(v)
	return nil
}

// Load reads and checks the file at path.
func Load(path string) (*File, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	f, err := Parse(raw, os.LookupEnv)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return f, nil
}

// Parse reads configuration text, expanding ${NAME} with lookup.
func Parse(raw []byte, lookup func(string) (string, bool)) (*File, error) {
	text, err := expand(raw, lookup)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(text))
	dec.KnownFields(true)
	var f File
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) { // io.EOF: an empty file
		return nil, yamlError(err)
	}
	if err := f.check(); err != nil {
		return nil, err
	}
	return &f, nil
}

// unknownField is yaml.v3's message for a key the File does not have.
var unknownField = regexp.MustCompile(`field (\S+) not found in type config\.(\w+)`)

// yamlError rewrites the decoder's messages for people: every problem on one
// line, unknown keys named as such with where the settings are documented.
func yamlError(err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
	}
	msgs := make([]string, len(te.Errors))
	for i, m := range te.Errors {
		msgs[i] = unknownField.ReplaceAllStringFunc(m, func(s string) string {
			sub := unknownField.FindStringSubmatch(s)
			where := ""
			if sub[2] != "File" {
				where = " under " + strings.ToLower(sub[2])
			}
			return fmt.Sprintf("unknown setting %q%s (every setting is in docs/adsmcp.example.yaml)", sub[1], where)
		})
	}
	return errors.New(strings.Join(msgs, "; "))
}

// envRef is ${NAME} or ${NAME:-default}.
var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// expand replaces ${NAME} references. A reference to an unset variable with no
// default is an error naming it and its line: starting with an empty API key or
// path would fail later, far from the cause. "$${" writes a literal "${".
func expand(raw []byte, lookup func(string) (string, bool)) ([]byte, error) {
	var problems []string
	lines := bytes.Split(raw, []byte("\n"))
	for i, line := range lines {
		if bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			continue
		}
		const escaped = "\x00dollar\x00"
		line = bytes.ReplaceAll(line, []byte("$${"), []byte(escaped))
		line = envRef.ReplaceAllFunc(line, func(m []byte) []byte {
			sub := envRef.FindSubmatch(m)
			name := string(sub[1])
			if v, ok := lookup(name); ok && v != "" {
				return []byte(v)
			}
			if sub[2] != nil {
				return sub[3]
			}
			problems = append(problems, fmt.Sprintf("line %d: environment variable %s is not set (set it, or write ${%s:-default})", i+1, name, name))
			return nil
		})
		lines[i] = bytes.ReplaceAll(line, []byte(escaped), []byte("${"))
	}
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "; "))
	}
	return bytes.Join(lines, []byte("\n")), nil
}

func (f *File) check() error {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if f.Deadline < 0 || (f.Deadline > 0 && time.Duration(f.Deadline) < time.Second) {
		bad("deadline %s: want at least 1s (the default is 55s)", time.Duration(f.Deadline))
	}
	if f.MaxAccounts < 0 {
		bad("max_accounts %d: want a positive number (the default is 10)", f.MaxAccounts)
	}
	for _, name := range slices.Sorted(maps.Keys(f.Budgets)) {
		n := f.Budgets[name]
		if strings.TrimSpace(name) == "" {
			bad("budgets: a client name is empty; use \"*\" for every client")
		}
		if n < query.MinTokenBudget || n > query.MaxTokenBudget {
			bad("budgets.%s = %d: want a whole number of tokens from %d to %d", name, n, query.MinTokenBudget, query.MaxTokenBudget)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(f.ClientLimits)) {
		s := f.ClientLimits[name]
		if strings.TrimSpace(name) == "" || name == "*" {
			bad("client_limits: name a client (its clientInfo.name); size limits are per client")
		}
		for _, l := range []struct {
			what     string
			n, least int
		}{{"bytes", s.Bytes, 1000}, {"lines", s.Lines, 20}, {"error_chars", s.ErrorChars, 500}} {
			if l.n < 0 || l.n > 0 && l.n < l.least {
				bad("client_limits.%s.%s = %d: want 0 (no limit) or at least %d", name, l.what, l.n, l.least)
			}
		}
	}
	if l := f.Limits; l.MaxRowsPerCall < 0 || l.MaxRowsPerCall > 0 && l.MaxRowsPerCall < 1000 {
		bad("limits.max_rows_per_call %d: want at least 1000 rows (the default is %d)", l.MaxRowsPerCall, rowbudget.DefaultPerCall)
	}
	if l := f.Limits; l.MaxRowsInFlight < 0 || l.MaxRowsInFlight > 0 && l.MaxRowsInFlight < max(1000, l.MaxRowsPerCall) {
		bad("limits.max_rows_in_flight %d: want at least max_rows_per_call (the default is %d)", l.MaxRowsInFlight, rowbudget.DefaultInFlight)
	}
	if f.HTTP.MaxRequestBytes < 0 {
		bad("http.max_request_bytes %d: want a positive number of bytes", f.HTTP.MaxRequestBytes)
	}
	if f.HTTP.SessionIdleTimeout < 0 {
		bad("http.session_idle_timeout %s: want a positive duration such as 30m", time.Duration(f.HTTP.SessionIdleTimeout))
	}
	for _, o := range f.HTTP.AllowedOrigins {
		if !strings.HasPrefix(o, "http://") && !strings.HasPrefix(o, "https://") || strings.Count(o, "/") != 2 {
			bad("http.allowed_origins %q: want scheme://host[:port] with no path, e.g. https://app.example.com", o)
		}
	}
	switch strings.ToLower(f.Log.Level) {
	case "", "debug", "info", "warn", "error":
	default:
		bad("log.level %q: want debug, info, warn or error", f.Log.Level)
	}
	switch strings.ToLower(f.Log.Format) {
	case "", "text", "json":
	default:
		bad("log.format %q: want text or json", f.Log.Format)
	}
	if m := f.Sources.Meta; m != nil {
		if m.AccessToken == "" {
			bad("sources.meta.access_token is empty: set it to a token with ads_read, e.g. ${META_ACCESS_TOKEN}")
		}
		if m.Workers < 0 || m.RequestsPerSecond < 0 {
			bad("sources.meta: workers and requests_per_second must be positive")
		}
	}
	if g := f.Sources.GoogleAds; g != nil {
		for _, c := range []struct {
			name string
			set  bool
		}{{"client_id", g.ClientID != ""}, {"client_secret", g.ClientSecret != ""}, {"refresh_token", g.RefreshToken != ""}} {
			if !c.set {
				bad("sources.google_ads.%s is empty: the OAuth refresh-token flow needs client_id, client_secret and refresh_token (docs/googleads.md)", c.name)
			}
		}
		if g.Workers < 0 {
			bad("sources.google_ads.workers must be positive")
		}
	}
	if p := f.Sources.Postgres; p != nil {
		if p.DSN == "" {
			bad("sources.postgres.dsn is empty: set it to a connection URL, e.g. ${ADSMCP_PG_DSN}")
		}
		if f.Sources.Meta != nil || f.Sources.GoogleAds != nil {
			bad("sources.postgres cannot be combined with meta or google_ads: answer from a warehouse or from the APIs")
		}
		if p.MaxConns < 0 || p.StatementTimeout < 0 {
			bad("sources.postgres: max_conns and statement_timeout must be positive")
		}
	}
	if c := f.Sources.ClickHouse; c != nil {
		if c.DSN == "" {
			bad("sources.clickhouse.dsn is empty: set it to a connection URL, e.g. ${ADSMCP_CH_DSN}")
		}
		if f.Sources.Meta != nil || f.Sources.GoogleAds != nil || f.Sources.Postgres != nil {
			bad("sources.clickhouse cannot be combined with postgres, meta or google_ads: answer from one warehouse or from the APIs")
		}
		if c.MaxConns < 0 || c.StatementTimeout < 0 {
			bad("sources.clickhouse: max_conns and statement_timeout must be positive")
		}
	}
	for name, t := range f.Tenants {
		if len(t.Accounts) == 0 {
			bad("tenants.%s.accounts is empty: list the account IDs it may see, or \"*\" for all", name)
		}
	}
	seen := map[string]bool{}
	for i, k := range f.Auth.APIKeys {
		switch {
		case k.ID == "":
			bad("auth.api_keys[%d].id is empty: name the key (it appears in logs, never the key itself)", i)
		case seen[k.ID]:
			bad("auth.api_keys[%d].id %q is used twice", i, k.ID)
		}
		seen[k.ID] = true
		if _, ok := f.Tenants[k.Tenant]; !ok {
			bad("auth.api_keys[%d] (%s): tenant %q is not under tenants:", i, k.ID, k.Tenant)
		}
	}
	if o := f.Auth.OAuth; o != nil && (o.Issuer == "" || o.JWKSURL == "" || o.Audience == "" && o.Resource == "") {
		bad("auth.oauth needs issuer, jwks_url, and audience or resource (this server's /mcp URL)")
	}
	if f.HTTP.MaxSessions < 0 || f.Limits.RequestsPerMinute < 0 || f.Limits.MaxConcurrent < 0 {
		bad("http.max_sessions, limits.requests_per_minute and limits.max_concurrent must be positive")
	}
	f.checkSlowClients(bad)
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}
