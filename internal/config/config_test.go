package config

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/source/clickhouse"
	"github.com/adsmcp/adsmcp/internal/source/googleads"
	"github.com/adsmcp/adsmcp/internal/source/meta"
	"github.com/adsmcp/adsmcp/internal/source/postgres"
)

// sectionOf is the section name of f's sources:, as its plug-in's type (nil
// when not configured).
func sectionOf[T any](f *File, name string) T {
	t, _ := f.Sources.Section(name).(T)
	return t
}

func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

func TestParseEverySetting(t *testing.T) {
	raw := `
# adsmcp configuration
database: ${DATA_DIR}/ads.duckdb
deadline: 40s
max_accounts: 25
budgets:
  claude-code: 80000
  "*": ${DEFAULT_BUDGET:-35000}
client_limits:
  codex-mcp-client: {bytes: 40000, lines: 400}
http:
  listen: 127.0.0.1:8080
  max_request_bytes: 2097152
  session_idle_timeout: 1h
  allowed_origins: [https://app.example.com]
log:
  level: debug
  format: json
`
	f, err := Parse([]byte(raw), env(map[string]string{"DATA_DIR": "/srv/adsmcp"}))
	if err != nil {
		t.Fatal(err)
	}
	if f.Database != "/srv/adsmcp/ads.duckdb" || time.Duration(f.Deadline) != 40*time.Second || f.MaxAccounts != 25 {
		t.Errorf("top level: %+v", f)
	}
	if f.Budgets["claude-code"] != 80000 || f.Budgets["*"] != 35000 {
		t.Errorf("budgets: %v", f.Budgets)
	}
	if s := f.ClientLimits["codex-mcp-client"]; s.Bytes != 40000 || s.Lines != 400 || s.ErrorChars != 0 {
		t.Errorf("client_limits: %+v", f.ClientLimits)
	}
	h := f.HTTP
	if h.Listen != "127.0.0.1:8080" || h.MaxRequestBytes != 2<<20 || time.Duration(h.SessionIdleTimeout) != time.Hour || len(h.AllowedOrigins) != 1 {
		t.Errorf("http: %+v", h)
	}
	if f.Log.Level != "debug" || f.Log.Format != "json" {
		t.Errorf("log: %+v", f.Log)
	}
}

func TestEmptyFileIsAllDefaults(t *testing.T) {
	for _, raw := range []string{"", "# nothing\n", "---\n"} {
		f, err := Parse([]byte(raw), env(nil))
		if err != nil || f.Database != "" || f.Deadline != 0 || f.Budgets != nil {
			t.Errorf("%q: %+v %v", raw, f, err)
		}
	}
}

// TestErrorsNameTheSettingAndTheFix: every mistake is refused with the key (or
// line), what is wrong and what to write instead; all problems at once.
func TestErrorsNameTheSettingAndTheFix(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want []string
	}{
		{"databse: x.duckdb\nhttp:\n  listn: x\n", []string{"line 1: unknown setting \"databse\"", "line 3: unknown setting \"listn\" under http", "adsmcp.example.yaml"}},
		{"deadline: soon\n", []string{"line 1", `"soon" is not a duration`, "55s"}},
		{"deadline: 10ms\n", []string{"deadline 10ms", "at least 1s"}},
		{"max_accounts: -1\n", []string{"max_accounts -1", "positive"}},
		{"accounts_refresh: 10s\n", []string{"accounts_refresh 10s", "at least 1m", "1h for the ad platforms' APIs"}},
		{"budgets:\n  claude-code: 50\n  ChatGPT: 2000000\n", []string{"budgets.ChatGPT = 2000000", "budgets.claude-code = 50", "from 1000 to 1000000"}},
		{"budgets:\n  claude-code: lots\n", []string{"line 2", "lots"}},
		{"database: ${NOPE}\nhttp:\n  listen: ${ALSO_NOPE}\n", []string{"line 1: environment variable NOPE is not set", "line 3: environment variable ALSO_NOPE", "${NOPE:-default}"}},
		{"http:\n  allowed_origins: [app.example.com, https://x.com/path]\n", []string{`"app.example.com"`, `"https://x.com/path"`, "scheme://host"}},
		{"http:\n  trusted_proxies: [10.0.0.0/8, proxy.internal]\n", []string{`http.trusted_proxies "proxy.internal"`, "CIDR prefix", "10.0.0.0/8"}},
		{"log:\n  level: loud\n  format: xml\n", []string{`log.level "loud"`, `log.format "xml"`}},
		{"http:\n  session_idle_timeout: -5m\n", []string{"session_idle_timeout -5m0s", "positive"}},
		{"budgets: [1, 2]\n", []string{"line 1"}},
		{"limits:\n  max_rows_per_call: 10\n  max_rows_in_flight: 5000\n", []string{"limits.max_rows_per_call 10", "at least 1000"}},
		{"limits:\n  max_rows_per_call: 100000\n  max_rows_in_flight: 5000\n", []string{"limits.max_rows_in_flight 5000", "max_rows_per_call"}},
		{"client_limits:\n  Codex: {bytes: 10, lines: -1}\n", []string{"client_limits.Codex.bytes = 10", "at least 1000", "client_limits.Codex.lines = -1"}},
		{"client_limits:\n  \"*\": {bytes: 20000}\n", []string{"client_limits: name a client"}},
		{"client_limits:\n  Codex: {byte: 20000}\n", []string{"line 2", "byte"}},
	} {
		_, err := Parse([]byte(c.raw), env(nil))
		if err == nil {
			t.Errorf("%q: accepted", c.raw)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: error %q does not say %q", c.raw, err, w)
			}
		}
	}
}

func TestExpansion(t *testing.T) {
	vars := env(map[string]string{"A": "alpha", "EMPTY": ""})
	for in, want := range map[string]string{
		"database: ${A}":                       "alpha",
		"database: ${EMPTY:-fallback}":         "fallback",
		"database: ${UNSET:-}":                 "",
		"database: $${A}":                      "${A}",
		"database: pre-${A}-${A}":              "pre-alpha-alpha",
		"# ${UNSET} in a comment\ndatabase: x": "x",
	} {
		f, err := Parse([]byte(in), vars)
		if err != nil || f.Database != want {
			t.Errorf("%q: %q %v, want %q", in, f.Database, err, want)
		}
	}
}

// TestExampleFileLoads keeps the documented example valid.
func TestExampleFileLoads(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "adsmcp.example.yaml")
	t.Setenv("ADSMCP_DATA", t.TempDir())
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Budgets["ChatGPT"] == 0 || f.ClientLimits["codex-mcp-client"].Bytes == 0 || f.HTTP.Listen == "" || f.Deadline == 0 {
		t.Errorf("the example should show every setting: %+v", f)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.yaml")); err == nil || !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("missing file: %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

// FuzzParse: any file text is read or refused with an error; never a panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "deadline: 5s\n", "budgets:\n  a: 1000\n", "database: ${X:-y}\n", "http: {listen: ':0'}\n", "log: [\n", "&a [*a, *a]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		_, _ = Parse([]byte(raw), env(map[string]string{"X": "1"}))
	})
}

// TestSourcesAndSecrets: the API sources read their settings, secrets come from
// the environment and never print, and missing credentials are named.
func TestSourcesAndSecrets(t *testing.T) {
	raw := `
sources:
  meta:
    access_token: ${META_ACCESS_TOKEN}
    action_types: [purchase, omni_purchase]
  google_ads:
    client_id: 123.apps.googleusercontent.com
    client_secret: ${GADS_SECRET}
    refresh_token: ${GADS_REFRESH}
    login_customer_id: "111-222-3333"
`
	f, err := Parse([]byte(raw), env(map[string]string{"META_ACCESS_TOKEN": "EAAB-secret-token", "GADS_SECRET": "s3cret", "GADS_REFRESH": "1//refresh"}))
	if err != nil {
		t.Fatal(err)
	}
	if !f.Sources.Live() || sectionOf[*meta.Config](f, "meta").AccessToken.Reveal() != "EAAB-secret-token" || sectionOf[*googleads.Config](f, "google_ads").RefreshToken.Reveal() != "1//refresh" ||
		len(sectionOf[*meta.Config](f, "meta").ActionTypes) != 2 || sectionOf[*googleads.Config](f, "google_ads").LoginCustomerID != "111-222-3333" {
		t.Errorf("sources: %+v %+v", sectionOf[*meta.Config](f, "meta"), sectionOf[*googleads.Config](f, "google_ads"))
	}
	var logged strings.Builder
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("config", "meta", sectionOf[*meta.Config](f, "meta"), "token", sectionOf[*meta.Config](f, "meta").AccessToken)
	printed := fmt.Sprintf("%v %+v %#v %s", sectionOf[*meta.Config](f, "meta"), *sectionOf[*googleads.Config](f, "google_ads"), sectionOf[*meta.Config](f, "meta").AccessToken, sectionOf[*googleads.Config](f, "google_ads").ClientSecret)
	js, _ := json.Marshal(f.Sources)
	for _, out := range []string{logged.String(), printed, string(js)} {
		for _, secret := range []string{"EAAB-secret-token", "s3cret", "1//refresh"} {
			if strings.Contains(out, secret) {
				t.Errorf("a secret leaked: %s", out)
			}
		}
	}
	_, err = Parse([]byte("sources:\n  meta: {api_version: v25.0}\n  google_ads: {client_id: x}\n"), env(nil))
	for _, want := range []string{"sources.meta.access_token is empty", "sources.google_ads.client_secret is empty", "sources.google_ads.refresh_token is empty"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing credentials: %v, want %q", err, want)
		}
	}
	if f, _ := Parse([]byte("deadline: 5s\n"), env(nil)); f.Sources.Live() {
		t.Error("no sources configured, yet Live")
	}
}

// TestRemoteSettings: tenants, API keys, OAuth and limits read and checked.
func TestRemoteSettings(t *testing.T) {
	f, err := Parse([]byte(`
tenants:
  acme: {accounts: [act_1, "617-204-8851"], platforms: [meta_ads]}
  all: {accounts: ["*"]}
auth:
  api_keys:
    - {id: acme-bot, sha256: 5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8, tenant: acme, client: claude-ai, budget: 20000}
  oauth: {issuer: "https://id.example.com/", audience: "https://ads.example.com/mcp", jwks_url: "https://id.example.com/jwks", scopes: [ads.read], tenant_claim: org}
limits: {requests_per_minute: 60, max_concurrent: 2}
http: {stateless: true, max_sessions: 100}
`), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !f.Auth.Enabled() || f.Auth.APIKeys[0].Budget != 20000 || f.Auth.OAuth.TenantClaim != "org" || f.Limits.MaxConcurrent != 2 ||
		!f.HTTP.Stateless || f.HTTP.MaxSessions != 100 || len(f.Tenants["acme"].Accounts) != 2 {
		t.Errorf("%+v", f)
	}
	_, err = Parse([]byte(`
tenants: {empty: {accounts: []}}
auth:
  api_keys: [{id: a, sha256: x, tenant: nope}, {id: a, sha256: y, tenant: empty}, {sha256: z, tenant: empty}]
  oauth: {issuer: x}
`), env(nil))
	for _, want := range []string{"tenants.empty.accounts is empty", `tenant "nope" is not under tenants`, `id "a" is used twice`, "api_keys[2].id is empty", "auth.oauth needs issuer, jwks_url, and audience or resource"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want %q in %v", want, err)
		}
	}
}

func TestParsePostgres(t *testing.T) {
	f, err := Parse([]byte("sources:\n  postgres:\n    dsn: ${PG}\n    max_conns: 8\n    statement_timeout: 30s\n"),
		env(map[string]string{"PG": "postgres://u:pw@db/ads"}))
	if err != nil {
		t.Fatal(err)
	}
	p := sectionOf[*postgres.Config](f, "postgres")
	if p == nil || p.DSN.Reveal() != "postgres://u:pw@db/ads" || p.MaxConns != 8 || time.Duration(p.StatementTimeout) != 30*time.Second {
		t.Fatalf("sources.postgres: %+v", p)
	}
	if f.Sources.Live() {
		t.Error("a PostgreSQL warehouse is not a live source")
	}
	if strings.Contains(fmt.Sprint(p), "pw") {
		t.Errorf("the DSN prints: %v", p)
	}
	for raw, want := range map[string]string{
		"sources:\n  postgres: {max_conns: 2}\n":                   "sources.postgres.dsn is empty",
		"sources:\n  postgres: {dsn: x, statement_timeout: -1s}\n": "must be positive",
	} {
		if _, err := Parse([]byte(raw), env(nil)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", raw, err, want)
		}
	}
}

func TestParseClickHouse(t *testing.T) {
	f, err := Parse([]byte("sources:\n  clickhouse:\n    dsn: ${CH}\n    max_conns: 4\n    statement_timeout: 20s\n"),
		env(map[string]string{"CH": "clickhouse://u:pw@db:9000/ads"}))
	if err != nil {
		t.Fatal(err)
	}
	c := sectionOf[*clickhouse.Config](f, "clickhouse")
	if c == nil || c.DSN.Reveal() != "clickhouse://u:pw@db:9000/ads" || c.MaxConns != 4 || time.Duration(c.StatementTimeout) != 20*time.Second {
		t.Fatalf("sources.clickhouse: %+v", c)
	}
	if f.Sources.Live() {
		t.Error("a ClickHouse warehouse is not a live source")
	}
	if strings.Contains(fmt.Sprint(c), "pw") {
		t.Errorf("the DSN prints: %v", c)
	}
	for raw, want := range map[string]string{
		"sources:\n  clickhouse: {max_conns: 2}\n":                 "sources.clickhouse.dsn is empty",
		"sources:\n  clickhouse: {dsn: x}\n  postgres: {dsn: y}\n": "cannot be combined",
		"sources:\n  clickhouse: {dsn: x, max_conns: -1}\n":        "must be positive",
	} {
		if _, err := Parse([]byte(raw), env(nil)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", raw, err, want)
		}
	}
}

// TestSlowClientSettings: the connection and session limits of a remote
// server are read, and bad values are refused naming the setting.
func TestSlowClientSettings(t *testing.T) {
	f, err := Parse([]byte(`
http: {read_timeout: 20s, write_timeout: 45s, idle_timeout: 1m, max_connections: 500, unauthenticated_per_minute: 30, max_sessions: 100}
limits: {max_sessions_per_principal: 10}
`), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	h := f.HTTP
	if time.Duration(h.ReadTimeout) != 20*time.Second || time.Duration(h.WriteTimeout) != 45*time.Second || time.Duration(h.IdleTimeout) != time.Minute ||
		h.MaxConnections != 500 || h.UnauthenticatedPerMinute != 30 || f.Limits.MaxSessionsPerPrincipal != 10 {
		t.Errorf("%+v %+v", h, f.Limits)
	}
	_, err = Parse([]byte(`
http: {read_timeout: 10ms, write_timeout: -1s, max_connections: -5, unauthenticated_per_minute: -1, max_sessions: 10}
limits: {max_sessions_per_principal: 11}
`), env(nil))
	for _, want := range []string{"http.read_timeout 10ms: want at least 1s", "http.write_timeout -1s", "http.max_connections -5: want a positive number",
		"http.unauthenticated_per_minute -1", "limits.max_sessions_per_principal 11 is over http.max_sessions 10"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want %q in %v", want, err)
		}
	}
}
