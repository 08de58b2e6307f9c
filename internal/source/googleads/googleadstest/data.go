package googleadstest

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/source/fakescale"
)

// The fake serves the demo generator's google_ads accounts, in the API's own
// vocabulary: the mappings below are the Google side of the conventions the
// connector reads back (they are written out here independently of the
// connector, so a test comparing the two catches a mismatch on either side).

// deviceEnum is segments.device for the demo's devices; "" (a dimension
// artifact) is UNKNOWN.
var deviceEnum = map[string]string{"mobile": "MOBILE", "desktop": "DESKTOP", "tablet": "TABLET", "": "UNKNOWN"}

// networkEnum is segments.ad_network_type for the demo's Google publishers.
var networkEnum = map[string]string{"search": "SEARCH", "display": "CONTENT", "youtube": "YOUTUBE", "": "UNKNOWN"}

// campaignStatusEnum is campaign.status for the demo's normalized statuses.
var campaignStatusEnum = map[string]string{"ACTIVE": "ENABLED", "PAUSED": "PAUSED", "ARCHIVED": "REMOVED"}

// customerStatusEnum is customer.status for the demo's account statuses.
var customerStatusEnum = map[string]string{"ACTIVE": "ENABLED", "CLOSED": "CLOSED"}

// ageEnum is ad_group_criterion.age_range.type (AgeRangeType) for the demo's
// age brackets, and ageCriteria the age range criterion IDs Google gives them.
var (
	ageEnum = map[string]string{"18-24": "AGE_RANGE_18_24", "25-34": "AGE_RANGE_25_34", "35-44": "AGE_RANGE_35_44",
		"45-54": "AGE_RANGE_45_54", "55-64": "AGE_RANGE_55_64", "65+": "AGE_RANGE_65_UP", "unknown": "AGE_RANGE_UNDETERMINED"}
	ageCriteria = map[string]string{"18-24": "503001", "25-34": "503002", "35-44": "503003", "45-54": "503004",
		"55-64": "503005", "65+": "503006", "unknown": "503999"}
)

// genderEnum is ad_group_criterion.gender.type (GenderType) for the demo's
// genders, and genderCriteria their gender criterion IDs.
var (
	genderEnum     = map[string]string{"female": "FEMALE", "male": "MALE", "unknown": "UNDETERMINED"}
	genderCriteria = map[string]string{"male": "10", "female": "11", "unknown": "20"}
)

// geoTargets are the country criterion IDs (geo target constants) of the
// countries the demo's Google accounts target, and a few more.
var geoTargets = map[string]string{
	"US": "2840", "CA": "2124", "GB": "2826", "FR": "2250", "DE": "2276", "BE": "2056",
	"ES": "2724", "NL": "2528", "IT": "2380", "AT": "2040", "AU": "2036", "AR": "2032",
}

// dataset is the demo data of the google_ads accounts.
type dataset struct {
	accounts  []ads.Account
	customers map[string]*customer // by customer ID without dashes
}

// customer is one account's data.
type customer struct {
	account   ads.Account
	cid       string
	campaigns map[string]ads.Campaign
	adsets    map[string]ads.AdSet
	ads       map[string]ads.Ad
	facts     []fact
	// campaignAdGroups are each campaign's ad group IDs, sorted.
	campaignAdGroups map[string][]string
	// actions are the account's conversion actions (conversion_action rows).
	actions []conversionAction
}

// conversionAction is one conversion_action resource of a customer: the
// demo account's ConversionActions are its primary actions (counted in
// conversions), the other actions its facts name are secondary, and one
// removed action shows that status is read.
type conversionAction struct {
	id, name, status string
	primary          bool
}

// fact is a demo fact with its dates already in the API's text form.
type fact struct {
	date, week, month string
	ads.Fact
}

var (
	cacheMu sync.Mutex
	cache   = map[demo.Config]*dataset{}
)

// load generates (once per config and process) the google_ads part of the demo
// dataset.
func load(cfg demo.Config) (*dataset, error) {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if d, ok := cache[cfg]; ok {
		return d, nil
	}
	s := &collector{d: &dataset{customers: map[string]*customer{}}}
	if err := demo.Generate(context.Background(), cfg, s, nil); err != nil {
		return nil, fmt.Errorf("googleadstest: generating the demo data: %w", err)
	}
	cache[cfg] = s.d
	return s.d, nil
}

// Accounts are the accounts the data holds.
func (d *dataset) Accounts() []ads.Account { return d.accounts }

// loadCustomer builds one customer's data at a scale.
func loadCustomer(data *fakescale.Data, accountID string) (*dataset, error) {
	return replayCustomer(data, accountID, nil)
}

// loadSettings builds one customer's data at a scale without its numbers:
// its facts are read for the conversion actions they name only.
func loadSettings(data *fakescale.Data, accountID string) (*dataset, error) {
	return replayCustomer(data, accountID, func(f *ads.Fact) bool { return f.BreakdownKey() == "conversion_action" && f.ConversionAction != "" })
}

func replayCustomer(data *fakescale.Data, accountID string, keep func(*ads.Fact) bool) (*dataset, error) {
	s := &collector{d: &dataset{customers: map[string]*customer{}}, settingsOnly: keep != nil}
	if err := data.ReplaySome(accountID, s, keep); err != nil {
		return nil, fmt.Errorf("googleadstest: %w", err)
	}
	return s.d, nil
}

// collector is an ads.Sink keeping the google_ads rows; settingsOnly keeps
// no facts, only the conversion actions they name.
type collector struct {
	d            *dataset
	settingsOnly bool
}

func (s *collector) Dataset(string, string) error { return nil }

func (s *collector) Account(a ads.Account) error {
	if a.Platform != catalog.GoogleAds {
		return nil
	}
	cid := digits(a.AccountID)
	s.d.accounts = append(s.d.accounts, a)
	cu := &customer{account: a, cid: cid, campaigns: map[string]ads.Campaign{},
		adsets: map[string]ads.AdSet{}, ads: map[string]ads.Ad{}, campaignAdGroups: map[string][]string{}}
	for n := range strings.SplitSeq(a.ConversionActions, ", ") {
		if n != "" {
			cu.addAction(n, "ENABLED", true)
		}
	}
	cu.addAction("Old checkout (removed)", "REMOVED", true)
	s.d.customers[cid] = cu
	return nil
}

// addAction adds a conversion action unless one has the name.
func (c *customer) addAction(name, status string, primary bool) {
	for _, a := range c.actions {
		if a.name == name {
			return
		}
	}
	c.actions = append(c.actions, conversionAction{id: strconv.Itoa(900000001 + len(c.actions)), name: name, status: status, primary: primary})
}

func (s *collector) customer(accountID string) *customer { return s.d.customers[digits(accountID)] }

func (s *collector) Campaign(c ads.Campaign) error {
	if cu := s.customer(c.AccountID); cu != nil {
		cu.campaigns[c.CampaignID] = c
	}
	return nil
}

func (s *collector) AdSet(a ads.AdSet) error {
	if cu := s.customer(a.AccountID); cu != nil {
		cu.adsets[a.AdSetID] = a
		ids := append(cu.campaignAdGroups[a.CampaignID], a.AdSetID)
		slices.Sort(ids)
		cu.campaignAdGroups[a.CampaignID] = ids
	}
	return nil
}

func (s *collector) Ad(a ads.Ad) error {
	if cu := s.customer(a.AccountID); cu != nil {
		cu.ads[a.AdID] = a
	}
	return nil
}

func (s *collector) Fact(f *ads.Fact) error {
	cu := s.customer(f.AccountID)
	if cu == nil {
		return nil
	}
	d := f.Date
	monday := d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
	x := fact{
		date:  d.Format(time.DateOnly),
		week:  monday.Format(time.DateOnly),
		month: time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC).Format(time.DateOnly),
		Fact:  *f,
	}
	if s.settingsOnly {
		if f.BreakdownKey() == "conversion_action" && f.ConversionAction != "" {
			cu.addAction(f.ConversionAction, "ENABLED", false)
		}
		return nil
	}
	switch f.BreakdownKey() {
	case "age", "gender":
		// age_range_view and gender_view rows are per ad group: the demo's
		// campaign rows are split between the campaign's first two ad groups.
		cu.facts = append(cu.facts, cu.perAdGroup(x)...)
		return nil
	case "conversion_action":
		if f.ConversionAction != "" {
			cu.addAction(f.ConversionAction, "ENABLED", false)
		}
	}
	cu.facts = append(cu.facts, x)
	return nil
}

// perAdGroup splits a campaign's fact between its first two ad groups (all of
// it to the only one, or to none): whole measures into their floor half and
// the rest, fractional ones (conversions in quarters) into exact halves, so
// that the halves sum back exactly.
func (c *customer) perAdGroup(x fact) []fact {
	groups := c.campaignAdGroups[x.CampaignID]
	if len(groups) < 2 {
		if len(groups) == 1 {
			x.AdSetID = groups[0]
		}
		return []fact{x}
	}
	a, b := x, x
	a.AdSetID, b.AdSetID = groups[0], groups[1]
	for m, v := range x.Measures {
		switch {
		case v == ads.NotReported:
		case v == math.Trunc(v):
			a.Measures[m] = math.Floor(v / 2)
			b.Measures[m] = v - a.Measures[m]
		default:
			a.Measures[m], b.Measures[m] = v/2, v/2
		}
	}
	return []fact{a, b}
}

func (s *collector) Reach(ads.Reach) error { return nil }

// digits keeps the digits of a customer ID ("617-204-8851" → "6172048851").
func digits(id string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, id)
}

// attribute is the API's value of a resource or segment field for a fact of
// customer c ("" when the fact has none: a dimension artifact).
func (c *customer) attribute(f *fact, field string) string {
	camp := c.campaigns[f.CampaignID]
	switch field {
	case "customer.id":
		return c.cid
	case "customer.descriptive_name":
		return c.account.AccountName
	case "customer.currency_code":
		return c.account.Currency
	case "customer.time_zone":
		return c.account.Timezone
	case "customer.status":
		return customerStatusEnum[c.account.Status]
	case "customer.manager":
		return "false"
	case "campaign.id":
		return f.CampaignID
	case "campaign.name":
		return camp.Name
	case "campaign.advertising_channel_type":
		return camp.Objective
	case "campaign.status":
		return campaignStatusEnum[camp.Status]
	case "ad_group.id":
		return f.AdSetID
	case "ad_group.name":
		return c.adsets[f.AdSetID].Name
	case "ad_group_ad.ad.id":
		return f.AdID
	case "ad_group_ad.ad.name":
		return c.ads[f.AdID].Name
	case "user_location_view.country_criterion_id":
		return geoTargets[f.Country]
	case "user_location_view.targeting_location":
		return "true"
	case "segments.date":
		return f.date
	case "segments.week":
		return f.week
	case "segments.month":
		return f.month
	case "segments.device":
		return deviceEnum[f.Device]
	case "segments.ad_network_type":
		return networkEnum[f.PublisherPlatform]
	case "segments.conversion_action_name":
		return f.ConversionAction
	case "ad_group_criterion.age_range.type":
		return ageEnum[f.Age]
	case "ad_group_criterion.gender.type":
		return genderEnum[f.Gender]
	case "ad_group_criterion.criterion_id":
		if f.Age != "" {
			return ageCriteria[f.Age]
		}
		return genderCriteria[f.Gender]
	case "age_range_view.resource_name":
		return "customers/" + c.cid + "/ageRangeViews/" + f.AdSetID + "~" + ageCriteria[f.Age]
	case "gender_view.resource_name":
		return "customers/" + c.cid + "/genderViews/" + f.AdSetID + "~" + genderCriteria[f.Gender]
	}
	return ""
}

// customerAttribute is a customer.* field of c, outside any fact.
func (c *customer) customerAttribute(field string) string {
	return c.attribute(&fact{}, field)
}
