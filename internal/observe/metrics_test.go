package observe

import (
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/adsmcp/adsmcp/internal/limits"
	"github.com/adsmcp/adsmcp/internal/mcpserver"
	"github.com/adsmcp/adsmcp/internal/outcome"
)

func newMetrics(t *testing.T) (*Metrics, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	return NewMetrics(reg), reg
}

func TestToolCallCounters(t *testing.T) {
	m, reg := newMetrics(t)
	calls := []mcpserver.CallRecord{
		{Tool: "query", Client: "claude-code", Principal: "key:a", Tenant: "acme", Outcome: "ok",
			Elapsed: 120 * time.Millisecond, Tokens: 1800, Optimizations: []string{"field_renamed", "granularity_change"}, SourceCalls: 3},
		{Tool: "query", Client: "Claude-Code", Outcome: "ok", Elapsed: 3 * time.Second, Tokens: 24000,
			Optimizations: []string{"granularity_change"}, SourceCalls: 2},
		{Tool: "query", Client: "openai-mcp", Outcome: "data_too_large", Elapsed: 2 * time.Second, Tokens: 900, SourceCalls: 1},
		{Tool: "query", Client: "some-new-client/1.0", Outcome: "source_error", Elapsed: 400 * time.Millisecond, SourceCalls: 1},
		{Tool: "query", Client: "cursor-vscode", Outcome: "timeout", Elapsed: 30 * time.Second},
		{Tool: "list_accounts", Client: "claude-ai", Outcome: "permission_denied", Elapsed: 10 * time.Millisecond},
		{Tool: "list_accounts", Client: "claude-ai", Outcome: "rate_limited", Elapsed: time.Millisecond},
		{Tool: "list_fields", Client: "", Outcome: "cancelled", Elapsed: 5 * time.Millisecond},
	}
	for _, c := range calls {
		m.ToolCall(c)
	}
	m.RateLimited(limits.ReasonRate)
	m.RateLimited(limits.ReasonRate)
	m.RateLimited(limits.ReasonConcurrency)
	m.RateLimited("made-up")

	want := `
# HELP adsmcp_tool_calls_total Tool calls finished, by tool, client (a fixed set of known clients, else other) and outcome (ok, data_too_large, cancelled, or the error type).
# TYPE adsmcp_tool_calls_total counter
adsmcp_tool_calls_total{client="claude-code",outcome="ok",tool="query"} 2
adsmcp_tool_calls_total{client="openai-mcp",outcome="data_too_large",tool="query"} 1
adsmcp_tool_calls_total{client="other",outcome="source_error",tool="query"} 1
adsmcp_tool_calls_total{client="cursor",outcome="timeout",tool="query"} 1
adsmcp_tool_calls_total{client="claude-ai",outcome="permission_denied",tool="list_accounts"} 1
adsmcp_tool_calls_total{client="claude-ai",outcome="rate_limited",tool="list_accounts"} 1
adsmcp_tool_calls_total{client="unknown",outcome="cancelled",tool="list_fields"} 1
# HELP adsmcp_optimizations_total Optimizations applied to answers (_meta.optimizations_applied), by type.
# TYPE adsmcp_optimizations_total counter
adsmcp_optimizations_total{type="field_renamed"} 1
adsmcp_optimizations_total{type="granularity_change"} 2
# HELP adsmcp_source_calls_total Calls made to the ad platforms' APIs (_meta.source_calls), by tool.
# TYPE adsmcp_source_calls_total counter
adsmcp_source_calls_total{tool="query"} 7
# HELP adsmcp_source_errors_total Tool calls that failed because of a source, by kind: source_error, permission_denied, timeout.
# TYPE adsmcp_source_errors_total counter
adsmcp_source_errors_total{kind="permission_denied"} 1
adsmcp_source_errors_total{kind="source_error"} 1
adsmcp_source_errors_total{kind="timeout"} 1
# HELP adsmcp_rate_limited_total Tool calls refused by the per-principal limits, by reason: rate or concurrency.
# TYPE adsmcp_rate_limited_total counter
adsmcp_rate_limited_total{reason="concurrency"} 1
adsmcp_rate_limited_total{reason="other"} 1
adsmcp_rate_limited_total{reason="rate"} 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"adsmcp_tool_calls_total", "adsmcp_optimizations_total", "adsmcp_source_calls_total",
		"adsmcp_source_errors_total", "adsmcp_rate_limited_total"); err != nil {
		t.Error(err)
	}

	// Latency: one series per tool and outcome; the query/ok one saw 0.12 s and 3 s.
	if n := testutil.CollectAndCount(m.duration); n != 7 {
		t.Errorf("duration series = %d, want 7", n)
	}
	h := histogram(t, reg, "adsmcp_tool_call_duration_seconds", map[string]string{"tool": "query", "outcome": "ok"})
	if h.GetSampleCount() != 2 || h.GetSampleSum() < 3.11 || h.GetSampleSum() > 3.13 {
		t.Errorf("query/ok latency: count %d sum %v, want 2 and 3.12", h.GetSampleCount(), h.GetSampleSum())
	}
	if b := h.GetBucket(); b[0].GetUpperBound() != 0.005 || b[len(b)-1].GetUpperBound() != 60 {
		t.Errorf("duration buckets %v … %v, want 0.005 … 60", b[0].GetUpperBound(), b[len(b)-1].GetUpperBound())
	}

	// Tokens: only answers with an estimate.
	h = histogram(t, reg, "adsmcp_response_tokens", map[string]string{"tool": "query"})
	if h.GetSampleCount() != 3 || h.GetSampleSum() != 1800+24000+900 {
		t.Errorf("query tokens: count %d sum %v, want 3 and 26700", h.GetSampleCount(), h.GetSampleSum())
	}
	if n := testutil.CollectAndCount(m.tokens); n != 1 {
		t.Errorf("token series = %d, want 1 (list_* answers had no estimate)", n)
	}
}

func TestNoPrincipalOrTenantLabels(t *testing.T) {
	m, _ := newMetrics(t)
	m.ToolCall(mcpserver.CallRecord{Tool: "query", Client: "claude-ai", Principal: "key:secret-looking", Tenant: "acme-corp", Outcome: "ok"})
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	for _, s := range []string{"key:secret-looking", "acme-corp", "principal=", "tenant="} {
		if strings.Contains(body, s) {
			t.Errorf("/metrics contains %q", s)
		}
	}
}

func TestClientLabelBounded(t *testing.T) {
	cases := map[string]string{
		"claude-code":                    "claude-code",
		"CLAUDE-AI":                      "claude-ai",
		"chatgpt":                        "ChatGPT",
		"openai-mcp":                     "openai-mcp",
		"gemini-cli-mcp-client":          "gemini-cli-mcp-client", // a budget profile's name
		"gemini-cli-mcp-client-myserver": "gemini",
		"cursor-vscode":                  "cursor",
		"Visual Studio Code - Insiders":  "vscode",
		"claude-something-new":           "claude-other",
		"":                               "unknown",
		"   ":                            "unknown",
		"x7f3k2-random-client":           "other",
		"python-httpx/0.27.0":            "other",
		strings.Repeat("z", 1000):        "other",
	}
	for in, want := range cases {
		if got := ClientLabel(in); got != want {
			t.Errorf("ClientLabel(%.30q) = %q, want %q", in, got, want)
		}
	}
	// Many random client names make one "other" series.
	m, _ := newMetrics(t)
	for i := range 500 {
		m.ToolCall(mcpserver.CallRecord{Tool: "query", Client: NewRequestID() + string(rune('a'+i%26)), Outcome: "ok"})
	}
	if n := testutil.CollectAndCount(m.toolCalls); n != 1 {
		t.Errorf("tool call series = %d after 500 random clients, want 1", n)
	}
	if v := testutil.ToFloat64(m.toolCalls.WithLabelValues("query", "other", "ok")); v != 500 {
		t.Errorf("other = %v, want 500", v)
	}
}

func TestLabelValuesCapped(t *testing.T) {
	m, _ := newMetrics(t)
	for i := range 200 {
		m.ToolCall(mcpserver.CallRecord{Tool: "query", Outcome: "ok", Optimizations: []string{"opt_" + NewRequestID()[:8] + string(rune('a'+i%26))}})
	}
	m.ToolCall(mcpserver.CallRecord{Tool: "query\nnewline", Outcome: outcome.Code(strings.Repeat("x", 100))})
	if n := testutil.CollectAndCount(m.optimizations); n != 65 {
		t.Errorf("optimization series = %d, want 64 distinct types + other", n)
	}
	if v := testutil.ToFloat64(m.toolCalls.WithLabelValues("other", "unknown", "other")); v != 1 {
		t.Errorf("odd tool/outcome not folded into other: %v", v)
	}
}

func TestSessionsAndBuildInfo(t *testing.T) {
	m, reg := newMetrics(t)
	m.SessionOpened()
	m.SessionOpened()
	m.SessionOpened()
	m.SessionClosed()
	if v := testutil.ToFloat64(m.sessions); v != 2 {
		t.Errorf("sessions = %v, want 2", v)
	}
	m.SetSessionsFunc(func() int { return 7 })
	if v := testutil.ToFloat64(m.sessions); v != 7 {
		t.Errorf("sessions from func = %v, want 7", v)
	}
	m.SetSessionsFunc(nil)
	if v := testutil.ToFloat64(m.sessions); v != 2 {
		t.Errorf("sessions after func removed = %v, want 2", v)
	}
	m.SetVersion("v1.2.3")
	want := `
# HELP adsmcp_build_info Always 1; the version label says which adsmcp runs.
# TYPE adsmcp_build_info gauge
adsmcp_build_info{version="v1.2.3"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "adsmcp_build_info"); err != nil {
		t.Error(err)
	}
}

func TestHandlerServesMetrics(t *testing.T) {
	reg := NewRegistry()
	m := NewMetrics(reg)
	m.ToolCall(mcpserver.CallRecord{Tool: "query", Client: "claude-ai", Outcome: "ok", Elapsed: time.Second, Tokens: 100,
		Optimizations: []string{"granularity_change"}, SourceCalls: 1})
	m.RateLimited(limits.ReasonRate)
	m.SessionOpened()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	body := string(b)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	for _, name := range []string{
		"adsmcp_tool_calls_total", "adsmcp_tool_call_duration_seconds_bucket", "adsmcp_response_tokens_bucket",
		"adsmcp_optimizations_total", "adsmcp_source_calls_total", "adsmcp_source_errors_total",
		"adsmcp_rate_limited_total", "adsmcp_sessions_active", "adsmcp_build_info",
		"go_goroutines", "process_", // NewRegistry's collectors
	} {
		if !strings.Contains(body, name) {
			t.Errorf("/metrics lacks %s", name)
		}
	}
}

func TestConcurrentToolCalls(t *testing.T) {
	m, _ := newMetrics(t)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				m.ToolCall(mcpserver.CallRecord{Tool: "query", Client: "claude-ai", Outcome: "ok", Tokens: i,
					Optimizations: []string{"t" + string(rune('a'+(g+i)%5))}})
				m.RateLimited(limits.ReasonConcurrency)
				m.SessionOpened()
				m.SessionClosed()
			}
		})
	}
	wg.Wait()
	if v := testutil.ToFloat64(m.toolCalls.WithLabelValues("query", "claude-ai", "ok")); v != 1600 {
		t.Errorf("calls = %v, want 1600", v)
	}
	if v := testutil.ToFloat64(m.sessions); v != 0 {
		t.Errorf("sessions = %v, want 0", v)
	}
}

// histogram is the histogram series of name with exactly labels.
func histogram(t *testing.T, g prometheus.Gatherer, name string, labels map[string]string) *dto.Histogram {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, met := range mf.GetMetric() {
			if len(met.GetLabel()) != len(labels) {
				continue
			}
			for _, l := range met.GetLabel() {
				if labels[l.GetName()] != l.GetValue() {
					continue next
				}
			}
			return met.GetHistogram()
		}
	}
	t.Fatalf("no %s%v", name, labels)
	return nil
}
