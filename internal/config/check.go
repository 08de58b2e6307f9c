package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/internal/budget"
	"github.com/adsmcp/adsmcp/internal/limits"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/rowbudget"
)

// check reports every problem of the file at once, each naming the setting and
// what to write instead. Each part checks its own section.
func (f *File) check() error {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	f.checkCalls(bad)
	checkBudgets(f.Budgets, bad)
	checkClientLimits(f.ClientLimits, bad)
	f.Limits.checkRows(bad)
	f.HTTP.check(bad)
	f.Log.check(bad)
	f.Sources.check(bad)
	f.checkSync(bad)
	f.checkAuth(bad)
	f.checkCounts(bad)
	f.checkSlowClients(bad)
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// checkCalls checks what bounds every call: the deadline, the accounts and
// their list's reuse.
func (f *File) checkCalls(bad func(string, ...any)) {
	if f.Deadline < 0 || (f.Deadline > 0 && time.Duration(f.Deadline) < time.Second) {
		bad("deadline %s: want at least 1s (the default is 55s)", time.Duration(f.Deadline))
	}
	if f.MaxAccounts < 0 {
		bad("max_accounts %d: want a positive number (the default is 10)", f.MaxAccounts)
	}
	if f.AccountsRefresh < 0 || (f.AccountsRefresh > 0 && time.Duration(f.AccountsRefresh) < time.Minute) {
		bad("accounts_refresh %s: want at least 1m (the default is 1h for the ad platforms' APIs, 1m for a warehouse)", time.Duration(f.AccountsRefresh))
	}
}

func checkBudgets(budgets map[string]int, bad func(string, ...any)) {
	for _, name := range slices.Sorted(maps.Keys(budgets)) {
		n := budgets[name]
		if strings.TrimSpace(name) == "" {
			bad("budgets: a client name is empty; use \"*\" for every client")
		}
		if n < query.MinTokenBudget || n > query.MaxTokenBudget {
			bad("budgets.%s = %d: want a whole number of tokens from %d to %d", name, n, query.MinTokenBudget, query.MaxTokenBudget)
		}
	}
}

func checkClientLimits(limits map[string]budget.Sizes, bad func(string, ...any)) {
	for _, name := range slices.Sorted(maps.Keys(limits)) {
		s := limits[name]
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
}

// checkRows checks the bounds on rows read from the source.
func (l Limits) checkRows(bad func(string, ...any)) {
	if l.MaxRowsPerCall < 0 || l.MaxRowsPerCall > 0 && l.MaxRowsPerCall < 1000 {
		bad("limits.max_rows_per_call %d: want at least 1000 rows (the default is %d)", l.MaxRowsPerCall, rowbudget.DefaultPerCall)
	}
	if l.MaxRowsInFlight < 0 || l.MaxRowsInFlight > 0 && l.MaxRowsInFlight < max(1000, l.MaxRowsPerCall) {
		bad("limits.max_rows_in_flight %d: want at least max_rows_per_call (the default is %d)", l.MaxRowsInFlight, rowbudget.DefaultInFlight)
	}
	if l.WarehouseMemoryMB < 0 || l.WarehouseMemoryMB > 0 && l.WarehouseMemoryMB < 64 {
		bad("limits.warehouse_memory_mb %d: want at least 64 (MB), or 0 for DuckDB's own limit (80%% of RAM)", l.WarehouseMemoryMB)
	}
}

// check checks the listener's request and origin settings.
func (h HTTP) check(bad func(string, ...any)) {
	if h.MaxRequestBytes < 0 {
		bad("http.max_request_bytes %d: want a positive number of bytes", h.MaxRequestBytes)
	}
	if h.SessionIdleTimeout < 0 {
		bad("http.session_idle_timeout %s: want a positive duration such as 30m", time.Duration(h.SessionIdleTimeout))
	}
	if _, e, ok := limits.ParseProxies(h.TrustedProxies); !ok {
		bad("http.trusted_proxies %q: want an IP address or a CIDR prefix, e.g. 127.0.0.1 or 10.0.0.0/8", e)
	}
	for _, o := range h.AllowedOrigins {
		if !strings.HasPrefix(o, "http://") && !strings.HasPrefix(o, "https://") || strings.Count(o, "/") != 2 {
			bad("http.allowed_origins %q: want scheme://host[:port] with no path, e.g. https://app.example.com", o)
		}
	}
}

func (l Log) check(bad func(string, ...any)) {
	switch strings.ToLower(l.Level) {
	case "", "debug", "info", "warn", "error":
	default:
		bad("log.level %q: want debug, info, warn or error", l.Level)
	}
	switch strings.ToLower(l.Format) {
	case "", "text", "json":
	default:
		bad("log.format %q: want text or json", l.Format)
	}
}

// checkAuth checks the tenants and who may act for them.
func (f *File) checkAuth(bad func(string, ...any)) {
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
}

// checkCounts checks the session and per-principal counts.
func (f *File) checkCounts(bad func(string, ...any)) {
	if f.HTTP.MaxSessions < 0 || f.Limits.RequestsPerMinute < 0 || f.Limits.MaxConcurrent < 0 {
		bad("http.max_sessions, limits.requests_per_minute and limits.max_concurrent must be positive")
	}
}

// checkSlowClients checks the connection and session limits (docs/deployment.md,
// "Slow clients" and "Sessions").
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
		bad("limits.max_sessions_per_principal %d is over http.max_sessions %d: one principal could take every session and lock the other tenants out; lower it, or leave it out for the default (20, at most a quarter of http.max_sessions)", p, m)
	}
}
