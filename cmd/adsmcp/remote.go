package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/adsmcp/adsmcp/internal/auth"
	"github.com/adsmcp/adsmcp/internal/config"
	"github.com/adsmcp/adsmcp/internal/limits"
	"github.com/adsmcp/adsmcp/internal/mcpserver"
	"github.com/adsmcp/adsmcp/internal/observe"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
)

// remote is what a remote (HTTP) server adds to the MCP server: who may call
// (auth), how much (limits), and what it reports (metrics, readiness, logs).
type remote struct {
	opts    mcpserver.HTTPOptions
	metrics *observe.Metrics
	// ready is the server's readiness (mcpserver.HTTPServer.Ready), set
	// once the server is built, before it serves.
	ready func(context.Context) error
}

// newRemote builds the HTTP options from the config file: authentication and
// tenants, per-principal limits, /metrics, /readyz, request ids and access logs.
func newRemote(ctx context.Context, file *config.File, cfg *mcpserver.Config, log *slog.Logger, stateless bool) (*remote, error) {
	h := file.HTTP
	r := &remote{opts: mcpserver.HTTPOptions{
		MaxRequestBytes:    h.MaxRequestBytes,
		SessionIdleTimeout: time.Duration(h.SessionIdleTimeout),
		AllowedOrigins:     h.AllowedOrigins,
		Stateless:          stateless,
		MaxSessions:        h.MaxSessions,
		Handlers:           map[string]http.Handler{},
		// Slow clients and session floods (docs/deployment.md, "Hardening").
		ReadTimeout:              time.Duration(h.ReadTimeout),
		WriteTimeout:             time.Duration(h.WriteTimeout),
		IdleTimeout:              time.Duration(h.IdleTimeout),
		MaxConnections:           h.MaxConnections,
		UnauthenticatedPerMinute: h.UnauthenticatedPerMinute,
		TrustedProxies:           trustedProxies(h.TrustedProxies),
		MaxSessionsPerPrincipal:  file.Limits.MaxSessionsPerPrincipal,
	}}
	if h.Metrics == nil || *h.Metrics {
		r.metrics = observe.NewMetrics(observe.NewRegistry())
		r.metrics.SetVersion(cfg.Version)
		cfg.Observer = r.metrics
		r.opts.Handlers["GET /metrics"] = r.metrics.Handler()
	}
	r.opts.Handlers["GET /readyz"] = observe.Readyz(func(ctx context.Context) error {
		if r.ready == nil {
			return errors.New("starting")
		}
		if err := r.ready(ctx); err != nil {
			log.Warn("not ready", "error", err)
			if errors.Is(err, duckdb.ErrCorrupt) {
				return errors.New("the warehouse file is corrupted") // says what to fix; the path is logged
			}
			return errors.New("the source does not answer") // the cause is logged, never shown
		}
		return nil
	}, 2*time.Second, observe.DefaultReadyTTL)
	r.opts.Around = func(next http.Handler) http.Handler {
		return observe.RequestIDs(observe.AccessLog(log, next))
	}
	if !file.Auth.Enabled() {
		return r, nil
	}
	authn, err := auth.New(ctx, authOptions(file, log))
	if err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	r.opts.Auth = func(next http.Handler) http.Handler { return authn.Middleware(observe.NotePrincipal(next)) }
	for _, p := range authn.MetadataPaths() {
		r.opts.Handlers[p] = authn.MetadataHandler() // any method: browsers send a CORS preflight first
	}
	lim := limits.New(limits.Options{
		RequestsPerMinute: file.Limits.RequestsPerMinute,
		MaxConcurrent:     file.Limits.MaxConcurrent,
		OnReject: func(principal, reason string) {
			if r.metrics != nil {
				r.metrics.RateLimited(reason)
			}
			log.Info("call refused by limits", "principal", principal, "reason", reason)
		},
	})
	cfg.Limiter = lim
	return r, nil
}

// authOptions maps the config file onto the authenticator's options.
func authOptions(file *config.File, log *slog.Logger) auth.Options {
	opts := auth.Options{Tenants: map[string]auth.Tenant{}, Logger: log}
	for name, t := range file.Tenants {
		opts.Tenants[name] = auth.Tenant{Accounts: t.Accounts, Platforms: t.Platforms}
	}
	for _, k := range file.Auth.APIKeys {
		opts.APIKeys = append(opts.APIKeys, auth.APIKey{ID: k.ID, SHA256: k.SHA256, Tenant: k.Tenant, Client: k.Client,
			Budget: k.Budget, Revoked: k.Revoked, RequestsPerMinute: k.RequestsPerMinute, MaxConcurrent: k.MaxConcurrent})
	}
	if o := file.Auth.OAuth; o != nil {
		opts.OAuth = &auth.OAuth{Issuer: o.Issuer, Audience: o.Audience, JWKSURL: o.JWKSURL, RequiredScopes: o.Scopes,
			TenantClaim: o.TenantClaim, ClientClaim: o.ClientClaim, Leeway: time.Duration(o.Leeway),
			MaxTokenLifetime: time.Duration(o.MaxTokenLifetime),
			Resource:         o.Resource, AuthorizationServers: o.AuthorizationServers}
	}
	return opts
}

// exposedWithoutAuth reports an address other machines can reach, served
// without authentication: refused unless asked for explicitly.
func exposedWithoutAuth(addr string, file *config.File) bool {
	if file.Auth.Enabled() {
		return false
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return true
	}
	return !mcpserver.IsLoopbackHost(addr)
}

// trustedProxies are http.trusted_proxies, which config has checked.
func trustedProxies(entries []string) limits.Proxies {
	p, _, _ := limits.ParseProxies(entries)
	return p
}
