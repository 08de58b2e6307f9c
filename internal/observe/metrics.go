// Package observe is adsmcp's operational surface: Prometheus metrics (an
// mcpserver.Observer), request ids and an access log for the HTTP server, and
// a readiness probe.
//
// Nothing here ever records a secret, a request or response body, or row
// data. Metric labels are bounded: principals and tenants are never labels,
// client names are folded into a fixed set (ClientLabel), and every other
// label takes server-defined values only, with a cap as a safety net.
package observe

import (
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/adsmcp/adsmcp/internal/budget"
	"github.com/adsmcp/adsmcp/internal/limits"
	"github.com/adsmcp/adsmcp/internal/mcpserver"
	"github.com/adsmcp/adsmcp/internal/outcome"
)

// Metrics are adsmcp's Prometheus metrics. Its methods are safe for
// concurrent use.
type Metrics struct {
	gatherer prometheus.Gatherer

	toolCalls     *prometheus.CounterVec
	duration      *prometheus.HistogramVec
	tokens        *prometheus.HistogramVec
	optimizations *prometheus.CounterVec
	sourceCalls   *prometheus.CounterVec
	sourceErrors  *prometheus.CounterVec
	rateLimited   *prometheus.CounterVec
	sessions      *sessionGauge
	buildInfo     *prometheus.GaugeVec

	// Label values that come from answers: server-defined, capped anyway.
	// Outcomes need no cap: they are a closed set (outcome.Code).
	tools, optTypes *labelSet
}

// sourceFailures are the outcomes adsmcp_source_errors_total counts: the
// calls a source made fail.
var sourceFailures = []outcome.Code{outcome.SourceError, outcome.PermissionDenied, outcome.Timeout}

// Histogram buckets.
var (
	// DurationBuckets (seconds) span 5 ms to 60 s: a cached answer to a
	// live query that runs into the deadline.
	DurationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 45, 60}
	// TokenBuckets span a one-line answer to the largest client budget.
	TokenBuckets = []float64{100, 250, 500, 1000, 2500, 5000, 10000, 15000, 20000, 25000, 30000, 50000, 80000, 120000}
)

// NewRegistry is a registry with the Go runtime and process collectors
// (go_*, process_*) registered: pass it to NewMetrics in production. Tests
// use a bare prometheus.NewRegistry().
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// NewMetrics registers adsmcp's metrics with reg (it panics if they are
// already registered there). Handler serves reg when it is also a
// prometheus.Gatherer (a *prometheus.Registry is both); a nil reg gets
// NewRegistry(). adsmcp_build_info carries the module version until
// SetVersion says otherwise.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	if reg == nil {
		reg = NewRegistry()
	}
	m := &Metrics{
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "adsmcp_tool_calls_total",
			Help: "Tool calls finished, by tool, client (a fixed set of known clients, else other) and outcome (ok, data_too_large, cancelled, or the error type).",
		}, []string{"tool", "client", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "adsmcp_tool_call_duration_seconds",
			Help:    "Tool call latency, from the call's arrival to its answer, by tool and outcome.",
			Buckets: DurationBuckets,
		}, []string{"tool", "outcome"}),
		tokens: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "adsmcp_response_tokens",
			Help:    "Estimated tokens of the answers that carry a token_estimate, by tool.",
			Buckets: TokenBuckets,
		}, []string{"tool"}),
		optimizations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "adsmcp_optimizations_total",
			Help: "Optimizations applied to answers (_meta.optimizations_applied), by type.",
		}, []string{"type"}),
		sourceCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "adsmcp_source_calls_total",
			Help: "Calls made to the ad platforms' APIs (_meta.source_calls), by tool.",
		}, []string{"tool"}),
		sourceErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "adsmcp_source_errors_total",
			Help: "Tool calls that failed because of a source, by kind: source_error, permission_denied, timeout.",
		}, []string{"kind"}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "adsmcp_rate_limited_total",
			Help: "Tool calls refused by the per-principal limits, by reason: rate or concurrency.",
		}, []string{"reason"}),
		sessions: &sessionGauge{desc: prometheus.NewDesc("adsmcp_sessions_active",
			"MCP sessions open now.", nil, nil)},
		buildInfo: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "adsmcp_build_info",
			Help: "Always 1; the version label says which adsmcp runs.",
		}, []string{"version"}),
		tools:    newLabelSet(64),
		optTypes: newLabelSet(64),
	}
	reg.MustRegister(m.toolCalls, m.duration, m.tokens, m.optimizations, m.sourceCalls,
		m.sourceErrors, m.rateLimited, m.sessions, m.buildInfo)
	if g, ok := reg.(prometheus.Gatherer); ok {
		m.gatherer = g
	} else {
		m.gatherer = prometheus.DefaultGatherer
	}
	// Zero series for the fixed label values, so rates and alerts work before
	// the first event.
	for _, k := range sourceFailures {
		m.sourceErrors.WithLabelValues(string(k))
	}
	for _, r := range []string{limits.ReasonRate, limits.ReasonConcurrency} {
		m.rateLimited.WithLabelValues(r)
	}
	m.SetVersion(moduleVersion())
	return m
}

var _ mcpserver.Observer = (*Metrics)(nil)

// ToolCall records a finished tool call (mcpserver.Observer).
func (m *Metrics) ToolCall(r mcpserver.CallRecord) {
	tool := m.tools.label(r.Tool)
	result := outcomeLabel(r.Outcome)
	m.toolCalls.WithLabelValues(tool, ClientLabel(r.Client), result).Inc()
	m.duration.WithLabelValues(tool, result).Observe(r.Elapsed.Seconds())
	if r.Tokens > 0 {
		m.tokens.WithLabelValues(tool).Observe(float64(r.Tokens))
	}
	for _, o := range r.Optimizations {
		m.optimizations.WithLabelValues(m.optTypes.label(o)).Inc()
	}
	if r.SourceCalls > 0 {
		m.sourceCalls.WithLabelValues(tool).Add(float64(r.SourceCalls))
	}
	if slices.Contains(sourceFailures, r.Outcome) {
		m.sourceErrors.WithLabelValues(result).Inc()
	}
}

// outcomeLabel is the outcome label of a call: its code, or "other" for a
// value outside the set (which no answer carries).
func outcomeLabel(c outcome.Code) string {
	if !c.Valid() {
		return "other"
	}
	return string(c)
}

// RateLimited counts a call the limiter refused; reason is limits.ReasonRate
// or limits.ReasonConcurrency (anything else counts as other). Wire it to
// limits.Options.OnReject.
func (m *Metrics) RateLimited(reason string) {
	switch reason {
	case limits.ReasonRate, limits.ReasonConcurrency:
	default:
		reason = "other"
	}
	m.rateLimited.WithLabelValues(reason).Inc()
}

// SessionOpened and SessionClosed move adsmcp_sessions_active by one; they
// are ignored once SetSessionsFunc is set.
func (m *Metrics) SessionOpened() { m.sessions.n.Add(1) }

// SessionClosed: see SessionOpened.
func (m *Metrics) SessionClosed() { m.sessions.n.Add(-1) }

// SetSessionsFunc makes adsmcp_sessions_active read f at every scrape
// (e.g. a count of the MCP server's sessions) instead of the
// SessionOpened/SessionClosed count. f must be fast and safe for concurrent
// use. nil goes back to the count.
func (m *Metrics) SetSessionsFunc(f func() int) {
	if f == nil {
		m.sessions.f.Store(nil)
		return
	}
	m.sessions.f.Store(&f)
}

// SetVersion sets adsmcp_build_info's version label.
func (m *Metrics) SetVersion(version string) {
	if version == "" {
		version = "unknown"
	}
	m.buildInfo.Reset()
	m.buildInfo.WithLabelValues(version).Set(1)
}

// Handler serves the metrics in the Prometheus exposition formats (mount it
// at GET /metrics).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.gatherer, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// moduleVersion is the main module's version from the build info.
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "unknown"
}

// sessionGauge is adsmcp_sessions_active: a count, or a function's value.
type sessionGauge struct {
	desc *prometheus.Desc
	n    atomic.Int64
	f    atomic.Pointer[func() int]
}

func (g *sessionGauge) Describe(ch chan<- *prometheus.Desc) { ch <- g.desc }

func (g *sessionGauge) Collect(ch chan<- prometheus.Metric) {
	v := float64(g.n.Load())
	if f := g.f.Load(); f != nil {
		v = float64((*f)())
	}
	ch <- prometheus.MustNewConstMetric(g.desc, prometheus.GaugeValue, v)
}

// Client labels. Names not listed fold to ClientOther; an empty name (an
// HTTP client that sent none) to ClientUnknown.
const (
	ClientOther   = "other"
	ClientUnknown = "unknown"
)

// clientPrefixes fold clients whose names vary ("cursor-vscode", "Visual
// Studio Code - Insiders") to one label, compared in lower case. Checked
// after the exact names of the budget profiles.
var clientPrefixes = []struct{ prefix, label string }{
	{"claude", "claude-other"}, // a Claude client without its own profile
	{"cursor", "cursor"},
	{"visual studio code", "vscode"},
	{"vscode", "vscode"},
	{"windsurf", "windsurf"},
	{"cline", "cline"},
	{"roo", "roo-code"},
	{"continue", "continue"},
	{"zed", "zed"},
	{"goose", "goose"},
	{"gemini", "gemini"},
	{"codex", "codex"},
	{"mcp-inspector", "mcp-inspector"},
	{"inspector", "mcp-inspector"},
}

// ClientLabel folds an MCP client name into the bounded set used as the
// client label: the budget profiles' names (claude-code, claude-ai, ChatGPT,
// openai-mcp) in their canonical spelling, a few well-known clients by
// prefix (cursor, vscode, windsurf, …), else "other".
func ClientLabel(name string) string {
	name = strings.TrimSpace(name)
	if name == "" {
		return ClientUnknown
	}
	for _, p := range budget.Profiles {
		for _, n := range p.Names {
			if strings.EqualFold(n, name) {
				return n
			}
		}
	}
	lower := strings.ToLower(name)
	for _, c := range clientPrefixes {
		if strings.HasPrefix(lower, c.prefix) {
			return c.label
		}
	}
	return ClientOther
}

// labelSet passes through label values that look like identifiers, up to a
// cap of distinct values; the rest become "other". The values come from the
// server's own code, so the cap is a safety net, not a policy.
type labelSet struct {
	max  int
	mu   sync.RWMutex
	seen map[string]struct{}
}

func newLabelSet(max int) *labelSet {
	return &labelSet{max: max, seen: map[string]struct{}{}}
}

func (s *labelSet) label(v string) string {
	if !identifier(v) {
		return "other"
	}
	s.mu.RLock()
	_, ok := s.seen[v]
	s.mu.RUnlock()
	if ok {
		return v
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.seen[v]; ok {
		return v
	}
	if len(s.seen) >= s.max {
		return "other"
	}
	s.seen[v] = struct{}{}
	return v
}

// identifier: 1 to 64 of [A-Za-z0-9._-] (tool names, error and
// optimization types; request ids).
func identifier(v string) bool {
	if v == "" || len(v) > 64 {
		return false
	}
	for _, c := range []byte(v) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}
