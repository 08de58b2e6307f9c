package googleads

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/source/live"
)

// Compile maps the live source's plan onto one GAQL searchStream request per
// account (plus retries), and returns the fetch of one account: its rows are
// added to b only once it has answered completely; a failure is a
// *source.AccountError saying the cause and what to do. Google reports no
// reach: a plan of reach alone fetches nothing.
func (c *Connector) Compile(lp *live.Plan) (live.AccountFetch, error) {
	if lp.ReachOnly {
		return nil, nil
	}
	p, err := compile(lp)
	if err != nil {
		return nil, err
	}
	gaql := p.gaql()
	return func(ctx context.Context, a ads.Account, b *live.Batch) error {
		r, err := c.fetchAccount(ctx, p, gaql, a)
		switch {
		case err == nil:
			r.addTo(b)
			return nil
		case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
			return err
		}
		return c.accountError(a.AccountID, err)
	}, nil
}

// Workers is how many accounts are fetched at once (Options.Workers).
func (c *Connector) Workers() int { return c.workers }

// result is one account's rows.
type result struct {
	campaigns map[string]ads.Campaign
	adsets    map[string]ads.AdSet
	ads       map[string]ads.Ad
	facts     []ads.Fact
	// geo are facts whose country criterion ID is not in countryCodes.
	geo map[int]string
	// index is the fact of each campaign, date and breakdown value of a set
	// other than delivery, whose rows (per ad group and criterion for age and
	// gender) are summed into one fact.
	index map[setKey]int
}

// setKey identifies a fact of a breakdown set other than delivery.
type setKey struct {
	campaign string
	date     time.Time
	value    string
}

func newResult() *result {
	return &result{campaigns: map[string]ads.Campaign{}, adsets: map[string]ads.AdSet{}, ads: map[string]ads.Ad{},
		geo: map[int]string{}, index: map[setKey]int{}}
}

func (r *result) addTo(b *live.Batch) {
	for _, k := range sortedKeys(r.campaigns) {
		b.Campaign(r.campaigns[k])
	}
	for _, k := range sortedKeys(r.adsets) {
		b.AdSet(r.adsets[k])
	}
	for _, k := range sortedKeys(r.ads) {
		b.Ad(r.ads[k])
	}
	b.Facts(r.facts...)
}

func sortedKeys[T any](m map[string]T) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (c *Connector) fetchAccount(ctx context.Context, p *plan, gaql string, a ads.Account) (*result, error) {
	cid := digits(a.AccountID)
	var r *result
	err := c.searchAttempts(ctx, cid, gaql, func() { r = newResult() }, func(rows []row) error {
		for i := range rows {
			if err := r.add(p, a.AccountID, &rows[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(r.geo) > 0 {
		if err := c.resolveCountries(ctx, cid, r); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// add turns one row into a fact (and the names of its objects).
func (r *result) add(p *plan, accountID string, x *row) error {
	f := ads.Fact{AccountID: accountID}
	if p.level >= catalog.LevelCampaign && x.Campaign != nil && x.Campaign.ID != "" {
		f.CampaignID = string(x.Campaign.ID)
		r.campaigns[f.CampaignID] = ads.Campaign{CampaignID: f.CampaignID, AccountID: accountID, Name: x.Campaign.Name,
			Objective: x.Campaign.AdvertisingChannelType, Status: campaignStatus(x.Campaign.Status)}
	}
	if p.level >= catalog.LevelAdSet && x.AdGroup != nil && x.AdGroup.ID != "" {
		f.AdSetID = string(x.AdGroup.ID)
		r.adsets[f.AdSetID] = ads.AdSet{AdSetID: f.AdSetID, CampaignID: f.CampaignID, AccountID: accountID, Name: x.AdGroup.Name}
	}
	if p.level >= catalog.LevelAd && x.AdGroupAd != nil && x.AdGroupAd.Ad.ID != "" {
		f.AdID = string(x.AdGroupAd.Ad.ID)
		r.ads[f.AdID] = ads.Ad{AdID: f.AdID, AdSetID: f.AdSetID, CampaignID: f.CampaignID, AccountID: accountID, Name: x.AdGroupAd.Ad.Name}
	}
	if p.country && x.UserLocationView != nil && x.UserLocationView.CountryCriterionID != "" {
		crit := string(x.UserLocationView.CountryCriterionID)
		if code, ok := countryCodes[crit]; ok {
			f.Country = code
		} else {
			r.geo[len(r.facts)] = crit
		}
	}
	if p.device {
		f.Device = enumName(deviceNames, x.Segments.Device)
	}
	if p.network {
		f.PublisherPlatform = enumName(networkNames, x.Segments.AdNetworkType)
	}
	var value string
	switch p.set {
	case "age":
		if c := x.AdGroupCriterion; c != nil && c.AgeRange != nil {
			f.Age = enumName(ageNames, c.AgeRange.Type)
		}
		value = f.Age
	case "gender":
		if c := x.AdGroupCriterion; c != nil && c.Gender != nil {
			f.Gender = enumName(genderNames, c.Gender.Type)
		}
		value = f.Gender
	case "conversion_action":
		f.ConversionAction = x.Segments.ConversionActionName
		value = f.ConversionAction
	}
	f.Breakdown = p.key
	d, err := p.date(x)
	if err != nil {
		return err
	}
	f.Date = d
	f.Measures = x.Metrics
	for m, mf := range catalog.Measures() {
		if !reported(mf.Name) {
			f.Measures[m] = ads.NotReported
		}
	}
	if p.set != "" {
		// One fact per campaign, period and value: Google's rows of the views
		// are per ad group and criterion.
		k := setKey{f.CampaignID, f.Date, value}
		if i, ok := r.index[k]; ok {
			for m, v := range f.Measures {
				if v != ads.NotReported {
					r.facts[i].Measures[m] += v
				}
			}
			return nil
		}
		r.index[k] = len(r.facts)
	}
	r.facts = append(r.facts, f)
	return nil
}

// date is the fact's date for a row: its day, or its period's first day
// clipped to the range's start (live.Batch's rule); the range's start at total
// grain.
func (p *plan) date(x *row) (time.Time, error) {
	var s string
	switch p.dateSegment {
	case "":
		return p.start, nil
	case "segments.date":
		s = x.Segments.Date
	case "segments.week":
		s = x.Segments.Week
	case "segments.month":
		s = x.Segments.Month
	}
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, &streamError{msg: fmt.Sprintf("a row has no valid %s (%s)", p.dateSegment, snippet([]byte(s)))}
	}
	last := d
	switch p.dateSegment {
	case "segments.week":
		last = d.AddDate(0, 0, 6)
	case "segments.month":
		last = d.AddDate(0, 1, -1)
	}
	if last.Before(p.start) || d.After(p.end) {
		return time.Time{}, &streamError{msg: fmt.Sprintf("a row's %s %s is outside the requested range %s – %s",
			p.dateSegment, s, p.start.Format(time.DateOnly), p.end.Format(time.DateOnly))}
	}
	if d.Before(p.start) {
		d = p.start
	}
	return d, nil
}

// resolveCountries looks up the country criterion IDs countryCodes lacks (once
// per connector) and fills in the facts' countries.
func (c *Connector) resolveCountries(ctx context.Context, cid string, r *result) error {
	c.geoMu.Lock()
	var missing []string
	for _, crit := range r.geo {
		if _, ok := c.geo[crit]; !ok && !slices.Contains(missing, crit) {
			missing = append(missing, crit)
		}
	}
	c.geoMu.Unlock()
	if len(missing) > 0 {
		slices.Sort(missing)
		gaql := "SELECT geo_target_constant.id, geo_target_constant.country_code FROM geo_target_constant WHERE geo_target_constant.id IN (" + strings.Join(missing, ", ") + ")"
		found := map[string]string{}
		err := c.searchAttempts(ctx, cid, gaql, func() { clear(found) }, func(rows []row) error {
			for _, x := range rows {
				if g := x.GeoTargetConstant; g != nil && g.ID != "" {
					found[string(g.ID)] = g.CountryCode
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		c.geoMu.Lock()
		for _, crit := range missing {
			c.geo[crit] = found[crit] // "" when Google does not know it either
		}
		c.geoMu.Unlock()
	}
	c.geoMu.Lock()
	defer c.geoMu.Unlock()
	for i, crit := range r.geo {
		r.facts[i].Country = c.geo[crit]
		if r.facts[i].Country == "" {
			c.log.Warn("google ads country criterion without a country code; its rows have an empty country", "criterion", crit)
		}
	}
	return nil
}
