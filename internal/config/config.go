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
	"os"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/adsmcp/adsmcp/internal/budget"
	"github.com/adsmcp/adsmcp/internal/config/setting"
)

// File is the configuration file's content. Zero values mean "not set".
type File struct {
	// Database is the embedded DuckDB warehouse file.
	Database string `yaml:"database"`
	// Deadline bounds every tool call (e.g. "55s").
	Deadline Duration `yaml:"deadline"`
	// MaxAccounts is the most accounts one query may span.
	MaxAccounts int `yaml:"max_accounts"`
	// AccountsRefresh is how old the account list gets before a call
	// refreshes it in the background (mcpserver.Config.AccountsTTL).
	AccountsRefresh Duration `yaml:"accounts_refresh"`
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
	// Sources are the ad platforms' APIs to query live (and to sync from),
	// and the warehouse server that answers in place of the embedded one.
	Sources Sources `yaml:"sources"`
	// Sync configures the server's background sync (docs/sync.md).
	Sync Sync `yaml:"sync"`
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
	// sessions, so one cannot take every slot of http.max_sessions (default
	// 20, and at most a quarter of http.max_sessions, at least 1:
	// mcpserver.DefaultMaxSessionsPerPrincipalFor).
	MaxSessionsPerPrincipal int `yaml:"max_sessions_per_principal"`
	// WarehouseMemoryMB, when set, bounds the memory the embedded DuckDB
	// warehouse uses to answer queries (its memory_limit; large aggregations
	// spill to a temporary directory); 0 keeps DuckDB's own (80% of RAM).
	WarehouseMemoryMB int `yaml:"warehouse_memory_mb"`
}

// Secret is a credential from the file: it prints, logs and marshals as
// [redacted] (setting.Secret, which the sources' sections use too).
type Secret = setting.Secret

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
	// TrustedProxies are the reverse proxies (addresses or CIDR prefixes)
	// whose X-Forwarded-For names the client for that allowance.
	TrustedProxies []string `yaml:"trusted_proxies"`
	// Metrics serves Prometheus metrics at /metrics.
	Metrics *bool `yaml:"metrics"`
}

// Log configures logging.
type Log struct {
	// Level is debug, info, warn or error.
	Level string `yaml:"level"`
	// Format is text or json.
	Format string `yaml:"format"`
}

// Duration is a time.Duration written as "55s", "1m30s" (setting.Duration).
type Duration = setting.Duration

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
				where = strings.ToLower(sub[2])
			}
			return unknownSetting(sub[1], where)
		})
	}
	return errors.New(strings.Join(msgs, "; "))
}

// unknownSetting is the message for a key the file may not have; where is the
// section it is under ("http"), or "" at the top level.
func unknownSetting(key, where string) string {
	if where != "" {
		where = " under " + where
	}
	return fmt.Sprintf("unknown setting %q%s (every setting is in docs/adsmcp.example.yaml)", key, where)
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
