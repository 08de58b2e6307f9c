package loadgen

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/internal/mcpserver"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/test/skipreport"
)

func TestMain(m *testing.M) { os.Exit(duckdbtest.Main(m)) }

func TestLoopbackOnly(t *testing.T) {
	for _, u := range []string{"http://127.0.0.1:8080/mcp", "http://[::1]:9/mcp", "https://localhost/mcp", "http://127.0.0.2:1/mcp"} {
		if !IsLoopback(u) {
			t.Errorf("%s refused", u)
		}
	}
	for _, u := range []string{"http://10.0.0.1/mcp", "https://example.com/mcp", "http://0.0.0.0:8080/mcp", "ftp://127.0.0.1/", "127.0.0.1:8080"} {
		if IsLoopback(u) {
			t.Errorf("%s accepted", u)
		}
	}
	mix := []Call{{Name: "x", Tool: "list_fields", Weight: 1}}
	if _, err := Run(context.Background(), Options{URL: "http://example.com/mcp", Mix: mix}); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("a remote URL: %v", err)
	}
	if _, err := Run(context.Background(), Options{URL: "http://127.0.0.1:1/mcp", MetricsURL: "http://192.0.2.1/metrics", Mix: mix}); err == nil {
		t.Error("a remote metrics URL was accepted")
	}
}

func TestParseMetrics(t *testing.T) {
	text := `# HELP go_goroutines Number of goroutines that currently exist.
# TYPE go_goroutines gauge
go_goroutines 42
go_goroutines_other 7
process_resident_memory_bytes 5.1234816e+07
adsmcp_tool_calls_total{client="claude-code",outcome="ok",tool="query"} 10
adsmcp_tool_calls_total{client="other",outcome="timeout",tool="query"} 2 1712345678
`
	m, err := ParseMetrics(strings.NewReader(text), "go_goroutines", "process_resident_memory_bytes", "adsmcp_tool_calls_total")
	if err != nil || m["go_goroutines"] != 42 || m["process_resident_memory_bytes"] != 51234816 || m["adsmcp_tool_calls_total"] != 12 {
		t.Errorf("%v %v", m, err)
	}
}

func TestCheckAnswer(t *testing.T) {
	text := func(isError bool, blocks ...string) *mcp.CallToolResult {
		r := &mcp.CallToolResult{IsError: isError}
		for _, b := range blocks {
			r.Content = append(r.Content, &mcp.TextContent{Text: b})
		}
		return r
	}
	for _, c := range []struct {
		res     *mcp.CallToolResult
		expect  bool
		outcome Outcome
		typ     string
	}{
		{text(false, `{"_meta":{"count":1}}`, "a,b\n1,2\n"), false, OK, ""},
		{text(false, `{"_meta":{"count":1}`, "a,b\n1,2\n"), false, Malformed, "truncated_json"},
		{text(false, `{"_meta":{"count":1}}`), false, Malformed, "missing_data_block"},
		// data_too_large: one block, the summary with its _meta inside.
		{text(false, `{"type":"data_too_large","summary":{},"_meta":{"format":"summary"}}`), false, OK, ""},
		{text(false, `{"_meta":{"count":1}}`, "a,b\n1,"), false, Malformed, "truncated_data_block"},
		{text(true, `{"type":"timeout","message":"x"}`), false, ToolError, "timeout"},
		{text(true, `{"type":"invalid_query"}`), true, OK, "invalid_query"},
		{text(false, `{"_meta":{}}`, "a\n"), true, Malformed, "answer_instead_of_error"},
		{text(true, `oops`), false, Malformed, "unparsed_error"},
		{text(false), false, Malformed, "no_content"},
	} {
		o, typ, _ := CheckAnswer(c.res, "query", c.expect)
		if o != c.outcome || typ != c.typ {
			t.Errorf("%v: got %s %s, want %s %s", c.res.Content, o, typ, c.outcome, c.typ)
		}
	}
}

func TestSeriesVerdict(t *testing.T) {
	s := &Series{}
	for i, v := range []float64{10, 50, 52, 51, 53, 55, 54, 56} { // the first second is warm-up
		s.Samples = append(s.Samples, Sample{At: time.Duration(i) * time.Second, Value: v})
	}
	s.verdict(time.Second, 1.2, 0)
	if !s.Known || !s.Flat || s.First != 51 || s.Last != 55 || s.Max != 56 {
		t.Errorf("flat series: %+v", s)
	}
	s.Samples = append(s.Samples, Sample{At: 9 * time.Second, Value: 90}, Sample{At: 10 * time.Second, Value: 95}, Sample{At: 11 * time.Second, Value: 99})
	s.verdict(time.Second, 1.2, 0)
	if !s.Known || s.Flat {
		t.Errorf("growing series: %+v", s)
	}
}

// serve runs adsmcp's HTTP server on the test warehouse in process, with a
// /metrics endpoint that reports this process's goroutines and RSS.
func serve(t *testing.T) (mcpURL, metricsURL string) {
	t.Helper()
	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		rss, _ := ProcRSS(os.Getpid())
		fmt.Fprintf(w, "# TYPE go_goroutines gauge\ngo_goroutines %d\nprocess_resident_memory_bytes %d\n", runtime.NumGoroutine(), rss)
	})
	h, err := mcpserver.NewHTTPServer(mcpserver.Config{Source: duckdbtest.Open(t), Now: duckdbtest.Now},
		mcpserver.HTTPOptions{Handlers: map[string]http.Handler{"GET /metrics": metrics}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h.Handler())
	t.Cleanup(ts.Close)
	return ts.URL + mcpserver.MCPPath, ts.URL + "/metrics"
}

// Six accounts of the test warehouse.
const smallArgs = `{"account_ids":["act_4409187263550918","act_6630418825197342","act_1015823746512093","act_5521093847612239","617-204-8851","482-915-3307"],` +
	`"metrics":["spend","clicks","ctr"],"dimensions":["account_name"],"date_preset":"last_7d"}`

func TestRunInProcess(t *testing.T) {
	if testing.Short() {
		skipreport.Skip(t, "builds the test warehouse")
	}
	mcpURL, metricsURL := serve(t)
	var seen atomic.Int64
	rep, err := Run(context.Background(), Options{
		URL: mcpURL, Sessions: 4, Duration: 2 * time.Second, MaxCalls: 2000,
		MetricsURL: metricsURL, SampleEvery: 200 * time.Millisecond,
		Header: http.Header{"X-Test": {"1"}},
		Mix: []Call{
			{Name: "small", Tool: "query", Args: json.RawMessage(smallArgs), Weight: 5},
			{Name: "invalid", Tool: "query", Args: json.RawMessage(`{"metrics":["spend"],"date_preset":"yesterweek"}`), Weight: 2, ExpectError: true},
			{Name: "fields", Tool: "list_fields", Weight: 1},
		},
		OnResult: func(Result) { seen.Add(1) },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + rep.String())
	if rep.Errors() != 0 || rep.OK == 0 || rep.Calls != rep.OK || rep.Throughput <= 0 || int(seen.Load()) != rep.Calls+rep.Cut {
		t.Errorf("calls %d, ok %d, errors %d, seen %d", rep.Calls, rep.OK, rep.Errors(), seen.Load())
	}
	if len(rep.Kinds) != 4 || rep.Kinds[0].Name != "small" || rep.Kinds[0].OK == 0 || rep.Kinds[0].P50 <= 0 || rep.Kinds[3].Name != "all" {
		t.Errorf("kinds: %+v", rep.Kinds)
	}
	if rep.Goroutines == nil || rep.RSS == nil || len(rep.Goroutines.Samples) < 5 || !rep.Goroutines.HasBefore || !rep.Goroutines.HasAfter {
		t.Fatalf("series: %+v %+v", rep.Goroutines, rep.RSS)
	}
	for _, want := range []string{"| small |", "| all |", "| goroutines |", "| RSS |", "calls/s"} {
		if !strings.Contains(rep.String(), want) {
			t.Errorf("the report has no %q", want)
		}
	}
	if b, err := json.Marshal(rep); err != nil || !strings.Contains(string(b), `"throughput"`) {
		t.Errorf("JSON: %v %s", err, b)
	}
}

// A server that refuses every call: transport errors by class, not answers.
func TestRunCountsTransportErrors(t *testing.T) {
	mcpURL, _ := serve(t)
	var refuse atomic.Bool
	// Let initialize through, then refuse everything with 503.
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if refuse.Load() && r.Method == http.MethodPost {
			http.Error(w, "no", http.StatusServiceUnavailable)
			return
		}
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, mcpURL, r.Body)
		req.Header = r.Header.Clone()
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			w.Write(buf[:n])
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			if err != nil {
				return
			}
		}
	}))
	defer proxy.Close()
	rep, err := Run(context.Background(), Options{
		URL: proxy.URL + "/mcp", Sessions: 2, Duration: 500 * time.Millisecond, MaxCalls: 40,
		DisableStandaloneSSE: true,
		Mix:                  []Call{{Name: "fields", Tool: "list_fields", Weight: 1}},
		OnResult:             func(Result) { refuse.Store(true) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.TransportErrors["http_503"] == 0 || rep.Errors() != rep.TransportErrors["http_503"] || rep.Malformed != 0 {
		t.Errorf("transport errors %v, tool errors %v, malformed %d:\n%s", rep.TransportErrors, rep.ToolErrors, rep.Malformed, rep)
	}
}
