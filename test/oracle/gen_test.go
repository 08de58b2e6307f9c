package oracle

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"
)

// gen draws random query tool calls over the demo data.
type gen struct {
	// smallBudgets draws every budget from 1,000…10,000 tokens, so more
	// answers are too large for the requested grain.
	smallBudgets bool
	r            *rand.Rand
	d            *Data
	accounts     []string // sorted account IDs
	byAcct       map[string]map[string][]string
}

// textFields are the dimensions filters are drawn on.
var textFields = []string{"campaign_name", "account_name", "device", "country", "ad_name", "adset_name",
	"publisher_platform", "campaign_objective", "campaign_status", "platform", "campaign_id"}

var dimPool = []string{"campaign_name", "campaign_name", "account_name", "account_name", "device", "country",
	"ad_name", "adset_name", "publisher_platform", "campaign_objective", "campaign_status", "platform",
	"campaign_id", "account_id", "currency"}

var sumPool = []string{"spend", "spend", "spend", "impressions", "clicks", "clicks", "conversions",
	"conversion_value", "video_views", "link_clicks", "video_views_p100"}
var ratioPool = []string{"ctr", "ctr", "cpc", "cpm", "cpa", "roas", "conversion_rate"}

func newGen(seed uint64, d *Data) *gen {
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), d: d, byAcct: map[string]map[string][]string{}}
	for id := range d.Accounts {
		g.accounts = append(g.accounts, id)
	}
	sort.Strings(g.accounts)
	for _, id := range g.accounts {
		sets := map[string]map[string]bool{}
		for _, f := range textFields {
			sets[f] = map[string]bool{}
		}
		for i := range d.Facts[id] {
			f := &d.Facts[id][i]
			for _, name := range textFields {
				if v := f.Dims[DimIndex(name)]; v != "" {
					sets[name][v] = true
				}
			}
		}
		// The values of the breakdown sets' own dimensions.
		for _, f := range []string{"age", "gender", "placement", "conversion_action"} {
			sets[f] = map[string]bool{}
		}
		for _, byAcct := range d.Sets {
			for i := range byAcct[id] {
				f := &byAcct[id][i]
				for _, name := range []string{"age", "gender", "placement", "conversion_action"} {
					if v := f.Dims[DimIndex(name)]; v != "" {
						sets[name][v] = true
					}
				}
			}
		}
		m := map[string][]string{}
		for name, set := range sets {
			for v := range set {
				m[name] = append(m[name], v)
			}
			sort.Strings(m[name])
		}
		g.byAcct[id] = m
	}
	return g
}

// without drops the accounts of platform from a call's accounts (when some
// other account is left), and returns them.
func (g *gen) without(c *call, accts []string, platform string) []string {
	keep := slices.DeleteFunc(slices.Clone(accts), func(id string) bool { return g.d.Accounts[id].Platform == platform })
	if len(keep) == 0 {
		return accts
	}
	if _, ok := c.Args["account_ids"]; ok {
		c.Args["account_ids"] = keep
	} else {
		return accts // a whole platform: kept
	}
	return keep
}

// differentWindows sets a call's accounts to 2–4 accounts counting
// conversions under at least two attribution windows, and returns them.
func (g *gen) differentWindows(c *call) []string {
	perm := g.r.Perm(len(g.accounts))
	first := g.accounts[perm[0]]
	accts := []string{first}
	for _, i := range perm[1:] {
		if id := g.accounts[i]; g.d.Accounts[id].AttributionWindow != g.d.Accounts[first].AttributionWindow {
			accts = append(accts, id)
			break
		}
	}
	n := 2 + g.r.IntN(3)
	for _, i := range perm[1:] {
		if id := g.accounts[i]; len(accts) < n && !slices.Contains(accts, id) {
			accts = append(accts, id)
		}
	}
	delete(c.Args, "platforms")
	c.Args["account_ids"] = accts
	return accts
}

func (g *gen) chance(p float64) bool   { return g.r.Float64() < p }
func (g *gen) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }

// caseVary writes s as a user might: as is, lower, upper or title case.
func (g *gen) caseVary(s string) string {
	switch g.r.IntN(4) {
	case 1:
		return strings.ToLower(s)
	case 2:
		return strings.ToUpper(s)
	case 3:
		if s != "" {
			return strings.ToUpper(s[:1]) + strings.ToLower(s[1:])
		}
	}
	return s
}

// call is one generated tool call.
type call struct {
	Args      map[string]any
	Client    string
	Budget    int // Request.Budget (0: the client's)
	ArgBudget int // token_budget argument (0: none)
}

func (c *call) JSON() []byte {
	b, _ := json.Marshal(c.Args)
	return b
}

func (g *gen) next() *call {
	c := &call{Args: map[string]any{}}
	// Accounts: 1–4, mixing currencies and platforms.
	n := 1 + g.r.IntN(4)
	var accts []string
	for _, i := range g.r.Perm(len(g.accounts))[:n] {
		accts = append(accts, g.accounts[i])
	}
	if g.chance(0.1) {
		// A whole platform (at most 6 accounts).
		plats := []string{"meta_ads", "google_ads", "tiktok_ads"}
		p := g.pick(plats)
		c.Args["platforms"] = []string{p}
		accts = nil
		for _, id := range g.accounts {
			if g.d.Accounts[id].Platform == p {
				accts = append(accts, id)
			}
		}
	} else {
		c.Args["account_ids"] = accts
	}
	// Dates: inside the data, partly outside it, sometimes a preset.
	first, last := g.d.First, g.d.Last
	if g.chance(0.1) {
		c.Args["date_preset"] = g.pick([]string{"last_7d", "last_30d", "last_90d", "this_month", "last_month", "last_week", "yesterday", "this_quarter", "last_quarter"})
	} else {
		span := int(last.Sub(first).Hours() / 24)
		var start time.Time
		var days int
		switch {
		case g.chance(0.1): // starts before the data
			start = first.AddDate(0, 0, -g.r.IntN(40))
			days = 10 + g.r.IntN(80)
		case g.chance(0.1): // ends after the data (today is the anchor)
			start = last.AddDate(0, 0, -g.r.IntN(30))
			days = 60
		case g.chance(0.1): // exactly one ISO week or month (reach is stored for those), or quarter
			start = PeriodStart("weekly", first.AddDate(0, 0, 7+g.r.IntN(span-14)))
			days = 7
			switch {
			case g.chance(0.2):
				start = PeriodStart("quarterly", first.AddDate(0, 3, g.r.IntN(span-150)))
				days = int(PeriodEnd("quarterly", start).Sub(start).Hours()/24) + 1
			case g.chance(0.5):
				start = PeriodStart("monthly", first.AddDate(0, 1, g.r.IntN(span-60)))
				days = int(start.AddDate(0, 1, 0).Sub(start).Hours() / 24)
			}
		default:
			days = []int{1, 3, 7, 14, 30, 45, 90, 120, 200, 365}[g.r.IntN(10)]
			start = first.AddDate(0, 0, g.r.IntN(span))
		}
		end := start.AddDate(0, 0, days-1)
		if max := last.AddDate(0, 0, 1); end.After(max) {
			end = max
		}
		c.Args["date_range"] = map[string]string{"start": start.Format(time.DateOnly), "end": end.Format(time.DateOnly)}
	}
	// Dimensions.
	var dims []string
	for k := g.r.IntN(4); len(dims) < k; {
		if d := g.pick(dimPool); !slices.Contains(dims, d) {
			dims = append(dims, d)
		} else {
			k--
		}
	}
	big := g.chance(0.15) || g.smallBudgets && g.chance(0.4) // many rows: fine dimensions, daily, long ranges
	if big {
		dims = nil
		fine := []string{"ad_name", "country", "device", "publisher_platform", "adset_name", "campaign_name"}
		for _, i := range g.r.Perm(len(fine))[:2+g.r.IntN(3)] {
			dims = append(dims, fine[i])
		}
		// Meta reports country apart from device and publisher_platform
		// (SetTable): a big call on Meta accounts keeps its finest valid
		// grain, without a draw, so the stream of cases stays as it was.
		if slices.ContainsFunc(accts, func(id string) bool { return g.d.Accounts[id].Platform == metaAds }) &&
			slices.Contains(dims, "country") && (slices.Contains(dims, "device") || slices.Contains(dims, "publisher_platform")) {
			dims = slices.DeleteFunc(dims, func(d string) bool { return d == "country" })
		}
		// Google reports countries per ad group at the finest (SetTable's
		// location): likewise with ads.
		if slices.ContainsFunc(accts, func(id string) bool { return g.d.Accounts[id].Platform == googleAds }) &&
			slices.Contains(dims, "country") && slices.Contains(dims, "ad_name") {
			dims = slices.DeleteFunc(dims, func(d string) bool { return d == "country" })
		}
	}
	if len(dims) > 0 || g.chance(0.5) {
		c.Args["dimensions"] = dims
	}
	// Metrics.
	var metrics []string
	add := func(m string) {
		if !slices.Contains(metrics, m) {
			metrics = append(metrics, m)
		}
	}
	for k := 1 + g.r.IntN(3); k > 0; k-- {
		add(g.pick(sumPool))
	}
	for k := g.r.IntN(3); k > 0; k-- {
		add(g.pick(ratioPool))
	}
	if g.chance(0.1) {
		add("reach")
		if g.chance(0.5) {
			add("frequency")
		}
		if g.chance(0.2) { // reach alone
			metrics = []string{"reach"}
		}
	}
	// Breakdown sets other than delivery (age, gender, placement,
	// conversion_action), alone and in combinations the engine refuses; and
	// the attribution window, as a dimension and as an argument.
	var bdFilter []string // breakdown dimensions to filter on
	convOnly := false     // conversion_action with only its two metrics
	answerable := false   // no delivery breakdown, ad set or ad field with the set
	// A top N by campaign over accounts under different attribution windows,
	// with conversions: the attribution_window column is added, and rows with
	// no campaign must take no place (docs/fit.md, step 1).
	topN := !big && g.chance(0.08)
	if topN {
		accts = g.differentWindows(c)
		if !slices.Contains(dims, "campaign_name") {
			dims = append(dims, "campaign_name")
		}
		c.Args["dimensions"] = dims
		add("conversions")
		add("spend")
	}
	if !big && !topN && g.chance(0.15) {
		bd := [][]string{{"age"}, {"age"}, {"gender"}, {"age", "gender"}, {"placement"}, {"placement", "publisher_platform"},
			{"placement", "device"}, {"conversion_action"}, {"conversion_action"}, {"conversion_action"},
			{"age", "country"}, {"gender", "placement"}, {"conversion_action", "device"}, {"age", "publisher_platform"}}[g.r.IntN(14)]
		if answerable = g.chance(0.75); answerable { // mostly answerable: campaign- and account-level dimensions only
			dims = slices.DeleteFunc(dims, func(d string) bool {
				return slices.Contains(BreakdownDims, d) || slices.Contains(FinerThanCampaign, d)
			})
		}
		for _, d := range bd {
			switch {
			case g.chance(0.2):
				bdFilter = append(bdFilter, d) // a filter only, not a column
			case !slices.Contains(dims, d):
				dims = append(dims, d)
				if g.chance(0.2) {
					bdFilter = append(bdFilter, d)
				}
			}
		}
		c.Args["dimensions"] = dims
		if slices.Contains(bd, "placement") && g.chance(0.6) {
			accts = g.without(c, accts, "google_ads")
		}
		if slices.Contains(bd, "conversion_action") && g.chance(0.75) {
			convOnly = true
			metrics = [][]string{{"conversions"}, {"conversion_value"}, {"conversions", "conversion_value"}, {"conversion_value", "conversions"}}[g.r.IntN(4)]
		}
	}
	if g.chance(0.05) && !slices.Contains(dims, "attribution_window") {
		dims = append(dims, "attribution_window")
		c.Args["dimensions"] = dims
	}
	if !topN && g.chance(0.06) {
		w := g.pick([]string{"7d_click_1d_view", "7d_click_1d_view", "1d_view,7d_click", "7D_CLICK_1D_VIEW", "1d_click", "7d_click", "28d_click", "1d_click_1d_view", "7d_view", "per_conversion_action"})
		c.Args["attribution_window"] = w
		if g.chance(0.5) { // the window Meta and TikTok accounts hold: answerable
			accts = g.without(c, accts, "google_ads")
		}
	}
	c.Args["metrics"] = metrics
	grains := []string{"daily", "weekly", "monthly", "quarterly", "total"}
	grain := "total"
	if g.chance(0.85) {
		grain = g.pick(grains)
		c.Args["time_granularity"] = grain
	}
	if big {
		grain = g.pick([]string{"daily", "daily", "weekly", "monthly", "total"})
		c.Args["time_granularity"] = grain
	}
	// Text filters on names that exist (in the queried accounts), case-varied.
	var filters []map[string]any
	for k := g.r.IntN(3); k > 0; k-- {
		if g.chance(0.4) {
			continue
		}
		field := g.pick(textFields)
		if answerable && (slices.Contains(BreakdownDims, field) || slices.Contains(FinerThanCampaign, field)) {
			field = "campaign_name"
		}
		var pool []string
		for _, id := range accts {
			pool = append(pool, g.byAcct[id][field]...)
		}
		if len(pool) == 0 {
			continue
		}
		v := g.pick(pool)
		op := g.pick([]string{"EQUALS", "NOT_EQUALS", "CONTAINS", "NOT_CONTAINS", "STARTS_WITH", "IN", "NOT_IN", "CONTAINS", "IN"})
		var value any
		switch op {
		case "CONTAINS", "NOT_CONTAINS", "STARTS_WITH":
			runes := []rune(v)
			i, j := 0, len(runes)
			if op != "STARTS_WITH" && len(runes) > 3 {
				i = g.r.IntN(len(runes) - 2)
			}
			if j-i > 3 {
				j = i + 3 + g.r.IntN(min(4, j-i-2))
			}
			value = g.caseVary(string(runes[i:j]))
		case "IN", "NOT_IN":
			vals := []any{g.caseVary(v)}
			for m := g.r.IntN(5); m > 0; m-- {
				vals = append(vals, g.caseVary(g.pick(pool)))
			}
			value = vals
		default:
			value = g.caseVary(v)
		}
		filters = append(filters, map[string]any{"field": field, "operator": op, "value": value})
	}
	// Filters on the breakdown dimensions drawn above, on values they have.
	for _, field := range bdFilter {
		var pool []string
		for _, id := range accts {
			pool = append(pool, g.byAcct[id][field]...)
		}
		if len(pool) == 0 {
			continue
		}
		op := g.pick([]string{"EQUALS", "NOT_EQUALS", "IN", "NOT_IN", "CONTAINS"})
		var value any = g.caseVary(g.pick(pool))
		if op == "IN" || op == "NOT_IN" {
			value = []any{value, g.caseVary(g.pick(pool))}
		}
		filters = append(filters, map[string]any{"field": field, "operator": op, "value": value})
	}
	// A huge IN list (up to 1,000 names, some matching nothing), or a long string.
	if g.chance(0.06) {
		field := g.pick([]string{"campaign_name", "ad_name", "adset_name"})
		if answerable {
			field = "campaign_name"
		}
		var pool []string
		for _, id := range accts {
			pool = append(pool, g.byAcct[id][field]...)
		}
		n := 100 + g.r.IntN(901)
		vals := make([]any, 0, n)
		nomatch := g.chance(0.3)
		for i := 0; i < n; i++ {
			if nomatch || len(pool) == 0 || g.chance(0.5) {
				vals = append(vals, fmt.Sprintf("No Such Campaign %d - %s", i, strings.Repeat("x", g.r.IntN(30))))
			} else {
				vals = append(vals, g.caseVary(g.pick(pool)))
			}
		}
		filters = append(filters, map[string]any{"field": field, "operator": g.pick([]string{"IN", "IN", "NOT_IN"}), "value": vals})
	} else if g.chance(0.03) {
		filters = append(filters, map[string]any{"field": g.pick(textFields), "operator": g.pick([]string{"CONTAINS", "NOT_CONTAINS", "EQUALS"}),
			"value": strings.Repeat("long value ", 50+g.r.IntN(400))})
	}
	// A metric filter on spend, clicks or ctr.
	if g.chance(0.3) {
		field := g.pick([]string{"spend", "spend", "clicks", "ctr"})
		if convOnly && g.chance(0.8) {
			field = "conversions"
		}
		var th float64
		switch field {
		case "conversions":
			th = []float64{0.5, 2, 10, 50}[g.r.IntN(4)]
		case "spend":
			th = []float64{0.5, 5, 30, 100, 500, 1000, 5000, 50000}[g.r.IntN(8)]
		case "clicks":
			th = []float64{1, 5, 20, 100, 1000}[g.r.IntN(5)]
		case "ctr":
			th = []float64{0.3, 0.8, 1.2, 2, 5}[g.r.IntN(5)]
		}
		op := g.pick([]string{"GREATER_THAN", "GREATER_THAN", "GREATER_THAN_OR_EQUAL", "LESS_THAN", "LESS_THAN_OR_EQUAL", "BETWEEN"})
		var value any = th
		if op == "BETWEEN" {
			value = []float64{th, th * 10}
		}
		filters = append(filters, map[string]any{"field": field, "operator": op, "value": value})
	}
	if len(filters) > 0 {
		c.Args["filters"] = filters
	}
	// Sort on returned columns, and a limit.
	cols := append(slices.Clone(dims), metrics...)
	if grain != "total" && g.chance(0.2) {
		cols = append(cols, "date")
	}
	if topN {
		c.Args["sort"] = []map[string]any{{"field": g.pick([]string{"spend", "spend", "conversions"}), "direction": g.pick([]string{"asc", "desc"})}}
		c.Args["limit"] = []int{1, 3, 5, 10}[g.r.IntN(4)]
	} else if g.chance(0.45) {
		var keys []map[string]any
		for k := 1 + g.r.IntN(2); k > 0; k-- {
			f := g.pick(cols)
			if slices.ContainsFunc(keys, func(m map[string]any) bool { return m["field"] == f }) {
				continue
			}
			key := map[string]any{"field": f}
			if g.chance(0.7) {
				key["direction"] = g.pick([]string{"asc", "desc"})
			}
			keys = append(keys, key)
		}
		c.Args["sort"] = keys
		if g.chance(0.55) {
			c.Args["limit"] = []int{1, 3, 5, 10, 25, 50, 200, 1000}[g.r.IntN(8)]
		}
	}
	// Budget: 1,000…80,000 tokens.
	// Clients: every profile of docs/clients.md, with and without the
	// version that chooses it.
	c.Client = g.pick([]string{"", "claude-code", "claude-code/2.1.96", "claude-code/2.1.332", "claude-ai", "ChatGPT", "test-client",
		"codex-mcp-client/0.46.0", "codex-mcp-client/0.171.0", "Codex", "github-copilot-developer/1.0.3",
		"gemini-cli-mcp-client/0.61.0", "gemini-cli-mcp-client/0.32.1", "gemini-cli-mcp-client"})
	b := int(math.Exp(math.Log(1000) + g.r.Float64()*(math.Log(80000)-math.Log(1000))))
	if big && g.chance(0.6) || g.smallBudgets {
		b = 1000 + g.r.IntN(9000)
	}
	switch x := g.r.Float64(); {
	case x < 0.5:
		c.Budget = b
	case x < 0.8:
		c.ArgBudget = b
		c.Args["token_budget"] = b
	}
	if g.chance(0.12) {
		g.wholeBreakdown(c)
	}
	return c
}

// wholeBreakdown makes c a breakdown question whose answer must add up to
// its accounts' delivery (deliveryReconciled): a set kept per campaign (age,
// gender, placement), by account or campaign or alone, over accounts with
// delivery no campaign holds, with no filter and no limit. Its dates,
// grain, client and budget stay c's, so some are coarsened or summarized;
// nextCompare adds a comparison window to some.
func (g *gen) wholeBreakdown(c *call) {
	ids, _ := c.Args["account_ids"].([]string)
	if ids == nil {
		return // a whole platform: kept as drawn
	}
	var accts []string
	google := false
	for _, id := range ids {
		if g.d.unattributedSpend(&Query{AccountIDs: []string{id}}, g.d.First, g.d.Last) != 0 {
			accts = append(accts, id)
			google = google || g.d.Accounts[id].Platform == googleAds
		}
	}
	if len(accts) == 0 {
		return
	}
	c.Args["account_ids"] = accts
	sets := [][]string{{"age"}, {"gender"}}
	if !google { // Google has no placement, and age and gender apart
		sets = append(sets, []string{"age", "gender"}, []string{"placement"}, []string{"placement", "device"}, []string{"publisher_platform", "placement"})
	}
	dims := slices.Clone(sets[g.r.IntN(len(sets))])
	if g.chance(0.7) {
		dims = append([]string{g.pick([]string{"account_name", "account_id", "campaign_name", "campaign_id", "currency"})}, dims...)
	}
	c.Args["dimensions"] = dims
	metrics, _ := c.Args["metrics"].([]string)
	metrics = slices.DeleteFunc(slices.Clone(metrics), func(m string) bool { return m == "reach" || m == "frequency" })
	if !slices.ContainsFunc(metrics, func(m string) bool { return Additive[m] }) {
		metrics = append(metrics, g.pick([]string{"spend", "impressions", "clicks"}))
	}
	c.Args["metrics"] = metrics
	delete(c.Args, "filters")
	delete(c.Args, "sort")
	delete(c.Args, "limit")
	delete(c.Args, "attribution_window")
}
