package meta

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/source/live"
)

// maxTimeRanges bounds the weeks asked in one time_ranges request.
const maxTimeRanges = 20

// campaignStatuses are asked of /campaigns: without effective_status the edge
// leaves archived campaigns out.
const campaignStatuses = `["ACTIVE","PAUSED","ARCHIVED","IN_PROCESS","WITH_ISSUES"]`

const campaignFields = "id,name,objective,effective_status,start_time,stop_time"

// Compile maps p onto Insights requests (live.Connector): one report
// per account, plus the campaign list and reach requests when p needs them;
// for p.ReachOnly, the reach requests alone. A window Meta cannot report with
// p's breakdowns is a *query.Error, before any request.
func (c *Connector) Compile(p *live.Plan) (live.AccountFetch, error) {
	fp, err := c.compile(p)
	if err != nil {
		return nil, err
	}
	if p.ReachOnly {
		if fp.reach == nil {
			return nil, nil
		}
		return c.accountFetch(func(ctx context.Context, a ads.Account, b *live.Batch) error {
			out := newAccountRows()
			if err := c.fetchReach(ctx, fp, a, out); err != nil {
				return err
			}
			b.Reach(out.reach...) // reach alone: not the names its requests carry
			return nil
		}), nil
	}
	return c.accountFetch(func(ctx context.Context, a ads.Account, b *live.Batch) error {
		rows, err := c.fetchAccount(ctx, fp, a)
		if err != nil {
			return err
		}
		rows.addTo(b)
		return nil
	}), nil
}

// Workers is how many accounts are fetched at once (Options.Workers).
func (c *Connector) Workers() int { return c.opts.Workers }

// accountFetch is fetch whose failures say why the account could not be
// read (accountError), as live.AccountFetch returns them.
func (c *Connector) accountFetch(fetch live.AccountFetch) live.AccountFetch {
	return func(ctx context.Context, a ads.Account, b *live.Batch) error {
		err := fetch(ctx, a, b)
		switch {
		case err == nil:
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		}
		return c.accountError(a.AccountID, err)
	}
}

// accountRows are one account's rows as they are read: a campaign's name,
// objective, status and dates come from /campaigns and from Insights rows,
// merged here before the campaign is recorded (the batch keeps the last
// record of a campaign whole).
type accountRows struct {
	campaigns map[string]*ads.Campaign
	adsets    map[string]ads.AdSet
	ads       map[string]ads.Ad
	facts     []ads.Fact
	reach     []ads.Reach
}

func (r *accountRows) addTo(b *live.Batch) {
	for _, c := range r.campaigns {
		b.Campaign(*c)
	}
	for _, s := range r.adsets {
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

func newAccountRows() *accountRows {
	return &accountRows{campaigns: map[string]*ads.Campaign{}, adsets: map[string]ads.AdSet{}, ads: map[string]ads.Ad{}}
}

// fetchAccount reads what p needs from one account.
func (c *Connector) fetchAccount(ctx context.Context, p *fetchPlan, a ads.Account) (*accountRows, error) {
	act := actPath(a.AccountID)
	out := newAccountRows()
	if p.campaignStatus {
		if err := c.campaigns(ctx, act, a.AccountID, out); err != nil {
			return nil, err
		}
	}
	rows, err := c.insights(ctx, act, p.insightsParams(), c.opts.AsyncRows > 0 && p.estimatedRows() > c.opts.AsyncRows)
	if err != nil {
		return nil, err
	}
	out.facts = make([]ads.Fact, 0, len(rows))
	for i := range rows {
		r := &rows[i]
		f, err := c.fact(p, a.AccountID, r)
		if err != nil {
			return nil, err
		}
		if p.set == conversionActionSet {
			if r.CampaignID != "" { // the set is per campaign
				out.facts = append(out.facts, c.conversionActionFacts(p, f, r)...)
			}
		} else {
			out.facts = append(out.facts, f)
		}
		c.names(out, a.AccountID, r)
		if p.reach != nil && !p.reach.separate {
			out.addReach(p.reach, a.AccountID, r)
		}
	}
	if p.reach != nil && p.reach.separate {
		if err := c.fetchReach(ctx, p, a, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// fetchReach reads p's reach alone from one account: in requests of their
// own (weekly reach, by time_ranges; other grains with the period's
// time_increment), not with the facts.
func (c *Connector) fetchReach(ctx context.Context, p *fetchPlan, a ads.Account, out *accountRows) error {
	act := actPath(a.AccountID)
	if !p.reach.separate {
		rows, err := c.insights(ctx, act, p.reachParams(nil), false)
		if err != nil {
			return err
		}
		for i := range rows {
			out.addReach(p.reach, a.AccountID, &rows[i])
		}
		return nil
	}
	weeks := p.reach.weeks()
	for len(weeks) > 0 {
		n := min(len(weeks), maxTimeRanges)
		rows, err := c.insights(ctx, act, p.reachParams(weeks[:n]), false)
		if err != nil {
			return err
		}
		for i := range rows {
			c.names(out, a.AccountID, &rows[i])
			out.addReach(p.reach, a.AccountID, &rows[i])
		}
		weeks = weeks[n:]
	}
	return nil
}

func (r *accountRows) addReach(rp *reachPlan, accountID string, row *Row) {
	if !row.Has(reachField) {
		return
	}
	period, ok := rp.accepts(row)
	if !ok {
		return
	}
	rr := ads.Reach{Level: rp.level.String(), ObjectID: accountID, AccountID: accountID, Grain: string(rp.grain), PeriodStart: period, Reach: row.Number(reachField)}
	if rp.level == levelCampaign {
		if row.CampaignID == "" {
			return
		}
		rr.ObjectID = row.CampaignID
	}
	r.reach = append(r.reach, rr)
}

// names records the campaign, ad set and ad a row names.
func (c *Connector) names(out *accountRows, accountID string, r *Row) {
	if r.CampaignID != "" {
		cp := out.campaign(accountID, r.CampaignID)
		if r.CampaignName != "" {
			cp.Name = r.CampaignName
		}
		if r.Objective != "" {
			cp.Objective = r.Objective
		}
	}
	if r.AdSetID != "" {
		out.adsets[r.AdSetID] = ads.AdSet{AdSetID: r.AdSetID, CampaignID: r.CampaignID, AccountID: accountID, Name: r.AdSetName}
	}
	if r.AdID != "" {
		out.ads[r.AdID] = ads.Ad{AdID: r.AdID, AdSetID: r.AdSetID, CampaignID: r.CampaignID, AccountID: accountID, Name: r.AdName}
	}
}

// fact turns an Insights row into a warehouse fact.
func (c *Connector) fact(p *fetchPlan, accountID string, r *Row) (ads.Fact, error) {
	date := r.DateStart
	if date.Before(p.start) && p.increment != "1" {
		date = p.start // a period cut by the range's start
	}
	if date.Before(p.start) || date.After(p.end) {
		return ads.Fact{}, &malformedError{fmt.Sprintf("a row for %s, outside the requested range %s … %s", r.DateStart.Format(time.DateOnly), p.start.Format(time.DateOnly), p.end.Format(time.DateOnly))}
	}
	if p.increment == "1" && !r.DateStop.Equal(r.DateStart) {
		return ads.Fact{}, &malformedError{fmt.Sprintf("a daily row spanning %s … %s", r.DateStart.Format(time.DateOnly), r.DateStop.Format(time.DateOnly))}
	}
	f := ads.Fact{
		Date: date, AccountID: accountID, CampaignID: r.CampaignID, AdSetID: r.AdSetID, AdID: r.AdID,
		Country: r.Country, PublisherPlatform: r.PublisherPlatform, Breakdown: p.set,
		Age: ageOf(r.Age), Gender: genderOf(r.Gender), Placement: placementOf(r.PlatformPosition),
	}
	switch c.opts.DeviceBreakdown {
	case "impression_device":
		f.Device = deviceOf(r.ImpressionDevice)
	case "device_platform":
		f.Device = deviceOf(r.DevicePlatform)
	}
	for m, mf := range catalog.Measures() {
		f.Measures[m] = c.measure(p, mf, r)
	}
	return f, nil
}

// measure is a stored metric's value in an Insights row, as insightsMetrics
// says Meta gives it: a number field, one action type, or the configured
// conversion action types. Actions are in micros: a count of actions is a
// double (conversions) or a whole count (video views); values are money.
func (c *Connector) measure(p *fetchPlan, f catalog.Field, r *Row) float64 {
	mf := measureMetrics[f.Storage.Measure]
	if mf == nil {
		return ads.NotReported
	}
	if !mf.isActions() {
		return float64(r.Number(mf.Field))
	}
	var micros int64
	for _, a := range r.Actions[mf.Field] {
		switch {
		case mf.Action != "" && a.Type == mf.Action:
			micros += a.Micros
		case mf.Conversions && c.isConversion(a.Type):
			micros += p.attributed(a)
		}
	}
	return measureOf(f, micros)
}

// measureOf is an action list's micros as the measure's stored kind.
func measureOf(f catalog.Field, micros int64) float64 {
	switch f.Storage.Kind {
	case catalog.Micros:
		return float64(micros)
	case catalog.Integer:
		return float64(micros / 1e6)
	}
	return float64(micros) / 1e6
}

func (c *Connector) isConversion(t string) bool {
	for _, x := range c.opts.ActionTypes {
		if x == t {
			return true
		}
	}
	return false
}

// deviceOf maps Meta's impression_device and device_platform values onto the
// catalog's mobile / desktop / tablet; other values pass through.
func deviceOf(v string) string {
	switch v {
	case "iphone", "ipod", "android_smartphone", "mobile_app", "mobile_web":
		return "mobile"
	case "ipad", "android_tablet":
		return "tablet"
	case "desktop":
		return "desktop"
	}
	return v
}

// malformedError is a response the connector cannot use.
type malformedError struct{ msg string }

func (e *malformedError) Error() string { return "unexpected Meta response: " + e.msg }

// insights runs one Insights report and returns all its rows: synchronously
// (paged GET) unless async, falling back to an async report run when Meta
// answers that the request asks for too much data.
func (c *Connector) insights(ctx context.Context, act string, params url.Values, async bool) ([]Row, error) {
	if !async {
		get := cloneValues(params)
		get.Set("limit", fmt.Sprint(c.opts.PageSize))
		rows, err := c.pages(ctx, request{method: http.MethodGet, path: "/" + act + "/insights", params: get})
		var ae *APIError
		if err == nil || !errors.As(err, &ae) || !ae.reduceData() {
			return rows, err
		}
		c.log.Info("meta asked to reduce the amount of data; running the report asynchronously", "account", act)
	}
	return c.asyncInsights(ctx, act, params)
}

// pages follows paging.next until there is none.
func (c *Connector) pages(ctx context.Context, req request) ([]Row, error) {
	var rows []Row
	seen := map[string]bool{}
	for {
		body, err := c.do(ctx, req)
		if err != nil {
			return nil, err
		}
		page, err := ParseInsights(body)
		if err != nil {
			var ae *APIError
			if errors.As(err, &ae) {
				return nil, ae
			}
			return nil, &malformedError{c.redact(err.Error())}
		}
		rows = append(rows, page.Rows...)
		if page.Next == "" {
			return rows, nil
		}
		if seen[page.Next] {
			return nil, &malformedError{"paging.next repeats a page already read"}
		}
		seen[page.Next] = true
		req = request{method: http.MethodGet, next: page.Next}
	}
}

// asyncError is a report run Meta could not finish.
type asyncError struct{ status string }

func (e *asyncError) Error() string { return "Meta's async report run ended with status " + e.status }

// asyncInsights starts a report run (POST …/insights), polls it until it
// completes, then pages through its results.
func (c *Connector) asyncInsights(ctx context.Context, act string, params url.Values) ([]Row, error) {
	body, err := c.do(ctx, request{method: http.MethodPost, path: "/" + act + "/insights", params: params})
	if err != nil {
		return nil, err
	}
	var started struct {
		ReportRunID string `json:"report_run_id"`
	}
	if e, perr := ParseError(body); perr == nil {
		return nil, e
	}
	if err := json.Unmarshal(body, &started); err != nil || started.ReportRunID == "" || strings.ContainsAny(started.ReportRunID, "/?#") {
		return nil, &malformedError{"starting an async report returned no usable report_run_id"}
	}
	run := "/" + started.ReportRunID
	c.log.Debug("meta async report started", "account", act, "report_run_id", started.ReportRunID)
	completed := 0
	for {
		if err := sleep(ctx, c.opts.PollInterval); err != nil {
			return nil, err
		}
		body, err := c.do(ctx, request{method: http.MethodGet, path: run, params: url.Values{"fields": {"async_status,async_percent_completion"}}})
		if err != nil {
			return nil, err
		}
		var st asyncStatus
		if e, perr := ParseError(body); perr == nil {
			return nil, e
		}
		if err := json.Unmarshal(body, &st); err != nil {
			return nil, &malformedError{"polling an async report: " + err.Error()}
		}
		pct, _ := optionalMicros("", st.AsyncPercentCompletion)
		switch st.AsyncStatus {
		case "Job Completed":
			// The results can lag the status: wait for 100% a few polls.
			if completed++; pct >= 100e6 || !st.AsyncPercentCompletion.present || completed >= 3 {
				return c.pages(ctx, request{method: http.MethodGet, path: run + "/insights", params: url.Values{"limit": {fmt.Sprint(c.opts.PageSize)}}})
			}
		case "Job Failed", "Job Skipped":
			return nil, &asyncError{status: st.AsyncStatus}
		case "Job Not Started", "Job Started", "Job Running":
		default:
			return nil, &malformedError{fmt.Sprintf("an async report with unknown status %q", truncate(st.AsyncStatus, 40))}
		}
	}
}

// campaigns reads the account's campaigns' objective, status and dates
// (GET /act_<id>/campaigns, paged).
func (c *Connector) campaigns(ctx context.Context, act, accountID string, out *accountRows) error {
	req := request{method: http.MethodGet, path: "/" + act + "/campaigns", params: url.Values{
		"fields": {campaignFields}, "effective_status": {campaignStatuses}, "limit": {fmt.Sprint(c.opts.PageSize)}}}
	for {
		body, err := c.do(ctx, req)
		if err != nil {
			return err
		}
		var page campaignsPage
		if err := decodePage(body, "campaigns", &page, func() bool { return page.Data != nil }); err != nil {
			var ae *APIError
			if errors.As(err, &ae) {
				return ae
			}
			return &malformedError{err.Error()}
		}
		for _, x := range *page.Data {
			if x.ID == "" {
				continue
			}
			cp := out.campaign(accountID, x.ID)
			cp.Name, cp.Objective, cp.Status = x.Name, x.Objective, campaignStatus(x.EffectiveStatus)
			cp.StartDate, cp.EndDate = dateOf(x.StartTime), dateOf(x.StopTime)
		}
		if page.Paging.Next == "" {
			return nil
		}
		req = request{method: http.MethodGet, next: page.Paging.Next}
	}
}

// campaignStatus normalizes Meta's effective_status like the warehouse's
// campaign_status: ACTIVE, PAUSED or ARCHIVED; other values pass through.
func campaignStatus(s string) string {
	switch s {
	case "PAUSED", "CAMPAIGN_PAUSED", "ADSET_PAUSED":
		return "PAUSED"
	case "ARCHIVED", "DELETED":
		return "ARCHIVED"
	}
	return s
}

// dateOf is the calendar date of a Graph timestamp ("2025-03-01T00:00:00-0800",
// in the account's timezone), or zero.
func dateOf(s string) time.Time {
	if len(s) < 10 {
		return time.Time{}
	}
	t, err := time.Parse(time.DateOnly, s[:10])
	if err != nil {
		return time.Time{}
	}
	return t
}

func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v)+1)
	for k, x := range v {
		out[k] = append([]string(nil), x...)
	}
	return out
}
