package loadgen

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// MixEntry is a kind of call of the run, as the report names it.
type MixEntry struct {
	Name   string `json:"name"`
	Tool   string `json:"tool"`
	Weight int    `json:"weight"`
}

// Report is what a run measured.
type Report struct {
	URL      string        `json:"url"`
	Sessions int           `json:"sessions"`
	Client   string        `json:"client"`
	Duration time.Duration `json:"duration"`
	MaxCalls int           `json:"max_calls,omitempty"`
	Mix      []MixEntry    `json:"mix"`
	// Elapsed is from the first call to the last one's end.
	Elapsed time.Duration `json:"elapsed"`
	// Calls finished (answers and errors; cut calls apart).
	Calls int `json:"calls"`
	// OK calls: well-formed answers of the expected kind.
	OK int `json:"ok"`
	// TransportErrors are calls with no answer, by class (http_503,
	// connection_refused, call_timeout, jsonrpc_-32602…).
	TransportErrors map[string]int `json:"transport_errors"`
	// ToolErrors are unexpected isError answers, by type (timeout,
	// invalid_query, rate_limited…).
	ToolErrors map[string]int `json:"tool_errors"`
	// Malformed answers (truncated JSON, a missing data block…).
	Malformed int `json:"malformed"`
	// Cut calls were in flight when the run ended; not errors.
	Cut int `json:"cut"`
	// SessionErrors are sessions that did not connect.
	SessionErrors int `json:"session_errors"`
	// Throughput is OK calls per second of Elapsed.
	Throughput float64 `json:"throughput"`
	// Kinds are per kind of call, in mix order, then "all".
	Kinds []KindStats `json:"kinds"`
	// Goroutines and RSS (bytes) of the server, when sampled.
	Goroutines *Series `json:"goroutines,omitempty"`
	RSS        *Series `json:"rss,omitempty"`
	// ServerToolCalls is the server's own count of the run's calls
	// (adsmcp_tool_calls_total), -1 when it has no metrics.
	ServerToolCalls float64  `json:"server_tool_calls"`
	Notes           []string `json:"notes,omitempty"`
}

// KindStats are one kind's figures. Latencies are of answered calls (OK,
// isError and malformed answers), not of transport errors.
type KindStats struct {
	Name       string        `json:"name"`
	Calls      int           `json:"calls"`
	OK         int           `json:"ok"`
	Errors     int           `json:"errors"`
	Throughput float64       `json:"throughput"`
	P50        time.Duration `json:"p50"`
	P90        time.Duration `json:"p90"`
	P99        time.Duration `json:"p99"`
	Max        time.Duration `json:"max"`
	// Bytes is the median answer size.
	Bytes int `json:"bytes"`
}

// Errors counts the calls that failed: transport errors, unexpected isError
// answers and malformed answers.
func (r *Report) Errors() int {
	n := r.Malformed
	for _, v := range r.TransportErrors {
		n += v
	}
	for _, v := range r.ToolErrors {
		n += v
	}
	return n
}

// Flat reports whether every sampled series stayed flat (true when nothing
// was sampled or too little for a verdict).
func (r *Report) Flat() bool {
	for _, s := range []*Series{r.Goroutines, r.RSS} {
		if s != nil && s.Known && !s.Flat {
			return false
		}
	}
	return true
}

func (r *Report) tally(all []Result, opts Options) {
	var first, last time.Time
	byKind := map[string][]Result{}
	for _, res := range all {
		if res.Outcome == Cut {
			r.Cut++
			continue
		}
		if first.IsZero() || res.Start.Before(first) {
			first = res.Start
		}
		if res.End.After(last) {
			last = res.End
		}
		r.Calls++
		switch res.Outcome {
		case OK:
			r.OK++
		case ToolError:
			r.ToolErrors[res.Type]++
		case Malformed:
			r.Malformed++
		case TransportError:
			r.TransportErrors[res.Type]++
		}
		byKind[res.Kind] = append(byKind[res.Kind], res)
	}
	if !first.IsZero() {
		r.Elapsed = last.Sub(first)
	}
	secs := r.Elapsed.Seconds()
	if secs > 0 {
		r.Throughput = float64(r.OK) / secs
	}
	var names []string
	for _, c := range opts.Mix {
		if !slices.Contains(names, c.Name) {
			names = append(names, c.Name)
		}
	}
	for _, n := range names {
		r.Kinds = append(r.Kinds, kindStats(n, byKind[n], secs))
	}
	if len(names) > 1 {
		var every []Result
		for _, n := range names {
			every = append(every, byKind[n]...)
		}
		r.Kinds = append(r.Kinds, kindStats("all", every, secs))
	}
}

func kindStats(name string, rs []Result, secs float64) KindStats {
	k := KindStats{Name: name, Calls: len(rs)}
	var lat []time.Duration
	var sizes []int
	for _, r := range rs {
		if r.Outcome == OK {
			k.OK++
		} else {
			k.Errors++
		}
		if r.Outcome != TransportError {
			lat = append(lat, r.Latency())
			sizes = append(sizes, r.Bytes)
		}
	}
	if secs > 0 {
		k.Throughput = float64(k.OK) / secs
	}
	if len(lat) > 0 {
		slices.Sort(lat)
		slices.Sort(sizes)
		k.P50, k.P90, k.P99, k.Max = Percentile(lat, 50), Percentile(lat, 90), Percentile(lat, 99), lat[len(lat)-1]
		k.Bytes = sizes[len(sizes)/2]
	}
	return k
}

// Percentile is the nearest-rank percentile of sorted durations (as
// internal/mcpserver's benchmarks compute it).
func Percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	return sorted[max(i, 1)-1]
}

// String is the report as Markdown: a summary line, a latency table per kind,
// the errors by type, and the server's goroutines and RSS.
func (r *Report) String() string {
	var b strings.Builder
	mix := make([]string, len(r.Mix))
	for i, m := range r.Mix {
		mix[i] = fmt.Sprintf("%s=%d", m.Name, m.Weight)
	}
	fmt.Fprintf(&b, "adsmcp load: %d sessions (%s) for %s against %s; mix %s",
		r.Sessions, r.Client, r.Duration, r.URL, strings.Join(mix, ","))
	if r.MaxCalls > 0 {
		fmt.Fprintf(&b, "; at most %s calls", thousands(r.MaxCalls))
	}
	b.WriteString("\n\n")
	fmt.Fprintf(&b, "%s calls in %.2f s: **%.1f calls/s**. Errors: %d transport, %d isError, %d malformed",
		thousands(r.Calls), r.Elapsed.Seconds(), r.Throughput, sum(r.TransportErrors), sum(r.ToolErrors), r.Malformed)
	if r.Cut > 0 {
		fmt.Fprintf(&b, "; %d cut at the end", r.Cut)
	}
	if r.SessionErrors > 0 {
		fmt.Fprintf(&b, "; %d sessions did not connect", r.SessionErrors)
	}
	if r.ServerToolCalls >= 0 {
		fmt.Fprintf(&b, "; the server counted %s tool calls", thousands(int(r.ServerToolCalls)))
	}
	b.WriteString(".\n\n")

	b.WriteString("| kind | calls | calls/s | errors | p50 | p90 | p99 | max | answer |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, k := range r.Kinds {
		fmt.Fprintf(&b, "| %s | %s | %.1f | %d | %s | %s | %s | %s | %s |\n", k.Name, thousands(k.Calls), k.Throughput,
			k.Errors, Ms(k.P50), Ms(k.P90), Ms(k.P99), Ms(k.Max), bytesText(float64(k.Bytes)))
	}
	for _, e := range []struct {
		what string
		m    map[string]int
	}{{"transport errors", r.TransportErrors}, {"isError answers", r.ToolErrors}} {
		if len(e.m) == 0 {
			continue
		}
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(e.m)) {
			parts = append(parts, fmt.Sprintf("%s %d", k, e.m[k]))
		}
		fmt.Fprintf(&b, "\n%s by type: %s\n", e.what, strings.Join(parts, ", "))
	}

	if r.Goroutines != nil || r.RSS != nil {
		b.WriteString("\n| server | before | first | last | max | after | verdict | read from |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|\n")
		for _, s := range []*Series{r.Goroutines, r.RSS} {
			if s == nil {
				continue
			}
			f := func(v float64) string { return fmt.Sprintf("%.0f", v) }
			if s.Name == "RSS" {
				f = bytesText
			}
			opt := func(v float64, ok bool) string {
				if !ok {
					return "–"
				}
				return f(v)
			}
			verdict := "too few samples"
			if s.Known {
				verdict = fmt.Sprintf("flat (≤ %s)", f(s.Limit))
				if !s.Flat {
					verdict = fmt.Sprintf("**GROWING** (> %s)", f(s.Limit))
				}
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", s.Name, opt(s.Before, s.HasBefore),
				opt(s.First, s.Known), opt(s.Last, s.Known), f(s.Max), opt(s.After, s.HasAfter), verdict, s.Source)
		}
		b.WriteString("\n(first, last: medians of the first three samples after the warm-up and of the last three; before and after: with no session open)\n")
		for _, s := range []*Series{r.Goroutines, r.RSS} {
			if s != nil && len(s.Samples) > 0 {
				fmt.Fprintf(&b, "\n%s over the run: %s\n", s.Name, s.timeline(12))
			}
		}
	}
	if r.Goroutines == nil {
		b.WriteString("\nServer goroutines: not sampled (no metrics endpoint with go_goroutines).\n")
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "\nNote: %s\n", n)
	}
	return b.String()
}

// timeline is up to n evenly spaced samples, as "2s 61 · 7s 64 · …".
func (s *Series) timeline(n int) string {
	span := s.Samples[len(s.Samples)-1].At
	var parts []string
	last := -1
	for i := range n {
		j := i * (len(s.Samples) - 1) / max(n-1, 1)
		if j == last {
			continue
		}
		last = j
		p := s.Samples[j]
		at := fmt.Sprintf("%.0fs", p.At.Seconds())
		if span < 20*time.Second {
			at = fmt.Sprintf("%.1fs", p.At.Seconds())
		}
		v := fmt.Sprintf("%.0f", p.Value)
		if s.Name == "RSS" {
			v = fmt.Sprintf("%.0f MiB", p.Value/(1<<20))
		}
		parts = append(parts, at+" "+v)
	}
	return strings.Join(parts, " · ")
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// Ms writes a duration in milliseconds with three significant digits.
func Ms(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case d == 0:
		return "–"
	case ms >= 100:
		return fmt.Sprintf("%.0f ms", ms)
	case ms >= 10:
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.2f ms", ms)
}

func bytesText(v float64) string {
	switch {
	case v >= 1<<20:
		return fmt.Sprintf("%.1f MiB", v/(1<<20))
	case v >= 1<<10:
		return fmt.Sprintf("%.1f KiB", v/(1<<10))
	}
	return fmt.Sprintf("%.0f B", v)
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}
