package demo

import (
	"strings"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// Platforms, as the catalog names them.
const (
	metaAds   = catalog.MetaAds
	googleAds = catalog.GoogleAds
	tiktokAds = catalog.TikTokAds
)

// Account statuses, normalized across platforms.
const (
	statusActive = "ACTIVE"
	statusClosed = "CLOSED"
)

// accountSpec is one demo account and how its data behaves. The accounts are fixed,
// not drawn from the seed, so that documentation and examples can name them; the
// seed changes everything below the account.
type accountSpec struct {
	ads.Account
	brand     string    // the advertiser, for names
	vertical  string    // key into categories (names.go)
	campaigns int       // campaign count at Scale 1 (20–200)
	countries []string  // markets its ad sets target
	cweights  []float64 // relative size of each market
	fx        float64   // account currency units per USD: ARS money is ~1000× USD
	size      float64   // budget multiplier: how big the advertiser is
	growth    float64   // yearly spend growth
	spanish   bool      // campaign names in Spanish (the Argentine account)
	// zero: every metric is zero although the account has campaigns and rows — the
	// symptom of a token that lacks the reporting scope (all_zero_metrics warning).
	zero bool
	// closed: the account stopped delivering a fifth of the way before the end of
	// the data (status CLOSED), so recent date ranges have no rows for it.
	closed bool
}

// accountSpecs: Meta 6, Google 5, TikTok 3 (docs/contract.md §9). 14 > the 10-account
// guardrail, so "all accounts" must be narrowed.
var accountSpecs = []accountSpec{
	// Meta: act_ + 16 digits.
	{Account: acct("act_1015823746512093", metaAds, "Lumen Outdoor US", "USD", "America/Los_Angeles"),
		brand: "Lumen Outdoor", vertical: "outdoor", campaigns: 184,
		countries: []string{"US", "CA"}, cweights: []float64{0.88, 0.12}, fx: 1, size: 1.6, growth: 0.25},
	{Account: acct("act_2284619037465520", metaAds, "Lumen Outdoor EU", "EUR", "Europe/Berlin"),
		brand: "Lumen Outdoor", vertical: "outdoor", campaigns: 68,
		countries: []string{"DE", "FR", "NL", "AT", "ES", "IT"}, cweights: []float64{0.38, 0.2, 0.12, 0.1, 0.1, 0.1}, fx: 0.92, size: 0.8, growth: 0.35},
	{Account: acct("act_3376015298441067", metaAds, "Casa Verde Argentina", "ARS", "America/Argentina/Buenos_Aires"),
		brand: "Casa Verde", vertical: "garden", campaigns: 46,
		countries: []string{"AR", "UY", "CL"}, cweights: []float64{0.86, 0.07, 0.07}, fx: 1000, size: 0.35, growth: 0.15, spanish: true},
	{Account: acct("act_4409187263550918", metaAds, "Brightside Skincare", "USD", "America/New_York"),
		brand: "Brightside", vertical: "skincare", campaigns: 122,
		countries: []string{"US", "CA", "GB", "AU"}, cweights: []float64{0.7, 0.1, 0.12, 0.08}, fx: 1, size: 1.2, growth: 0.4},
	{Account: acct("act_5521093847612239", metaAds, "Peak Nutrition Co.", "USD", "America/Chicago"),
		brand: "Peak Nutrition", vertical: "nutrition", campaigns: 88,
		countries: []string{"US"}, cweights: []float64{1}, fx: 1, size: 0.9, growth: 0.1},
	{Account: acct("act_6630418825197342", metaAds, "Harbor & Pine Home", "USD", "America/New_York"),
		brand: "Harbor & Pine", vertical: "home", campaigns: 34,
		countries: []string{"US", "CA"}, cweights: []float64{0.9, 0.1}, fx: 1, size: 0.6, growth: -0.1},

	// Google: customer IDs 123-456-7890.
	{Account: acct("482-915-3307", googleAds, "Lumen Outdoor - Google Ads", "USD", "America/Los_Angeles"),
		brand: "Lumen Outdoor", vertical: "outdoor", campaigns: 62,
		countries: []string{"US", "CA"}, cweights: []float64{0.9, 0.1}, fx: 1, size: 1.3, growth: 0.2},
	{Account: acct("617-204-8851", googleAds, "Brightside Skincare - Search", "USD", "America/New_York"),
		brand: "Brightside", vertical: "skincare", campaigns: 41,
		countries: []string{"US", "CA", "GB"}, cweights: []float64{0.78, 0.1, 0.12}, fx: 1, size: 0.9, growth: 0.3},
	{Account: acct("309-772-1946", googleAds, "Peak Nutrition - Google", "USD", "America/Chicago"),
		brand: "Peak Nutrition", vertical: "nutrition", campaigns: 28,
		countries: []string{"US"}, cweights: []float64{1}, fx: 1, size: 0.7, growth: 0.05},
	{Account: acct("725-118-6403", googleAds, "Lumen Outdoor EU - Google", "EUR", "Europe/Paris"),
		brand: "Lumen Outdoor", vertical: "outdoor", campaigns: 36,
		countries: []string{"FR", "DE", "BE", "ES"}, cweights: []float64{0.4, 0.35, 0.1, 0.15}, fx: 0.92, size: 0.6, growth: 0.3},
	{Account: acct("856-430-2291", googleAds, "Harbor & Pine - Google (old)", "USD", "America/New_York"),
		brand: "Harbor & Pine", vertical: "home", campaigns: 22,
		countries: []string{"US"}, cweights: []float64{1}, fx: 1, size: 0.5, growth: 0, closed: true},

	// TikTok: 19-digit advertiser IDs.
	{Account: acct("7201845539016472318", tiktokAds, "Brightside Skincare TikTok", "USD", "America/New_York"),
		brand: "Brightside", vertical: "skincare", campaigns: 57,
		countries: []string{"US", "CA", "GB"}, cweights: []float64{0.8, 0.08, 0.12}, fx: 1, size: 0.8, growth: 0.6},
	{Account: acct("7254490217683350144", tiktokAds, "Peak Nutrition TikTok", "USD", "America/Chicago"),
		brand: "Peak Nutrition", vertical: "nutrition", campaigns: 31,
		countries: []string{"US"}, cweights: []float64{1}, fx: 1, size: 0.5, growth: 0.5},
	{Account: acct("7318862045571299861", tiktokAds, "Lumen Outdoor TikTok (Agency)", "USD", "America/Denver"),
		brand: "Lumen Outdoor", vertical: "outdoor", campaigns: 24,
		countries: []string{"US"}, cweights: []float64{1}, fx: 1, size: 0.5, growth: 0.4, zero: true},
}

func acct(id, platform, name, currency, tz string) ads.Account {
	return ads.Account{AccountID: id, Platform: platform, AccountName: name,
		Currency: currency, Timezone: tz, Status: statusActive}
}

// clickView is the attribution window of the Meta and TikTok demo accounts:
// both platforms' default (7-day click, 1-day view).
const clickView = "7d_click_1d_view"

// account returns the public account row, with its status, attribution window
// and the conversion actions its conversions count (breakdowns.go).
func (s *accountSpec) account() ads.Account {
	a := s.Account
	if s.closed {
		a.Status = statusClosed
	}
	switch a.Platform {
	case googleAds:
		a.AttributionWindow = catalog.PerActionWindow
		var names []string
		for _, ga := range googleActions[s.vertical] {
			names = append(names, ga.name)
		}
		a.ConversionActions = strings.Join(names, ", ")
	default:
		a.AttributionWindow = clickView
		a.ConversionActions = defaultAction[a.Platform]
	}
	return a
}
