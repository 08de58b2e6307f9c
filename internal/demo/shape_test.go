package demo

import (
	"github.com/adsmcp/adsmcp/internal/catalog"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestOrderOfSinkCalls(t *testing.T) {
	s := generate(t, small)
	want := []string{"dataset", "accounts", "campaigns", "adsets", "ads", "facts", "reach"}
	if !slices.Equal(s.order, want) {
		t.Fatalf("sink calls came in this table order: %v, want %v", s.order, want)
	}
	for _, k := range []string{"kind", "label", "anchor", "seed", "days", "scale", "generator_version", "first_date", "last_date"} {
		if s.dataset[k] == "" {
			t.Errorf("dataset key %q missing", k)
		}
	}
	if s.dataset["kind"] != "demo" || s.dataset["anchor"] != "2026-03-15" || s.dataset["first_date"] != "2025-02-08" || s.dataset["last_date"] != "2026-03-14" {
		t.Errorf("dataset rows: %v", s.dataset)
	}
}

func TestAccounts(t *testing.T) {
	s := generate(t, small)
	if len(s.accounts) != 14 {
		t.Fatalf("%d accounts, want 14", len(s.accounts))
	}
	platforms := map[string]int{}
	currencies := map[string]bool{}
	ids := map[string]bool{}
	for _, a := range s.accounts {
		platforms[a.Platform]++
		currencies[a.Currency] = true
		if ids[a.AccountID] {
			t.Errorf("duplicate account id %s", a.AccountID)
		}
		ids[a.AccountID] = true
		if _, err := time.LoadLocation(a.Timezone); err != nil {
			t.Errorf("%s: timezone %q: %v", a.AccountID, a.Timezone, err)
		}
		if a.AccountName == "" || a.Status == "" {
			t.Errorf("incomplete account %+v", a)
		}
		ok := false
		switch a.Platform {
		case metaAds:
			ok = strings.HasPrefix(a.AccountID, "act_") && allDigits(a.AccountID[4:])
		case googleAds:
			ok = len(a.AccountID) == 12 && a.AccountID[3] == '-' && a.AccountID[7] == '-' && allDigits(strings.ReplaceAll(a.AccountID, "-", ""))
		case tiktokAds:
			ok = len(a.AccountID) == 19 && allDigits(a.AccountID)
		}
		if !ok {
			t.Errorf("account id %q does not look like a %s id", a.AccountID, a.Platform)
		}
	}
	if platforms[metaAds] != 6 || platforms[googleAds] != 5 || platforms[tiktokAds] != 3 {
		t.Errorf("accounts per platform: %v, want meta 6, google 5, tiktok 3", platforms)
	}
	for _, c := range []string{"USD", "EUR", "ARS"} {
		if !currencies[c] {
			t.Errorf("no %s account", c)
		}
	}
}

func allDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// TestFacts checks every fact of the small dataset against the rules of docs/contract.md §9.
func TestFacts(t *testing.T) {
	s := generate(t, small)
	first, last := anchor.AddDate(0, 0, -small.Days), anchor.AddDate(0, 0, -1)
	platform := map[string]string{}
	accountIdx := map[string]int{}
	for i, a := range s.accounts {
		platform[a.AccountID] = a.Platform
		accountIdx[a.AccountID] = i
	}
	campaigns := map[string]Campaign{}
	for _, c := range s.campaigns {
		campaigns[c.CampaignID] = c
	}
	adsets := map[string]AdSet{}
	for _, x := range s.adsets {
		adsets[x.AdSetID] = x
	}
	adsByID := map[string]Ad{}
	for _, x := range s.ads {
		adsByID[x.AdID] = x
	}

	type acc struct {
		rows, nonZero int
	}
	per := map[string]*acc{}
	empty, delivery := 0, 0
	prevAcct, prevDate := -1, time.Time{}
	for i := range s.facts {
		f := &s.facts[i]
		if f.Breakdown != "" {
			continue // the other breakdown sets: TestBreakdownSets
		}
		delivery++
		a := per[f.AccountID]
		if a == nil {
			a = &acc{}
			per[f.AccountID] = a
		}
		a.rows++
		if f.Measures[catalog.Spend] != 0 || f.Measures[catalog.Impressions] != 0 || f.Measures[catalog.Clicks] != 0 || f.Measures[catalog.Conversions] != 0 || f.Measures[catalog.ConversionValue] != 0 || f.Measures[catalog.VideoViews] != 0 || f.Measures[catalog.LinkClicks] > 0 {
			a.nonZero++
		}
		// Date range and physical order (account, then date).
		if f.Date.Before(first) || f.Date.After(last) {
			t.Fatalf("fact dated %s outside [%s, %s]", f.Date, first, last)
		}
		ai, ok := accountIdx[f.AccountID]
		if !ok {
			t.Fatalf("fact of unknown account %q", f.AccountID)
		}
		if ai < prevAcct || (ai == prevAcct && f.Date.Before(prevDate)) {
			t.Fatalf("facts not in account, date order at row %d", i)
		}
		prevAcct, prevDate = ai, f.Date
		// Dimensions: artifacts aside, every object exists and belongs where it says.
		if f.CampaignID == "" || f.AdSetID == "" || f.AdID == "" || f.Country == "" || f.Device == "" {
			empty++
		}
		if f.CampaignID != "" {
			c, ok := campaigns[f.CampaignID]
			if !ok || c.AccountID != f.AccountID {
				t.Fatalf("fact's campaign %q unknown or in another account", f.CampaignID)
			}
			if f.Date.Before(c.StartDate) || (!c.EndDate.IsZero() && f.Date.After(c.EndDate)) {
				t.Fatalf("campaign %s (%s..%s) has a fact on %s", c.CampaignID, c.StartDate, c.EndDate, f.Date)
			}
		}
		if f.AdID != "" {
			ad, ok := adsByID[f.AdID]
			if !ok || ad.AdSetID != f.AdSetID || ad.CampaignID != f.CampaignID || adsets[f.AdSetID].CampaignID != f.CampaignID {
				t.Fatalf("fact's ad %q does not match its ad set/campaign", f.AdID)
			}
		}
		if f.Country != "" && (len(f.Country) != 2 || strings.ToUpper(f.Country) != f.Country) {
			t.Fatalf("country %q is not ISO alpha-2", f.Country)
		}
		if f.Device != "" && !slices.Contains(devices[:], f.Device) {
			t.Fatalf("device %q", f.Device)
		}
		okPub := map[string][]string{
			metaAds:   {"facebook", "instagram", "audience_network", "messenger"},
			googleAds: {"search", "youtube", "display"},
			tiktokAds: {"tiktok", "pangle"},
		}[platform[f.AccountID]]
		if f.PublisherPlatform != "" && !slices.Contains(okPub, f.PublisherPlatform) {
			t.Fatalf("publisher %q on %s", f.PublisherPlatform, platform[f.AccountID])
		}
		// Metrics.
		if int64(f.Measures[catalog.Spend])%10_000 != 0 || int64(f.Measures[catalog.ConversionValue])%10_000 != 0 {
			t.Fatalf("money not in whole cents: %+v", f)
		}
		if f.Measures[catalog.Spend] < 0 || f.Measures[catalog.Impressions] < 0 || f.Measures[catalog.Clicks] > f.Measures[catalog.Impressions] || f.Measures[catalog.LinkClicks] > f.Measures[catalog.Clicks] || f.Measures[catalog.Conversions] > float64(f.Measures[catalog.Clicks]) || f.Measures[catalog.VideoViews] > f.Measures[catalog.Impressions] {
			t.Fatalf("inconsistent metrics: %+v", f)
		}
		switch platform[f.AccountID] {
		case googleAds:
			if f.Measures[catalog.LinkClicks] != NotReported {
				t.Fatalf("Google fact with link clicks: %+v", f)
			}
			if f.Measures[catalog.Conversions]*4 != math.Trunc(f.Measures[catalog.Conversions]*4) {
				t.Fatalf("Google conversions %v not in quarters", f.Measures[catalog.Conversions])
			}
		case metaAds:
			if f.Measures[catalog.LinkClicks] < 0 || f.Measures[catalog.Conversions] != math.Trunc(f.Measures[catalog.Conversions]) {
				t.Fatalf("Meta fact without link clicks or with fractional conversions: %+v", f)
			}
		case tiktokAds:
			if f.Measures[catalog.LinkClicks] != NotReported || f.Measures[catalog.Conversions] != math.Trunc(f.Measures[catalog.Conversions]) {
				t.Fatalf("TikTok fact with link clicks or fractional conversions: %+v", f)
			}
		}
	}
	share := float64(empty) / float64(delivery)
	if share < 0.01 || share > 0.03 {
		t.Errorf("%.2f%% of facts have empty dimensions, want 1–3%%", share*100)
	}
	zero := 0
	for _, a := range s.accounts {
		p := per[a.AccountID]
		if p == nil {
			t.Errorf("account %s has no facts", a.AccountID)
			continue
		}
		if p.nonZero == 0 {
			zero++
			if a.Platform != tiktokAds || a.Status != statusActive {
				t.Errorf("all-zero account %s should be an active TikTok account", a.AccountID)
			}
		}
	}
	if zero != 1 {
		t.Errorf("%d accounts with all-zero metrics, want 1", zero)
	}
}

func TestCampaignsAtSmallScale(t *testing.T) {
	s := generate(t, small)
	per := map[string]int{}
	for _, c := range s.campaigns {
		per[c.AccountID]++
	}
	for i, spec := range accountSpecs {
		want := max(1, int(math.Round(float64(spec.campaigns)*small.Scale)))
		if got := per[s.accounts[i].AccountID]; got != want {
			t.Errorf("%s: %d campaigns at scale %g, want %d", spec.AccountName, got, small.Scale, want)
		}
	}
	checkStatuses(t, s.campaigns, anchor.AddDate(0, 0, -1))
}

// checkStatuses: ACTIVE exactly when the campaign has no end date or ends on or
// after the last day of data.
func checkStatuses(t *testing.T, campaigns []Campaign, last time.Time) {
	t.Helper()
	for _, c := range campaigns {
		running := c.EndDate.IsZero() || !c.EndDate.Before(last)
		if running != (c.Status == campaignActive) {
			t.Errorf("campaign %s status %s with end date %s", c.CampaignID, c.Status, c.EndDate)
		}
		if !c.EndDate.IsZero() && c.EndDate.Before(c.StartDate) {
			t.Errorf("campaign %s ends before it starts", c.CampaignID)
		}
	}
}

// TestFullStructure checks the Scale 1 campaign structure without generating facts.
func TestFullStructure(t *testing.T) {
	cfg, err := Config{Anchor: anchor, Seed: 42}.normalized()
	if err != nil {
		t.Fatal(err)
	}
	p := newPlan(cfg)
	big := 0
	names := map[string]map[string]bool{} // campaign name → accounts
	ids := map[string]bool{}
	var campaigns []Campaign
	statuses := map[string]int{}
	objectives := map[string]map[string]bool{}
	for _, a := range p.accounts {
		n := len(a.campaigns)
		if n < 20 || n > 200 {
			t.Errorf("%s: %d campaigns, want 20–200", a.spec.AccountName, n)
		}
		if n >= 150 {
			big++
		}
		for _, c := range a.campaigns {
			campaigns = append(campaigns, c.Campaign)
			statuses[c.Status]++
			if objectives[a.spec.Platform] == nil {
				objectives[a.spec.Platform] = map[string]bool{}
			}
			objectives[a.spec.Platform][c.Objective] = true
			if names[c.Name] == nil {
				names[c.Name] = map[string]bool{}
			}
			names[c.Name][a.spec.AccountID] = true
			if c.first > c.last {
				t.Errorf("campaign %s never delivers", c.CampaignID)
			}
			for _, id := range append([]string{c.CampaignID}, childIDs(c)...) {
				if ids[id] || !allDigits(id) {
					t.Errorf("object id %q duplicated or not numeric", id)
				}
				ids[id] = true
			}
			if len(c.adsets) < 2 || len(c.adsets) > 6 {
				t.Errorf("campaign %s has %d ad sets", c.CampaignID, len(c.adsets))
			}
			for _, s := range c.adsets {
				if len(s.ads) < 1 || len(s.ads) > 3 {
					t.Errorf("ad set %s has %d ads", s.AdSetID, len(s.ads))
				}
			}
		}
	}
	if big == 0 {
		t.Error("no account with ≥150 campaigns")
	}
	shared := 0
	for _, accts := range names {
		if len(accts) > 1 {
			shared++
		}
	}
	if shared < 3 {
		t.Errorf("only %d campaign names recur across accounts", shared)
	}
	if statuses[campaignActive] == 0 || statuses[campaignPaused] == 0 || statuses[campaignArchived] == 0 {
		t.Errorf("statuses %v: want active, paused and archived campaigns", statuses)
	}
	checkStatuses(t, campaigns, anchor.AddDate(0, 0, -1))
	for platform, want := range objectives {
		if len(want) != len(objectivesOf(platform)) {
			t.Errorf("%s uses objectives %v", platform, want)
		}
	}
	if p.estimate < 2_000_000 || p.estimate > 6_000_000 {
		t.Errorf("about %d fact rows expected, want 2–6M", p.estimate)
	}
}

func objectivesOf(platform string) []string { return objectives[platform] }

func childIDs(c *campaignPlan) []string {
	var ids []string
	for _, s := range c.adsets {
		ids = append(ids, s.AdSetID)
		for _, ad := range s.ads {
			ids = append(ids, ad.AdID)
		}
	}
	return ids
}

// A smaller scale is a subset of the full dataset: same campaigns, same IDs.
func TestScaleIsSubset(t *testing.T) {
	full, _ := Config{Anchor: anchor, Seed: 42, Days: 400}.normalized()
	part, _ := small.normalized()
	byID := map[string]Campaign{}
	for _, a := range newPlan(full).accounts {
		for _, c := range a.campaigns {
			byID[c.CampaignID] = c.Campaign
		}
	}
	for _, a := range newPlan(part).accounts {
		for _, c := range a.campaigns {
			if byID[c.CampaignID] != c.Campaign {
				t.Fatalf("campaign %+v at scale %g is not in the full dataset", c.Campaign, small.Scale)
			}
		}
	}
}
