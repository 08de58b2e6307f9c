package oracle

import (
	"slices"
	"time"
)

// nextCompare draws a random comparison call: a random call of next (its
// accounts, dates, dimensions, metrics, grain, dimension filters, client and
// budget) with compare added, and sometimes a selection on the compared
// columns and a budget small enough to coarsen or summarize the answer.
func (g *gen) nextCompare() *call {
	c := g.next()
	a := c.Args
	// next's huge IN lists test the SQL, not the comparison, and cost
	// seconds in each window: keep a few of their values.
	if fs, ok := a["filters"].([]map[string]any); ok {
		for _, f := range fs {
			if vs, ok := f["value"].([]any); ok && len(vs) > 6 {
				f["value"] = vs[:6]
			}
		}
	}
	// Dimensions that make rows appear and disappear between windows.
	dims, _ := a["dimensions"].([]string)
	if g.chance(0.45) {
		d := g.pick([]string{"campaign_name", "campaign_name", "ad_name", "adset_name", "campaign_id"})
		if !slices.Contains(dims, d) {
			dims = append(dims, d)
		}
		a["dimensions"] = dims
	}
	metrics, _ := a["metrics"].([]string)
	if g.chance(0.5) {
		if m := g.pick([]string{"ctr", "cpa", "roas"}); !slices.Contains(metrics, m) {
			metrics = append(metrics, m)
		}
	}
	if !slices.ContainsFunc(metrics, func(m string) bool { return Additive[m] }) && g.chance(0.5) {
		metrics = append(metrics, "spend")
	}
	// Reach where it is stored: per account or campaign, by day, ISO week or
	// month (or a total over exactly one of them, below).
	if g.chance(0.2) {
		dims = []string{g.pick([]string{"campaign_id", "campaign_name", "account_name", "account_id"})}
		if g.chance(0.3) {
			dims = append(dims, "account_id")
		}
		a["dimensions"] = dims
		metrics = append(metrics, "reach")
		if g.chance(0.5) {
			metrics = append(metrics, "frequency")
		}
		a["time_granularity"] = g.pick([]string{"daily", "weekly", "weekly", "monthly", "total"})
		var keep []map[string]any
		fs, _ := a["filters"].([]map[string]any)
		for _, f := range fs {
			if field, _ := f["field"].(string); AccountLevel[field] || CampaignLevel[field] || isMetric(field) {
				keep = append(keep, f)
			}
		}
		a["filters"] = keep
		var keys []map[string]any
		ks, _ := a["sort"].([]map[string]any)
		for _, k := range ks {
			if f, _ := k["field"].(string); slices.Contains(dims, f) || slices.Contains(metrics, f) {
				keys = append(keys, k)
			}
		}
		if a["sort"] = keys; len(keys) == 0 {
			delete(a, "sort")
			delete(a, "limit")
		}
	}
	a["metrics"] = metrics
	grain, _ := a["time_granularity"].(string)
	if grain == "" {
		grain = "total"
	}
	// At most about half a year: each window is a query, and longer ones
	// cost the run time without reaching other rules (previous_year over
	// more than a year is rejected; the generator still draws a few).
	if dr, ok := a["date_range"].(map[string]string); ok && g.chance(0.8) {
		start, _ := time.Parse(time.DateOnly, dr["start"])
		if end, _ := time.Parse(time.DateOnly, dr["end"]); dayCount(start, end) > 190 {
			dr["end"] = start.AddDate(0, 0, 189).Format(time.DateOnly)
		}
	}
	// A whole month, week or quarter sometimes, so the modes' special rules
	// (whole months, ISO weeks) and reach are exercised.
	if _, preset := a["date_preset"]; !preset && g.chance(0.2) {
		first, last := g.d.First.AddDate(0, 2, 0), g.d.Last
		span := int(last.Sub(first).Hours() / 24)
		day := first.AddDate(0, 0, g.r.IntN(span))
		var s, e time.Time
		switch g.r.IntN(3) {
		case 0:
			s = PeriodStart("monthly", day)
			e = PeriodEnd("monthly", s)
		case 1:
			s = PeriodStart("weekly", day)
			e = PeriodEnd("weekly", s)
		default:
			s = PeriodStart("quarterly", day)
			e = PeriodEnd("quarterly", s)
		}
		if e.After(last) {
			e = last
		}
		a["date_range"] = map[string]string{"start": s.Format(time.DateOnly), "end": e.Format(time.DateOnly)}
	}
	// The comparison: a mode, or an explicit window before (sometimes after)
	// the range that never overlaps it.
	dr, _ := a["date_range"].(map[string]string)
	switch x := g.r.Float64(); {
	case x < 0.3 && dr != nil:
		start, _ := time.Parse(time.DateOnly, dr["start"])
		end, _ := time.Parse(time.DateOnly, dr["end"])
		days := dayCount(start, end)
		n := days
		switch g.r.IntN(3) {
		case 1:
			n = 1 + g.r.IntN(2*days)
		case 2:
			n = max(1, days+g.r.IntN(15)-7)
		}
		ws := start.AddDate(0, 0, -n-g.r.IntN(60))
		if after := end.AddDate(0, 0, 1+g.r.IntN(20)); g.chance(0.15) && !after.AddDate(0, 0, n-1).After(g.d.Last) {
			ws = after
		}
		a["compare"] = map[string]string{"start": ws.Format(time.DateOnly), "end": ws.AddDate(0, 0, n-1).Format(time.DateOnly)}
	case x < 0.65:
		a["compare"] = PreviousPeriod
	default:
		a["compare"] = PreviousYear
	}
	// A selection on the compared columns: a metric filter or a sort (and a
	// limit) on a metric's value, its comparison value, change or change in
	// percent.
	derived := func() string {
		m := g.pick(metrics)
		return m + g.pick([]string{"", "_compare", "_change", "_change", "_change_pct"})
	}
	if g.chance(0.25) {
		f := derived()
		m, suffix := Derived(f)
		var th float64
		switch {
		case suffix == "_change_pct":
			th = []float64{-50, -20, -5, 0, 10, 50}[g.r.IntN(6)]
		case m == "ctr" || m == "roas" || m == "cpa" || m == "cpc" || m == "cpm" || m == "conversion_rate" || m == "frequency":
			th = []float64{-1, -0.1, 0, 0.2, 1, 5}[g.r.IntN(6)]
		case suffix == "_change":
			th = []float64{-500, -50, -1, 0, 1, 50, 500}[g.r.IntN(7)]
		default:
			th = []float64{0, 1, 10, 100, 1000}[g.r.IntN(5)]
		}
		op := g.pick([]string{"GREATER_THAN", "LESS_THAN", "GREATER_THAN_OR_EQUAL", "LESS_THAN_OR_EQUAL", "BETWEEN"})
		var value any = th
		if op == "BETWEEN" {
			value = []float64{th, th + 100}
		}
		fs, _ := a["filters"].([]map[string]any)
		a["filters"] = append(fs, map[string]any{"field": f, "operator": op, "value": value})
	}
	if g.chance(0.35) {
		keys := []map[string]any{{"field": derived()}}
		if g.chance(0.7) {
			keys[0]["direction"] = g.pick([]string{"asc", "desc"})
		}
		if g.chance(0.3) && len(dims) > 0 {
			keys = append(keys, map[string]any{"field": g.pick(dims)})
		}
		a["sort"] = keys
		delete(a, "limit")
		if g.chance(0.6) {
			a["limit"] = []int{1, 3, 5, 10, 25, 100}[g.r.IntN(6)]
		}
	}
	// Many rows: fine dimensions, daily, a long range, a budget a summary
	// fits, so the answer is coarsened or summarized (with movers).
	if _, preset := a["date_preset"]; !preset && g.chance(0.1) {
		a["dimensions"] = []string{"ad_name", g.pick([]string{"campaign_name", "device", "country", "publisher_platform"})}
		a["time_granularity"] = "daily"
		end := g.d.Last.AddDate(0, 0, -g.r.IntN(120))
		start := end.AddDate(0, 0, -30-g.r.IntN(90))
		a["date_range"] = map[string]string{"start": start.Format(time.DateOnly), "end": end.Format(time.DateOnly)}
		a["compare"] = g.pick([]string{PreviousPeriod, PreviousYear})
		delete(a, "sort")
		delete(a, "limit")
		g.setBudget(c, 2500+g.r.IntN(6000))
		return c
	}
	// Coarsened comparisons whose windows fall differently on the calendar:
	// a daily or weekly comparison over a range that starts and ends
	// mid-month, with a budget that coarsens it to months or quarters, so
	// the comparison window's periods are cut where the range's fall.
	if _, preset := a["date_preset"]; !preset && g.chance(0.15) {
		a["dimensions"] = []string{g.pick([]string{"campaign_name", "campaign_name", "adset_name", "account_name"})}
		a["time_granularity"] = g.pick([]string{"daily", "daily", "weekly"})
		end := g.d.Last.AddDate(0, 0, -g.r.IntN(150))
		if end.Day() == 1 || isLastOfMonth(end) {
			end = end.AddDate(0, 0, -2)
		}
		start := end.AddDate(0, 0, -40-g.r.IntN(150))
		if start.Day() == 1 {
			start = start.AddDate(0, 0, 1)
		}
		a["date_range"] = map[string]string{"start": start.Format(time.DateOnly), "end": end.Format(time.DateOnly)}
		switch g.r.IntN(4) {
		case 0:
			a["compare"] = PreviousYear
		case 1:
			n := dayCount(start, end) + g.r.IntN(9) - 4
			ws := start.AddDate(0, 0, -n-g.r.IntN(40))
			a["compare"] = map[string]string{"start": ws.Format(time.DateOnly), "end": ws.AddDate(0, 0, n-1).Format(time.DateOnly)}
		default:
			a["compare"] = PreviousPeriod
		}
		delete(a, "sort")
		delete(a, "limit")
		g.setBudget(c, 2500+g.r.IntN(12000))
		return c
	}
	// Small budgets: coarser answers and summaries (a comparison's smallest
	// summary is larger than a plain one's, so some budgets are a few
	// thousand tokens).
	if g.chance(0.35) {
		b := 1000 + g.r.IntN(5000)
		if g.chance(0.5) {
			b = 2500 + g.r.IntN(6000)
		}
		g.setBudget(c, b)
	}
	return c
}

// setBudget gives call c the budget b: as its token_budget argument when it
// has one, else as the client's.
func (g *gen) setBudget(c *call, b int) {
	if _, ok := c.Args["token_budget"]; ok {
		c.Args["token_budget"] = b
		c.ArgBudget = b
	} else {
		c.Budget = b
	}
}
