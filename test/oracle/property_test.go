package oracle

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/adsmcp/adsmcp/internal/catalog"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/answer"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/test/skipreport"
)

var (
	flagCases = flag.Int("oracle.cases", 500, "random queries to run")
	flagSeed  = flag.Uint64("oracle.seed", 12, "seed of the random queries")
	flagShow  = flag.Int("oracle.show", 0, "failing cases to print per invariant beyond one per failure class")
	flagBlock = flag.Int("oracle.block", 1200, "characters of the answer's first block to print")
	// The invariant orders dimensions by byte order (the empty value first); the
	// SQL sorts NULLs last. This flag makes the oracle sort empty values last, to
	// see the other failure classes without this one.
	flagEmptyLast = flag.Bool("oracle.empty_last", true, "sort empty dimension values last (docs/query.md: byte order, empty values last); false: plain byte order (empty first)")
	flagArgs      = flag.String("oracle.args", "", "TestOne: the query arguments (JSON) to run and compare")
	flagClient    = flag.String("oracle.client", "", "TestOne: the client name")
	flagBudget    = flag.Int("oracle.budget", 0, "TestOne: Request.Budget")
)

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(duckdbtest.Main(m))
}

var (
	dataOnce sync.Once
	data     *Data
	dataErr  error
)

func oracleData(t testing.TB) *Data {
	t.Helper()
	dataOnce.Do(func() {
		if data, dataErr = Load(context.Background(), duckdbtest.Config); dataErr == nil && liveSource() {
			data.asLive()
		}
	})
	if dataErr != nil {
		t.Fatal(dataErr)
	}
	return data
}

// tcase is one call and its answer.
type tcase struct {
	name   string
	call   *call
	args   []byte
	res    *answer.Result
	tokens int // exact o200k count of all blocks
	limit  int // the budget the answer must fit
	limits clientLimits

	head     *headJSON
	meta     *metaJSON
	q        *Query
	echo     *echoJSON
	userDims []string
	tab      *table
	problem  string // the answer could not be read

	parent *tcase
	sugg   *suggestionJSON
	kids   []*tcase
	exp    *expectation
	cmp    *cmpData // a comparison's answer, read (compare_test.go)
}

func (c *tcase) isCSV() bool  { return c.head != nil && c.head.Type == "" && c.tab != nil }
func (c *tcase) isSumm() bool { return c.head != nil && c.head.Type == "data_too_large" }

// clientLimits is what a client keeps of an answer, from docs/clients.md's
// table (written here again, not imported: the oracle shares no code with
// what it checks). client is "name" or "name/version".
type clientLimits struct {
	tokens      int // the announced budget
	bytes       int // of the text joined by newlines, or of the content array's JSON
	lines       int
	errorChars  int // UTF-16 units of an error's text
	jsonContent bool
	// untrusted: the client measures each block on its own, wrapped as
	// Gemini CLI wraps it, in UTF-16 units; bytes is then that client's own
	// threshold, not adsmcp's margin below it.
	untrusted bool
}

func limitsOf(client string) clientLimits {
	name, version, _ := strings.Cut(client, "/")
	atLeast := func(min string) bool {
		var a, b [3]int
		if n, _ := fmt.Sscanf(version, "%d.%d.%d", &a[0], &a[1], &a[2]); n != 3 || strings.ContainsAny(version, "-+") {
			return false
		}
		fmt.Sscanf(min, "%d.%d.%d", &b[0], &b[1], &b[2])
		return slices.Compare(a[:], b[:]) >= 0
	}
	switch strings.ToLower(name) {
	case "claude-code":
		if atLeast("2.1.97") {
			return clientLimits{tokens: 80000, bytes: 190000, errorChars: 10000}
		}
		return clientLimits{tokens: 25000, bytes: 49000, errorChars: 10000}
	case "claude-ai":
		return clientLimits{tokens: 30000, bytes: 140000}
	case "chatgpt", "openai-mcp":
		return clientLimits{tokens: 80000}
	case "codex-mcp-client", "codex":
		if atLeast("0.171.0") {
			return clientLimits{tokens: 9000, bytes: 36000, jsonContent: true}
		}
		return clientLimits{tokens: 8000, bytes: 9500, lines: 250, jsonContent: true}
	case "github-copilot-developer":
		return clientLimits{tokens: 4000, bytes: 9500}
	case "gemini-cli-mcp-client":
		// From 0.33.0 (and for a version it cannot read, which may be one)
		// Gemini CLI keeps 40,000 characters of a one-part MCP result and
		// cuts the middle; before, it kept every MCP result whole.
		if !atLeast("0.33.0") && atLeast("0.0.0") {
			return clientLimits{tokens: 30000}
		}
		return clientLimits{tokens: 16000, bytes: 40000, untrusted: true}
	}
	return clientLimits{tokens: 30000}
}

// extent measures blocks as a client with l's limits counts them.
func (l clientLimits) extent(blocks []string) (bytes, lines, chars int) {
	text := strings.Join(blocks, "\n")
	bytes, lines = len(text), strings.Count(text, "\n")+1
	chars = len(utf16.Encode([]rune(text)))
	if l.jsonContent {
		var content []map[string]string
		for _, b := range blocks {
			content = append(content, map[string]string{"type": "text", "text": b})
		}
		var buf strings.Builder
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.Encode(content)
		bytes = len(strings.TrimSuffix(buf.String(), "\n"))
	}
	if l.untrusted {
		// Gemini CLI (packages/core/src/tools/mcp-tool.ts, wrapUntrusted, from
		// 0.51.0) gives each text block as
		// "<untrusted_context>\n" + text + "\n</untrusted_context>" with the
		// closing tag escaped inside; it measures JavaScript string length.
		bytes = 0
		for _, b := range blocks {
			w := "<untrusted_context>\n" + strings.ReplaceAll(b, "</untrusted_context>", "&lt;/untrusted_context&gt;") + "\n</untrusted_context>"
			bytes += len(utf16.Encode([]rune(w)))
		}
	}
	return bytes, lines, chars
}

var counter = fit.NewO200k()

func run(t *testing.T, e *answer.Engine, name string, c *call, args []byte) *tcase {
	tc := &tcase{name: name, call: c, args: args}
	res, err := e.Query(context.Background(), answer.Request{Args: args, Client: c.Client, Budget: c.Budget})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	tc.res = res
	for _, b := range res.Blocks {
		tc.tokens += counter.Exact(b)
	}
	tc.limits = limitsOf(c.Client)
	tc.limit = tc.limits.tokens
	if c.Budget > 0 {
		tc.limit = c.Budget
	}
	if c.ArgBudget > 0 && c.ArgBudget < tc.limit {
		tc.limit = c.ArgBudget
	}
	if len(res.Blocks) == 0 {
		tc.problem = "no blocks"
		return tc
	}
	var h headJSON
	if err := json.Unmarshal([]byte(res.Blocks[0]), &h); err != nil {
		tc.problem = "block 0 is not JSON: " + err.Error()
		return tc
	}
	tc.head, tc.meta = &h, h.Meta
	if tc.meta == nil || len(tc.meta.Query) == 0 {
		if h.Type == "" && (tc.meta == nil || len(tc.meta.opts("query_echo_omitted")) == 0) {
			tc.problem = "no _meta.query"
		}
		// An echo left out to fit the budget (query_echo_omitted) is allowed:
		// the answer is checked against its budget only.
		return tc
	}
	tc.fromEcho(tc.meta.Query)
	return tc
}

// fromEcho reads the case's query from an echo (_meta.query) and, for a CSV
// answer, its rows.
func (tc *tcase) fromEcho(raw json.RawMessage) {
	q, echo, err := parseEcho(raw, tc.args)
	if err != nil {
		tc.problem = err.Error()
		return
	}
	tc.q, tc.echo = q, echo
	// Step 1 judges every dimension but currency and attribution_window,
	// which only say how the numbers are measured (docs/fit.md), whether
	// asked for or added.
	for _, d := range q.Dims {
		if !describing[d] {
			tc.userDims = append(tc.userDims, d)
		}
	}
	if tc.head.Type == "" {
		if len(tc.res.Blocks) < 2 {
			tc.problem = "a CSV answer without a CSV block"
			return
		}
		if tc.tab, err = parseCSV(tc.res.Blocks[1]); err != nil {
			tc.problem = "CSV: " + err.Error()
		}
	}
}

// describing are the dimensions docs/fit.md says step 1 never judges: they
// say how a row's numbers are measured, not what it breaks down.
var describing = map[string]bool{"currency": true, "attribution_window": true}

// invariant is one checked property; check returns the problems of a case, each
// starting with a class tag in brackets.
type invariant struct {
	name    string
	applies func(c *tcase) bool
	check   func(d *Data, c *tcase) []string
}

func TestProperty(t *testing.T) {
	property(t, &answer.Engine{Source: engineSource(t), Now: duckdbtest.Now}, *flagCases, false)
}

// TestPropertySizeFirst runs the random queries through the size-first path:
// every query the warehouse can count (no limit) is counted first, and one
// whose rows cannot fit is answered from a coarser grain it fetches, or
// summarized from aggregates — checked by the same invariants against the
// same oracle.
func TestPropertySizeFirst(t *testing.T) {
	warehouseOnly(t)
	src := &countedAggregates{Source: duckdbtest.Open(t)}
	cases := property(t, &answer.Engine{Source: src, Now: duckdbtest.Now, SizeFirstAbove: 1}, *flagCases, true)
	// The path was taken: answers from a grain the source was asked at
	// first, and summaries from the warehouse's aggregates.
	asked, summarized := 0, int(src.calls.Load())
	for _, c := range cases {
		if c.res != nil && len(c.res.Blocks) > 0 && strings.Contains(c.res.Blocks[0], "cannot fit (each row costs at least a token), so the source was asked at") {
			asked++
		}
	}
	t.Logf("size-first: %d answers from a coarser grain asked first, %d summaries from aggregates", asked, summarized)
	if asked == 0 || summarized == 0 {
		t.Errorf("the size-first path was not exercised: %d answers asked at a coarser grain, %d summaries", asked, summarized)
	}
}

// countedAggregates is the warehouse counting the summaries it computes from
// aggregates.
type countedAggregates struct {
	*duckdb.Source
	calls atomic.Int32
}

func (c *countedAggregates) Aggregates(ctx context.Context, q *query.Query) (*fit.Aggregates, error) {
	c.calls.Add(1)
	return c.Source.Aggregates(ctx, q)
}

func property(t *testing.T, e *answer.Engine, ncases int, smallBudgets bool) []*tcase {
	d := oracleData(t)
	g := newGen(*flagSeed, d)
	g.smallBudgets = smallBudgets
	breakdownTally = tally{}
	started := time.Now()
	var cases []*tcase
	kinds := map[string]int{}
	invalid := map[string]int{}
	skipped := map[string]int{}
	defer func() {
		if len(skipped) > 0 {
			t.Logf("live answers whose numbers the oracle does not model, not checked: %v", skipped)
		}
	}()
	for i := 0; i < ncases; i++ {
		c := g.next()
		tc := run(t, e, fmt.Sprintf("#%d", i), c, c.JSON())
		if why := unmodelledLive(d, c.JSON()); why != "" {
			skipped[why]++
			continue
		}
		cases = append(cases, tc)
		kind := "csv"
		switch {
		case tc.head == nil:
			kind = "unreadable"
		case tc.head.Type != "":
			kind = tc.head.Type
		}
		kinds[kind]++
		if kind == "invalid_query" {
			var e struct {
				Problems []struct {
					Field   string `json:"field"`
					Problem string `json:"problem"`
				} `json:"problems"`
			}
			json.Unmarshal([]byte(tc.res.Blocks[0]), &e)
			for _, pr := range e.Problems {
				k := digits.ReplaceAllString(pr.Field+": "+pr.Problem, "N")
				if len(k) > 90 {
					k = k[:90]
				}
				invalid[k]++
			}
		}
		if tc.head != nil && tc.head.Type != "" && tc.head.Type != "data_too_large" && kinds[kind] <= 3 {
			t.Logf("%s answered %s: %s\n  %.600s", tc.name, kind, tc.args, tc.res.Blocks[0])
		}
		if tc.isSumm() && tc.head.RequeryInstructions != nil {
			for j, s := range tc.head.RequeryInstructions.Suggestions {
				kc := &call{Client: c.Client, Budget: c.Budget}
				var sa echoJSON
				json.Unmarshal(s.Query, &sa)
				kc.ArgBudget = sa.TokenBudget
				k := run(t, e, fmt.Sprintf("%s.s%d", tc.name, j), kc, s.Query)
				k.parent, k.sugg = tc, &tc.head.RequeryInstructions.Suggestions[j]
				tc.kids = append(tc.kids, k)
				cases = append(cases, k)
			}
		}
	}
	t.Logf("%d calls (%d generated) in %v: %v", len(cases), ncases, time.Since(started).Round(time.Millisecond), kinds)
	grains := map[string]int{} // requested→returned, of the CSV answers
	for _, c := range cases {
		if c.isCSV() && c.meta.TimeGranularity != nil {
			grains[c.meta.TimeGranularity.Requested+"→"+c.meta.TimeGranularity.Returned]++
		}
	}
	t.Logf("grains of the CSV answers: %v", grains)
	logProvenance(t, cases)
	logSetCoverage(t, d, cases)
	logDescribedCoverage(t, d, cases)
	if len(invalid) > 0 {
		t.Logf("invalid_query problems: %v", invalid)
	}
	for _, c := range cases {
		if c.problem != "" {
			t.Errorf("%s: unreadable answer: %s\n%s", c.name, c.problem, describe(c))
		}
	}
	checkInvariants(t, d, cases, invariants)
	logBreakdownTally(t, ncases)
	return cases
}

// checkInvariants runs each invariant on the cases it applies to, as a
// subtest that reports its failure classes and, for each class, the smallest
// failing case (and up to -oracle.show more).
func checkInvariants(t *testing.T, d *Data, cases []*tcase, invs []invariant) {
	for _, inv := range invs {
		t.Run(inv.name, func(t *testing.T) {
			var failed []*tcase
			var probs [][]string
			classes := map[string]int{}
			n := 0
			for _, c := range cases {
				if c.problem != "" || !inv.applies(c) {
					continue
				}
				n++
				p := inv.check(d, c)
				if len(p) == 0 {
					continue
				}
				failed = append(failed, c)
				probs = append(probs, p)
				seen := map[string]bool{}
				for _, s := range p {
					cl := classOf(s)
					if !seen[cl] {
						seen[cl] = true
						classes[cl]++
					}
				}
			}
			if inv.name == "a_rows" {
				t.Logf("reach/frequency cells checked: %d (%d with a stored value)", reachCells, reachValues)
			}
			if len(failed) == 0 {
				t.Logf("%d cases hold", n)
				return
			}
			var cl []string
			for k, v := range classes {
				cl = append(cl, fmt.Sprintf("%s×%d", k, v))
			}
			sort.Strings(cl)
			t.Errorf("%d of %d cases fail; classes: %s", len(failed), n, strings.Join(cl, ", "))
			// For each class, the smallest failing case; then up to -oracle.show more.
			order := make([]int, len(failed))
			for i := range order {
				order[i] = i
			}
			sort.SliceStable(order, func(a, b int) bool { return len(failed[order[a]].args) < len(failed[order[b]].args) })
			shown := map[string]bool{}
			extra := 0
			for _, i := range order {
				var mine []string
				for _, s := range probs[i] {
					if cl := classOf(s); !shown[cl] {
						shown[cl] = true
						mine = append(mine, s)
					}
				}
				if len(mine) == 0 {
					if extra >= *flagShow {
						continue
					}
					extra++
					mine = probs[i]
				}
				if len(mine) > 6 {
					mine = append(mine[:6:6], fmt.Sprintf("… and %d more", len(probs[i])-6))
				}
				t.Errorf("%s\n  %s\n%s", failed[i].name, strings.Join(mine, "\n  "), describe(failed[i]))
			}
		})
	}
}

var digits = regexp.MustCompile(`\d+`)

var classRE = regexp.MustCompile(`^\[([^\]]+)\]`)

func classOf(s string) string {
	if m := classRE.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return "?"
}

// describe prints what a developer needs to reproduce a case.
func describe(c *tcase) string {
	var b strings.Builder
	root := c
	if c.parent != nil {
		root = c.parent
		fmt.Fprintf(&b, "  suggestion %q of %s (expected_rows %d, token_estimate %d)\n", c.sugg.Description, c.parent.name, c.sugg.ExpectedRows, c.sugg.TokenEstimate)
		fmt.Fprintf(&b, "  %s's arguments: %s\n", c.parent.name, c.parent.args)
	}
	flags := ""
	if root.call.Client != "" {
		flags += " --client " + root.call.Client
	}
	if root.call.Budget > 0 {
		flags += fmt.Sprintf(" --budget %d", root.call.Budget)
	}
	fmt.Fprintf(&b, "  repro (duckdbtest warehouse, today %s): adsmcp query --today 2026-03-15%s --json '%s'\n", duckdbtest.Anchor.Format(time.DateOnly), flags, c.args)
	fmt.Fprintf(&b, "  answer: %d tokens (limit %d), block 0: %.*s\n", c.tokens, c.limit, *flagBlock, c.res.Blocks[0])
	if len(c.res.Blocks) > 1 {
		fmt.Fprintf(&b, "  block 1: %.*s\n", *flagBlock/3, c.res.Blocks[1])
	}
	return b.String()
}

// reachCells counts the reach and frequency cells checked (reachValues: with a stored value).
var reachCells, reachValues int

var invariants = []invariant{
	{"a_rows", (*tcase).isCSV, checkRows},
	{"b_reconcile", func(c *tcase) bool { return c.isCSV() && c.q.Limit == 0 }, checkReconcile},
	{"c_order", (*tcase).isCSV, checkOrder},
	{"d_limit", func(c *tcase) bool { return c.isCSV() && c.q.Limit > 0 }, checkLimit},
	{"e_budget", func(c *tcase) bool { return c.res != nil }, checkBudget},
	{"f_suggestions", func(c *tcase) bool { return c.sugg != nil }, checkSuggestion},
	{"g_warnings", func(c *tcase) bool { return c.q != nil && (c.isCSV() || c.isSumm()) }, checkWarnings},
	{"i_no_source_error", func(c *tcase) bool { return c.head != nil }, checkNoSourceError},
	{"j_summary", func(c *tcase) bool { return c.q != nil && c.isSumm() && c.q.Limit == 0 }, checkSummary},
	{"h_accounting", func(c *tcase) bool { return c.q != nil && (c.isCSV() || c.isSumm()) }, checkAccounting},
	{"k_refusals", func(c *tcase) bool { return c.parent == nil && c.head != nil }, checkRefusals},
	{"l_attribution", func(c *tcase) bool { return c.q != nil && (c.isCSV() || c.isSumm()) }, checkAttribution},
}

func (c *tcase) expectation(d *Data) *expectation {
	if c.exp == nil {
		ret := c.q.Grain
		if c.meta.TimeGranularity != nil && c.meta.TimeGranularity.Returned != "" {
			ret = c.meta.TimeGranularity.Returned
		}
		c.exp = d.expect(c.q, c.userDims, ret, c.meta.warning("filter_at_coarser_grain") != nil)
	}
	return c.exp
}

// csvGetter reads a CSV row.
func csvGetter(t *table, row []string, timeCol string) getter {
	return func(field string) (float64, string, bool) {
		name := field
		if timeFields[field] {
			name = timeCol
		}
		i := t.col(name)
		if i < 0 {
			return math.NaN(), "", isMetric(field)
		}
		if isMetric(field) {
			v, _ := cellValue(row[i])
			return v, "", true
		}
		return 0, row[i], false
	}
}

// rounded: a metric whose printed value is rounded (so equal cells may differ).
func rounded(f string) bool { return !Additive[f] || Money[f] }

func fmtNum(v float64) string {
	if math.IsNaN(v) {
		return "(empty)"
	}
	return fmt.Sprintf("%.6g", v)
}

func keyOf(timeVal string, dims []string) string {
	return timeVal + "\x1f" + strings.Join(dims, "\x1f")
}

func showKey(k string) string { return "[" + strings.ReplaceAll(k, "\x1f", " | ") + "]" }

// checkRows: (a) every CSV row equals the oracle's aggregate of what _meta says it is.
func checkRows(d *Data, c *tcase) []string {
	var p []string
	e := c.expectation(d)
	p = append(p, prefix("[grain-note] ", e.notes)...)
	t := c.tab
	timeCol := TimeColumn(e.R)
	want := []string{}
	if timeCol != "" {
		want = append(want, timeCol)
	}
	want = append(want, c.q.Dims...)
	for _, w := range want {
		if t.col(w) < 0 {
			p = append(p, fmt.Sprintf("[header] column %q missing from %v", w, t.header))
		}
	}
	if len(p) > 0 && t.col(timeCol) < 0 {
		return p
	}
	for _, m := range c.q.Metrics {
		if t.col(m) < 0 {
			explained := false
			for _, w := range c.meta.Warnings {
				if slices.Contains(w.Fields, m) {
					explained = true
				}
			}
			if !explained {
				p = append(p, fmt.Sprintf("[metric-missing] %s not in the CSV and no warning names it", m))
			}
		}
	}
	exp := map[string]*Row{}
	for _, r := range e.rows {
		exp[r.Key()] = r
	}
	got := map[string]bool{}
	for _, row := range t.rows {
		var tv string
		if timeCol != "" {
			tv = row[t.col(timeCol)]
		}
		dims := make([]string, len(c.q.Dims))
		for i, dname := range c.q.Dims {
			if j := t.col(dname); j >= 0 {
				dims[i] = row[j]
			}
		}
		k := keyOf(tv, dims)
		if got[k] {
			p = append(p, "[row-duplicate] "+showKey(k))
			continue
		}
		got[k] = true
		r := exp[k]
		if r == nil {
			cls := "[row-unexpected]"
			allEmpty := len(c.userDims) > 0
			for i, dname := range c.q.Dims {
				if slices.Contains(c.userDims, dname) && dims[i] != "" {
					allEmpty = false
				}
			}
			switch {
			case e.sel.curOnly > 0 && c.q.Limit > 0:
				cls = "[limit-boundary-explicit-currency]"
			case len(e.passedG.passed) == 0:
				cls = "[row-for-no-data]"
			case allEmpty:
				cls = "[row-empty-kept]"
			}
			p = append(p, cls+" "+showKey(k)+" "+strings.Join(row, ","))
			continue
		}
		for _, m := range c.q.Metrics {
			j := t.col(m)
			if j < 0 {
				continue
			}
			gv, err := cellValue(row[j])
			if err != nil {
				p = append(p, fmt.Sprintf("[cell-format] %s %s=%q", showKey(k), m, row[j]))
				continue
			}
			var wv float64
			switch m {
			case "reach", "frequency":
				reach, one, ok := d.ReachOf(c.q, r, e.R)
				if !ok {
					continue
				}
				reachCells++
				wv = math.NaN()
				if one {
					reachValues++
					wv = float64(reach)
					if m == "frequency" {
						wv = r.Sums.Impressions() / float64(reach)
					}
				}
			default:
				wv = Value(m, &r.Sums)
			}
			tol := 1e-9
			switch {
			case Money[m] && Additive[m]:
				tol = 0.0051
				if dec := decimals(row[j]); dec > 2 {
					p = append(p, fmt.Sprintf("[cell-digits] %s %s=%s has %d decimals (money: 2)", showKey(k), m, row[j], dec))
				}
			case !Additive[m] && m != "reach":
				tol = 0.000051 + math.Abs(wv)*1e-12
				if dec := decimals(row[j]); dec > 4 {
					p = append(p, fmt.Sprintf("[cell-digits] %s %s=%s has %d decimals (ratios: 4)", showKey(k), m, row[j], dec))
				}
			}
			switch {
			case math.IsNaN(gv) && math.IsNaN(wv):
			case math.IsNaN(gv) != math.IsNaN(wv) || math.Abs(gv-wv) > tol:
				cls := "[value]"
				if e.local {
					cls = "[value-rollup]"
				}
				if e.sel.curOnly > 0 && c.q.Limit > 0 {
					cls = "[limit-boundary-explicit-currency]"
				}
				if m == "reach" || m == "frequency" {
					cls = "[value-reach]"
				}
				p = append(p, fmt.Sprintf("%s %s %s: got %s, want %s", cls, showKey(k), m, row[j], fmtNum(wv)))
			}
		}
	}
	var missing, curOnly []string
	for _, r := range e.rows {
		if !got[r.Key()] {
			only := slices.Contains(c.userDims, "currency")
			for i, dname := range c.q.Dims {
				if dname != "currency" && slices.Contains(c.userDims, dname) && r.Dims[i] != "" {
					only = false
				}
			}
			if only {
				curOnly = append(curOnly, showKey(r.Key()))
			} else {
				missing = append(missing, showKey(r.Key()))
			}
		}
	}
	if len(curOnly) > 0 {
		p = append(p, "[row-missing-explicit-currency] rows whose only value is the requested currency: "+strings.Join(curOnly, " "))
	}
	if len(missing) > 0 {
		cls := "[row-missing]"
		if e.local {
			cls = "[row-missing-rollup]"
		}
		if len(missing) > 3 {
			missing = append(missing[:3], fmt.Sprintf("…(%d)", len(missing)))
		}
		p = append(p, cls+" "+strings.Join(missing, " "))
	}
	if len(t.rows) != c.meta.ReturnedRows {
		p = append(p, fmt.Sprintf("[returned-rows] _meta.returned_rows %d, CSV has %d", c.meta.ReturnedRows, len(t.rows)))
	}
	return p
}

func prefix(pre string, xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = pre + x
	}
	return out
}

// checkReconcile: (b) returned rows + reported removed totals = the oracle's
// totals of the selected rows, per currency.
func checkReconcile(d *Data, c *tcase) []string {
	var p []string
	e := c.expectation(d)
	t := c.tab
	ci := t.col("currency")
	bucket := func(cur string) string {
		if ci < 0 {
			return ""
		}
		return cur
	}
	var sums []string
	for _, m := range c.q.Metrics {
		if Additive[m] && t.col(m) >= 0 {
			sums = append(sums, m)
		}
	}
	if len(sums) == 0 {
		return nil
	}
	want, got := newCurrencyTotals(), newCurrencyTotals()
	for _, r := range e.sel.passed {
		for _, m := range sums {
			want.add(bucket(r.Currency()), m, Value(m, &r.Sums))
		}
	}
	for _, row := range t.rows {
		cur := ""
		if ci >= 0 {
			cur = row[ci]
		}
		got.rows[cur]++
		for _, m := range sums {
			v, _ := cellValue(row[t.col(m)])
			got.add(cur, m, v)
		}
	}
	// The removals at the grain the rows were selected at: the requested one,
	// or the coarse one of a re-query.
	vfs := c.meta.removals(e.R, e.G)
	if e.R != e.G && len(vfs) == 0 {
		vfs = c.meta.removals(e.G, e.G)
	}
	if len(e.sel.removed) > 0 && len(vfs) == 0 {
		p = append(p, fmt.Sprintf("[removed-unreported] the oracle has %d rows with every user dimension empty; no validation_filter", len(e.sel.removed)))
	}
	for _, vf := range vfs {
		if vf.RowsRemoved > 0 && len(vf.RemovedTotals) == 0 && len(e.sel.removed) > 0 {
			p = append(p, "[removed-totals-missing] validation_filter has no removed_totals")
		}
		got.addRemoved(vf.RemovedTotals, sums, bucket)
	}
	mismatches(want, got, sums, func(cur, m string, w, g float64) {
		cls := "[reconcile]"
		if len(e.sel.removed) == 0 && len(vfs) == 0 {
			cls = "[reconcile-nothing-removed]"
		}
		p = append(p, fmt.Sprintf(cls+" currency %q %s: returned+removed %.2f, oracle %.2f (diff %.2f; oracle removed %d rows)",
			cur, m, g, w, g-w, len(e.sel.removed)))
	})
	if deliveryReconciled(d, c.q) {
		tallyBreakdown(d, c.q, false, e.coarser, [2]time.Time{c.q.Start, c.q.End})
		mismatches(d.deliveryTotals(c.q, c.q.Start, c.q.End, sums, bucket), got, sums, func(cur, m string, w, g float64) {
			p = append(p, fmt.Sprintf("[reconcile-delivery] currency %q %s: returned+removed %.2f, the accounts' delivery rows %.2f (diff %.2f)",
				cur, m, g, w, g-w))
		})
	}
	return p
}

// checkOrder: (c) rows are in the requested order.
func checkOrder(d *Data, c *tcase) []string {
	var p []string
	t := c.tab
	e := c.expectation(d)
	timeCol := TimeColumn(e.R)
	ties := tieColumns(c.q, timeCol)
	if ci := t.col("currency"); ci >= 0 && sortsOnMoney(c.q) {
		curs := map[string]bool{}
		for _, r := range t.rows {
			curs[r[ci]] = true
		}
		// currency first, in the caller's direction when they gave one.
		if len(curs) > 1 && (len(c.q.Sort) == 0 || c.q.Sort[0].Field != "currency") {
			p = append(p, fmt.Sprintf("[currency-sort] sort on money over %d currencies, but _meta.query.sort does not start with currency: %v", len(curs), c.q.Sort))
		}
	}
	for i := 1; i < len(t.rows); i++ {
		cmp, ind := compareRows(csvGetter(t, t.rows[i-1], timeCol), csvGetter(t, t.rows[i], timeCol), c.q.Sort, ties, rounded)
		if !ind && cmp > 0 {
			cls := "[order]"
			if e.coarser {
				cls = "[order-coarsened]"
			}
			if !*flagEmptyLast {
				*flagEmptyLast = true
				cmp2, _ := compareRows(csvGetter(t, t.rows[i-1], timeCol), csvGetter(t, t.rows[i], timeCol), c.q.Sort, ties, rounded)
				*flagEmptyLast = false
				if cmp2 <= 0 {
					cls = "[order-empty-dim-last]"
				}
			}
			p = append(p, fmt.Sprintf("%s row %d before row %d: %s / %s (sort %v)", cls, i, i+1,
				strings.Join(t.rows[i-1], ","), strings.Join(t.rows[i], ","), c.q.Sort))
			break
		}
	}
	return p
}

// checkLimit: (d) limit N returns exactly min(N, qualifying) rows at the requested grain.
func checkLimit(d *Data, c *tcase) []string {
	var p []string
	e := c.expectation(d)
	s := e.sel
	want := len(s.kept)
	got := len(c.tab.rows)
	if e.local {
		if gcs := c.meta.opts("granularity_change"); len(gcs) > 0 {
			got = gcs[0].RowsBefore
		}
	}
	if got != want {
		if want == 0 && len(e.passedG.passed) == 0 {
			return append(p, fmt.Sprintf("[row-for-no-data] limit %d: the oracle has no rows, the answer has %d", c.q.Limit, got))
		}
		if s.curOnly > 0 && got >= want-s.curOnly && got < want {
			p = append(p, fmt.Sprintf("[limit-explicit-currency] limit %d: want %d rows, got %d; %d qualifying rows have only the requested currency", c.q.Limit, want, got, s.curOnly))
			return p
		}
		how := "global"
		if s.perCur {
			how = "per currency"
		}
		p = append(p, fmt.Sprintf("[limit-count] limit %d (%s) over %d qualifying rows (+%d empty): want %d rows, got %d", c.q.Limit, how, len(s.qualifying), len(s.removed), want, got))
	}
	if len(s.qualifying) > len(s.kept) && c.meta.RowsBeforeLimit == len(s.qualifying)-s.curOnly && s.curOnly > 0 {
		p = append(p, fmt.Sprintf("[limit-explicit-currency] rows_before_limit %d, want %d qualifying rows (%d have only the requested currency)", c.meta.RowsBeforeLimit, len(s.qualifying), s.curOnly))
	} else if len(s.qualifying) > len(s.kept) && c.meta.RowsBeforeLimit != len(s.qualifying) {
		p = append(p, fmt.Sprintf("[rows-before-limit] rows_before_limit %d, want %d qualifying rows", c.meta.RowsBeforeLimit, len(s.qualifying)))
	}
	if s.perCur {
		found := false
		for _, o := range c.meta.Optimizations {
			if strings.Contains(o.Type, "currency") && o.Type != "currency_column_added" || strings.Contains(strings.ToLower(o.Detail), "each currency") {
				found = true
			}
		}
		for _, w := range c.meta.Warnings {
			if strings.Contains(strings.ToLower(w.Detail), "currenc") {
				found = true
			}
		}
		if !found {
			p = append(p, "[limit-per-currency-unsaid] a money ranking over several currencies; nothing in _meta says the limit applies per currency")
		}
	}
	return p
}

// checkBudget: (e) no answer over budget by o200k.
func checkBudget(d *Data, c *tcase) []string {
	var p []string
	if c.tokens > c.limit {
		kind := "csv"
		if c.head != nil && c.head.Type != "" {
			kind = c.head.Type
		}
		if len(c.args) > 2000 {
			kind += "-long-args"
		}
		p = append(p, fmt.Sprintf("[over-budget-%s] %d tokens for a budget of %d (arguments: %d bytes)", kind, c.tokens, c.limit, len(c.args)))
	}
	if c.res != nil {
		l := c.limits
		bytes, lines, chars := l.extent(c.res.Blocks)
		switch {
		case l.bytes > 0 && bytes > l.bytes:
			p = append(p, fmt.Sprintf("[over-bytes] %d bytes for the client's %d (%s)", bytes, l.bytes, c.call.Client))
		case l.lines > 0 && lines > l.lines:
			p = append(p, fmt.Sprintf("[over-lines] %d lines for the client's %d (%s)", lines, l.lines, c.call.Client))
		case c.res.IsError && l.errorChars > 0 && chars > l.errorChars:
			p = append(p, fmt.Sprintf("[over-error-chars] an error of %d characters for the client's %d (%s)", chars, l.errorChars, c.call.Client))
		}
	}
	if c.meta != nil && c.meta.TokenBudget > 0 && c.tokens > c.meta.TokenBudget && c.meta.TokenBudget < c.limit {
		p = append(p, fmt.Sprintf("[over-meta-budget] %d tokens for _meta.token_budget %d", c.tokens, c.meta.TokenBudget))
	}
	if c.meta != nil && c.meta.TokenBudget > 0 && c.meta.TokenBudget != c.limit {
		p = append(p, fmt.Sprintf("[meta-budget] _meta.token_budget %d, the budget is %d", c.meta.TokenBudget, c.limit))
	}
	return p
}

// checkSuggestion: (f) a data_too_large suggestion re-runs exactly.
func checkSuggestion(d *Data, c *tcase) []string {
	var p []string
	s := c.sugg
	if c.head == nil || c.head.Type != "" || c.meta == nil {
		typ := "?"
		if c.head != nil {
			typ = c.head.Type
		}
		return []string{fmt.Sprintf("[suggestion-not-csv] answered %s", typ)}
	}
	var sq echoJSON
	json.Unmarshal(s.Query, &sq)
	if c.meta.ReturnedRows != s.ExpectedRows {
		p = append(p, fmt.Sprintf("[suggestion-rows] expected_rows %d, returned %d", s.ExpectedRows, c.meta.ReturnedRows))
	}
	grain := sq.TimeGranularity
	if grain == "" {
		grain = "total"
	}
	if tg := c.meta.TimeGranularity; tg != nil && tg.Returned != grain {
		p = append(p, fmt.Sprintf("[suggestion-grain] promised %s, returned %s", grain, tg.Returned))
	}
	// The estimate is computed from the rows in hand (exactly) and this
	// answer's _meta (docs/fit.md): the narrower answer may lack this one's
	// data-dependent warnings, or carry one of its own (an account none of
	// whose rows it selects), so it is held to −25%/+50% of the answer — and
	// the answer, at the promised rows and grain, within the budget.
	if lo, hi := float64(c.tokens)*0.75, float64(c.tokens)*1.5+50; float64(s.TokenEstimate) < lo || float64(s.TokenEstimate) > hi {
		p = append(p, fmt.Sprintf("[suggestion-tokens] token_estimate %d, exact %d", s.TokenEstimate, c.tokens))
	}
	if c.tokens > c.parent.limit {
		p = append(p, fmt.Sprintf("[suggestion-over-budget] %d tokens for the caller's budget %d", c.tokens, c.parent.limit))
	}
	// A shorter date range is aligned to the periods of its grain (or to the
	// caller's own range ends).
	if pq := c.parent.q; sq.DateRange != nil && pq != nil && (grain == "weekly" || grain == "monthly" || grain == "quarterly") {
		st, _ := time.Parse(time.DateOnly, sq.DateRange.Start)
		en, _ := time.Parse(time.DateOnly, sq.DateRange.End)
		if !(st.Equal(pq.Start) && en.Equal(pq.End)) {
			okStart := st.Equal(pq.Start) || PeriodStart(grain, st).Equal(st)
			okEnd := en.Equal(pq.End) || PeriodStart(grain, en.AddDate(0, 0, 1)).Equal(en.AddDate(0, 0, 1))
			if !okStart || !okEnd {
				p = append(p, fmt.Sprintf("[suggestion-range-unaligned] %s to %s at %s grain (the caller asked %s to %s)", sq.DateRange.Start, sq.DateRange.End, grain,
					pq.Start.Format(time.DateOnly), pq.End.Format(time.DateOnly)))
			}
		}
	}
	if c.parent.call.ArgBudget > 0 && sq.TokenBudget != c.parent.call.ArgBudget {
		p = append(p, fmt.Sprintf("[suggestion-token-budget] the caller's token_budget %d, the suggestion carries %d", c.parent.call.ArgBudget, sq.TokenBudget))
	}
	return p
}

// checkWarnings: (g) no_rows iff no facts; all_zero_metrics only when rows exist and every metric is zero.
func checkWarnings(d *Data, c *tcase) []string {
	var p []string
	facts := 0
	d.EachFact(c.q, func(*Fact) { facts++ })
	nr := c.meta.warning("no_rows") != nil
	switch {
	case nr && facts > 0:
		cls := "[no-rows-false]"
		switch {
		case len(c.expectation(d).passedG.passed) > 0:
			cls = "[no-rows-but-rows-qualify]"
		case c.q.Filters != nil && slices.ContainsFunc(c.q.Filters, func(f Filter) bool { return f.Metric }):
			cls = "[no-rows-metric-filter]"
			if strings.Contains(c.meta.warning("no_rows").Detail, "metric filter") {
				// The detail says the metric filters removed every row: only the type is reused.
				cls = "[no-rows-type-for-metric-filter]"
			}
		case !slices.ContainsFunc(c.q.Metrics, func(m string) bool { return m != "reach" && m != "frequency" }):
			cls = "[no-rows-reach-only]"
		}
		p = append(p, fmt.Sprintf("%s no_rows, but the oracle has %d facts for these accounts, dates and dimension filters", cls, facts))
	case !nr && facts == 0:
		p = append(p, "[no-rows-missing] the oracle has no facts, and no no_rows warning")
	}
	if w := c.meta.warning("all_zero_metrics"); w != nil {
		// Without keys the warning is about the rows as a whole (dimension
		// filters: the rows do not say which accounts they come from).
		groups := [][]string{c.q.AccountIDs}
		if len(w.Keys) > 0 {
			groups = nil
			for _, k := range w.Keys {
				groups = append(groups, []string{k})
			}
		}
		for _, ids := range groups {
			k := strings.Join(ids, ",")
			q := *c.q
			q.AccountIDs = ids
			var s Sums
			d.EachFact(&q, func(f *Fact) { s.add(&f.Sums) })
			nonzero := []string{}
			for _, m := range c.q.Metrics {
				if v := Value(m, &s); Additive[m] && !math.IsNaN(v) && v != 0 {
					nonzero = append(nonzero, m)
				}
			}
			switch {
			case s.Facts == 0:
				p = append(p, fmt.Sprintf("[all-zero-no-rows] all_zero_metrics for %s, which has no facts in the range", k))
			case len(nonzero) > 0 && c.q.Limit > 0:
				p = append(p, fmt.Sprintf("[all-zero-after-limit] all_zero_metrics for %s, judged on the rows a limit kept; its %v are not zero", k, nonzero))
			case len(nonzero) > 0 && slices.ContainsFunc(c.q.Filters, func(f Filter) bool { return f.Metric }):
				p = append(p, fmt.Sprintf("[all-zero-after-metric-filter] all_zero_metrics for %s, judged on the rows a metric filter kept; its %v are not zero", k, nonzero))
			case len(nonzero) > 0:
				p = append(p, fmt.Sprintf("[all-zero-false] all_zero_metrics for %s, whose %v are not zero", k, nonzero))
			case s.Measures[catalog.Spend]+s.Measures[catalog.Impressions]+s.Measures[catalog.Clicks] != 0 && !slices.ContainsFunc(c.q.Metrics, func(m string) bool { return Additive[m] }):
				p = append(p, fmt.Sprintf("[all-zero-empty-reach] all_zero_metrics for %s: only reach/frequency asked, left empty; the account has spend/impressions", k))
			}
		}
	}
	p = append(p, checkAllZeroNamed(d, c)...)
	if c.isCSV() {
		p = append(p, checkPartialPeriod(c)...)
	}
	if c.isSumm() {
		if e := c.expectation(d); len(e.passedG.passed) == 0 {
			p = append(p, "[empty-data-too-large] the oracle has no rows, and the answer is data_too_large")
		}
	}
	return p
}

// logDescribedCoverage logs how many answers exercised an added
// attribution_window column under a top N with rows step 1 removed, and the
// per-account all-zero check with an account to name and no account_id
// column: the compositions the checks above would miss if never generated.
func logDescribedCoverage(t *testing.T, d *Data, cases []*tcase) {
	added, topN, removedTopN, zeroByOther, zeroByID := 0, 0, 0, 0, 0
	for _, c := range cases {
		if c.q == nil || !c.isCSV() && !c.isSumm() {
			continue
		}
		if len(c.meta.opts("attribution_window_column_added")) > 0 {
			added++
			if c.q.Limit > 0 {
				topN++
				if len(c.meta.opts("validation_filter")) > 0 {
					removedTopN++
				}
			}
		}
		if w := c.meta.warning("all_zero_metrics"); w != nil && len(w.Keys) > 0 && checkAllZeroNamed(d, c) == nil && c.q.Limit == 0 && len(c.q.Filters) == 0 {
			if slices.Contains(c.q.Dims, "account_id") {
				zeroByID++
			} else {
				zeroByOther++
			}
		}
	}
	t.Logf("attribution_window added: %d answers, %d with a limit, %d of them with rows removed by step 1; all-zero accounts named as the oracle finds them: %d without an account_id column, %d with one",
		added, topN, removedTopN, zeroByOther, zeroByID)
}

// checkAllZeroNamed: without a selection (a metric filter, a limit) or a
// dimension filter, all_zero_metrics names exactly the accounts the oracle
// finds all zero — facts in the range, and every metric asked zero or empty
// with one a real zero — whatever the dimensions asked (docs/query.md,
// warnings). Reach is not judged here (the oracle does not compute it per
// account).
func checkAllZeroNamed(d *Data, c *tcase) []string {
	if c.q.Limit > 0 || len(c.q.Filters) > 0 || slices.ContainsFunc(c.q.Metrics, func(m string) bool { return m == "reach" || m == "frequency" }) {
		return nil
	}
	var want []string
	for _, id := range c.q.AccountIDs {
		q := *c.q
		q.AccountIDs = []string{id}
		var s Sums
		d.EachFact(&q, func(f *Fact) { s.add(&f.Sums) })
		zero, valued := s.Facts > 0, false
		for _, m := range c.q.Metrics {
			v := Value(m, &s)
			zero = zero && (math.IsNaN(v) || v == 0)
			valued = valued || !math.IsNaN(v)
		}
		if zero && valued {
			want = append(want, id)
		}
	}
	var got []string
	if w := c.meta.warning("all_zero_metrics"); w != nil {
		got = slices.Clone(w.Keys)
		if len(got) == 0 {
			got = []string{"(no keys)"}
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		cls := "[all-zero-missing]"
		if len(got) > len(want) {
			cls = "[all-zero-extra]"
		}
		return []string{fmt.Sprintf("%s all_zero_metrics names %v; the oracle finds all zero %v (dimensions %v)", cls, got, want, c.q.Dims)}
	}
	return nil
}

// checkPartialPeriod: a CSV answer at weekly, monthly or quarterly grain
// warns partial_period (the pipeline's warning, which names no fields) exactly
// when the date range cuts its first or last period.
func checkPartialPeriod(c *tcase) []string {
	g := c.q.Grain
	if tg := c.meta.TimeGranularity; tg != nil && tg.Returned != "" {
		g = tg.Returned
	}
	cut := false
	if g == "weekly" || g == "monthly" || g == "quarterly" {
		cut = !PeriodStart(g, c.q.Start).Equal(c.q.Start) || !PeriodEnd(g, PeriodStart(g, c.q.End)).Equal(c.q.End)
	}
	warned := slices.ContainsFunc(c.meta.Warnings, func(w warnJSON) bool { return w.Type == "partial_period" && len(w.Fields) == 0 })
	switch {
	case cut && !warned:
		return []string{fmt.Sprintf("[partial-period-missing] %s rows over %s … %s cut a period, and no partial_period warning", g, c.q.Start.Format(time.DateOnly), c.q.End.Format(time.DateOnly))}
	case !cut && warned:
		return []string{fmt.Sprintf("[partial-period-false] partial_period on %s rows over %s … %s, whose periods are whole", g, c.q.Start.Format(time.DateOnly), c.q.End.Format(time.DateOnly))}
	}
	return nil
}

// checkAccounting: (h) original − removed = rows before the grain change; rows after = returned.
func checkAccounting(d *Data, c *tcase) []string {
	var p []string
	m := c.meta
	removed := 0
	for _, o := range m.removals(c.q.Grain, c.q.Grain) {
		removed += o.RowsRemoved
	}
	gcs := m.opts("granularity_change")
	switch {
	case len(gcs) > 0:
		if m.OriginalRows-removed != gcs[0].RowsBefore {
			p = append(p, fmt.Sprintf("[accounting] original_rows %d − removed %d ≠ granularity_change.rows_before %d", m.OriginalRows, removed, gcs[0].RowsBefore))
		}
		if c.isCSV() && gcs[0].RowsAfter != m.ReturnedRows {
			p = append(p, fmt.Sprintf("[accounting] granularity_change.rows_after %d ≠ returned_rows %d", gcs[0].RowsAfter, m.ReturnedRows))
		}
	case c.isCSV():
		if m.OriginalRows-removed != m.ReturnedRows {
			p = append(p, fmt.Sprintf("[accounting] original_rows %d − removed %d ≠ returned_rows %d", m.OriginalRows, removed, m.ReturnedRows))
		}
	}
	if c.q.Limit == 0 {
		e := c.expectation(d)
		if m.OriginalRows != len(e.passedG.passed) {
			p = append(p, fmt.Sprintf("[original-rows] original_rows %d, the oracle has %d rows at %s", m.OriginalRows, len(e.passedG.passed), c.q.Grain))
		}
		if removed != len(e.passedG.removed) && !(c.isSumm() && removed == 0) {
			cls := "[rows-removed]"
			if removed == len(e.passedG.removed)+e.passedG.curOnly {
				cls = "[rows-removed-explicit-currency]"
			}
			p = append(p, fmt.Sprintf(cls+" validation_filter removed %d rows, the oracle has %d rows with every user dimension empty at %s", removed, len(e.passedG.removed), c.q.Grain))
		}
	}
	return p
}

// TestOne runs one call given by -oracle.args (and -oracle.client,
// -oracle.budget), prints the answer and the oracle's expected rows, and checks
// every invariant on it.
func TestOne(t *testing.T) {
	if *flagArgs == "" {
		skipreport.Skip(t, "a tool for one call: runs only with -oracle.args (see its doc comment)")
	}
	d := oracleData(t)
	e := &answer.Engine{Source: engineSource(t), Now: duckdbtest.Now}
	c := &call{Client: *flagClient, Budget: *flagBudget}
	var a echoJSON
	json.Unmarshal([]byte(*flagArgs), &a)
	c.ArgBudget = a.TokenBudget
	tc := run(t, e, "one", c, []byte(*flagArgs))
	t.Logf("answer (%d tokens):\n%s", tc.tokens, strings.Join(tc.res.Blocks, "\n---\n"))
	if tc.problem != "" {
		t.Fatal(tc.problem)
	}
	if tc.q != nil && tc.meta != nil {
		ex := tc.expectation(d)
		var b strings.Builder
		fmt.Fprintf(&b, "oracle: grain %s→%s coarse=%v local=%v perCurrency=%v passed=%d removed=%d qualifying=%d kept=%d; expected rows:\n",
			ex.G, ex.R, ex.coarse, ex.local, ex.sel.perCur, len(ex.sel.passed), len(ex.sel.removed), len(ex.sel.qualifying), len(ex.sel.kept))
		rows := slices.Clone(ex.rows)
		sort.SliceStable(rows, func(i, j int) bool {
			c, _ := compareRows(rowGetter(d, tc.q, tc.exp.R, rows[i]), rowGetter(d, tc.q, tc.exp.R, rows[j]), tc.q.Sort, tieColumns(tc.q, "date"), nil)
			return c < 0
		})
		for i, r := range rows {
			if i == 50 {
				fmt.Fprintf(&b, "… %d more\n", len(rows)-50)
				break
			}
			vals := []string{r.Period}
			vals = append(vals, r.Dims...)
			for _, m := range tc.q.Metrics {
				vals = append(vals, fmtNum(Value(m, &r.Sums)))
			}
			b.WriteString(strings.Join(vals, ",") + "\n")
		}
		t.Log(b.String())
	}
	for _, inv := range invariants {
		if inv.applies(tc) {
			for _, p := range inv.check(d, tc) {
				t.Errorf("%s: %s", inv.name, p)
			}
		}
	}
}

type summaryJSON struct {
	TotalRows       int    `json:"total_rows"`
	TimeGranularity string `json:"time_granularity"`
	Metrics         []struct {
		Field       string   `json:"field"`
		Aggregation string   `json:"aggregation"`
		Currency    string   `json:"currency"`
		Min         *float64 `json:"min"`
		Max         *float64 `json:"max"`
		Sum         *float64 `json:"sum"`
		Overall     *float64 `json:"overall"`
	} `json:"metrics"`
}

// checkSummary: (j) a data_too_large summary's totals (sum, overall) are the
// oracle's totals of everything asked, per currency: the rows step 1 removed
// included (docs/fit.md: a figure named sum or overall is the total of
// everything asked).
func checkSummary(d *Data, c *tcase) []string {
	var p []string
	var s summaryJSON
	if c.head.Summary == nil || json.Unmarshal(*c.head.Summary, &s) != nil {
		return []string{"[summary-unreadable]"}
	}
	g := s.TimeGranularity
	if g == "" {
		g = c.q.Grain
	}
	sel := d.selectRows(d.Aggregate(c.q, g), c.q, c.userDims, g)
	if s.TotalRows != len(sel.qualifying) && s.TotalRows != len(sel.passed) {
		p = append(p, fmt.Sprintf("[summary-total-rows] total_rows %d, the oracle has %d rows (%d with step 1's)", s.TotalRows, len(sel.qualifying), len(sel.passed)))
	}
	for _, m := range s.Metrics {
		inCur := func(rows []*Row) []*Row {
			if m.Currency == "" {
				return rows
			}
			var out []*Row
			for _, r := range rows {
				if r.Currency() == m.Currency {
					out = append(out, r)
				}
			}
			return out
		}
		kept, all := inCur(sel.qualifying), inCur(sel.passed)
		var ks, as Sums
		for _, r := range kept {
			ks.add(&r.Sums)
		}
		for _, r := range all {
			as.add(&r.Sums)
		}
		var got *float64
		tol := 0.0051
		switch {
		case m.Sum != nil && Additive[m.Field]:
			got = m.Sum
			if !Money[m.Field] {
				tol = 1e-6
			}
		case m.Overall != nil && !Additive[m.Field] && m.Field != "reach" && m.Field != "frequency":
			got, tol = m.Overall, 0.000051
		default:
			continue
		}
		kv, av := Value(m.Field, &ks), Value(m.Field, &as)
		if math.Abs(*got-av) > tol*(1+math.Abs(av)*1e-9) {
			p = append(p, fmt.Sprintf("[summary-metric] %s %s (currency %q): got %v, the oracle's total of everything asked %s (of the rows step 1 kept %s)", m.Field, m.Aggregation, m.Currency, *got, fmtNum(av), fmtNum(kv)))
		}
		if m.Max != nil && Additive[m.Field] {
			mx := math.Inf(-1)
			for _, r := range kept {
				if v := Value(m.Field, &r.Sums); v > mx {
					mx = v
				}
			}
			if math.Abs(*m.Max-mx) > tol {
				p = append(p, fmt.Sprintf("[summary-max] %s (currency %q): max %v, oracle %s", m.Field, m.Currency, *m.Max, fmtNum(mx)))
			}
		}
	}
	return p
}
