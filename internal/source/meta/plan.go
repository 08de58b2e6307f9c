package meta

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source/live"
)

// level is an Insights level; its order is the object hierarchy.
type level int

const (
	levelAccount level = iota
	levelCampaign
	levelAdSet
	levelAd
)

func (l level) String() string { return [...]string{"account", "campaign", "adset", "ad"}[l] }

// filterFields are the dimensions whose filters are also sent to Meta as
// filtering (IDs only: their matching cannot differ from the warehouse's
// case-insensitive text matching). Every filter is applied again to the
// fetched rows, so sending one only saves data.
var filterFields = map[string]string{
	"campaign_id": "campaign.id",
	"adset_id":    "adset.id",
	"ad_id":       "ad.id",
}

// fetchPlan is a live.Plan as Insights requests: what every account is asked.
type fetchPlan struct {
	level      level
	fields     []string // Insights fields, ids and names first
	breakdowns []string // Meta breakdowns
	increment  string   // time_increment: 1, monthly or all_days
	filtering  []metaFilter
	// set is the breakdown set the query reads (catalog.BreakdownSet key):
	// its facts are staged with ads.Fact.Breakdown set to it ("" for delivery).
	set string
	// windows are the action_attribution_windows asked (catalog
	// AttributionParts), nil for the account's default attribution.
	windows []string
	// campaignStatus: campaign_status is used, which only /campaigns has.
	campaignStatus bool
	reach          *reachPlan
	start, end     time.Time
}

type metaFilter struct {
	Field    string   `json:"field"`
	Operator string   `json:"operator"`
	Value    []string `json:"value"`
}

// reachPlan is the plan's reach (live.Reach) as Insights requests it: per
// account or campaign, per whole period of grain between first and last
// (period starts).
type reachPlan struct {
	level       level
	grain       fit.Grain
	first, last time.Time
	// weekly reach needs its own requests (facts are fetched daily: Insights
	// has no ISO-week time_increment).
	separate bool
}

// compile maps a live plan onto the Insights requests' shape.
func (c *Connector) compile(lp *live.Plan) (*fetchPlan, error) {
	p := &fetchPlan{start: lp.Start, end: lp.End}
	if lp.Set.Key != catalog.Delivery {
		p.set = lp.Set.Key
	}
	if err := p.planLevel(lp); err != nil {
		return nil, err
	}
	if err := c.planBreakdowns(p, lp.Breakdowns); err != nil {
		return nil, err
	}
	for _, f := range lp.Filters {
		if mf := metaFilterOf(f); mf != nil {
			p.filtering = append(p.filtering, *mf)
		}
	}
	p.campaignStatus = lp.Uses("campaign_status")
	if err := p.planWindows(attributionWindow(lp)); err != nil {
		return nil, err
	}
	switch lp.Grain {
	case fit.Daily, fit.Weekly:
		// Weekly: daily rows, which the warehouse rolls up into ISO weeks exactly.
		p.increment = "1"
	case fit.Monthly:
		// Quarterly queries are planned as monthly rows, which the warehouse
		// rolls up into quarters exactly.
		p.increment = "monthly"
	case fit.Total:
		p.increment = "all_days"
	default:
		return nil, fmt.Errorf("meta: unknown grain %q", lp.Grain)
	}
	if r := lp.Reach; r != nil {
		p.reach = &reachPlan{level: levelAccount, grain: r.Grain, first: r.First, last: r.Last, separate: lp.Grain == fit.Weekly}
		if r.Level == catalog.LevelCampaign {
			p.reach.level = levelCampaign
		}
	}
	metrics := fieldsOf(lp.Measures)
	if len(metrics) == 0 {
		// Rows must exist for the groups to exist.
		metrics = []string{mustInsightsField("impressions")}
	}
	p.fields = append(p.objectFields(lp.Uses("campaign_objective")), metrics...)
	if p.reach != nil && !p.reach.separate {
		p.fields = append(p.fields, reachField)
	}
	return p, nil
}

// planLevel sets the Insights level. The conversion_action set is read per
// campaign whatever the query's level (lp.Level): its rows are made from
// each campaign's actions, and only rows with a campaign are staged. The
// other per-campaign sets (age and gender, placement) are read at the level
// the query names (lp.ObjectLevel): level=account also counts deleted
// campaigns, which level=campaign leaves out (docs/meta.md, "Deleted
// objects"), and its report is a fraction of the rows. Sets kept per ad
// (delivery, device_platform) are read at the plan's level.
func (p *fetchPlan) planLevel(lp *live.Plan) error {
	l := lp.ObjectLevel
	if lp.Set.Level == catalog.LevelAd || p.set == conversionActionSet {
		l = lp.Level
	}
	if l < catalog.LevelAccount || l > catalog.LevelAd {
		return fmt.Errorf("meta: no Insights level for object level %d", l)
	}
	// catalog.LevelAccount … LevelAd are in the order of Insights' levels.
	p.level = levelAccount + level(l-catalog.LevelAccount)
	return nil
}

// planBreakdowns sets the Meta breakdowns of the plan's breakdown
// dimensions, in the order Meta documents them. The plan's set holds them
// together (catalog.SetFor): Meta's country is alone in its delivery set and
// its device and publisher_platform are the device_platform set, as Insights
// combines them (Insights API Breakdowns, "Combining breakdowns").
func (c *Connector) planBreakdowns(p *fetchPlan, dims []string) error {
	for _, name := range dims {
		bs, ok := c.metaBreakdowns(name)
		if !ok {
			return fmt.Errorf("meta: no Meta breakdown for %s", name)
		}
		for _, b := range bs {
			if !slices.Contains(p.breakdowns, b) {
				p.breakdowns = append(p.breakdowns, b)
			}
		}
	}
	slices.SortStableFunc(p.breakdowns, func(a, b string) int {
		return slices.Index(breakdownOrder, a) - slices.Index(breakdownOrder, b)
	})
	return nil
}

// objectFields are the ids and names of the plan's level and those above
// it, and the campaign's objective when asked.
func (p *fetchPlan) objectFields(objective bool) []string {
	var out []string
	if p.level >= levelCampaign {
		out = append(out, "campaign_id", "campaign_name")
	}
	if p.level >= levelAdSet {
		out = append(out, "adset_id", "adset_name")
	}
	if p.level >= levelAd {
		out = append(out, "ad_id", "ad_name")
	}
	if objective {
		out = append(out, "objective")
	}
	return out
}

// metaFilterOf is the Meta filtering of an ID filter, or nil.
func metaFilterOf(f query.Filter) *metaFilter {
	field, ok := filterFields[f.Field]
	if !ok {
		return nil
	}
	var op string
	switch f.Operator {
	case query.Equals, query.In:
		op = "IN"
	case query.NotEquals, query.NotIn:
		op = "NOT_IN"
	default:
		return nil
	}
	mf := &metaFilter{Field: field, Operator: op}
	for _, v := range f.Values {
		s, ok := v.(string)
		if !ok {
			return nil
		}
		mf.Value = append(mf.Value, s)
	}
	return mf
}

// accepts returns the period a row's reach is for, when the row covers
// exactly one whole period the warehouse reads.
func (rp *reachPlan) accepts(r *Row) (time.Time, bool) {
	start := periodStart(rp.grain, r.DateStart)
	if !start.Equal(r.DateStart) || !r.DateStop.Equal(periodEnd(rp.grain, start)) {
		return time.Time{}, false
	}
	if start.Before(rp.first) || start.After(rp.last) {
		return time.Time{}, false
	}
	return start, true
}

// weeks are the time ranges of the ISO weeks whose reach the plan reads.
func (rp *reachPlan) weeks() []timeRange {
	var out []timeRange
	for w := rp.first; !w.After(rp.last); w = w.AddDate(0, 0, 7) {
		out = append(out, timeRange{Since: w.Format(time.DateOnly), Until: w.AddDate(0, 0, 6).Format(time.DateOnly)})
	}
	return out
}

type timeRange struct {
	Since string `json:"since"`
	Until string `json:"until"`
}

func firstOfMonth(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

func periodStart(g fit.Grain, t time.Time) time.Time {
	switch g {
	case fit.Weekly:
		return t.AddDate(0, 0, -((int(t.Weekday()) + 6) % 7))
	case fit.Monthly:
		return firstOfMonth(t)
	}
	return t
}

func periodEnd(g fit.Grain, start time.Time) time.Time {
	switch g {
	case fit.Weekly:
		return start.AddDate(0, 0, 6)
	case fit.Monthly:
		return start.AddDate(0, 1, -1)
	}
	return start
}

// insightsParams are the parameters of the main Insights request.
func (p *fetchPlan) insightsParams() url.Values {
	v := url.Values{}
	v.Set("level", p.level.String())
	v.Set("fields", strings.Join(p.fields, ","))
	v.Set("time_range", mustJSON(timeRange{Since: p.start.Format(time.DateOnly), Until: p.end.Format(time.DateOnly)}))
	v.Set("time_increment", p.increment)
	if len(p.breakdowns) > 0 {
		v.Set("breakdowns", strings.Join(p.breakdowns, ","))
	}
	if len(p.filtering) > 0 {
		v.Set("filtering", mustJSON(p.filtering))
	}
	if len(p.windows) > 0 {
		v.Set("action_attribution_windows", mustJSON(p.windows))
	}
	return v
}

// reachParams are the parameters of a request for reach alone: weekly reach
// over ranges, or (no ranges) the reach of every period of the plan's
// time_increment over its range.
func (p *fetchPlan) reachParams(ranges []timeRange) url.Values {
	v := url.Values{}
	v.Set("level", p.reach.level.String())
	fields := []string{}
	if p.reach.level == levelCampaign {
		fields = append(fields, "campaign_id", "campaign_name")
	}
	v.Set("fields", strings.Join(append(fields, reachField), ","))
	if len(ranges) > 0 {
		v.Set("time_ranges", mustJSON(ranges))
	} else {
		v.Set("time_range", mustJSON(timeRange{Since: p.start.Format(time.DateOnly), Until: p.end.Format(time.DateOnly)}))
		v.Set("time_increment", p.increment)
	}
	if len(p.filtering) > 0 {
		v.Set("filtering", mustJSON(p.filtering))
	}
	return v
}

// Rough sizes for the async decision: objects per level and values per
// breakdown of a typical account.
var (
	objectsPerLevel  = [...]int{levelAccount: 1, levelCampaign: 30, levelAdSet: 100, levelAd: 300}
	valuesPerBreakdn = map[string]int{"country": 5, "impression_device": 6, "device_platform": 3, "publisher_platform": 4,
		"age": 7, "gender": 3, "platform_position": 8}
)

// estimatedRows is a rough upper estimate of the main request's rows.
func (p *fetchPlan) estimatedRows() int {
	periods := 1
	switch p.increment {
	case "1":
		periods = int(p.end.Sub(p.start).Hours()/24) + 1
	case "monthly":
		periods = (p.end.Year()-p.start.Year())*12 + int(p.end.Month()-p.start.Month()) + 1
	}
	n := periods * objectsPerLevel[p.level]
	for _, b := range p.breakdowns {
		n *= max(1, valuesPerBreakdn[b])
	}
	return n
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
