package live

import (
	"testing"

	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/source/meta/metatest"
)

// TestPlanObjectLevel: ObjectLevel is the finest object the query's
// dimensions and filters name; Level is it raised to a per-campaign set's
// level, and the two agree for delivery.
func TestPlanObjectLevel(t *testing.T) {
	accounts := metatest.New(t).Accounts()
	for _, tc := range []struct {
		raw           string
		level, object catalog.Level
	}{
		{`{"metrics":["spend"],"dimensions":["age"],"platforms":["meta_ads"],"date_preset":"last_7d"}`, catalog.LevelCampaign, catalog.LevelAccount},
		{`{"metrics":["spend"],"dimensions":["placement"],"platforms":["meta_ads"],"date_preset":"last_7d","filters":[{"field":"campaign_id","operator":"EQUALS","value":"1"}]}`, catalog.LevelCampaign, catalog.LevelCampaign},
		{`{"metrics":["conversions"],"dimensions":["conversion_action"],"platforms":["meta_ads"],"date_preset":"last_7d"}`, catalog.LevelCampaign, catalog.LevelAccount},
		{`{"metrics":["spend"],"dimensions":["country"],"platforms":["meta_ads"],"date_preset":"last_7d"}`, catalog.LevelAccount, catalog.LevelAccount},
		{`{"metrics":["spend"],"dimensions":["ad_name","country"],"platforms":["meta_ads"],"date_preset":"last_7d"}`, catalog.LevelAd, catalog.LevelAd},
	} {
		q, err := normalizeQuery(accounts, tc.raw)
		if err != nil {
			t.Fatal(err)
		}
		p, err := PlanFor(q, catalog.MetaAds)
		if err != nil {
			t.Fatal(err)
		}
		if p.Level != tc.level || p.ObjectLevel != tc.object {
			t.Errorf("%s: Level %d, ObjectLevel %d; want %d, %d", tc.raw, p.Level, p.ObjectLevel, tc.level, tc.object)
		}
	}
}
