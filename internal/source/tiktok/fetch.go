package tiktok

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/source/decimal"
	"github.com/adsmcp/adsmcp/internal/source/live"
)

// Compile maps the live source's plan onto TikTok's requests
// (live.Connector): per advertiser, one integrated report per span of the
// range and per set of at most 100 filtered IDs, each read to its last page;
// /campaign/get/ for campaign_status; and the reach the warehouse reads, one
// report per period. A shape TikTok cannot report is an error; a plan of
// reach alone without reach is nothing to fetch.
func (c *Connector) Compile(p *live.Plan) (live.AccountFetch, error) {
	fp, err := compile(p)
	if err != nil {
		return nil, err
	}
	if fp.reachOnly && fp.reach == nil {
		return nil, nil
	}
	return func(ctx context.Context, a ads.Account, b *live.Batch) error {
		out := newAccountRows()
		if err := c.fetchAdvertiser(ctx, fp, a, out); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return c.accountError(a.AccountID, err)
		}
		out.addTo(b)
		return nil
	}, nil
}

// Workers is how many advertisers are fetched at once (Options.Workers).
func (c *Connector) Workers() int { return c.opts.Workers }

// fetchAdvertiser reads what p asks of one advertiser: its facts and names
// (unless p is reach alone), then its reach.
func (c *Connector) fetchAdvertiser(ctx context.Context, p *fetchPlan, a ads.Account, out *accountRows) error {
	if !p.reachOnly {
		if err := c.fetchAccount(ctx, p, a, out); err != nil {
			return err
		}
	}
	if p.reach == nil {
		return nil
	}
	return c.fetchReach(ctx, p, a.AccountID, out)
}

// accountRows are one advertiser's rows: its objects' names and details are
// gathered from several requests (report rows, /campaign/get/) before they
// are added to the batch, where the last one recorded wins.
type accountRows struct {
	campaigns map[string]*ads.Campaign
	adgroups  map[string]ads.AdSet
	ads       map[string]ads.Ad
	facts     []ads.Fact
	reach     []ads.Reach
}

func newAccountRows() *accountRows {
	return &accountRows{campaigns: map[string]*ads.Campaign{}, adgroups: map[string]ads.AdSet{}, ads: map[string]ads.Ad{}}
}

func (r *accountRows) addTo(b *live.Batch) {
	for _, c := range r.campaigns {
		b.Campaign(*c)
	}
	for _, s := range r.adgroups {
		b.AdSet(s)
	}
	for _, a := range r.ads {
		b.Ad(a)
	}
	b.Facts(r.facts...)
	b.Reach(r.reach...)
}

func (r *accountRows) campaign(accountID, id string) *ads.Campaign {
	c := r.campaigns[id]
	if c == nil {
		c = &ads.Campaign{CampaignID: id, AccountID: accountID}
		r.campaigns[id] = c
	}
	return c
}

// fetchAccount reads the facts and names p needs from one advertiser.
func (c *Connector) fetchAccount(ctx context.Context, p *fetchPlan, a ads.Account, out *accountRows) error {
	id := a.AccountID
	if p.campaignStatus {
		if err := c.campaigns(ctx, id, out); err != nil {
			return err
		}
	}
	for _, sp := range p.spans {
		for _, filters := range p.filterSets {
			params := reportParams(id, p.level, p.audience, p.daily, p.metrics, sp, filters, c.opts.PageSize)
			err := c.report(ctx, params, func(r *ReportRow) error {
				f, err := c.fact(p, sp, id, r)
				if err != nil {
					return err
				}
				out.names(id, p.level, r)
				switch {
				case p.set != catalog.Delivery && f.CampaignID == "":
					// Not a campaign's: the set is stored per campaign (fetchPlan.level).
				case p.events:
					fs, err := eventFacts(f, defaultAction(a), r)
					if err != nil {
						return err
					}
					out.facts = append(out.facts, fs...)
				default:
					out.facts = append(out.facts, f)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// fetchReach reads p's reach from one advertiser: reports of reach alone at
// the plan's level, one per period (or per 30 days of daily reach) and per
// filter set.
func (c *Connector) fetchReach(ctx context.Context, p *fetchPlan, id string, out *accountRows) error {
	rp := p.reach
	for _, sp := range reachSpans(rp) {
		for _, filters := range p.filterSets {
			params := reportParams(id, rp.Level, nil, rp.Grain == fit.Daily, []string{reachField}, sp, filters, c.opts.PageSize)
			err := c.report(ctx, params, func(r *ReportRow) error {
				v, ok, err := r.Micros(reachField)
				if err != nil || !ok {
					return malformed(err)
				}
				if v < 0 || v%1e6 != 0 {
					return &malformedError{fmt.Sprintf("reach %s is not a whole count", formatMicros(v))}
				}
				period := sp.start
				if rp.Grain == fit.Daily {
					if period, err = r.Day(); err != nil || period.Before(sp.start) || period.After(sp.end) {
						return malformed(err)
					}
				}
				rr := ads.Reach{Level: "account", ObjectID: id, AccountID: id, Grain: string(rp.Grain), PeriodStart: period, Reach: v / 1e6}
				if rp.Level == catalog.LevelCampaign {
					rr.Level = "campaign"
					if rr.ObjectID = r.Text("campaign_id"); rr.ObjectID == "" {
						return &malformedError{"a campaign reach row without campaign_id"}
					}
				}
				out.reach = append(out.reach, rr)
				return nil
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func malformed(err error) error {
	if err == nil {
		return nil
	}
	return &malformedError{err.Error()}
}

// report reads every page of one report (page 1 to page_info.total_page),
// calling row for each row.
func (c *Connector) report(ctx context.Context, params url.Values, row func(*ReportRow) error) error {
	for page := 1; ; page++ {
		params.Set("page", strconv.Itoa(page))
		body, err := c.do(ctx, request{path: "/report/integrated/get/", params: params})
		if err != nil {
			return err
		}
		rp, err := ParseReport(body)
		if err != nil {
			return &malformedError{c.redact(err.Error())}
		}
		if rp.Page != page {
			return &malformedError{fmt.Sprintf("asked for page %d of a report, got page %d", page, rp.Page)}
		}
		for i := range rp.Rows {
			if err := row(&rp.Rows[i]); err != nil {
				return err
			}
		}
		if page >= rp.TotalPage {
			return nil
		}
	}
}

// names records the campaign, ad group and ad a row names.
func (r *accountRows) names(accountID string, l catalog.Level, row *ReportRow) {
	campaignID, adgroupID, adID := row.Text("campaign_id"), row.Text("adgroup_id"), row.Text("ad_id")
	if l >= catalog.LevelCampaign && campaignID != "" {
		cp := r.campaign(accountID, campaignID)
		if n := row.Text("campaign_name"); n != "" {
			cp.Name = n
		}
		if o := row.Text("objective_type"); o != "" {
			cp.Objective = o
		}
	}
	if l >= catalog.LevelAdSet && adgroupID != "" {
		r.adgroups[adgroupID] = ads.AdSet{AdSetID: adgroupID, CampaignID: campaignID, AccountID: accountID, Name: row.Text("adgroup_name")}
	}
	if l >= catalog.LevelAd && adID != "" {
		r.ads[adID] = ads.Ad{AdID: adID, AdSetID: adgroupID, CampaignID: campaignID, AccountID: accountID, Name: row.Text("ad_name")}
	}
}

// fact turns a report row into a warehouse fact: the day (daily reports) or
// the span's first day, the level's IDs, the breakdowns and the measures, read
// from the report metrics metricFields names. IDs may be empty: TikTok reports spend
// it cannot attribute to a (deleted) object, and the warehouse keeps it.
func (c *Connector) fact(p *fetchPlan, sp span, accountID string, r *ReportRow) (ads.Fact, error) {
	date := sp.start
	if p.daily {
		d, err := r.Day()
		if err != nil {
			return ads.Fact{}, &malformedError{err.Error()}
		}
		if d.Before(sp.start) || d.After(sp.end) {
			return ads.Fact{}, &malformedError{fmt.Sprintf("a row for %s, outside the requested range %s … %s", d.Format(time.DateOnly), sp.start.Format(time.DateOnly), sp.end.Format(time.DateOnly))}
		}
		date = d
	}
	f := ads.Fact{Date: date, AccountID: accountID}
	if p.level >= catalog.LevelCampaign {
		f.CampaignID = r.Text("campaign_id")
	}
	if p.level >= catalog.LevelAdSet {
		f.AdSetID = r.Text("adgroup_id")
	}
	if p.level >= catalog.LevelAd {
		f.AdID = r.Text("ad_id")
	}
	if p.set != catalog.Delivery {
		f.Breakdown = p.set
	}
	for _, a := range p.audience {
		audienceDims[a](&f, r.Text(a), p.set)
	}
	for m, mf := range catalog.Measures() {
		v, err := measure(mf, measureFields[m], r)
		if err != nil {
			return ads.Fact{}, &malformedError{err.Error()}
		}
		f.Measures[m] = v
	}
	return f, nil
}

// measure is a stored metric's value in a row, of its column's kind: money in
// micros, counts whole, doubles as reported; ads.NotReported where TikTok does
// not report the metric (no entry in metricFields), 0 where the row lacks it.
func measure(f catalog.Field, field string, r *ReportRow) (float64, error) {
	if field == "" {
		return ads.NotReported, nil
	}
	return measureAs(f, field, r)
}

// measureAs is report metric name's value in a row, as a value of stored
// metric f (an event's count as conversions, its value as conversion_value).
func measureAs(f catalog.Field, name string, r *ReportRow) (float64, error) {
	m, _, err := r.Micros(name)
	if err != nil {
		return 0, err
	}
	switch f.Storage.Kind {
	case catalog.Micros:
		return float64(m), nil
	case catalog.Integer:
		if m%1e6 != 0 {
			return 0, fmt.Errorf("metric %s: %s is not a whole count", name, formatMicros(m))
		}
		return float64(m / 1e6), nil
	}
	return float64(m) / 1e6, nil
}

// defaultAction is the conversion_action name of what an advertiser's
// conversions count: its ConversionActions (Accounts), else
// DefaultConversionAction.
func defaultAction(a ads.Account) string {
	if a.ConversionActions != "" {
		return a.ConversionActions
	}
	return DefaultConversionAction
}

// eventFacts turns one row of a conversion_action report into the set's
// facts: first the default action, with exactly the row's conversion and its
// value (what conversions and conversion_value count, so that the default
// action's rows equal the delivery rows'), then one per event with a count or
// a value. Only conversions and conversion_value are set; the other measures
// are 0 (or NotReported where TikTok reports no such metric), as the
// warehouse stores the set. Events without a count or a value have no row.
func eventFacts(base ads.Fact, defaultName string, r *ReportRow) ([]ads.Fact, error) {
	convField, valueField := catalog.MustLookup("conversions"), catalog.MustLookup("conversion_value")
	var empty [catalog.NumMeasures]float64
	for m, field := range measureFields {
		if field == "" {
			empty[m] = ads.NotReported
		}
	}
	var out []ads.Fact
	add := func(name, count, value string) error {
		n, err := measureAs(convField, count, r)
		if err != nil {
			return err
		}
		var v float64
		if value != "" {
			if v, err = measureAs(valueField, value, r); err != nil {
				return err
			}
		}
		if n == 0 && v == 0 {
			return nil
		}
		f := base
		f.ConversionAction, f.Measures = name, empty
		f.Measures[catalog.Conversions], f.Measures[catalog.ConversionValue] = n, v
		out = append(out, f)
		return nil
	}
	if err := add(defaultName, metricFields[convField.Name], metricFields[valueField.Name]); err != nil {
		return nil, &malformedError{err.Error()}
	}
	for _, e := range events {
		if e.name == defaultName {
			continue
		}
		if err := add(e.name, e.count, e.value); err != nil {
			return nil, &malformedError{err.Error()}
		}
	}
	return out, nil
}

// formatMicros writes micros as the shortest exact decimal, for messages.
var formatMicros = decimal.FormatMicros

// campaignFields are what /campaign/get/ is asked for campaign_status.
var campaignFields = mustJSON([]string{"campaign_id", "campaign_name", "objective_type", "operation_status", "secondary_status"})

// campaigns reads the advertiser's campaigns' names, objectives and statuses
// (/campaign/get/, every page), deleted ones included.
func (c *Connector) campaigns(ctx context.Context, id string, out *accountRows) error {
	for page := 1; ; page++ {
		body, err := c.do(ctx, request{path: "/campaign/get/", params: url.Values{
			"advertiser_id": {id}, "fields": {campaignFields}, "page": {strconv.Itoa(page)}, "page_size": {strconv.Itoa(c.opts.PageSize)},
			"filtering": {`{"secondary_status":"CAMPAIGN_STATUS_ALL"}`}}})
		if err != nil {
			return err
		}
		var data campaignsData
		if err := decodeData(body, "campaigns", &data); err != nil {
			return malformed(err)
		}
		if data.List == nil || data.PageInfo == nil {
			return &malformedError{"campaigns: no list or no page_info"}
		}
		for _, x := range *data.List {
			if !x.CampaignID.present || x.CampaignID.s == "" {
				continue
			}
			cp := out.campaign(id, x.CampaignID.s)
			cp.Name, cp.Objective, cp.Status = x.Name, x.ObjectiveType, campaignStatus(x.OperationStatus, x.SecondaryStatus)
		}
		total, err := smallCount(data.PageInfo.TotalPage)
		if err != nil {
			return &malformedError{"campaigns page_info: " + err.Error()}
		}
		if page >= total {
			return nil
		}
	}
}

// campaignStatus normalizes a campaign's status like the warehouse's
// campaign_status: deleted is ARCHIVED, disabled PAUSED, enabled ACTIVE.
func campaignStatus(operation, secondary string) string {
	switch {
	case secondary == "CAMPAIGN_STATUS_DELETE":
		return "ARCHIVED"
	case operation == "DISABLE":
		return "PAUSED"
	case operation == "ENABLE":
		return "ACTIVE"
	}
	return operation
}
