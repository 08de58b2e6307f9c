package demo

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// The values a breakdown row may hold (docs/fields.md).
var (
	okAge    = []string{"18-24", "25-34", "35-44", "45-54", "55-64", "65+", "55+", "unknown"}
	okGender = []string{"female", "male", "unknown"}
	okDevice = []string{"mobile", "desktop", "tablet", "unknown"}
	okMetaPl = map[string][]string{
		"facebook":         {"feed", "story", "reels", "marketplace", "video_feeds", "right_hand_column", "search"},
		"instagram":        {"feed", "story", "reels", "explore"},
		"messenger":        {"inbox", "story"},
		"audience_network": {"classic", "rewarded_video"},
		"threads":          {"feed"},
		"unknown":          {"unknown"},
	}
	okTikTokPl = []string{"tiktok", "pangle", "global_app_bundle", "unknown"}
	okActions  = map[string][]string{
		metaAds:   {"purchase", "add_to_cart", "lead", "complete_registration", "initiate_checkout"},
		tiktokAds: {"complete_payment", "add_to_cart", "form_submit"},
	}
)

type campaignDay struct {
	campaign string
	date     time.Time
}

type placementKey struct {
	campaignDay
	pub, device string
}

// sumInto adds f's measures to t, keeping NotReported where f has it.
func sumInto(t *[catalog.NumMeasures]float64, f *Fact) {
	for m, v := range f.Measures {
		if v == NotReported {
			t[m] = NotReported
		} else {
			t[m] += v
		}
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// TestBreakdownSets checks the property every source must keep: for every
// campaign-day, each breakdown set's rows sum, measure by measure and exactly,
// to the campaign-day's delivery rows (placement: per publisher_platform and
// device; conversion_action: the default actions' rows to the conversions and
// their value), with values from the allowed lists, per campaign.
func TestBreakdownSets(t *testing.T) {
	s := generate(t, small)
	accounts := map[string]ads.Account{}
	accountIdx := map[string]int{}
	for i, a := range s.accounts {
		accounts[a.AccountID] = a
		accountIdx[a.AccountID] = i
	}
	campaigns := map[string]Campaign{}
	for _, c := range s.campaigns {
		campaigns[c.CampaignID] = c
	}
	delivery := map[campaignDay]*[catalog.NumMeasures]float64{}
	groups := map[placementKey]*[catalog.NumMeasures]float64{}
	sets := map[string]map[campaignDay]*[catalog.NumMeasures]float64{}
	placements := map[placementKey]*[catalog.NumMeasures]float64{}
	defaults := map[campaignDay]*[catalog.NumMeasures]float64{}
	get := func(m map[campaignDay]*[catalog.NumMeasures]float64, k campaignDay) *[catalog.NumMeasures]float64 {
		if m[k] == nil {
			m[k] = &[catalog.NumMeasures]float64{}
		}
		return m[k]
	}
	// Sets kept per ad (Meta's device_platform) sum to the delivery of every
	// ad-day, artifacts included.
	type adDay struct {
		account, campaign, adset, ad string
		day                          time.Time
	}
	byAd := map[adDay]*[catalog.NumMeasures]float64{}
	perAd := map[string]map[adDay]*[catalog.NumMeasures]float64{}
	sumAd := func(m map[adDay]*[catalog.NumMeasures]float64, f *Fact) {
		k := adDay{f.AccountID, f.CampaignID, f.AdSetID, f.AdID, f.Date}
		if m[k] == nil {
			m[k] = &[catalog.NumMeasures]float64{}
		}
		sumInto(m[k], f)
	}
	counts := map[string]int{}
	prevAcct, prevDate, prevSet := -1, time.Time{}, ""
	for i := range s.facts {
		f := &s.facts[i]
		a := accounts[f.AccountID]
		// Order: account by account, date by date, a day's breakdown rows after its delivery rows.
		ai := accountIdx[f.AccountID]
		if ai < prevAcct || (ai == prevAcct && f.Date.Before(prevDate)) ||
			(ai == prevAcct && f.Date.Equal(prevDate) && f.Breakdown == "" && prevSet != "") {
			t.Fatalf("row %d (%s %s %q) out of order", i, f.AccountID, f.Date, f.Breakdown)
		}
		prevAcct, prevDate, prevSet = ai, f.Date, f.Breakdown
		counts[f.BreakdownKey()]++
		cd := campaignDay{f.CampaignID, f.Date}
		if f.Breakdown == "" {
			sumAd(byAd, f)
			if f.CampaignID != "" {
				sumInto(get(delivery, cd), f)
				k := placementKey{cd, orUnknown(f.PublisherPlatform), orUnknown(f.Device)}
				if groups[k] == nil {
					groups[k] = &[catalog.NumMeasures]float64{}
				}
				sumInto(groups[k], f)
			}
			continue
		}
		set, ok := catalog.BreakdownSetByKey(f.Breakdown)
		if !ok || set.Key == catalog.Delivery || !slices.Contains(set.Platforms, a.Platform) {
			t.Fatalf("row %d: breakdown %q on %s", i, f.Breakdown, a.Platform)
		}
		dims := map[string]string{"age": f.Age, "gender": f.Gender, "placement": f.Placement, "country": f.Country,
			"publisher_platform": f.PublisherPlatform, "device": f.Device, "conversion_action": f.ConversionAction}
		if set.Level > catalog.LevelCampaign {
			// Per ad like delivery, or per ad group (Google's location, which
			// only campaigns' reports make: summed per campaign-day below):
			// its objects, artifacts' empty values.
			if c, ok := campaigns[f.CampaignID]; f.CampaignID != "" && (!ok || c.AccountID != f.AccountID) {
				t.Fatalf("row %d: a %s row of another account's campaign: %+v", i, f.Breakdown, f)
			}
			if set.Level == catalog.LevelAdSet && (f.AdID != "" || f.CampaignID == "") {
				t.Fatalf("row %d: a %s row with an ad or without a campaign: %+v", i, f.Breakdown, f)
			}
			for d, v := range dims {
				if !slices.Contains(set.Dimensions, d) && v != "" {
					t.Fatalf("row %d: %s row with %s = %q: %+v", i, f.Breakdown, d, v, f)
				}
			}
			if set.Level == catalog.LevelAd {
				if perAd[f.Breakdown] == nil {
					perAd[f.Breakdown] = map[adDay]*[catalog.NumMeasures]float64{}
				}
				sumAd(perAd[f.Breakdown], f)
			}
		} else {
			// Per campaign: no ad set, ad or country.
			if c, ok := campaigns[f.CampaignID]; !ok || c.AccountID != f.AccountID || f.AdSetID != "" || f.AdID != "" || f.Country != "" {
				t.Fatalf("row %d: a %s row not per campaign of its account: %+v", i, f.Breakdown, f)
			}
			// Exactly the set's dimensions, none empty.
			for d, v := range dims {
				if slices.Contains(set.Dimensions, d) != (v != "") {
					t.Fatalf("row %d: %s row with %s = %q: %+v", i, f.Breakdown, d, v, f)
				}
			}
		}
		checkValues(t, a, f)
		// Measures: NotReported exactly where the platform lacks the metric;
		// money in cents, Google conversions in quarters.
		for m, v := range f.Measures {
			if (v == NotReported) != !catalog.MeasureField(catalog.Measure(m)).HasPlatform(a.Platform) || v < NotReported {
				t.Fatalf("row %d: measure %s = %v on %s", i, catalog.MeasureField(catalog.Measure(m)).Name, v, a.Platform)
			}
			if !set.HasMetric(catalog.MeasureField(catalog.Measure(m)).Name) && v != 0 && v != NotReported {
				t.Fatalf("row %d: %s row has %s = %v", i, f.Breakdown, catalog.MeasureField(catalog.Measure(m)).Name, v)
			}
		}
		checkMoneyAndCounts(t, a.Platform, f)
		switch f.Breakdown {
		case "placement":
			k := placementKey{cd, f.PublisherPlatform, f.Device}
			if placements[k] == nil {
				placements[k] = &[catalog.NumMeasures]float64{}
			}
			sumInto(placements[k], f)
		case "conversion_action":
			if slices.Contains(strings.Split(a.ConversionActions, ", "), f.ConversionAction) {
				sumInto(get(defaults, cd), f)
			} else if a.Platform == googleAds {
				t.Fatalf("row %d: Google action %q is not one of the account's primary actions %q", i, f.ConversionAction, a.ConversionActions)
			}
		}
		if f.CampaignID == "" {
			continue // an artifact of a per-ad set: checked per ad below
		}
		if sets[f.Breakdown] == nil {
			sets[f.Breakdown] = map[campaignDay]*[catalog.NumMeasures]float64{}
		}
		sumInto(get(sets[f.Breakdown], cd), f)
	}
	for k, want := range byAd {
		for _, set := range catalog.PlatformSets(accounts[k.account].Platform) {
			if set.Key == catalog.Delivery || set.Level != catalog.LevelAd {
				continue
			}
			if got := perAd[set.Key][k]; got == nil || *got != *want {
				t.Fatalf("%v: %s rows sum to %v, delivery to %v", k, set.Key, got, want)
			}
		}
	}
	for key, m := range perAd {
		for k := range m {
			if byAd[k] == nil {
				t.Fatalf("%s rows on %v, an ad-day without delivery", key, k)
			}
		}
	}

	// Sums: every set of the platform, every campaign-day with delivery.
	for cd, want := range delivery {
		a := accounts[campaigns[cd.campaign].AccountID]
		for _, set := range catalog.PlatformSets(a.Platform) {
			if set.Key == catalog.Delivery {
				continue
			}
			got := sets[set.Key][cd]
			if set.Key == "conversion_action" {
				got = defaults[cd]
				if got == nil && want[catalog.Conversions] == 0 && want[catalog.ConversionValue] == 0 {
					continue // no conversions, no row: platforms report no empty rows
				}
				if got == nil || got[catalog.Conversions] != want[catalog.Conversions] || got[catalog.ConversionValue] != want[catalog.ConversionValue] {
					t.Fatalf("%v: default actions %q hold %v, delivery %v conversions worth %v", cd, a.ConversionActions, got, want[catalog.Conversions], want[catalog.ConversionValue])
				}
				continue
			}
			if got == nil || *got != *want {
				t.Fatalf("%v: %s rows sum to %v, delivery to %v", cd, set.Key, got, want)
			}
		}
	}
	for key, byDay := range sets {
		for cd := range byDay {
			if delivery[cd] == nil {
				t.Fatalf("%s rows on %v, a campaign-day without delivery", key, cd)
			}
		}
	}
	for k, want := range groups {
		if accounts[campaigns[k.campaign].AccountID].Platform == googleAds {
			continue
		}
		if got := placements[k]; got == nil || *got != *want {
			t.Fatalf("%v: placement rows sum to %v, delivery to %v", k, got, want)
		}
	}
	for k := range placements {
		if groups[k] == nil {
			t.Fatalf("placement rows for %v, which has no delivery", k)
		}
	}
	// Size: the breakdown rows stay in proportion to the delivery rows.
	var extra int
	for k, n := range counts {
		if k != catalog.Delivery {
			extra += n
		}
	}
	if r := float64(extra) / float64(counts[catalog.Delivery]); r < 0.3 || r > 1.5 {
		t.Errorf("%d breakdown rows for %d delivery rows (%.2f×), want 0.3–1.5×: %v", extra, counts[catalog.Delivery], r, counts)
	}
}

func checkValues(t *testing.T, a ads.Account, f *Fact) {
	t.Helper()
	bad := func(what, v string) { t.Fatalf("%s %s %q on %s: %+v", f.Breakdown, what, v, a.Platform, f) }
	if f.Age != "" && !slices.Contains(okAge, f.Age) {
		bad("age", f.Age)
	}
	if f.Age == "unknown" && a.Platform != googleAds {
		bad("age", f.Age) // Meta and TikTok place everyone in an age bracket
	}
	if f.Gender != "" && !slices.Contains(okGender, f.Gender) {
		bad("gender", f.Gender)
	}
	if f.Device != "" && !slices.Contains(okDevice, f.Device) {
		bad("device", f.Device)
	}
	switch a.Platform {
	case metaAds:
		lostDevice := f.Device == "unknown" && f.Placement == "unknown" // a delivery artifact's share
		if f.Placement != "" && !lostDevice && !slices.Contains(okMetaPl[f.PublisherPlatform], f.Placement) {
			bad("placement", f.PublisherPlatform+"/"+f.Placement)
		}
		if f.Placement == "right_hand_column" && f.Device != "desktop" {
			bad("right_hand_column device", f.Device)
		}
	case tiktokAds:
		if f.Placement != "" && (!slices.Contains(okTikTokPl, f.Placement) || f.PublisherPlatform != f.Placement) {
			bad("placement", f.PublisherPlatform+"/"+f.Placement)
		}
	}
	if f.ConversionAction != "" && a.Platform != googleAds && !slices.Contains(okActions[a.Platform], f.ConversionAction) {
		bad("conversion_action", f.ConversionAction)
	}
}

// checkMoneyAndCounts: money in whole cents, counts whole (Google conversions
// in quarters), and parts no larger than their wholes in a row that has them.
// zeroAccount: the account whose every metric is zero (the token without the
// reporting scope) has the rows of its delivery, all zero.
func zeroAccount(id string) bool {
	return slices.ContainsFunc(accountSpecs, func(s accountSpec) bool { return s.zero && s.AccountID == id })
}

func checkMoneyAndCounts(t *testing.T, platform string, f *Fact) {
	t.Helper()
	m := &f.Measures
	if int64(m[catalog.Spend])%10_000 != 0 || int64(m[catalog.ConversionValue])%10_000 != 0 {
		t.Fatalf("money not in whole cents: %+v", f)
	}
	units := 1.0
	if platform == googleAds {
		units = 4
	}
	if c := m[catalog.Conversions] * units; c != math.Trunc(c) {
		t.Fatalf("conversions %v not whole (Google: quarters): %+v", m[catalog.Conversions], f)
	}
	if f.Breakdown == "conversion_action" {
		if m[catalog.Conversions] == 0 && m[catalog.ConversionValue] == 0 && !zeroAccount(f.AccountID) {
			t.Fatalf("empty conversion_action row: %+v", f)
		}
		return
	}
	if m[catalog.Clicks] > m[catalog.Impressions] || m[catalog.LinkClicks] > m[catalog.Clicks] ||
		m[catalog.Conversions] > m[catalog.Clicks] || m[catalog.VideoViews] > m[catalog.Impressions] ||
		m[catalog.VideoViewsP100] > m[catalog.VideoViews] || (m[catalog.Impressions] == 0 && m[catalog.Spend] > 0) ||
		(m[catalog.Conversions] == 0 && m[catalog.ConversionValue] > 0) {
		t.Fatalf("inconsistent metrics: %+v", f)
	}
}

// TestBreakdownSkews: the answers look real — the audience and placement
// skews show in the sums (women see most skincare ads; older people convert
// more per click; reels are cheaper than feed).
func TestBreakdownSkews(t *testing.T) {
	s := generate(t, small)
	vertical := map[string]string{}
	for _, spec := range accountSpecs {
		vertical[spec.AccountID] = spec.vertical
	}
	imps := map[string]float64{}
	var young, old [2]float64 // clicks, conversions
	type cpms struct{ feed, reels float64 }
	byGroup := map[placementKey]*cpms{}
	cells := map[campaignDay]int{}
	for i := range s.facts {
		f := &s.facts[i]
		m := &f.Measures
		switch f.Breakdown {
		case "age_gender":
			imps[vertical[f.AccountID]+"/"+f.Gender] += m[catalog.Impressions]
			cells[campaignDay{f.CampaignID, f.Date}]++
			switch f.Age {
			case "18-24":
				young[0], young[1] = young[0]+m[catalog.Clicks], young[1]+m[catalog.Conversions]
			case "45-54":
				old[0], old[1] = old[0]+m[catalog.Clicks], old[1]+m[catalog.Conversions]
			}
		case "placement":
			k := placementKey{campaignDay{f.CampaignID, f.Date}, f.PublisherPlatform, f.Device}
			if byGroup[k] == nil {
				byGroup[k] = &cpms{}
			}
			switch f.Placement {
			case "feed":
				byGroup[k].feed = m[catalog.Spend] / m[catalog.Impressions]
			case "reels":
				byGroup[k].reels = m[catalog.Spend] / m[catalog.Impressions]
			}
		}
	}
	if imps["skincare/female"] < 2*imps["skincare/male"] || imps["outdoor/male"] < imps["outdoor/female"] {
		t.Errorf("gender skews missing: %v", imps)
	}
	if old[1]/old[0] < 1.3*young[1]/young[0] {
		t.Errorf("45-54 convert %.4f per click, 18-24 %.4f: want older higher", old[1]/old[0], young[1]/young[0])
	}
	var both, cheaper int
	for _, c := range byGroup {
		if c.feed > 0 && c.reels > 0 {
			both++
			if c.reels < c.feed {
				cheaper++
			}
		}
	}
	if both < 100 || cheaper < both*8/10 {
		t.Errorf("reels cheaper than feed in %d of %d publisher-device-days with both, want most", cheaper, both)
	}
	// Some campaign-days reach many cells, small ones few.
	var few, many int
	for _, n := range cells {
		if n <= 4 {
			few++
		}
		if n >= 10 {
			many++
		}
	}
	if few == 0 || many == 0 {
		t.Errorf("age × gender cells per campaign-day: %d with ≤4, %d with ≥10; want both", few, many)
	}
}

func TestAccountWindowsAndActions(t *testing.T) {
	s := generate(t, small)
	for _, a := range s.accounts {
		if a.AttributionWindow != catalog.PerActionWindow {
			if name, _, err := catalog.ParseAttributionWindow(a.AttributionWindow); err != nil || name != a.AttributionWindow {
				t.Errorf("%s: attribution window %q is not a canonical window (%v)", a.AccountID, a.AttributionWindow, err)
			}
		}
		want := map[string]string{metaAds: "purchase", tiktokAds: "complete_payment"}[a.Platform]
		switch a.Platform {
		case googleAds:
			if a.AttributionWindow != catalog.PerActionWindow || !strings.HasPrefix(a.ConversionActions, "Purchase") {
				t.Errorf("Google account %s: window %q, actions %q", a.AccountID, a.AttributionWindow, a.ConversionActions)
			}
		default:
			if a.AttributionWindow != "7d_click_1d_view" || a.ConversionActions != want {
				t.Errorf("%s account %s: window %q, actions %q", a.Platform, a.AccountID, a.AttributionWindow, a.ConversionActions)
			}
		}
	}
}

// TestSplitInt: the split is exact, within the caps, and fair — a cell's
// expected share is its quota, even for totals smaller than the cells.
func TestSplitInt(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]int64, 4)
	for range 2000 {
		w := []float64{r.Float64(), r.Float64() * 3, 0, r.Float64()}
		caps := []int64{r.Int64N(50), math.MaxInt64, 7, r.Int64N(5)}
		total := r.Int64N(60)
		splitInt(r, total, w, caps, out)
		var got int64
		for k, v := range out {
			got += v
			if v < 0 || v > caps[k] {
				t.Fatalf("split %d of %v with caps %v: %v", total, w, caps, out)
			}
		}
		if got != total {
			t.Fatalf("split %d of %v with caps %v: %v sums to %d", total, w, caps, out, got)
		}
	}
	// Zero weight where there is room: the rest is spread anyway.
	splitInt(r, 10, []float64{1, 0}, []int64{3, 100}, out[:2])
	if out[0] != 3 || out[1] != 7 {
		t.Fatalf("split 10 over caps 3, ∞ with weights 1, 0: %v", out[:2])
	}
	// Fairness: 1 unit over weights 1:3 goes to the first cell a quarter of the time.
	first := 0
	for range 4000 {
		splitInt(r, 1, []float64{1, 3}, []int64{math.MaxInt64, math.MaxInt64}, out[:2])
		first += int(out[0])
	}
	if first < 850 || first > 1150 {
		t.Fatalf("the smaller cell got the unit %d times in 4000, want ~1000", first)
	}
}
