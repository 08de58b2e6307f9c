package loadgen

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Sample is one reading of a series.
type Sample struct {
	// At is the time since the load started (negative: before it).
	At    time.Duration `json:"at"`
	Value float64       `json:"value"`
}

// Series is a server figure sampled over the run.
type Series struct {
	Name string `json:"name"`
	// Source is where the figure was read: the metrics URL or /proc/PID/status.
	Source string `json:"source"`
	// Before: read before the sessions connected; After: after they closed.
	Before, After float64 `json:"-"`
	HasBefore     bool    `json:"-"`
	HasAfter      bool    `json:"-"`
	// First is the median of the first three samples after the warm-up, Last
	// the median of the last three, Max the largest sample under load.
	First float64 `json:"first"`
	Last  float64 `json:"last"`
	Max   float64 `json:"max"`
	// Limit is first × factor + slack; Flat is Last ≤ Limit. Known is false
	// when too few samples were taken after the warm-up for a verdict.
	Limit   float64  `json:"limit"`
	Flat    bool     `json:"flat"`
	Known   bool     `json:"known"`
	Samples []Sample `json:"samples"`
}

// reading is one scrape: whatever could be read.
type reading struct {
	at                     time.Time
	goroutines, rss, calls float64
	hasG, hasRSS, hasCalls bool
	rssFromProc            bool
}

// sampler reads the server's goroutines and RSS from its metrics endpoint,
// or its RSS from /proc when it runs here.
type sampler struct {
	metricsURL string
	pid        int
	every      time.Duration
	client     *http.Client

	mu    sync.Mutex
	pre   *reading
	load  []reading
	post  *reading
	notes []string
	noted map[string]bool
}

func newSampler(opts Options) *sampler {
	return &sampler{metricsURL: opts.MetricsURL, pid: opts.PID, every: opts.SampleEvery,
		client: &http.Client{Timeout: 5 * time.Second}, noted: map[string]bool{}}
}

func (s *sampler) enabled() bool { return s.metricsURL != "" || s.pid > 0 }

func (s *sampler) note(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.noted[msg] {
		s.noted[msg] = true
		s.notes = append(s.notes, msg)
	}
}

// read takes one reading.
func (s *sampler) read(ctx context.Context) reading {
	r := reading{at: time.Now()}
	if s.metricsURL != "" {
		m, err := s.scrape(ctx)
		switch {
		case err != nil && ctx.Err() != nil: // the run ended mid-scrape
		case err != nil:
			s.note("metrics: " + err.Error())
		default:
			r.goroutines, r.hasG = m["go_goroutines"]
			r.rss, r.hasRSS = m["process_resident_memory_bytes"]
			r.calls, r.hasCalls = m["adsmcp_tool_calls_total"]
			if _, adsmcp := m["adsmcp_build_info"]; adsmcp {
				r.hasCalls = true // no call yet: the counter has no series
			}
			if !r.hasG {
				s.note("metrics: no go_goroutines at " + s.metricsURL)
			}
		}
	}
	if !r.hasRSS && s.pid > 0 {
		if v, err := ProcRSS(s.pid); err == nil {
			r.rss, r.hasRSS, r.rssFromProc = float64(v), true, true
		} else {
			s.note("RSS: " + err.Error())
		}
	}
	return r
}

func (s *sampler) scrape(ctx context.Context) (map[string]float64, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.metricsURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, resp.Body)
		return nil, fmt.Errorf("GET %s: %s", s.metricsURL, resp.Status)
	}
	return ParseMetrics(resp.Body, "go_goroutines", "process_resident_memory_bytes", "adsmcp_tool_calls_total", "adsmcp_build_info")
}

func (s *sampler) before(ctx context.Context) {
	if s.enabled() {
		r := s.read(ctx)
		s.pre = &r
	}
}

func (s *sampler) after(ctx context.Context) {
	if s.enabled() {
		// Let the server notice the closed sessions and connections.
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
		r := s.read(ctx)
		s.post = &r
	}
}

// run samples every period until ctx ends.
func (s *sampler) run(ctx context.Context, start time.Time) {
	if !s.enabled() {
		return
	}
	t := time.NewTicker(s.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r := s.read(ctx)
			if ctx.Err() != nil {
				return
			}
			s.mu.Lock()
			s.load = append(s.load, r)
			s.mu.Unlock()
		}
	}
}

// toolCalls is the server's count of tool calls during the run (the change
// of adsmcp_tool_calls_total from before to after), or -1 if unknown.
func (s *sampler) toolCalls() float64 {
	if s.pre == nil || s.post == nil || !s.pre.hasCalls || !s.post.hasCalls {
		return -1
	}
	return s.post.calls - s.pre.calls
}

// series builds the goroutine and RSS series (nil when never read).
func (s *sampler) series(opts Options, start time.Time) (g, rss *Series) {
	if !s.enabled() {
		return nil, nil
	}
	build := func(name string, get func(reading) (float64, bool), slack float64) *Series {
		out := &Series{Name: name}
		for _, r := range s.load {
			if v, ok := get(r); ok {
				out.Samples = append(out.Samples, Sample{At: r.at.Sub(start), Value: v})
			}
		}
		if s.pre != nil {
			out.Before, out.HasBefore = get(*s.pre)
		}
		if s.post != nil {
			out.After, out.HasAfter = get(*s.post)
		}
		if len(out.Samples) == 0 && !out.HasBefore {
			return nil
		}
		out.verdict(opts.WarmUp, opts.GrowthFactor, slack)
		return out
	}
	g = build("goroutines", func(r reading) (float64, bool) { return r.goroutines, r.hasG }, float64(opts.GoroutineSlack))
	rss = build("RSS", func(r reading) (float64, bool) { return r.rss, r.hasRSS }, float64(opts.RSSSlack))
	if g != nil {
		g.Source = s.metricsURL
	}
	if rss != nil {
		rss.Source = s.metricsURL
		for _, r := range s.load {
			if r.rssFromProc {
				rss.Source = fmt.Sprintf("/proc/%d/status", s.pid)
				break
			}
		}
	}
	return g, rss
}

// verdict sets First, Last, Max, Limit, Flat and Known from the samples.
func (s *Series) verdict(warmUp time.Duration, factor, slack float64) {
	var after []float64
	for _, p := range s.Samples {
		s.Max = max(s.Max, p.Value)
		if p.At >= warmUp {
			after = append(after, p.Value)
		}
	}
	if len(after) < 2 {
		return
	}
	k := min(3, len(after)/2)
	s.First, s.Last = median(after[:k]), median(after[len(after)-k:])
	s.Limit = s.First*factor + slack
	s.Flat, s.Known = s.Last <= s.Limit, true
}

func median(v []float64) float64 {
	c := append([]float64(nil), v...)
	for i := 1; i < len(c); i++ { // a few values: insertion sort
		for j := i; j > 0 && c[j] < c[j-1]; j-- {
			c[j], c[j-1] = c[j-1], c[j]
		}
	}
	n := len(c)
	if n%2 == 1 {
		return c[n/2]
	}
	return (c[n/2-1] + c[n/2]) / 2
}

// ParseMetrics reads the Prometheus text format and returns the named
// metrics, each summed over its label sets.
func ParseMetrics(r io.Reader, names ...string) (map[string]float64, error) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		name, rest := line, ""
		if i := strings.IndexAny(line, "{ "); i >= 0 {
			name, rest = line[:i], line[i:]
		}
		if !want[name] {
			continue
		}
		if strings.HasPrefix(rest, "{") {
			j := strings.LastIndex(rest, "}")
			if j < 0 {
				continue
			}
			rest = rest[j+1:]
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			continue
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			continue
		}
		out[name] += v
	}
	return out, sc.Err()
}

// ProcRSS is the resident memory of process pid in bytes, from
// /proc/PID/status (Linux only).
func ProcRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				if err == nil {
					return kb << 10, nil
				}
			}
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}
