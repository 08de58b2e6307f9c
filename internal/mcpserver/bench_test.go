package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/internal/answer"
	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
)

// The MCP layer's benchmarks (docs/benchmarks.md, "MCP layer"): the same query
// tool call answered by the pipeline called directly (the baseline) and through
// each transport, in one run so they are read as ratios.

// benchClient is the client every benchmark session announces (budget 25,000).
const benchClient = "claude-code"

// benchQuery is a query and the configuration it runs against.
type benchQuery struct {
	name    string
	cfg     Config
	args    string
	isError bool // the answer is an isError result (one block), not _meta and data
}

// benchQueries are the small query of the tests on the shared test warehouse,
// the flagship query of docs/benchmarks.md (daily × campaign, 90 days, 10
// accounts: 16,590 rows) on the full demo warehouse the source and answer
// benchmarks use, built once into $ADSMCP_BENCH_DB (default: the temp
// directory), and a query the parser rejects (invalid_query) after only the
// account list is read: the MCP layer's own cost, which the others' query time
// hides.
func benchQueries(b *testing.B) []benchQuery {
	full := fullWarehouse(b)
	accounts, err := full.Accounts(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	ids := ""
	for i, a := range accounts[:10] {
		if i > 0 {
			ids += ","
		}
		ids += `"` + a.AccountID + `"`
	}
	return []benchQuery{
		{"small", testConfig(b), small, false},
		{"flagship", Config{Source: full, Now: func() time.Time { return anchor.Add(12 * time.Hour) }},
			`{"account_ids":[` + ids + `],"date_preset":"last_90d","dimensions":["campaign_name"],` +
				`"metrics":["spend","impressions","clicks","ctr","conversions"],"time_granularity":"daily"}`, false},
		{"invalid", testConfig(b), `{"metrics":["spend"],"date_preset":"yesterweek"}`, true},
	}
}

var (
	fullOnce sync.Once
	fullSrc  *duckdb.Source
	fullErr  error
)

// fullWarehouse opens the full demo warehouse as internal/source/duckdb's and
// internal/answer's benchmarks do (their helpers are in test files of other
// packages, so they cannot be shared), and reuses their file.
func fullWarehouse(b *testing.B) *duckdb.Source {
	b.Helper()
	fullOnce.Do(func() {
		path := os.Getenv("ADSMCP_BENCH_DB")
		if path == "" {
			path = filepath.Join(os.TempDir(), "adsmcp-bench-full.duckdb")
		}
		fullSrc, fullErr = duckdb.Open(context.Background(), path, duckdb.Options{
			Demo:     demo.Config{Anchor: anchor, Seed: demo.DefaultSeed},
			Progress: os.Stderr,
		})
		if fullErr == nil {
			shutdown = append(shutdown, func() { fullSrc.Close() })
		}
	})
	if fullErr != nil {
		b.Fatal(fullErr)
	}
	return fullSrc
}

// benchTransports connect a benchClient session to a fresh server for cfg.
var benchTransports = []struct {
	name    string
	connect func(testing.TB, Config) *mcp.ClientSession
}{
	{"inmemory", func(tb testing.TB, cfg Config) *mcp.ClientSession { return connect(tb, cfg, benchClient) }},
	{"stdio", connectStdio},
	{"http", func(tb testing.TB, cfg Config) *mcp.ClientSession {
		return connectHTTPSession(tb, serveHTTP(tb, cfg))
	}},
	{"process", connectProcess},
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// connectProcess starts the real `adsmcp serve` binary on cfg's warehouse file
// and clock and talks to it over its stdin and stdout, as Claude Code does:
// stdio with the OS pipes and a process boundary.
func connectProcess(tb testing.TB, cfg Config) *mcp.ClientSession {
	tb.Helper()
	src, ok := cfg.Source.(*duckdb.Source)
	if !ok {
		tb.Fatalf("the process transport needs a warehouse file, not %T", cfg.Source)
	}
	binOnce.Do(func() {
		binPath = filepath.Join(os.TempDir(), fmt.Sprintf("adsmcp-bench-%d", os.Getpid()))
		out, err := exec.Command("go", "build", "-o", binPath, "../../cmd/adsmcp").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		shutdown = append(shutdown, func() { os.Remove(binPath) })
	})
	if binErr != nil {
		tb.Fatal(binErr)
	}
	cmd := exec.Command(binPath, "serve", "--db", src.Path(), "--today", cfg.Now().Format(time.DateOnly))
	cs, err := mcp.NewClient(&mcp.Implementation{Name: benchClient, Version: "bench"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs
}

// connectStdio connects through adsmcp's stdio transport (the one `adsmcp
// serve` runs), in process: newline-delimited JSON-RPC over two io.Pipes, so
// the framing and the line guard are measured, not the OS pipes.
func connectStdio(tb testing.TB, cfg Config) *mcp.ClientSession {
	tb.Helper()
	ctx := context.Background()
	inR, inW := io.Pipe()   // client → server
	outR, outW := io.Pipe() // server → client
	ss, err := New(cfg).Connect(ctx, NewStdioTransport(inR, outW), nil)
	if err != nil {
		tb.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: benchClient, Version: "bench"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		cs.Close() // closes inW: the server reads EOF and ends
		ss.Wait()
	})
	return cs
}

// serveHTTP serves cfg over streamable HTTP on a loopback port (startHTTP takes
// a *testing.T) and returns the /mcp URL.
func serveHTTP(tb testing.TB, cfg Config) string {
	tb.Helper()
	h, err := NewHTTPServer(cfg, HTTPOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	ts := httptest.NewServer(h.Handler())
	tb.Cleanup(ts.Close)
	return ts.URL + MCPPath
}

// connectHTTPSession opens a benchClient session with its own connection pool,
// as a separate client process would have: with a shared http.DefaultTransport
// (2 idle connections per host), concurrent sessions would mostly measure TCP
// connects.
func connectHTTPSession(tb testing.TB, url string) *mcp.ClientSession {
	tb.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: benchClient, Version: "bench"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: tr}}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		cs.Close()
		tr.CloseIdleConnections()
	})
	return cs
}

// callQuery calls the query tool and returns the answer's size; it may run on
// any goroutine.
func callQuery(cs *mcp.ClientSession, q benchQuery) (int, error) {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "query", Arguments: json.RawMessage(q.args)})
	if err != nil {
		return 0, err
	}
	blocks := make([]string, len(res.Content))
	for i, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			blocks[i] = tc.Text
		}
	}
	return checkAnswer(q, res.IsError, blocks)
}

// checkAnswer checks an answer is of the kind q expects, and returns its size.
func checkAnswer(q benchQuery, isError bool, blocks []string) (int, error) {
	n := 0
	for _, b := range blocks {
		n += len(b)
	}
	if isError != q.isError || (!isError && len(blocks) != 2) {
		return n, fmt.Errorf("%s: unexpected answer (isError=%v): %v", q.name, isError, blocks)
	}
	return n, nil
}

// BenchmarkToolCall: one query tool call at a time, per query and transport;
// transport=direct is the baseline. Besides ns/op it reports the median and p99
// call latency and the answer's size; B/op and allocs/op count both ends
// (client and server share the process). With -count, each sub-benchmark's
// runs are consecutive, so drifting machine load skews the comparison between
// transports: BenchmarkMCPOverhead is the one to read ratios from.
func BenchmarkToolCall(b *testing.B) {
	for _, q := range benchQueries(b) {
		b.Run("query="+q.name+"/transport=direct", func(b *testing.B) {
			latencies(b, directCall(q))
		})
		for _, tr := range benchTransports {
			b.Run("query="+q.name+"/transport="+tr.name, func(b *testing.B) {
				cs := tr.connect(b, q.cfg)
				latencies(b, func() (int, error) { return callQuery(cs, q) })
			})
		}
	}
}

// directCall is q answered by answer.Engine.Query with the server's own engine
// (same config, same account cache): the pipeline without the MCP layer.
func directCall(q benchQuery) func() (int, error) {
	e := newServer(q.cfg).engine
	return func() (int, error) {
		res, err := e.Query(context.Background(), answer.Request{Args: []byte(q.args), Client: benchClient})
		if err != nil {
			return 0, err
		}
		return checkAnswer(q, res.IsError, res.Blocks)
	}
}

// latencies times each call of f, after one untimed warm-up call (account cache,
// DuckDB's caches, the HTTP connection), and reports p50-ms, p99-ms and resp-B.
func latencies(b *testing.B, f func() (int, error)) {
	size, err := f()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var d []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := f(); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(start))
	}
	slices.Sort(d)
	b.ReportMetric(ms(percentile(d, 50)), "p50-ms")
	b.ReportMetric(ms(percentile(d, 99)), "p99-ms")
	b.ReportMetric(float64(size), "resp-B")
}

// BenchmarkMCPOverhead: the MCP layer's cost as a ratio. Each iteration makes
// one call per path (direct, then every transport; the order rotates), back to
// back, so a noisy neighbour slows every path alike. Per path it reports the
// median and p99 latency, and for each transport its median over direct's
// ("http/direct"); ns/op is the time of one call on every path.
func BenchmarkMCPOverhead(b *testing.B) {
	for _, q := range benchQueries(b) {
		b.Run("query="+q.name, func(b *testing.B) {
			names := []string{"direct"}
			calls := []func() (int, error){directCall(q)}
			for _, tr := range benchTransports {
				cs := tr.connect(b, q.cfg)
				names = append(names, tr.name)
				calls = append(calls, func() (int, error) { return callQuery(cs, q) })
			}
			for _, f := range calls { // warm-up
				if _, err := f(); err != nil {
					b.Fatal(err)
				}
			}
			d := make([][]time.Duration, len(calls))
			for k := 0; b.Loop(); k++ {
				for j := range calls {
					i := (j + k) % len(calls)
					start := time.Now()
					if _, err := calls[i](); err != nil {
						b.Fatal(err)
					}
					d[i] = append(d[i], time.Since(start))
				}
			}
			for i := range d {
				slices.Sort(d[i])
			}
			for i, name := range names {
				b.ReportMetric(ms(percentile(d[i], 50)), name+"-p50-ms")
				b.ReportMetric(ms(percentile(d[i], 99)), name+"-p99-ms")
				if i > 0 {
					b.ReportMetric(float64(percentile(d[i], 50))/float64(percentile(d[0], 50)), name+"/direct")
				}
			}
		})
	}
}

// percentile is the nearest-rank percentile of sorted durations.
func percentile(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p + 99) / 100 // ceil(n·p/100), 1-based
	return sorted[max(i, 1)-1]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkHTTPThroughput: 1, 8 and 32 clients, each its own session and
// connection pool, calling the query tool back to back against one HTTP server;
// b.N calls in all, reported as calls/s (ns/op is its inverse).
func BenchmarkHTTPThroughput(b *testing.B) {
	for _, q := range benchQueries(b) {
		for _, clients := range []int{1, 8, 32} {
			b.Run(fmt.Sprintf("query=%s/clients=%d", q.name, clients), func(b *testing.B) {
				url := serveHTTP(b, q.cfg)
				sessions := make([]*mcp.ClientSession, clients)
				for i := range sessions {
					sessions[i] = connectHTTPSession(b, url)
					// A ping opens the session's POST connection.
					if err := sessions[i].Ping(context.Background(), nil); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := callQuery(sessions[0], q); err != nil { // warm the caches
					b.Fatal(err)
				}
				var next atomic.Int64 // calls handed out
				var wg sync.WaitGroup
				b.ResetTimer()
				start := time.Now()
				for _, cs := range sessions {
					wg.Go(func() {
						for next.Add(1) <= int64(b.N) {
							if _, err := callQuery(cs, q); err != nil {
								b.Error(err) // not Fatal: not the benchmark's goroutine
								return
							}
						}
					})
				}
				wg.Wait()
				b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
			})
		}
	}
}
