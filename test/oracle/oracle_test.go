// Package oracle computes ground truth for the demo dataset without the SQL
// generator or the fit pipeline: it keeps the generator's rows in Go maps and
// aggregates them in plain Go. Its tests run seeded random queries through the
// real DuckDB source and the pipeline (internal/answer) and check every answer
// against it.
package oracle

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/demo"
)

// Dims are the dimensions the oracle knows, in a fixed order (the index of a
// Fact's Dims).
var Dims = []string{"platform", "account_id", "account_name", "currency", "campaign_id",
	"campaign_name", "campaign_objective", "campaign_status", "adset_id", "adset_name",
	"ad_id", "ad_name", "country", "device", "publisher_platform",
	"age", "gender", "placement", "conversion_action", "attribution_window"}

var dimIndex = func() map[string]int {
	m := map[string]int{}
	for i, d := range Dims {
		m[d] = i
	}
	return m
}()

// DimIndex is the index of a dimension in Fact.Dims, or -1.
func DimIndex(name string) int {
	if i, ok := dimIndex[name]; ok {
		return i
	}
	return -1
}

// AccountLevel and CampaignLevel dimensions are those reach is stored for.
var (
	AccountLevel  = map[string]bool{"platform": true, "account_id": true, "account_name": true, "currency": true, "attribution_window": true}
	CampaignLevel = map[string]bool{"campaign_id": true, "campaign_name": true, "campaign_objective": true, "campaign_status": true}
)

// Fact is one fact row with its dimensions resolved through the joined tables.
type Fact struct {
	Date time.Time
	Dims [20]string
	Sums Sums
}

// Sums are the additive parts of a group of facts: the catalog's stored
// measures (money in micros), summed here in plain Go.
type Sums struct {
	Measures [catalog.NumMeasures]float64
	// Reported says whether some fact of the group reports each measure (link
	// clicks are not reported on Google or TikTok).
	Reported [catalog.NumMeasures]bool
	Facts    int
}

// Impressions are the group's impressions (frequency's numerator).
func (s *Sums) Impressions() float64 { return s.Measures[catalog.Impressions] }

func (s *Sums) add(o *Sums) {
	for m := range s.Measures {
		s.Measures[m] += o.Measures[m]
		s.Reported[m] = s.Reported[m] || o.Reported[m]
	}
	s.Facts += o.Facts
}

// ReachKey identifies one stored reach value.
type ReachKey struct {
	Level, ObjectID, Grain string
	Period                 time.Time
}

// Data is the whole dataset in memory.
type Data struct {
	Accounts  map[string]ads.Account
	Campaigns map[string]ads.Campaign
	AdSets    map[string]ads.AdSet
	Ads       map[string]ads.Ad
	// Facts per account, in date order: the delivery rows (Breakdown "" or
	// "delivery").
	Facts map[string][]Fact
	// Sets are the rows of the other breakdown sets (age_gender, age, gender,
	// placement, conversion_action), per set key and account, in date order.
	Sets  map[string]map[string][]Fact
	Reach map[ReachKey]int64
	// lowers caches the lower-case form of every dimension value.
	lowers map[string]string
	// Duplicates counts rows whose ID was already stored (a join would multiply facts).
	Duplicates int
	First      time.Time
	Last       time.Time
}

type sink struct {
	d      *Data
	intern map[string]string
}

func (s *sink) str(v string) string {
	if x, ok := s.intern[v]; ok {
		return x
	}
	s.intern[v] = v
	return v
}

func (s *sink) Dataset(key, value string) error { return nil }
func (s *sink) Account(a ads.Account) error {
	return put(s.d.Accounts, a.AccountID, a, &s.d.Duplicates)
}
func (s *sink) Campaign(c ads.Campaign) error {
	return put(s.d.Campaigns, c.CampaignID, c, &s.d.Duplicates)
}
func (s *sink) AdSet(a ads.AdSet) error { return put(s.d.AdSets, a.AdSetID, a, &s.d.Duplicates) }
func (s *sink) Ad(a ads.Ad) error       { return put(s.d.Ads, a.AdID, a, &s.d.Duplicates) }

// put stores v under k, counting a key seen twice.
func put[V any](m map[string]V, k string, v V, dups *int) error {
	if _, ok := m[k]; ok {
		*dups++
	}
	m[k] = v
	return nil
}

func (s *sink) Fact(f *ads.Fact) error {
	a := s.d.Accounts[f.AccountID]
	var x Fact
	y, m, dd := f.Date.Date()
	x.Date = time.Date(y, m, dd, 0, 0, 0, 0, time.UTC)
	x.Dims[0] = s.str(a.Platform)
	x.Dims[1] = s.str(f.AccountID)
	x.Dims[2] = s.str(a.AccountName)
	x.Dims[3] = s.str(a.Currency)
	x.Dims[4] = s.str(f.CampaignID)
	if f.CampaignID != "" {
		if c, ok := s.d.Campaigns[f.CampaignID]; ok {
			x.Dims[5], x.Dims[6], x.Dims[7] = s.str(c.Name), s.str(c.Objective), s.str(c.Status)
		}
	}
	x.Dims[8] = s.str(f.AdSetID)
	if as, ok := s.d.AdSets[f.AdSetID]; ok && f.AdSetID != "" {
		x.Dims[9] = s.str(as.Name)
	}
	x.Dims[10] = s.str(f.AdID)
	if ad, ok := s.d.Ads[f.AdID]; ok && f.AdID != "" {
		x.Dims[11] = s.str(ad.Name)
	}
	x.Dims[12] = s.str(f.Country)
	x.Dims[13] = s.str(f.Device)
	x.Dims[14] = s.str(f.PublisherPlatform)
	x.Dims[15], x.Dims[16], x.Dims[17], x.Dims[18] = s.str(f.Age), s.str(f.Gender), s.str(f.Placement), s.str(f.ConversionAction)
	x.Dims[19] = s.str(windowOf(a))
	x.Sums.Facts = 1
	for m, v := range f.Measures {
		if v != ads.NotReported {
			x.Sums.Measures[m], x.Sums.Reported[m] = v, true
		}
	}
	if key := f.Breakdown; key != "" && key != "delivery" {
		if s.d.Sets[key] == nil {
			s.d.Sets[key] = map[string][]Fact{}
		}
		s.d.Sets[key][f.AccountID] = append(s.d.Sets[key][f.AccountID], x)
	} else {
		s.d.Facts[f.AccountID] = append(s.d.Facts[f.AccountID], x)
	}
	if s.d.First.IsZero() || x.Date.Before(s.d.First) {
		s.d.First = x.Date
	}
	if x.Date.After(s.d.Last) {
		s.d.Last = x.Date
	}
	return nil
}
func (s *sink) Reach(r ads.Reach) error {
	y, m, dd := r.PeriodStart.Date()
	k := ReachKey{r.Level, r.ObjectID, r.Grain, time.Date(y, m, dd, 0, 0, 0, 0, time.UTC)}
	if _, ok := s.d.Reach[k]; ok {
		s.d.Duplicates++
	}
	s.d.Reach[k] = r.Reach
	return nil
}

// Load generates the dataset of cfg into memory.
func Load(ctx context.Context, cfg demo.Config) (*Data, error) {
	d := &Data{Accounts: map[string]ads.Account{}, Campaigns: map[string]ads.Campaign{},
		AdSets: map[string]ads.AdSet{}, Ads: map[string]ads.Ad{}, Facts: map[string][]Fact{},
		Sets: map[string]map[string][]Fact{}, Reach: map[ReachKey]int64{}}
	s := &sink{d: d, intern: map[string]string{}}
	if err := demo.Generate(ctx, cfg, s, nil); err != nil {
		return nil, err
	}
	d.lowers = map[string]string{}
	for v := range s.intern {
		d.lowers[v] = strings.ToLower(v)
	}
	for id, fs := range d.Facts {
		if !sort.SliceIsSorted(fs, func(i, j int) bool { return fs[i].Date.Before(fs[j].Date) }) {
			return nil, fmt.Errorf("facts of %s are not in date order", id)
		}
	}
	// The breakdown sets' rows are made per campaign: ordered by date here
	// (stable, so the generator's order is kept within a day).
	for _, byAcct := range d.Sets {
		for _, fs := range byAcct {
			sort.SliceStable(fs, func(i, j int) bool { return fs[i].Date.Before(fs[j].Date) })
		}
	}
	return d, nil
}

// Filter is one filter of a query.
type Filter struct {
	Field  string
	Op     string
	Values []any // strings for text fields, float64 for metrics
	Metric bool
}

// SortKey is one key of a query's sort.
type SortKey struct {
	Field string
	Desc  bool
}

// Query is what the oracle aggregates: the normalized query as _meta echoes it.
type Query struct {
	AccountIDs []string
	Start, End time.Time
	Dims       []string
	Metrics    []string
	Grain      string // daily, weekly, monthly, quarterly, total
	Filters    []Filter
	Sort       []SortKey
	Limit      int
}

// Period is the label of the period of grain g holding t ("" for total): a
// quarter is "2026-Q1" (January to March).
func Period(g string, t time.Time) string {
	switch g {
	case "daily":
		return t.Format(time.DateOnly)
	case "weekly":
		return PeriodStart(g, t).Format(time.DateOnly)
	case "monthly":
		return t.Format("2006-01")
	case "quarterly":
		return fmt.Sprintf("%d-Q%d", t.Year(), quarters[t.Month()])
	}
	return ""
}

// quarters is the calendar quarter of each month, written out.
var quarters = map[time.Month]int{
	time.January: 1, time.February: 1, time.March: 1, time.April: 2, time.May: 2, time.June: 2,
	time.July: 3, time.August: 3, time.September: 3, time.October: 4, time.November: 4, time.December: 4,
}

// PeriodStart is the first day of the period of grain g holding t.
func PeriodStart(g string, t time.Time) time.Time {
	switch g {
	case "weekly":
		return t.AddDate(0, 0, -((int(t.Weekday()) + 6) % 7))
	case "monthly":
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	case "quarterly":
		first := t.Month()
		for quarters[first-1] == quarters[t.Month()] {
			first--
		}
		return time.Date(t.Year(), first, 1, 0, 0, 0, 0, time.UTC)
	}
	return t
}

// PeriodEnd is the last day of the period of grain g starting on start.
func PeriodEnd(g string, start time.Time) time.Time {
	switch g {
	case "weekly":
		return start.AddDate(0, 0, 6)
	case "monthly":
		return start.AddDate(0, 1, -1)
	case "quarterly":
		return start.AddDate(0, 3, -1)
	}
	return start
}

// TimeColumn is the name of grain g's time column ("" for total).
func TimeColumn(g string) string {
	return map[string]string{"daily": "date", "weekly": "week", "monthly": "month", "quarterly": "quarter"}[g]
}

// labelStart is the first day of the period a daily, weekly or monthly label
// names (quarter labels are never parsed: quarters only roll up to total).
func labelStart(label string) time.Time {
	t, err := time.Parse(time.DateOnly, label)
	if err != nil {
		t, _ = time.Parse("2006-01", label)
	}
	return t
}

// Row is one aggregated row.
type Row struct {
	Period   string
	Dims     []string // values of Query.Dims
	Sums     Sums
	Accounts map[string]bool
	// Currencies of the facts in the row.
	Currencies map[string]bool
	// reach caches the row's reach (NaN: none), once computed.
	reach *float64
}

// Key identifies a row: its period and dimension values.
func (r *Row) Key() string { return r.Period + "\x1f" + strings.Join(r.Dims, "\x1f") }

// Currency is the row's single currency, or "" when it has none or several.
func (r *Row) Currency() string {
	if len(r.Currencies) != 1 {
		return ""
	}
	for c := range r.Currencies {
		return c
	}
	return ""
}

// MatchText reports whether a dimension value passes a text filter
// (case-insensitive; an empty value is the empty string).
func MatchText(v string, f Filter) bool {
	lv := strings.ToLower(v)
	arg := func(i int) string { return strings.ToLower(fmt.Sprint(f.Values[i])) }
	switch f.Op {
	case "EQUALS":
		return lv == arg(0)
	case "NOT_EQUALS":
		return lv != arg(0)
	case "CONTAINS":
		return strings.Contains(lv, arg(0))
	case "NOT_CONTAINS":
		return !strings.Contains(lv, arg(0))
	case "STARTS_WITH":
		return strings.HasPrefix(lv, arg(0))
	case "IN", "NOT_IN":
		in := false
		for i := range f.Values {
			if lv == arg(i) {
				in = true
			}
		}
		return in == (f.Op == "IN")
	}
	panic("oracle: unknown text operator " + f.Op)
}

// MatchNumber reports whether a metric value passes a metric filter; an empty
// value (NaN) matches none.
func MatchNumber(v float64, f Filter) bool {
	if math.IsNaN(v) {
		return false
	}
	arg := func(i int) float64 { return toFloat(f.Values[i]) }
	switch f.Op {
	case "EQUALS":
		return v == arg(0)
	case "NOT_EQUALS":
		return v != arg(0)
	case "GREATER_THAN":
		return v > arg(0)
	case "GREATER_THAN_OR_EQUAL":
		return v >= arg(0)
	case "LESS_THAN":
		return v < arg(0)
	case "LESS_THAN_OR_EQUAL":
		return v <= arg(0)
	case "BETWEEN":
		return v >= arg(0) && v <= arg(1)
	case "IN", "NOT_IN":
		in := false
		for i := range f.Values {
			if v == arg(i) {
				in = true
			}
		}
		return in == (f.Op == "IN")
	}
	panic("oracle: unknown number operator " + f.Op)
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int:
		return float64(x)
	case string:
		var f float64
		fmt.Sscan(x, &f)
		return f
	}
	return math.NaN()
}

// textMatcher is a compiled text filter.
type textMatcher struct {
	idx int
	f   Filter
	arg string
	set map[string]bool
}

func compileText(f Filter) *textMatcher {
	m := &textMatcher{idx: DimIndex(f.Field), f: f}
	if f.Op == "IN" || f.Op == "NOT_IN" {
		m.set = map[string]bool{}
		for _, v := range f.Values {
			m.set[strings.ToLower(fmt.Sprint(v))] = true
		}
	} else {
		m.arg = strings.ToLower(fmt.Sprint(f.Values[0]))
	}
	return m
}

func (m *textMatcher) match(lv string) bool {
	switch m.f.Op {
	case "EQUALS":
		return lv == m.arg
	case "NOT_EQUALS":
		return lv != m.arg
	case "CONTAINS":
		return strings.Contains(lv, m.arg)
	case "NOT_CONTAINS":
		return !strings.Contains(lv, m.arg)
	case "STARTS_WITH":
		return strings.HasPrefix(lv, m.arg)
	case "IN":
		return m.set[lv]
	case "NOT_IN":
		return !m.set[lv]
	}
	panic("oracle: unknown text operator " + m.f.Op)
}

// lower is the lower-case form of a dimension value (cached).
func (d *Data) lower(v string) string {
	if l, ok := d.lowers[v]; ok {
		return l
	}
	return strings.ToLower(v)
}

// EachFact calls fn for each fact of q's accounts and dates that passes q's
// text filters, from the breakdown set q reads on each account's platform
// (SetOf; delivery when no set holds q's breakdowns, a query the engine
// refuses).
func (d *Data) EachFact(q *Query, fn func(f *Fact)) {
	var text []*textMatcher
	for _, f := range q.Filters {
		if !f.Metric {
			text = append(text, compileText(f))
		}
	}
	bd := q.Breakdowns()
	sums := q.SumsRead()
	each := func(fs []Fact, unattributed bool) {
		i := sort.Search(len(fs), func(i int) bool { return !fs[i].Date.Before(q.Start) })
	next:
		for ; i < len(fs) && !fs[i].Date.After(q.End); i++ {
			f := &fs[i]
			if unattributed {
				if f.Dims[DimIndex("campaign_id")] != "" || !slices.ContainsFunc(sums, func(m int) bool { return f.Sums.Measures[m] != 0 }) {
					continue
				}
				x := *f
				for _, b := range BreakdownDims {
					x.Dims[DimIndex(b)] = ""
				}
				f = &x
			}
			for _, m := range text {
				if !m.match(d.lower(f.Dims[m.idx])) {
					continue next
				}
			}
			fn(f)
		}
	}
	for _, id := range q.AccountIDs {
		set, ok := SetOf(d.Accounts[id].Platform, bd)
		if !ok || set.Key == "delivery" {
			each(d.Facts[id], false)
			continue
		}
		each(d.Sets[set.Key][id], false)
		if set.OfReports() {
			// A per-campaign (or per-ad-group) set's rows are campaigns' (ad
			// groups') reports: delivery no campaign holds is read beside
			// them, with no breakdown value,
			// where it has some of what the query sums (docs/fields.md,
			// "Breakdowns").
			each(d.Facts[id], true)
		}
	}
}

// SumsRead are the measures q's metrics and metric filters sum (a ratio's
// parts, frequency's impressions), written out here.
func (q *Query) SumsRead() []int {
	parts := map[string][]string{"ctr": {"clicks", "impressions"}, "cpc": {"spend", "clicks"}, "cpm": {"spend", "impressions"},
		"cpa": {"spend", "conversions"}, "roas": {"conversion_value", "spend"}, "conversion_rate": {"conversions", "clicks"},
		"frequency": {"impressions"}}
	names := slices.Clone(q.Metrics)
	for _, f := range q.Filters {
		if f.Metric {
			names = append(names, f.Field)
		}
	}
	var out []int
	for _, m := range names {
		ms := parts[m]
		if Additive[m] {
			ms = []string{m}
		}
		for _, x := range ms {
			if i := catalog.MustLookup(x).Storage.Measure; !slices.Contains(out, int(i)) {
				out = append(out, int(i))
			}
		}
	}
	return out
}

// Aggregate groups q's facts by the period of grain g and q's dimensions. No
// metric filter, no step 1, no sort, no limit.
func (d *Data) Aggregate(q *Query, g string) []*Row {
	return d.AggregateBy(q, func(day time.Time) string { return Period(g, day) })
}

// AggregateBy groups q's facts by the label period gives their day and q's
// dimensions.
func (d *Data) AggregateBy(q *Query, period func(time.Time) string) []*Row {
	idx := make([]int, len(q.Dims))
	for i, dim := range q.Dims {
		idx[i] = DimIndex(dim)
	}
	groups := map[string]*Row{}
	var order []*Row
	var kb strings.Builder
	d.EachFact(q, func(f *Fact) {
		kb.Reset()
		p := period(f.Date)
		kb.WriteString(p)
		for _, j := range idx {
			kb.WriteByte(0x1f)
			kb.WriteString(f.Dims[j])
		}
		k := kb.String()
		r, ok := groups[k]
		if !ok {
			vals := make([]string, len(idx))
			for i, j := range idx {
				vals[i] = f.Dims[j]
			}
			r = &Row{Period: p, Dims: vals, Accounts: map[string]bool{}, Currencies: map[string]bool{}}
			groups[k] = r
			order = append(order, r)
		}
		r.Sums.add(&f.Sums)
		r.Accounts[f.Dims[1]] = true
		r.Currencies[f.Dims[3]] = true
	})
	return order
}

// Rollup merges rows into the periods of the coarser grain g.
func Rollup(rows []*Row, g string) []*Row {
	groups := map[string]*Row{}
	var out []*Row
	for _, r := range rows {
		p := ""
		if r.Period != "" && g != "total" {
			p = Period(g, labelStart(r.Period))
		}
		n := &Row{Period: p, Dims: r.Dims}
		k := n.Key()
		if x, ok := groups[k]; ok {
			n = x
		} else {
			n.Accounts, n.Currencies = map[string]bool{}, map[string]bool{}
			groups[k] = n
			out = append(out, n)
		}
		n.Sums.add(&r.Sums)
		for a := range r.Accounts {
			n.Accounts[a] = true
		}
		for c := range r.Currencies {
			n.Currencies[c] = true
		}
	}
	return out
}

// Value is metric m of sums s; NaN for no value (a ratio over zero, link clicks
// not reported). Reach and frequency are not computed here (see Data.ReachOf).
// Additive metrics are the catalog's stored measures; ratios are written out
// here, independently of the catalog's definitions.
func Value(m string, s *Sums) float64 {
	div := func(n, d, scale float64) float64 {
		if d == 0 {
			return math.NaN()
		}
		return n / d * scale
	}
	v := func(name string) float64 {
		f, ok := catalog.Lookup(name)
		if !ok || f.Storage == nil {
			return math.NaN()
		}
		i := f.Storage.Measure
		switch {
		case !s.Reported[i] && nullable[i]:
			return math.NaN()
		case f.Unit == catalog.Money:
			return s.Measures[i] / 1e6
		}
		return s.Measures[i]
	}
	switch m {
	case "ctr":
		return div(v("clicks"), v("impressions"), 100)
	case "cpc":
		return div(v("spend"), v("clicks"), 1)
	case "cpm":
		return div(v("spend"), v("impressions"), 1000)
	case "cpa":
		return div(v("spend"), v("conversions"), 1)
	case "roas":
		return div(v("conversion_value"), v("spend"), 1)
	case "conversion_rate":
		return div(v("conversions"), v("clicks"), 100)
	}
	return v(m)
}

// nullable says which measures some platform does not report.
var nullable = func() (out [catalog.NumMeasures]bool) {
	for _, c := range catalog.FactColumns() {
		out[c.Measure] = c.Nullable
	}
	return out
}()

// Additive metrics sum; the others are ratios or reach. The catalog lists them.
var Additive = func() map[string]bool {
	out := map[string]bool{}
	for _, f := range catalog.Measures() {
		out[f.Name] = true
	}
	return out
}()

// Money metrics are in the account's currency. The catalog lists them.
var Money = func() map[string]bool {
	out := map[string]bool{}
	for _, f := range catalog.Fields() {
		if f.IsMetric() && f.Unit == catalog.Money {
			out[f.Name] = true
		}
	}
	return out
}()

// ReachOf is the stored reach answering row r of q at grain g (daily, weekly,
// monthly, or total over q's range; never quarterly), and whether exactly one stored value
// answers it (otherwise reach is empty). ok is false when reach cannot be
// answered for this query at all.
func (d *Data) ReachOf(q *Query, r *Row, g string) (reach int64, one bool, ok bool) {
	level := "account"
	for _, dim := range q.Dims {
		switch {
		case AccountLevel[dim]:
		case CampaignLevel[dim]:
			level = "campaign"
		default:
			return 0, false, false
		}
	}
	for _, f := range q.Filters {
		if f.Metric {
			continue
		}
		if !(AccountLevel[f.Field] || level == "campaign" && CampaignLevel[f.Field]) {
			return 0, false, false
		}
	}
	identified := len(q.AccountIDs) == 1 || slices.Contains(q.Dims, "account_id") || slices.Contains(q.Dims, "account_name")
	if level == "campaign" {
		identified = slices.Contains(q.Dims, "campaign_id") || slices.Contains(q.Dims, "campaign_name")
	}
	if !identified {
		return 0, false, false
	}
	// The stored grain and period.
	var start time.Time
	grain := g
	switch g {
	case "total":
		start = q.Start
		switch {
		case q.Start.Equal(q.End):
			grain = "daily"
		case q.Start.Weekday() == time.Monday && q.End.Equal(q.Start.AddDate(0, 0, 6)):
			grain = "weekly"
		case q.Start.Day() == 1 && q.End.Equal(q.Start.AddDate(0, 1, -1)):
			grain = "monthly"
		default:
			return 0, false, false
		}
	case "quarterly":
		return 0, false, false // not stored per quarter, and never summed from months
	default:
		start = labelStart(r.Period)
		if start.Before(q.Start) || PeriodEnd(g, start).After(q.End) {
			return 0, false, true // partial period: empty
		}
	}
	// Objects matching the row's dimensions and the query's text filters.
	n := 0
	match := func(vals map[string]string) bool {
		for i, dim := range q.Dims {
			if vals[dim] != r.Dims[i] {
				return false
			}
		}
		for _, f := range q.Filters {
			if !f.Metric && !MatchText(vals[f.Field], f) {
				return false
			}
		}
		return true
	}
	for _, id := range q.AccountIDs {
		a := d.Accounts[id]
		vals := map[string]string{"platform": a.Platform, "account_id": a.AccountID, "account_name": a.AccountName, "currency": a.Currency,
			"attribution_window": windowOf(a)}
		if level == "account" {
			if v, has := d.Reach[ReachKey{"account", id, grain, start}]; has && match(vals) {
				n++
				reach = v
			}
			continue
		}
		for _, c := range d.Campaigns {
			if c.AccountID != id {
				continue
			}
			vals["campaign_id"], vals["campaign_name"], vals["campaign_objective"], vals["campaign_status"] = c.CampaignID, c.Name, c.Objective, c.Status
			if v, has := d.Reach[ReachKey{"campaign", c.CampaignID, grain, start}]; has && match(vals) {
				n++
				reach = v
			}
		}
	}
	return reach, n == 1, true
}
