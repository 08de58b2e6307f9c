// Package loadgen is a load generator for adsmcp's streamable HTTP endpoint:
// N concurrent MCP sessions, each a go-sdk client with its own HTTP client
// and connection pool (as separate client processes would have), calling a
// weighted mix of tools for a bounded time and number of calls. It reports
// throughput, latency percentiles per kind of call, errors by type (transport
// errors apart from isError answers), and, sampled while the load runs, the
// server's goroutines and resident memory, with a verdict on whether they
// stayed flat (a soak test).
//
// It refuses to load anything but a loopback address unless told otherwise.
package loadgen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults.
const (
	DefaultSessions    = 8
	DefaultDuration    = 60 * time.Second
	DefaultClientName  = "claude-code"
	DefaultSampleEvery = time.Second
	DefaultCallTimeout = 2 * time.Minute
	DefaultDrain       = 30 * time.Second
	// DefaultGrowthFactor and the slacks are the soak's tolerance: a series
	// is flat when its last value ≤ first × factor + slack.
	DefaultGrowthFactor   = 1.2
	DefaultGoroutineSlack = 16
	DefaultRSSSlack       = 32 << 20
)

// Call is one kind of call in the mix.
type Call struct {
	// Name labels the kind in the report ("small", "flagship").
	Name string `json:"name"`
	// Tool is the MCP tool to call ("query").
	Tool string `json:"tool"`
	// Args are the tool's arguments, a JSON object.
	Args json.RawMessage `json:"args"`
	// Weight is how often this kind is picked, relative to the others (≥ 1).
	Weight int `json:"weight"`
	// ExpectError: the right answer is an isError result (e.g. a query
	// meant to be rejected as invalid_query), so it is not counted as an
	// error.
	ExpectError bool `json:"expect_error,omitempty"`
}

// Options configure a run.
type Options struct {
	// URL is the streamable HTTP endpoint, e.g. http://127.0.0.1:8080/mcp.
	URL string
	// Sessions is how many MCP sessions call concurrently (DefaultSessions).
	Sessions int
	// Duration is how long new calls are started (DefaultDuration); calls in
	// flight then have Drain to finish.
	Duration time.Duration
	// MaxCalls bounds the calls started in all (0: only Duration bounds them).
	MaxCalls int
	// Mix is what the sessions call, picked at random by weight.
	Mix []Call
	// ClientName is the clientInfo.name every session announces, which picks
	// the token budget (DefaultClientName).
	ClientName string
	// Header is added to every MCP request (e.g. Authorization).
	Header http.Header
	// MetricsURL, when set, is the server's Prometheus endpoint: go_goroutines
	// and process_resident_memory_bytes are scraped every SampleEvery.
	MetricsURL string
	// PID, when set, is the server's process id on this machine: its resident
	// memory is read from /proc/PID/status (Linux) when MetricsURL gives none.
	PID int
	// SampleEvery is the sampling period (DefaultSampleEvery).
	SampleEvery time.Duration
	// WarmUp is the start of the run that the flatness verdict ignores
	// (default a fifth of Duration, at most 10 s).
	WarmUp time.Duration
	// CallTimeout bounds one call (DefaultCallTimeout).
	CallTimeout time.Duration
	// Drain is how long calls in flight at the end of Duration may take to
	// finish (DefaultDrain); calls still running then are cut, and counted
	// as such, not as errors.
	Drain time.Duration
	// ErrorBackoff is a pause after a transport error, so a refusing server
	// is not spun on (default 50 ms).
	ErrorBackoff time.Duration
	// GrowthFactor, GoroutineSlack and RSSSlack set the flatness tolerance
	// (the Default… constants when 0).
	GrowthFactor   float64
	GoroutineSlack int
	RSSSlack       int64
	// Seed makes the sequence of picked calls reproducible (0 is a seed too).
	Seed uint64
	// AllowRemote allows a non-loopback URL. Never point a load test at a
	// server you do not run.
	AllowRemote bool
	// OnStart, when set, is told of every call as it starts, and OnResult of
	// every finished call, from the session's goroutine (so concurrently).
	OnStart  func(session int, kind string)
	OnResult func(Result)
	// DisableStandaloneSSE stops sessions from opening the standalone GET
	// stream that MCP clients normally keep open.
	DisableStandaloneSSE bool
}

// Outcome is how a call ended.
type Outcome string

const (
	// OK: a well-formed answer of the expected kind (an isError answer for a
	// Call with ExpectError).
	OK Outcome = "ok"
	// ToolError: an isError answer that was not expected.
	ToolError Outcome = "tool_error"
	// Malformed: an answer that is not what adsmcp writes (a truncated or
	// unparseable block, a missing data block).
	Malformed Outcome = "malformed"
	// TransportError: no answer: refused, connection lost, JSON-RPC error,
	// timeout.
	TransportError Outcome = "transport_error"
	// Cut: still in flight when the run ended (Drain over or ctx cancelled).
	Cut Outcome = "cut"
)

// Result is one finished call.
type Result struct {
	Session int
	Kind    string
	Start   time.Time
	End     time.Time
	Outcome Outcome
	// Type is the isError answer's type (timeout, invalid_query…) or the
	// transport error's class (http_503, connection_refused…).
	Type string
	// Err is the transport error.
	Err error
	// Bytes is the size of the answer's text.
	Bytes int
}

// Latency is Result's duration.
func (r Result) Latency() time.Duration { return r.End.Sub(r.Start) }

// Run runs the load and reports. It returns an error only when the load
// could not run at all (bad options, no session could connect); errors of
// individual calls are in the report.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if err := opts.normalize(); err != nil {
		return nil, err
	}
	rep := &Report{URL: opts.URL, Sessions: opts.Sessions, Client: opts.ClientName, Duration: opts.Duration,
		MaxCalls: opts.MaxCalls, TransportErrors: map[string]int{}, ToolErrors: map[string]int{}}
	for _, c := range opts.Mix {
		rep.Mix = append(rep.Mix, MixEntry{Name: c.Name, Tool: c.Tool, Weight: c.Weight})
	}

	smp := newSampler(opts)
	smp.before(ctx)

	// Connect every session first, so the timed part is calls only.
	sessions := make([]*session, opts.Sessions)
	var wg sync.WaitGroup
	var connectErrs []string
	var mu sync.Mutex
	for i := range sessions {
		wg.Go(func() {
			s, err := connect(ctx, opts, i)
			if err != nil {
				mu.Lock()
				connectErrs = append(connectErrs, err.Error())
				mu.Unlock()
				return
			}
			sessions[i] = s
		})
	}
	wg.Wait()
	sessions = slices.DeleteFunc(sessions, func(s *session) bool { return s == nil })
	rep.SessionErrors = len(connectErrs)
	if len(sessions) == 0 {
		return nil, fmt.Errorf("no session could connect to %s: %s", opts.URL, connectErrs[0])
	}
	for _, e := range connectErrs {
		rep.Notes = append(rep.Notes, "session did not connect: "+e)
	}

	// issue ends when no new call may start; drain when calls in flight are cut.
	start := time.Now()
	issue, stopIssue := context.WithDeadline(ctx, start.Add(opts.Duration))
	defer stopIssue()
	drain, stopDrain := context.WithDeadline(ctx, start.Add(opts.Duration+opts.Drain))
	defer stopDrain()

	sampling := make(chan struct{})
	go func() {
		defer close(sampling)
		smp.run(issue, start)
	}()

	var issued atomic.Int64
	results := make([][]Result, len(sessions))
	for i, s := range sessions {
		wg.Go(func() {
			results[i] = s.loop(issue, drain, &issued, opts)
		})
	}
	wg.Wait()
	rep.Elapsed = time.Since(start)
	stopIssue()
	<-sampling

	for _, s := range sessions {
		s.close()
	}
	smp.after(ctx)

	var all []Result
	for _, r := range results {
		all = append(all, r...)
	}
	rep.tally(all, opts)
	rep.Goroutines, rep.RSS = smp.series(opts, start)
	rep.ServerToolCalls = smp.toolCalls()
	rep.Notes = append(rep.Notes, smp.notes...)
	return rep, nil
}

func (o *Options) normalize() error {
	if o.URL == "" {
		return errors.New("loadgen: no URL")
	}
	if err := checkLoopback(o.URL, o.AllowRemote); err != nil {
		return err
	}
	if o.MetricsURL != "" {
		if err := checkLoopback(o.MetricsURL, o.AllowRemote); err != nil {
			return err
		}
	}
	if len(o.Mix) == 0 {
		return errors.New("loadgen: the mix is empty")
	}
	o.Mix = slices.Clone(o.Mix) // filled in below: not the caller's
	for i, c := range o.Mix {
		if c.Weight <= 0 || c.Tool == "" {
			return fmt.Errorf("loadgen: mix entry %d (%s): want a tool and a weight ≥ 1", i, c.Name)
		}
		if len(c.Args) == 0 {
			o.Mix[i].Args = json.RawMessage(`{}`)
		} else if !json.Valid(c.Args) {
			return fmt.Errorf("loadgen: mix entry %s: the arguments are not JSON", c.Name)
		}
		if c.Name == "" {
			o.Mix[i].Name = c.Tool
		}
	}
	if o.Sessions <= 0 {
		o.Sessions = DefaultSessions
	}
	if o.Duration <= 0 {
		o.Duration = DefaultDuration
	}
	if o.MaxCalls < 0 {
		return errors.New("loadgen: MaxCalls must not be negative")
	}
	if o.ClientName == "" {
		o.ClientName = DefaultClientName
	}
	if o.SampleEvery <= 0 {
		o.SampleEvery = DefaultSampleEvery
	}
	if o.WarmUp <= 0 {
		o.WarmUp = min(o.Duration/5, 10*time.Second)
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.Drain <= 0 {
		o.Drain = DefaultDrain
	}
	if o.ErrorBackoff <= 0 {
		o.ErrorBackoff = 50 * time.Millisecond
	}
	if o.GrowthFactor <= 0 {
		o.GrowthFactor = DefaultGrowthFactor
	}
	if o.GoroutineSlack <= 0 {
		o.GoroutineSlack = DefaultGoroutineSlack
	}
	if o.RSSSlack <= 0 {
		o.RSSSlack = DefaultRSSSlack
	}
	return nil
}

// checkLoopback refuses URLs whose host is not a loopback address (or
// "localhost") unless remote is allowed.
func checkLoopback(raw string, remote bool) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("loadgen: %q is not an http(s) URL", raw)
	}
	if remote {
		return nil
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); (ip != nil && ip.IsLoopback()) || strings.EqualFold(host, "localhost") {
		return nil
	}
	return fmt.Errorf("loadgen: %s is not a loopback address: load tests run against 127.0.0.1 (or ::1, localhost) only", host)
}

// IsLoopback reports whether raw is an http(s) URL on a loopback host.
func IsLoopback(raw string) bool { return checkLoopback(raw, false) == nil }

// session is one MCP session with its own connection pool.
type session struct {
	id int
	cs *mcp.ClientSession
	tr *http.Transport
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	base   http.RoundTripper
	header http.Header
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range h.header {
		r.Header.Del(k)
		for _, v := range vs {
			r.Header.Add(k, v)
		}
	}
	return h.base.RoundTrip(r)
}

// NewHTTPClient is the HTTP client of one session: its own transport (so its
// own connections, as a separate client process has), with header added to
// every request. The transport is returned to close its idle connections.
func NewHTTPClient(header http.Header) (*http.Client, *http.Transport) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 8
	var rt http.RoundTripper = tr
	if len(header) > 0 {
		rt = headerTransport{base: tr, header: header.Clone()}
	}
	return &http.Client{Transport: rt}, tr
}

func connect(ctx context.Context, opts Options, id int) (*session, error) {
	hc, tr := NewHTTPClient(opts.Header)
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: opts.ClientName, Version: "adsmcp-load"}, nil).
		Connect(cctx, &mcp.StreamableClientTransport{Endpoint: opts.URL, HTTPClient: hc,
			DisableStandaloneSSE: opts.DisableStandaloneSSE}, nil)
	if err != nil {
		tr.CloseIdleConnections()
		return nil, err
	}
	return &session{id: id, cs: cs, tr: tr}, nil
}

func (s *session) close() {
	s.cs.Close()
	s.tr.CloseIdleConnections()
}

// loop calls until issue ends or the call bound is reached.
func (s *session) loop(issue, drain context.Context, issued *atomic.Int64, opts Options) []Result {
	rng := rand.New(rand.NewPCG(opts.Seed, uint64(s.id)))
	total := 0
	for _, c := range opts.Mix {
		total += c.Weight
	}
	var out []Result
	for issue.Err() == nil {
		if n := issued.Add(1); opts.MaxCalls > 0 && n > int64(opts.MaxCalls) {
			break
		}
		c := pick(opts.Mix, rng.IntN(total))
		if opts.OnStart != nil {
			opts.OnStart(s.id, c.Name)
		}
		r := s.call(drain, c, opts.CallTimeout)
		out = append(out, r)
		if opts.OnResult != nil {
			opts.OnResult(r)
		}
		if r.Outcome == TransportError {
			select {
			case <-issue.Done():
			case <-time.After(opts.ErrorBackoff):
			}
		}
	}
	return out
}

func pick(mix []Call, n int) Call {
	for _, c := range mix {
		if n < c.Weight {
			return c
		}
		n -= c.Weight
	}
	return mix[len(mix)-1]
}

func (s *session) call(drain context.Context, c Call, timeout time.Duration) Result {
	ctx, cancel := context.WithTimeout(drain, timeout)
	defer cancel()
	r := Result{Session: s.id, Kind: c.Name, Start: time.Now()}
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: c.Args})
	r.End = time.Now()
	if err != nil {
		r.Err = err
		if drain.Err() != nil {
			r.Outcome, r.Type = Cut, "cut"
			return r
		}
		r.Outcome, r.Type = TransportError, ClassifyError(err)
		return r
	}
	r.Outcome, r.Type, r.Bytes = CheckAnswer(res, c.Tool, c.ExpectError)
	return r
}

// ClassifyError names a call's transport error for the report.
func ClassifyError(err error) string {
	var werr *jsonrpc.Error
	msg := err.Error()
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "call_timeout"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case httpStatus(msg) != 0:
		return fmt.Sprintf("http_%d", httpStatus(msg))
	case errors.Is(err, syscall.ECONNREFUSED) || strings.Contains(msg, "connection refused"):
		return "connection_refused"
	case errors.Is(err, mcp.ErrSessionMissing):
		return "session_missing"
	case errors.Is(err, syscall.ECONNRESET) || strings.Contains(msg, "connection reset") ||
		strings.Contains(msg, "EOF") || strings.Contains(msg, "server closed idle connection"):
		return "connection_lost"
	case errors.As(err, &werr):
		return fmt.Sprintf("jsonrpc_%d", werr.Code)
	case errors.Is(err, mcp.ErrConnectionClosed):
		return "connection_closed"
	}
	return "other"
}

// httpStatus finds the HTTP error status the go-sdk client names in its
// error (it writes the status text, e.g. "Service Unavailable"), or 0.
func httpStatus(msg string) int {
	for code := 400; code < 600; code++ {
		if text := http.StatusText(code); text != "" && strings.Contains(msg, ": "+text) {
			return code
		}
	}
	return 0
}

// CheckAnswer checks that a tool's answer is what adsmcp writes, and returns
// its outcome, its error type when it is an isError answer, and its size.
//
// A successful answer's blocks are all text; when the first is a JSON object
// (adsmcp's _meta block) it must parse, and a _meta block must be followed
// by a non-empty data block ending in a newline (CSV). An isError answer is
// one JSON object with a "type".
func CheckAnswer(res *mcp.CallToolResult, tool string, expectError bool) (Outcome, string, int) {
	var blocks []string
	size := 0
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			return Malformed, "non_text_block", size
		}
		blocks = append(blocks, tc.Text)
		size += len(tc.Text)
	}
	if len(blocks) == 0 {
		return Malformed, "no_content", size
	}
	if res.IsError {
		var body struct {
			Type string `json:"type"`
		}
		if json.Unmarshal([]byte(blocks[0]), &body) != nil || body.Type == "" {
			return Malformed, "unparsed_error", size
		}
		if expectError {
			return OK, body.Type, size
		}
		return ToolError, body.Type, size
	}
	if expectError {
		return Malformed, "answer_instead_of_error", size
	}
	first := strings.TrimSpace(blocks[0])
	if strings.HasPrefix(first, "{") {
		var head map[string]json.RawMessage
		if json.Unmarshal([]byte(first), &head) != nil {
			return Malformed, "truncated_json", size
		}
		_, typed := head["type"] // data_too_large: the summary is the whole answer
		if _, ok := head["_meta"]; ok && !typed {
			if len(blocks) < 2 || blocks[1] == "" {
				return Malformed, "missing_data_block", size
			}
			if !strings.HasSuffix(blocks[1], "\n") {
				return Malformed, "truncated_data_block", size
			}
		}
	} else if tool == "query" {
		return Malformed, "missing_meta_block", size
	}
	return OK, "", size
}
