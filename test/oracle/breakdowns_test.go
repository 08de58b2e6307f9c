package oracle

import (
	"fmt"
	"slices"
	"sort"

	"github.com/adsmcp/adsmcp/internal/ads"
)

// The breakdown sets and attribution windows, restated here by hand from
// docs/fields.md ("Breakdowns", "Conversions", "Attribution windows") and
// docs/contract.md ("Breakdown sets"), in literals: the oracle never reads catalog's
// BreakdownSets, SetFor or the query layer's rules, so a slip in either shows
// as a difference.

// Platform names, written out.
const (
	metaAds   = "meta_ads"
	googleAds = "google_ads"
	tiktokAds = "tiktok_ads"
)

// OracleSet is one breakdown set as the oracle knows it.
type OracleSet struct {
	Key       string
	Platforms []string
	// Dims are the breakdown dimensions its rows carry.
	Dims []string
	// PerCampaign: its rows have no ad set or ad.
	PerCampaign bool
	// PerAdSet: its rows have no ad (Google's countries, which
	// user_location_view reports per ad group at the finest).
	PerAdSet bool
	// Metrics, when not nil, are the only metrics a query may ask with it.
	Metrics []string
}

// SetTable is the rule of which set a query reads, in preference order: on
// each platform, the first set that platform reports holding all of the
// query's breakdown dimensions and dimension filter fields.
var SetTable = []OracleSet{
	// Meta's Insights reports country alone ("Combining breakdowns"): its
	// delivery rows carry country, its device_platform rows device and
	// publisher_platform.
	{Key: "delivery", Platforms: []string{metaAds}, Dims: []string{"country"}},
	// Google reports countries per ad group (user_location_view, segmented
	// by device and network): its delivery rows per ad carry device and
	// publisher_platform, its location rows per ad group all three.
	{Key: "delivery", Platforms: []string{googleAds}, Dims: []string{"device", "publisher_platform"}},
	{Key: "delivery", Platforms: []string{tiktokAds}, Dims: []string{"country", "device", "publisher_platform"}},
	{Key: "device_platform", Platforms: []string{metaAds}, Dims: []string{"device", "publisher_platform"}},
	{Key: "location", Platforms: []string{googleAds}, Dims: []string{"country", "device", "publisher_platform"}, PerAdSet: true},
	{Key: "age_gender", Platforms: []string{metaAds, tiktokAds}, Dims: []string{"age", "gender"}, PerCampaign: true},
	{Key: "age", Platforms: []string{googleAds}, Dims: []string{"age"}, PerCampaign: true},
	{Key: "gender", Platforms: []string{googleAds}, Dims: []string{"gender"}, PerCampaign: true},
	{Key: "placement", Platforms: []string{metaAds, tiktokAds}, Dims: []string{"placement", "publisher_platform", "device"}, PerCampaign: true},
	{Key: "conversion_action", Platforms: []string{metaAds, googleAds, tiktokAds}, Dims: []string{"conversion_action"}, PerCampaign: true,
		Metrics: []string{"conversions", "conversion_value"}},
}

// BreakdownDims are the dimensions some set carries.
var BreakdownDims = []string{"country", "device", "publisher_platform", "age", "gender", "placement", "conversion_action"}

// FinerThanCampaign are the fields a per-campaign set has no value for.
var FinerThanCampaign = []string{"adset_id", "adset_name", "ad_id", "ad_name"}

// FinerThanAdSet are the fields a per-ad-set set has no value for.
var FinerThanAdSet = []string{"ad_id", "ad_name"}

// OfReports says whether the set's rows are campaigns' or ad groups'
// reports: delivery no campaign holds is in none of them, and a query
// reading the set reads it beside them.
func (s OracleSet) OfReports() bool { return s.PerCampaign || s.PerAdSet }

// Finer are the fields the set's rows have no value for, and the words of
// what to ask instead.
func (s OracleSet) Finer() (fields []string, instead string) {
	switch {
	case s.PerCampaign:
		return FinerThanCampaign, "campaign"
	case s.PerAdSet:
		return FinerThanAdSet, "adset_name"
	}
	return nil, ""
}

// ConversionMetrics are the metrics whose numbers depend on the attribution
// window: conversions and every ratio made of them.
var ConversionMetrics = []string{"conversions", "conversion_value", "cpa", "roas", "conversion_rate"}

// unknownWindow is the window of an account whose source does not say it.
const unknownWindow = "unknown"

// windowOf is an account's stored attribution window.
func windowOf(a ads.Account) string {
	if a.AttributionWindow == "" {
		return unknownWindow
	}
	return a.AttributionWindow
}

// Breakdowns are q's breakdown dimensions: among its dimensions and text
// filter fields.
func (q *Query) Breakdowns() []string {
	var fields []string
	fields = append(fields, q.Dims...)
	for _, f := range q.Filters {
		if !f.Metric {
			fields = append(fields, f.Field)
		}
	}
	return breakdownsOf(fields)
}

func breakdownsOf(fields []string) []string {
	var out []string
	for _, f := range fields {
		if slices.Contains(BreakdownDims, f) && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// SetOf is the set a query with breakdowns bd reads on platform.
func SetOf(platform string, bd []string) (OracleSet, bool) {
	for _, s := range SetTable {
		if !slices.Contains(s.Platforms, platform) {
			continue
		}
		holds := true
		for _, d := range bd {
			if !slices.Contains(s.Dims, d) {
				holds = false
			}
		}
		if holds {
			return s, true
		}
	}
	return OracleSet{}, false
}

// platformReports says whether some set of platform carries dim.
func platformReports(platform, dim string) bool {
	for _, s := range SetTable {
		if slices.Contains(s.Platforms, platform) && slices.Contains(s.Dims, dim) {
			return true
		}
	}
	return false
}

// Call is what the oracle reads of a query's arguments to predict what the
// engine refuses and adds: the accounts the arguments select, the dimension,
// metric and filter fields as given, and the attribution_window argument.
type Call struct {
	Accounts     []ads.Account
	Dims         []string
	Metrics      []string
	TextFields   []string // fields of dimension filters
	MetricFields []string // fields of metric filters
	Window       string   // the attribution_window argument as given ("" none)
	// OtherRefusal: the engine refuses the call for a reason the oracle does
	// not model (a filter value too long), before any source is asked.
	OtherRefusal bool
}

// Platforms are the call's accounts' platforms, in the order meta, google, tiktok.
func (c *Call) Platforms() []string {
	var out []string
	for _, p := range []string{metaAds, googleAds, tiktokAds} {
		if slices.ContainsFunc(c.Accounts, func(a ads.Account) bool { return a.Platform == p }) {
			out = append(out, p)
		}
	}
	return out
}

// ExpectedProblem is one problem the engine must report: its field, and
// words its problem or fix must hold (what works instead).
type ExpectedProblem struct {
	Field string
	Says  []string
	Why   string
}

// windowNames are the attribution_window arguments the oracle knows, and the
// window each names ("" for none: not a window, refused).
var windowNames = map[string]string{
	"7d_click_1d_view":      "7d_click_1d_view",
	"1d_view,7d_click":      "7d_click_1d_view",
	"7D_CLICK_1D_VIEW":      "7d_click_1d_view",
	"1d_click":              "1d_click",
	"7d_click":              "7d_click",
	"28d_click":             "28d_click",
	"1d_click_1d_view":      "1d_click_1d_view",
	"7d_view":               "", // withdrawn by Meta on 2026-01-12
	"per_conversion_action": "", // Google's per-action windows are not a window to ask
}

// CanonicalWindow is the window an attribution_window argument names, and
// whether the oracle knows the argument.
func CanonicalWindow(arg string) (string, bool) {
	w, ok := windowNames[arg]
	return w, ok
}

// ExpectProblems predicts the problems of a call over the demo warehouse:
// breakdowns no set of a platform holds, a platform lacking a dimension,
// ad set or ad fields with a per-campaign set, metrics conversion_action
// does not split, and an attribution_window the accounts do not hold.
// known is false when the call has an attribution_window argument the
// oracle does not know.
func ExpectProblems(c *Call) (out []ExpectedProblem, known bool) {
	bd := breakdownsOf(append(slices.Clone(c.Dims), c.TextFields...))
	var chosen []OracleSet
	if len(bd) > 0 {
		for _, p := range c.Platforms() {
			s, ok := SetOf(p, bd)
			if ok {
				if !slices.ContainsFunc(chosen, func(x OracleSet) bool { return x.Key == s.Key }) {
					chosen = append(chosen, s)
				}
				continue
			}
			var missing []string
			for _, d := range bd {
				if !platformReports(p, d) {
					missing = append(missing, d)
				}
			}
			if len(missing) > 0 {
				says := []string{}
				for _, m := range missing {
					says = append(says, "drop", m)
				}
				out = append(out, ExpectedProblem{Field: "dimensions", Says: says,
					Why: fmt.Sprintf("%s does not report %v", p, missing)})
				continue
			}
			// What works: every dimension of every set of the platform.
			var says []string
			for _, s := range SetTable {
				if slices.Contains(s.Platforms, p) {
					for _, d := range s.Dims {
						if !slices.Contains(says, d) {
							says = append(says, d)
						}
					}
				}
			}
			out = append(out, ExpectedProblem{Field: "dimensions", Says: says,
				Why: fmt.Sprintf("no set of %s holds %v", p, bd)})
		}
	}
	for _, s := range chosen {
		if fields, instead := s.Finer(); fields != nil {
			var finer []string
			for _, f := range append(slices.Clone(c.Dims), c.TextFields...) {
				if slices.Contains(fields, f) && !slices.Contains(finer, f) {
					finer = append(finer, f)
				}
			}
			if len(finer) > 0 {
				out = append(out, ExpectedProblem{Field: "dimensions", Says: append([]string{instead}, finer...),
					Why: fmt.Sprintf("%s is kept per %s; %v are finer", s.Key, instead, finer)})
			}
		}
		if s.Metrics != nil {
			var bad []string
			for _, m := range append(slices.Clone(c.Metrics), c.MetricFields...) {
				if !slices.Contains(s.Metrics, m) && !slices.Contains(bad, m) {
					bad = append(bad, m)
				}
			}
			if len(bad) > 0 {
				out = append(out, ExpectedProblem{Field: "metrics", Says: append(slices.Clone(s.Metrics), bad...),
					Why: fmt.Sprintf("%s splits only %v, not %v", s.Key, s.Metrics, bad)})
			}
		}
	}
	if c.Window == "" {
		return out, true
	}
	w, ok := CanonicalWindow(c.Window)
	switch {
	case !ok:
		return out, false
	case w == "":
		return append(out, ExpectedProblem{Field: "attribution_window", Says: []string{"7d_click"},
			Why: fmt.Sprintf("%q is not a window", c.Window)}), true
	}
	// Google and TikTok recount under no window but their own: refused by
	// the normalizer (one problem per platform), with the other problems.
	var other []string
	fixed := map[string][]string{}
	for _, a := range c.Accounts {
		if a.AttributionWindow != w {
			other = append(other, a.AccountID)
			if a.Platform != metaAds {
				fixed[a.Platform] = append(fixed[a.Platform], a.AccountID)
			}
		}
	}
	if len(fixed) > 0 {
		for _, p := range []string{googleAds, tiktokAds} {
			if ids := fixed[p]; len(ids) > 0 {
				out = append(out, ExpectedProblem{Field: "attribution_window", Says: append([]string{metaAds}, ids...),
					Why: fmt.Sprintf("%s accounts %v cannot be recounted under %s", p, ids, w)})
			}
		}
		return out, true
	}
	// The warehouse holds one window per account: refused when the query
	// is otherwise valid.
	if len(other) > 0 && len(out) == 0 && !c.OtherRefusal && !liveSource() {
		out = append(out, ExpectedProblem{Field: "attribution_window", Says: other,
			Why: fmt.Sprintf("the warehouse holds accounts %v under another window than %s", other, w)})
	}
	return out, true
}

// UsesConversions says whether metrics or metric filter fields read a
// conversion metric.
func UsesConversions(metrics, metricFields []string) bool {
	return slices.ContainsFunc(append(slices.Clone(metrics), metricFields...), func(m string) bool {
		return slices.Contains(ConversionMetrics, m)
	})
}

// WindowColumnAdded says whether the engine adds an attribution_window
// column to a call with dimensions dims: it reads conversions, its accounts
// count them under 2+ windows, and no dimension tells the windows apart
// already (attribution_window, account_id).
func WindowColumnAdded(c *Call) bool {
	if !UsesConversions(c.Metrics, c.MetricFields) || slices.Contains(c.Dims, "attribution_window") || slices.Contains(c.Dims, "account_id") {
		return false
	}
	return len(c.Windows()) > 1
}

// Windows are the distinct windows the call's conversions are counted
// under, sorted: the argument's, or each account's own.
func (c *Call) Windows() []string {
	var out []string
	for _, a := range c.Accounts {
		w := windowOf(a)
		if c.Window != "" {
			w, _ = CanonicalWindow(c.Window)
		}
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	sort.Strings(out)
	return out
}

// Definition is one group of _meta.definitions.conversions as the oracle
// expects it.
type Definition struct {
	Platform, Counts, Window, How string
	Accounts                      []string
}

// Definitions are the groups of accounts whose conversions count the same
// actions under the same window, in platform order (meta, google, tiktok),
// accounts in the call's order. Counts is the account's ConversionActions
// ("" when the source does not name them).
func Definitions(c *Call) []Definition {
	var out []Definition
	for _, p := range []string{metaAds, googleAds, tiktokAds} {
		for _, a := range c.Accounts {
			if a.Platform != p {
				continue
			}
			d := Definition{Platform: p, Counts: a.ConversionActions, Window: windowOf(a), How: "default"}
			if c.Window != "" {
				d.Window, _ = CanonicalWindow(c.Window)
				d.How = "asked"
			}
			i := slices.IndexFunc(out, func(x Definition) bool {
				return x.Platform == d.Platform && x.Counts == d.Counts && x.Window == d.Window
			})
			if i < 0 {
				out = append(out, d)
				i = len(out) - 1
			}
			out[i].Accounts = append(out[i].Accounts, a.AccountID)
		}
	}
	return out
}

// AccountsOf are the accounts a call's account_ids or platforms select (the
// sorted accounts of the platforms when no IDs are given).
func (d *Data) AccountsOf(ids, platforms []string) []ads.Account {
	var out []ads.Account
	if len(ids) > 0 {
		for _, id := range ids {
			if a, ok := d.Accounts[id]; ok {
				out = append(out, a)
			}
		}
		return out
	}
	var all []string
	for id, a := range d.Accounts {
		if len(platforms) == 0 || slices.Contains(platforms, a.Platform) {
			all = append(all, id)
		}
	}
	sort.Strings(all)
	for _, id := range all {
		out = append(out, d.Accounts[id])
	}
	return out
}
