package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/adsmcp/adsmcp/internal/loadgen"
)

// loadQuery is a call `adsmcp load --mix` can name.
type loadQuery struct {
	name, tool, args, about string
	expectError             bool // its isError answer is the right one
}

// loadQueries are the calls `adsmcp load --mix` can name: the queries of
// docs/benchmarks.md on the demo data (whose account ids are the same at
// every seed and scale).
var loadQueries = []loadQuery{
	{"small", "query", `{"account_ids":["act_4409187263550918","act_6630418825197342","act_1015823746512093","act_5521093847612239","617-204-8851","482-915-3307"],` +
		`"metrics":["spend","clicks","ctr"],"dimensions":["account_name"],"date_preset":"last_7d"}`,
		"spend, clicks, ctr by account_name, last 7 days, six accounts (6 rows)", false},
	{"flagship", "query", `{"account_ids":["617-204-8851","856-430-2291","482-915-3307","725-118-6403","309-772-1946",` +
		`"act_4409187263550918","act_3376015298441067","act_6630418825197342","act_2284619037465520","act_1015823746512093"],` +
		`"date_preset":"last_90d","dimensions":["campaign_name"],"metrics":["spend","impressions","clicks","ctr","conversions"],"time_granularity":"daily"}`,
		"daily × campaign_name, last 90 days, ten accounts\n            (16,590 rows on the full demo warehouse, fitted to the budget)", false},
	{"worst", "query", `{"platforms":["meta_ads","tiktok_ads"],"dimensions":["ad_name","country"],` +
		`"metrics":["spend","clicks","impressions","conversions"],"time_granularity":"daily","date_range":{"start":"2024-12-01","end":"2026-11-30"}}`,
		"every ad × country of nine accounts, daily, two years: the worst case\n            (Meta reports no finer delivery: counted and summarized in the warehouse,\n            data_too_large)", false},
	{"accounts", "list_accounts", `{}`, "list_accounts", false},
	{"fields", "list_fields", `{}`, "list_fields", false},
	{"invalid", "query", `{"metrics":["spend"],"date_preset":"yesterweek"}`,
		"a query rejected as invalid_query: the MCP layer's own cost\n            (its isError answer is the expected one)", true},
}

type loadFlags struct {
	url, mix, client, metrics string
	headers                   []string
	sessions, maxCalls, pid   int
	duration, every, warmUp   time.Duration
	callTimeout               time.Duration
	asJSON                    bool
}

func newLoadCommand() *cobra.Command {
	f := &loadFlags{}
	var mixHelp strings.Builder
	for _, q := range loadQueries {
		fmt.Fprintf(&mixHelp, "  %-9s %s\n", q.name, q.about)
	}
	cmd := &cobra.Command{
		Use:   "load --url http://127.0.0.1:PORT/mcp",
		Short: "Load-test an adsmcp HTTP server on this machine: throughput, latency, errors, memory",
		Long: `Runs concurrent MCP sessions against a streamable HTTP server (adsmcp serve --http)
for a while, each session a separate go-sdk client with its own connections,
calling a mix of tools, and prints throughput, median and p99 latency per kind
of call, errors by type (transport errors apart from isError answers), and the
server's goroutines and memory over the run with a verdict: flat, or growing.

Only loopback addresses (127.0.0.1, ::1, localhost) are accepted: never load a
server you do not run. The load is bounded by --duration and --max-calls.

--mix picks calls at random by weight, from these queries on the demo data
(with --today 2026-03-15 on the server for a warehouse anchored there, e.g.
adsmcp demo --anchor 2026-03-15):

` + mixHelp.String() + `
--metrics is the server's Prometheus endpoint (go_goroutines,
process_resident_memory_bytes); --pid reads the server's memory from
/proc/PID/status instead (Linux, same machine). Without either, the server
is not sampled. The exit status is 1 when any call failed.`,
		Example: `  adsmcp serve --http 127.0.0.1:8080 --today 2026-03-15 &
  adsmcp load --url http://127.0.0.1:8080/mcp --sessions 8 --duration 60s --mix small=9,flagship=1 \
    --metrics http://127.0.0.1:8080/metrics
  adsmcp load --url http://127.0.0.1:8080/mcp --header "Authorization: Bearer $ADSMCP_KEY" --pid $(pgrep -n adsmcp)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts, err := f.options()
			if err != nil {
				return err
			}
			rep, err := loadgen.Run(cmd.Context(), opts)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if f.asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else {
				fmt.Fprint(out, rep.String())
			}
			if n := rep.Errors(); n > 0 {
				return fmt.Errorf("load: %d of %d calls failed", n, rep.Calls)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.url, "url", "", "the server's MCP endpoint, e.g. http://127.0.0.1:8080/mcp (loopback only)")
	fl.IntVar(&f.sessions, "sessions", loadgen.DefaultSessions, "concurrent MCP sessions")
	fl.DurationVar(&f.duration, "duration", loadgen.DefaultDuration, "how long to start new calls (calls in flight then finish)")
	fl.IntVar(&f.maxCalls, "max-calls", 1_000_000, "most calls in all")
	fl.StringVar(&f.mix, "mix", "small=9,flagship=1", "calls to make, as name=weight,… (names above)")
	fl.StringVar(&f.client, "client", loadgen.DefaultClientName, "client name the sessions announce (it picks the token budget)")
	fl.StringArrayVar(&f.headers, "header", nil, `header for every MCP request, as "Name: value" (e.g. "Authorization: Bearer …"); repeatable`)
	fl.StringVar(&f.metrics, "metrics", "", "the server's Prometheus metrics URL, e.g. http://127.0.0.1:8080/metrics (optional)")
	fl.IntVar(&f.pid, "pid", 0, "the server's process id, to read its memory from /proc when there are no metrics (optional)")
	fl.DurationVar(&f.every, "sample-every", loadgen.DefaultSampleEvery, "how often to sample the server's goroutines and memory")
	fl.DurationVar(&f.warmUp, "warm-up", 0, "start of the run the flatness verdict ignores (default a fifth of --duration, at most 10s)")
	fl.DurationVar(&f.callTimeout, "call-timeout", loadgen.DefaultCallTimeout, "give up on one call after this long")
	fl.BoolVar(&f.asJSON, "json", false, "print the report as JSON (with every sample)")
	cmd.MarkFlagRequired("url")
	return cmd
}

func (f *loadFlags) options() (loadgen.Options, error) {
	if !loadgen.IsLoopback(f.url) {
		return loadgen.Options{}, fmt.Errorf("--url %q: want http://127.0.0.1:PORT/mcp (or another loopback address): load tests never leave this machine", f.url)
	}
	if f.metrics != "" && !loadgen.IsLoopback(f.metrics) {
		return loadgen.Options{}, fmt.Errorf("--metrics %q: want a loopback URL such as http://127.0.0.1:8080/metrics", f.metrics)
	}
	if f.sessions < 1 || f.sessions > 1024 {
		return loadgen.Options{}, fmt.Errorf("--sessions %d: want 1 to 1024", f.sessions)
	}
	if f.duration <= 0 || f.maxCalls < 1 {
		return loadgen.Options{}, fmt.Errorf("--duration and --max-calls must be positive")
	}
	mix, err := parseMix(f.mix)
	if err != nil {
		return loadgen.Options{}, err
	}
	header := http.Header{}
	for _, h := range f.headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" || strings.ContainsAny(strings.TrimSpace(name), " \t") {
			return loadgen.Options{}, fmt.Errorf(`--header: want "Name: value", e.g. "Authorization: Bearer …"`)
		}
		header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	return loadgen.Options{
		URL: f.url, Sessions: f.sessions, Duration: f.duration, MaxCalls: f.maxCalls, Mix: mix,
		ClientName: f.client, Header: header, MetricsURL: f.metrics, PID: f.pid,
		SampleEvery: f.every, WarmUp: f.warmUp, CallTimeout: f.callTimeout,
	}, nil
}

// parseMix reads name=weight,… over loadQueries.
func parseMix(s string) ([]loadgen.Call, error) {
	var out []loadgen.Call
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, w, ok := strings.Cut(part, "=")
		weight := 1
		if ok {
			n, err := strconv.Atoi(strings.TrimSpace(w))
			if err != nil || n < 1 {
				return nil, fmt.Errorf("--mix %q: weights are whole numbers ≥ 1", part)
			}
			weight = n
		}
		name = strings.TrimSpace(name)
		i := slices.IndexFunc(loadQueries, func(q loadQuery) bool { return q.name == name })
		if i < 0 {
			var names []string
			for _, q := range loadQueries {
				names = append(names, q.name)
			}
			return nil, fmt.Errorf("--mix: no query named %q (there are %s)", name, strings.Join(names, ", "))
		}
		q := loadQueries[i]
		out = append(out, loadgen.Call{Name: q.name, Tool: q.tool, Args: json.RawMessage(q.args), Weight: weight, ExpectError: q.expectError})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--mix %q: name at least one query, e.g. small=9,flagship=1", s)
	}
	return out, nil
}
