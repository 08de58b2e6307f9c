package live

import (
	"context"
	"slices"
	"testing"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// PlanFor holds every rule that is not an API's: the level dimensions and
// per-campaign sets need, the stored parts of ratios, the grain rows may
// have, the reach the warehouse reads.
func TestPlanFor(t *testing.T) {
	m, g, tt := connectors(t)
	accounts, err := New(nil, m, g, tt).Accounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		platform, raw string
		level         catalog.Level
		set           string
		breakdowns    []string
		measures      []string
		grain         fit.Grain
		reach         bool
	}{
		{catalog.MetaAds, `{"metrics":["spend","ctr"],"dimensions":["campaign_name"],"platforms":["meta_ads"],"time_granularity":"quarterly","date_preset":"last_90d"}`,
			catalog.LevelCampaign, catalog.Delivery, nil, []string{"spend", "impressions", "clicks"}, fit.Monthly, false},
		{catalog.MetaAds, `{"metrics":["cpc"],"dimensions":["account_name"],"platforms":["meta_ads"],"filters":[{"field":"adset_name","operator":"CONTAINS","value":"x"}],"date_preset":"last_30d"}`,
			catalog.LevelAdSet, catalog.Delivery, nil, []string{"spend", "clicks"}, fit.Total, false},
		{catalog.MetaAds, `{"metrics":["spend"],"dimensions":["age"],"platforms":["meta_ads"],"time_granularity":"weekly","date_preset":"last_30d"}`,
			catalog.LevelCampaign, "age_gender", []string{"age"}, []string{"spend"}, fit.Weekly, false},
		{catalog.TikTokAds, `{"metrics":["conversion_value"],"dimensions":["conversion_action"],"platforms":["tiktok_ads"],"date_preset":"last_30d"}`,
			catalog.LevelCampaign, "conversion_action", []string{"conversion_action"}, []string{"conversion_value"}, fit.Total, false},
		{catalog.MetaAds, `{"metrics":["reach"],"dimensions":["account_name"],"platforms":["meta_ads"],"time_granularity":"monthly","date_range":{"start":"2026-01-01","end":"2026-02-28"}}`,
			catalog.LevelAccount, catalog.Delivery, nil, []string{"impressions"}, fit.Monthly, true},
		{catalog.GoogleAds, `{"metrics":["spend"],"dimensions":["device","country"],"platforms":["google_ads"],"time_granularity":"daily","date_preset":"last_7d"}`,
			// Google's countries: the location set, fetched per ad group as stored.
			catalog.LevelAdSet, "location", []string{"country", "device"}, []string{"spend"}, fit.Daily, false},
	} {
		q := normalize(t, accounts, c.raw)
		p, err := PlanFor(q, c.platform)
		if err != nil {
			t.Fatalf("%s: %v", c.raw, err)
		}
		if p.Level != c.level || p.Set.Key != c.set || !slices.Equal(p.Breakdowns, c.breakdowns) || !slices.Equal(p.Measures, c.measures) ||
			p.Grain != c.grain || (p.Reach != nil) != c.reach || !p.Start.Equal(q.Start) || !p.End.Equal(q.End) {
			t.Errorf("%s:\n plan level %d set %s breakdowns %v measures %v grain %s reach %v\n want level %d set %s breakdowns %v measures %v grain %s reach %v",
				c.raw, p.Level, p.Set.Key, p.Breakdowns, p.Measures, p.Grain, p.Reach != nil, c.level, c.set, c.breakdowns, c.measures, c.grain, c.reach)
		}
	}
}
