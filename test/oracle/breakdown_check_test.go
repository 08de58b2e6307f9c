package oracle

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// callOf reads the oracle's Call from a query's arguments (as sent, not as
// echoed: a refused query has no echo).
func callOf(d *Data, args []byte) *Call {
	var a echoJSON
	json.Unmarshal(args, &a)
	c := &Call{Accounts: d.AccountsOf(a.AccountIDs, a.Platforms), Dims: a.Dimensions, Metrics: a.Metrics, Window: a.AttributionWindow}
	for _, f := range a.Filters {
		if tooLong(f.Value) {
			c.OtherRefusal = true
			continue // refused for its value: the engine judges the query without it
		}
		if isMetric(f.Field) {
			m, _ := Derived(f.Field) // spend_change filters on spend
			c.MetricFields = append(c.MetricFields, m)
		} else {
			c.TextFields = append(c.TextFields, f.Field)
		}
	}
	return c
}

// tooLong: a filter value over 500 characters (or a list holding one).
func tooLong(v any) bool {
	switch x := v.(type) {
	case string:
		return len([]rune(x)) > 500
	case []any:
		return slices.ContainsFunc(x, tooLong)
	}
	return false
}

// problemJSON is one problem of an invalid_query answer.
type problemJSON struct {
	Field   string   `json:"field"`
	Value   any      `json:"value"`
	Problem string   `json:"problem"`
	Valid   []string `json:"valid"`
	Fix     string   `json:"fix"`
}

func (p problemJSON) text() string {
	return strings.ToLower(fmt.Sprint(p.Value) + " " + p.Problem + " " + strings.Join(p.Valid, " ") + " " + p.Fix)
}

func problemsOf(c *tcase) []problemJSON {
	var e struct {
		Problems []problemJSON `json:"problems"`
	}
	json.Unmarshal([]byte(c.res.Blocks[0]), &e)
	return e.Problems
}

// longValue is a refused input the generator makes on purpose: a filter
// value over 500 characters.
var longValue = regexp.MustCompile(`^filters\[\d+\]\.value$`)

// otherRefusal: the generator's refusals other than breakdowns and windows
// (a long filter value; a comparison under a budget too small for one).
func otherRefusal(g problemJSON) bool {
	return longValue.MatchString(g.Field) && strings.Contains(g.Problem, "characters long") ||
		(g.Field == "compare" || g.Field == "token_budget") && strings.Contains(g.Problem, "a comparison needs a budget")
}

// checkRefusals: (k) the engine refuses exactly the calls the oracle
// predicts (breakdowns no set holds, a platform lacking a dimension, ad sets
// or ads with a per-campaign set, ads with Google's per-ad-group countries, metrics conversion_action does not split,
// an attribution window the accounts do not hold), each problem naming its
// field and what works instead — the same from every source: no platform's
// API refuses a call the normalizer lets through (Meta's country alone and
// Google's countries per ad group are in SetTable).
func checkRefusals(d *Data, c *tcase) []string {
	call := callOf(d, c.args)
	want, known := ExpectProblems(call)
	if !known {
		return nil
	}
	invalid := c.head.Type == "invalid_query"
	var got []problemJSON
	if invalid {
		got = problemsOf(c)
	}
	var p []string
	if len(want) > 0 && !invalid {
		for _, w := range want {
			p = append(p, fmt.Sprintf("[answered-%s] answered %q, the oracle expects a refusal: %s", w.Field, c.head.Type, w.Why))
		}
		return p
	}
	for _, w := range want {
		found := slices.ContainsFunc(got, func(g problemJSON) bool {
			if g.Field != w.Field && w.Field != "" {
				return false
			}
			t := g.text()
			for _, s := range w.Says {
				if !strings.Contains(t, strings.ToLower(s)) {
					return false
				}
			}
			return true
		})
		if !found {
			p = append(p, fmt.Sprintf("[refusal-unsaid-%s] no problem on %s naming %v (%s); problems: %.400v", w.Field, w.Field, w.Says, w.Why, got))
		}
	}
	for _, g := range got {
		if otherRefusal(g) {
			continue
		}
		if !slices.ContainsFunc(want, func(w ExpectedProblem) bool { return w.Field == g.Field || w.Field == "" }) {
			p = append(p, fmt.Sprintf("[refused-%s] a problem the oracle does not expect: %s: %s (fix: %s)", g.Field, g.Field, g.Problem, g.Fix))
		}
	}
	return p
}

// checkAttribution: (l) the attribution_window column is added exactly when
// conversions of accounts under 2+ windows would be summed, after the
// dimensions asked (and currency, when it was added), with
// attribution_window_column_added; and _meta.definitions.conversions states
// per group of accounts what they count under which window.
func checkAttribution(d *Data, c *tcase) []string {
	var p []string
	call := callOf(d, c.args)
	added := len(c.meta.opts("attribution_window_column_added")) > 0
	dims := c.q.Dims
	switch {
	case WindowColumnAdded(call):
		asked := call.Dims
		ok := len(dims) > 0 && dims[len(dims)-1] == "attribution_window" &&
			(slices.Equal(dims[:len(dims)-1], asked) || slices.Equal(dims[:len(dims)-1], append(slices.Clone(asked), "currency")))
		if !ok {
			p = append(p, fmt.Sprintf("[window-column-missing] conversions under windows %v: want dimensions %v + attribution_window last (after currency if added), got %v", call.Windows(), asked, dims))
		}
		if !added {
			p = append(p, "[window-column-unsaid] no attribution_window_column_added optimization")
		}
	case !slices.Contains(call.Dims, "attribution_window") && slices.Contains(dims, "attribution_window"):
		p = append(p, fmt.Sprintf("[window-column-false] attribution_window added to %v; windows %v, conversions %v", call.Dims, call.Windows(), UsesConversions(call.Metrics, call.MetricFields)))
	case added:
		p = append(p, "[window-column-unsaid] attribution_window_column_added, but no column was added")
	}
	// Definitions, of the accounts the arguments select.
	var metricFields []string
	for _, f := range c.q.Filters {
		if f.Metric {
			metricFields = append(metricFields, f.Field)
		}
	}
	if !UsesConversions(c.q.Metrics, metricFields) {
		if c.meta.Definitions != nil && len(c.meta.Definitions.Conversions) > 0 {
			p = append(p, "[definitions-false] _meta.definitions.conversions without a conversion metric")
		}
		return p
	}
	if c.meta.Definitions == nil {
		return append(p, "[definitions-missing] a conversion metric and no _meta.definitions")
	}
	byAction := slices.Contains(dims, "conversion_action")
	type group struct{ platform, counts, window, how, accounts string }
	var want, got []group
	for _, w := range Definitions(call) {
		ids := slices.Sorted(slices.Values(w.Accounts))
		want = append(want, group{w.Platform, w.Counts, w.Window, w.How, strings.Join(ids, ",")})
	}
	for _, g := range c.meta.Definitions.Conversions {
		ids := slices.Sorted(slices.Values(g.Accounts))
		got = append(got, group{g.Platform, g.Counts, g.AttributionWindow, g.Window, strings.Join(ids, ",")})
	}
	// Counts names the account's actions (with conversion_action: inside a
	// sentence saying each row counts its own); a source naming none says so
	// in words the oracle does not pin.
	countsOK := func(w, g group) bool {
		switch {
		case w.counts == "":
			return g.counts != ""
		case byAction:
			return strings.Contains(g.counts, w.counts) && strings.Contains(g.counts, "conversion_action")
		}
		return g.counts == w.counts
	}
	platforms := func(gs []group) []string {
		var out []string
		for _, g := range gs {
			out = append(out, g.platform)
		}
		return out
	}
	if !slices.IsSortedFunc(platforms(got), func(a, b string) int { return platformRank(a) - platformRank(b) }) {
		p = append(p, fmt.Sprintf("[definitions-order] groups not in platform order: %v", platforms(got)))
	}
	sortGroups := func(gs []group) {
		sort.Slice(gs, func(i, j int) bool { return gs[i].platform+gs[i].accounts < gs[j].platform+gs[j].accounts })
	}
	sortGroups(want)
	sortGroups(got)
	if len(want) != len(got) {
		return append(p, fmt.Sprintf("[definitions-groups] want %d groups %v, got %d %v", len(want), want, len(got), got))
	}
	for i := range want {
		w, g := want[i], got[i]
		if w.platform != g.platform || w.accounts != g.accounts || w.window != g.window || w.how != g.how || !countsOK(w, g) {
			p = append(p, fmt.Sprintf("[definitions-group] want %+v, got %+v", w, g))
		}
	}
	return p
}

func platformRank(p string) int {
	return slices.Index([]string{metaAds, googleAds, tiktokAds}, p)
}

// logSetCoverage says how many CSV answers read each breakdown set (on some
// platform of their accounts), added an attribution_window column, or were
// refused for a breakdown or a window.
func logSetCoverage(t *testing.T, d *Data, cases []*tcase) {
	sets, refused := map[string]int{}, map[string]int{}
	windowCols := 0
	for _, c := range cases {
		if c.parent != nil || c.head == nil {
			continue
		}
		if c.head.Type == "invalid_query" {
			for _, p := range problemsOf(c) {
				if !otherRefusal(p) {
					refused[p.Field]++
				}
			}
		}
		if !c.isCSV() {
			continue
		}
		seen := map[string]bool{}
		for _, id := range c.q.AccountIDs {
			if s, ok := SetOf(d.Accounts[id].Platform, c.q.Breakdowns()); ok && !seen[s.Key] {
				seen[s.Key] = true
				sets[s.Key]++
			}
		}
		if len(c.meta.opts("attribution_window_column_added")) > 0 {
			windowCols++
		}
	}
	t.Logf("CSV answers per breakdown set read: %v; attribution_window columns added: %d; refusals per field: %v", sets, windowCols, refused)
}
