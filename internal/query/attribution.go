package query

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// UnknownWindow is the attribution window of an account whose source does
// not say it.
const UnknownWindow = "unknown"

// ChangeAttributionColumnAdded: the accounts count conversions under
// different windows, so an attribution_window column was added (as currency
// is for money).
const ChangeAttributionColumnAdded = "attribution_window_column_added"

// UsesConversions reports whether the query reads a metric made of
// conversions (conversions, conversion_value, cpa, roas, conversion_rate), in
// its metrics or its filters: those whose numbers depend on the attribution
// window.
func (q *Query) UsesConversions() bool {
	for _, m := range q.Metrics {
		if involvesConversions(m) {
			return true
		}
	}
	for _, f := range q.Filters {
		if f.Metric && involvesConversions(metricOf(f.Field)) {
			return true
		}
	}
	return false
}

func involvesConversions(name string) bool {
	f, ok := catalog.Lookup(name)
	if !ok {
		return false
	}
	if name == "conversions" || name == "conversion_value" {
		return true
	}
	return f.Numerator != "" && (involvesConversions(f.Numerator) || involvesConversions(f.Denominator))
}

// WindowOf is the window account a's conversions are answered under: the
// query's attribution_window when it gives one, else the account's own.
func (q *Query) WindowOf(a ads.Account) string {
	if q.AttributionWindow != "" {
		return q.AttributionWindow
	}
	if a.AttributionWindow == "" {
		return UnknownWindow
	}
	return a.AttributionWindow
}

// Windows are the distinct windows of the query's accounts, sorted.
func (q *Query) Windows() []string {
	var out []string
	for _, a := range q.Accounts {
		if w := q.WindowOf(a); !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	sort.Strings(out)
	return out
}

// StoredWindowError is the error of a source that holds each account's
// conversions under one window (every warehouse, whatever loaded it) when
// the query asks for another: it cannot recount them. Nil when the query
// asks for none, or for the one every account holds.
func (q *Query) StoredWindowError() error {
	if q.AttributionWindow == "" {
		return nil
	}
	var other []string
	for _, a := range q.Accounts {
		if a.AttributionWindow != q.AttributionWindow {
			w := a.AttributionWindow
			if w == "" {
				w = UnknownWindow
			}
			other = append(other, fmt.Sprintf("%s (%s)", a.AccountID, w))
		}
	}
	if len(other) == 0 {
		return nil
	}
	return &Error{Problems: []Problem{{Field: "attribution_window", Value: q.AttributionWindow,
		Problem: fmt.Sprintf("the warehouse holds conversions counted under each account's own window, which differs for %s; it cannot recount them under %s",
			strings.Join(other, ", "), q.AttributionWindow),
		Fix: "omit attribution_window to answer under each account's window (stated in _meta.definitions), or load data counted under that window"}}}
}

// attribution reads the attribution_window argument, refuses it on
// platforms whose reports cannot be asked for a window (Google, TikTok)
// unless it is the one their accounts hold, and adds the attribution_window
// column when conversions of accounts under different windows would
// otherwise be summed: results under different windows are never mixed.
func (n *normalizer) attribution(given string) {
	if strings.TrimSpace(given) != "" {
		w, _, err := catalog.ParseAttributionWindow(given)
		if err != nil {
			n.problem(Problem{Field: "attribution_window", Value: given, Problem: err.Error(),
				Valid: catalog.ExampleAttributionWindows, Fix: "write the window as its parts joined by _, clicks first, e.g. 7d_click_1d_view; or omit it for each account's own window"})
			return
		}
		if w != given {
			n.change(Change{Type: ChangeValueNormalized, Field: "attribution_window", From: given, To: w,
				Detail: fmt.Sprintf("attribution_window %q read as %q", given, w)})
		}
		n.q.AttributionWindow = w
		n.fixedWindows()
	}
	n.windowColumn()
}

// fixedWindows refuses a window on accounts of platforms that count
// conversions under settings of their own.
func (n *normalizer) fixedWindows() {
	byPlatform := map[string][]string{}
	for _, a := range n.q.Accounts {
		if !slices.Contains(catalog.AttributionPlatforms, a.Platform) && a.AttributionWindow != n.q.AttributionWindow {
			byPlatform[a.Platform] = append(byPlatform[a.Platform], a.AccountID)
		}
	}
	for _, p := range catalog.AllPlatforms {
		ids := byPlatform[p]
		if len(ids) == 0 {
			continue
		}
		plat, _ := catalog.PlatformByName(p)
		why := plat.FixedAttribution
		n.problem(Problem{Field: "attribution_window", Value: n.q.AttributionWindow,
			Problem: fmt.Sprintf("%s %s; its reports cannot be recounted under %s (accounts %s)", plat.DisplayName, why, n.q.AttributionWindow, strings.Join(ids, ", ")),
			Fix:     fmt.Sprintf("omit attribution_window, or ask only accounts of %s (platforms: %s)", strings.Join(catalog.AttributionPlatforms, ", "), jsonList(catalog.AttributionPlatforms))})
	}
}

// windowColumn adds the attribution_window dimension when the query's
// conversions would sum accounts counted under different windows. A query
// split by account_id never mixes them.
func (n *normalizer) windowColumn() {
	q := n.q
	if !q.UsesConversions() || slices.Contains(q.Dimensions, "attribution_window") || slices.Contains(q.Dimensions, "account_id") {
		return
	}
	ws := q.Windows()
	if len(ws) < 2 {
		return
	}
	n.addColumn(Change{Type: ChangeAttributionColumnAdded, Field: "dimensions", To: "attribution_window",
		Detail: fmt.Sprintf("The accounts count conversions under %d attribution windows (%s); an attribution_window column was added so conversions counted under different windows are never summed",
			len(ws), strings.Join(ws, ", "))})
}

// Recounted is the query as a source that fetches conversions under the
// asked window holds them: its accounts' windows are the query's (a live
// connector asks the platform for that window; the rows it stages are
// counted under it). The query itself when it asks for no window.
func (q *Query) Recounted() *Query {
	if q.AttributionWindow == "" {
		return q
	}
	r := *q
	r.Accounts = slices.Clone(q.Accounts)
	for i := range r.Accounts {
		r.Accounts[i].AttributionWindow = q.AttributionWindow
	}
	return &r
}
