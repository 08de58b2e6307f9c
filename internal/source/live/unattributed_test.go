package live

import (
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// TestUnattributed: what a per-campaign set leaves out is the account's
// delivery less the set's rows, per account and period, with no campaign:
// for conversion_action only the default actions' rows count; a measure the
// platform does not report stays unreported; a period the set covers whole
// stages nothing.
func TestUnattributed(t *testing.T) {
	day1, day2 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	accounts := []ads.Account{{AccountID: "a", ConversionActions: "purchase, lead"}, {AccountID: "b"}}
	fact := func(acct string, d time.Time, set, action string, spend, conv float64) ads.Fact {
		f := ads.Fact{Date: d, AccountID: acct, Breakdown: set, ConversionAction: action}
		f.Measures[catalog.Spend], f.Measures[catalog.Conversions] = spend, conv
		f.Measures[catalog.LinkClicks] = ads.NotReported
		if set != "" {
			f.CampaignID = "c1"
		}
		return f
	}
	set := func(key string) catalog.BreakdownSet { s, _ := catalog.BreakdownSetByKey(key); return s }
	delivery, b := newBatch(), newBatch()
	delivery.Facts(fact("a", day1, "", "", 100e6, 10), fact("a", day2, "", "", 50e6, 4), fact("b", day1, "", "", 7e6, 3))
	b.Facts(fact("a", day1, "age_gender", "", 60e6, 9), fact("a", day1, "age_gender", "", 30e6, 0), fact("a", day2, "age_gender", "", 50e6, 4))
	got := unattributed(set("age_gender"), accounts, delivery, b)
	if len(got) != 2 || got[0].AccountID != "a" || got[0].Measures[catalog.Spend] != 10e6 || got[0].Measures[catalog.Conversions] != 1 ||
		got[0].Measures[catalog.LinkClicks] != ads.NotReported || got[0].CampaignID != "" || got[0].BreakdownKey() != catalog.Delivery ||
		got[1].AccountID != "b" || got[1].Measures[catalog.Spend] != 7e6 {
		t.Errorf("age_gender: %+v", got)
	}
	b = newBatch()
	b.Facts(fact("a", day1, "conversion_action", "purchase", 0, 6), fact("a", day1, "conversion_action", "lead", 0, 2),
		fact("a", day1, "conversion_action", "add_to_cart", 0, 40), fact("b", day1, "conversion_action", "purchase", 0, 3))
	got = unattributed(set("conversion_action"), accounts, delivery, b)
	// a: day 1 10 − (6 + 2), day 2 all 4; b says no default actions: none.
	if len(got) != 2 || got[0].Measures[catalog.Conversions] != 2 || got[0].Measures[catalog.Spend] != 0 || got[1].Measures[catalog.Conversions] != 4 {
		t.Errorf("conversion_action: %+v", got)
	}
}
