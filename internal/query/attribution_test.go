package query

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// The rule docs/fields.md ("Attribution windows") states: a window is
// recounted only on Meta accounts (the live connector asks Meta for it);
// on Google and TikTok accounts it is accepted only when it is the one the
// account already holds (a warehouse's stored window: nothing to recount),
// which live accounts never do (per_conversion_action, per_ad_group are no
// window one can ask); and a warehouse answers only the window its accounts
// hold (StoredWindowError), whatever the platform.
func TestAttributionWindowRules(t *testing.T) {
	const asked = "1d_click"
	cases := []struct {
		name                string
		platform, holds     string
		normalizes, storage bool // the query normalizes; a warehouse answers it
	}{
		{"Meta, live default", "meta_ads", "7d_click_1d_view", true, false},
		{"Meta, warehouse holding it", "meta_ads", asked, true, true},
		{"Google, live", "google_ads", catalog.PerActionWindow, false, false},
		{"Google, warehouse holding it", "google_ads", asked, true, true},
		{"TikTok, live", "tiktok_ads", catalog.PerAdGroupWindow, false, false},
		{"TikTok, warehouse holding another", "tiktok_ads", "7d_click_1d_view", false, false},
		{"TikTok, warehouse holding it", "tiktok_ads", asked, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opt := testOptions()
			opt.Accounts = []ads.Account{{AccountID: "a1", Platform: c.platform, AccountName: "A", Currency: "USD", Timezone: "UTC", AttributionWindow: c.holds}}
			raw, _ := json.Marshal(map[string]any{"account_ids": []string{"a1"}, "metrics": []string{"conversions"}, "attribution_window": asked})
			q, err := ParseAndNormalize(raw, opt)
			var qe *Error
			if c.normalizes != (err == nil) || err != nil && !errors.As(err, &qe) {
				t.Fatalf("normalizes: %v, want %v", err, c.normalizes)
			}
			if err != nil {
				return
			}
			if got := q.StoredWindowError() == nil; got != c.storage {
				t.Errorf("a warehouse answers: %v, want %v", got, c.storage)
			}
		})
	}
}

// The columns the normalization adds (currency, attribution_window) are
// describing dimensions: fit never judges them in step 1.
func TestAddedColumnsDescribe(t *testing.T) {
	opt := testOptions()
	opt.Accounts[0].AttributionWindow = "7d_click_1d_view"
	raw := []byte(`{"account_ids":["act_1011","act_1014","123-456-7801"],"metrics":["spend","conversions"],"dimensions":["campaign_name"]}`)
	q, err := ParseAndNormalize(raw, opt)
	if err != nil {
		t.Fatal(err)
	}
	added := 0
	for _, c := range q.Changes {
		if c.Type == ChangeCurrencyColumnAdded || c.Type == ChangeAttributionColumnAdded {
			added++
			if !catalog.MustLookup(c.To).Describes {
				t.Errorf("%s added but not a describing dimension", c.To)
			}
		}
	}
	if added != 2 {
		t.Errorf("%d columns added, want currency and attribution_window: %+v", added, q.Changes)
	}
}
