package live

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
)

// A breakdown set kept per campaign or ad group
// (catalog.BreakdownSet.PerObjectReports: age and gender, placement,
// conversion_action; Google's location) is made of the platform's
// per-campaign or per-ad-group reports, so it leaves out delivery no
// campaign holds (and, on Google, campaigns the age and gender views do not
// cover). The warehouse SQL
// reads the delivery rows no campaign holds beside such a set, with empty
// breakdowns, so that the answer reconciles with the delivery totals
// (sqlgen's unattributedRows). The live source stages what those rows would
// be: one more delivery report per account, at the account level and at the
// query's grain, less what the set's rows sum to, staged as delivery with no
// campaign. The SQL then answers exactly as over a warehouse.

// perCampaignSet is the set q reads on platform when it is kept per
// campaign or ad group.
func perCampaignSet(q *query.Query, platform string) (catalog.BreakdownSet, bool) {
	s, ok := q.BreakdownSet(platform)
	return s, ok && s.PerObjectReports()
}

// keepsUnattributed says whether q's answer can hold delivery no campaign
// holds: it reads a per-campaign set on platform, and none of its dimension
// filters below the account refuses an empty value (the SQL reads the
// delivery rows with no campaign and no breakdown, and a filter such as
// gender = female leaves them out: nothing to fetch for them then).
func keepsUnattributed(q *query.Query, platform string) bool {
	if _, ok := perCampaignSet(q, platform); !ok {
		return false
	}
	for _, f := range q.Filters {
		if !f.Metric && catalog.MustLookup(f.Field).Level != catalog.LevelAccount && !matchesEmpty(f) {
			return false
		}
	}
	return true
}

// matchesEmpty says whether an empty value passes text filter f, as the SQL
// tests it (sqlgen's textPredicate: a case-insensitive match on the value,
// "" when it has none).
func matchesEmpty(f query.Filter) bool {
	hasEmpty := slices.ContainsFunc(f.Values, func(v any) bool { return v == "" })
	switch f.Operator {
	case query.Equals, query.Contains, query.StartsWith, query.In:
		return hasEmpty
	case query.NotEquals, query.NotContains, query.NotIn:
		return !hasEmpty
	}
	return false
}

// wholeSets is the facts query of a pass that reads a per-campaign set: its
// dimension filters become dimensions (the same shape, so the connector
// reads the same set at the same level), since the set's rows must be whole
// for what they leave out to be told (the SQL applies every filter to the
// staged rows; a connector sends one only to save data). Other queries are
// returned as they are.
func wholeSets(q *query.Query) *query.Query {
	per := slices.ContainsFunc(q.AccountPlatforms(), func(p string) bool { return keepsUnattributed(q, p) })
	if !per || !slices.ContainsFunc(q.Filters, func(f query.Filter) bool { return !f.Metric }) {
		return q
	}
	w := *q
	w.Dimensions = slices.Clone(q.Dimensions)
	w.Filters = nil
	for _, f := range q.Filters {
		switch {
		case f.Metric:
			w.Filters = append(w.Filters, f)
		case !slices.Contains(w.Dimensions, f.Field):
			w.Dimensions = append(w.Dimensions, f.Field)
		}
	}
	return &w
}

// deliveryOf is the account-level delivery query whose rows, less the set's,
// are what the set leaves out: q's dates, grain, window and additive metrics,
// with no dimension and no filter. nil when q reads no additive metric.
func deliveryOf(q *query.Query) *query.Query {
	d := *q
	d.Dimensions, d.Filters, d.Sort, d.Limit, d.Compare = nil, nil, nil, 0, nil
	d.Metrics = nil
	for _, m := range usedMetrics(q) {
		if catalog.MustLookup(m).Aggregation != catalog.NonAdditive {
			d.Metrics = append(d.Metrics, m)
		}
	}
	if len(d.Metrics) == 0 {
		return nil
	}
	return &d
}

// fetchUnattributed is the fetch of the delivery of accounts (all on c's
// platform) for deliveryOf(q), into a batch of its own, to run beside the
// set's; unattributed then tells what the set leaves out. Nil when q needs
// none.
func fetchUnattributed(ctx context.Context, c Connector, q *query.Query, accounts []ads.Account) (*Batch, func() error) {
	d := deliveryOf(q)
	if d == nil {
		return nil, nil
	}
	if !keepsUnattributed(q, c.Platform()) {
		return nil, nil
	}
	own := newBatch()
	return own, func() error { return Fetch(ctx, c, d, accounts, own) }
}

// unattributed are the delivery rows that set's rows in b leave out, per
// account and period: the account's delivery (in delivery) less the set's
// rows, with no campaign. For conversion_action, only the rows of the
// account's default actions count towards conversions (ads.Account
// ConversionActions); an account that does not say them gets none.
func unattributed(set catalog.BreakdownSet, accounts []ads.Account, delivery, b *Batch) []ads.Fact {
	type key struct {
		account string
		date    time.Time
	}
	defaults := map[string][]string{}
	for _, a := range accounts {
		if a.ConversionActions != "" {
			defaults[a.AccountID] = strings.Split(a.ConversionActions, ", ")
		}
	}
	in := map[string]bool{}
	for _, a := range accounts {
		in[a.AccountID] = true
	}
	sums := map[key]*ads.Fact{}
	var order []key
	add := func(f *ads.Fact, sign float64) {
		k := key{f.AccountID, f.Date}
		s := sums[k]
		if s == nil {
			s = &ads.Fact{Date: f.Date, AccountID: f.AccountID}
			sums[k] = s
			order = append(order, k)
		}
		for m, v := range f.Measures {
			if v == ads.NotReported || s.Measures[m] == ads.NotReported {
				s.Measures[m] = ads.NotReported
				continue
			}
			s.Measures[m] += sign * v
		}
	}
	_, _, _, facts, _ := delivery.Snapshot()
	for i := range facts {
		if facts[i].BreakdownKey() == catalog.Delivery {
			add(&facts[i], 1)
		}
	}
	_, _, _, facts, _ = b.Snapshot()
	for i := range facts {
		f := &facts[i]
		if !in[f.AccountID] || f.BreakdownKey() != set.Key {
			continue
		}
		if set.Key == "conversion_action" {
			d, ok := defaults[f.AccountID]
			if !ok {
				continue
			}
			if !slices.Contains(d, f.ConversionAction) {
				continue // another action: not counted in conversions
			}
		}
		add(f, -1)
	}
	var out []ads.Fact
	for _, k := range order {
		s := sums[k]
		if set.Key == "conversion_action" {
			if _, ok := defaults[k.account]; !ok {
				continue
			}
		}
		zero := true
		for m, v := range s.Measures {
			if v == ads.NotReported {
				continue
			}
			if !slices.Contains(set.Metrics, catalog.MeasureField(catalog.Measure(m)).Name) && set.Metrics != nil {
				s.Measures[m] = 0 // the set has no such measure: nothing of it is left out
				continue
			}
			zero = zero && v == 0
		}
		if !zero {
			out = append(out, *s)
		}
	}
	return out
}
