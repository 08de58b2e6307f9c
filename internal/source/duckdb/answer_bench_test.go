package duckdb

import (
	"context"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/answer"
)

// BenchmarkAnswer runs whole tool calls (normalize, source, fit) on the full
// demo warehouse, as a client gets them: the flagship, the everyday small
// question, and the worst case — every ad × country of ten accounts, daily,
// two years, far over any budget (Meta reports no finer delivery: country
// apart from device and publisher_platform). See docs/benchmarks.md, "Huge results in bounded memory".
func BenchmarkAnswer(b *testing.B) {
	ids := firstTenAccounts(b)
	cases := []struct{ name, args string }{
		{"flagship", `{"account_ids":[` + ids + `],"date_preset":"last_90d","dimensions":["campaign_name"],"metrics":["spend","impressions","clicks","ctr","conversions"],"time_granularity":"daily"}`},
		{"account_spend", `{"platforms":["meta_ads"],"date_preset":"last_30d","dimensions":["account_name"],"metrics":["spend"]}`},
		// The flagship and the small question against the previous period:
		// compare each with its own case above.
		{"flagship_compare", `{"account_ids":[` + ids + `],"date_preset":"last_90d","dimensions":["campaign_name"],"metrics":["spend","impressions","clicks","ctr","conversions"],"time_granularity":"daily","compare":"previous_period"}`},
		{"account_spend_compare", `{"platforms":["meta_ads"],"date_preset":"last_30d","dimensions":["account_name"],"metrics":["spend"],"compare":"previous_period"}`},
		// Breakdown sets: the same question by country (delivery
		// rows, per ad) and by age × gender (per campaign), and conversions by
		// action: read each against country_by_campaign.
		{"country_by_campaign", `{"platforms":["meta_ads"],"date_preset":"last_30d","dimensions":["campaign_name","country"],"metrics":["spend","conversions","cpa"]}`},
		{"age_gender_by_campaign", `{"platforms":["meta_ads"],"date_preset":"last_30d","dimensions":["campaign_name","age","gender"],"metrics":["spend","conversions","cpa"]}`},
		{"conversions_by_action", `{"platforms":["meta_ads"],"date_preset":"last_30d","dimensions":["campaign_name","conversion_action"],"metrics":["conversions","conversion_value"]}`},
		// Every ad × country of the nine Meta and TikTok accounts (Google
		// reports countries per ad group at the finest: no Google account).
		{"worst", `{"account_ids":["act_4409187263550918","act_3376015298441067","act_6630418825197342","act_2284619037465520","act_1015823746512093","act_5521093847612239","7201845539016472318","7318862045571299861","7254490217683350144"],"dimensions":["ad_id","country"],"metrics":["spend","clicks","impressions","conversions"],"time_granularity":"daily","date_range":{"start":"2024-03-15","end":"2026-03-14"}}`},
	}
	e := &answer.Engine{Source: openBenchSource(b), Now: func() time.Time { return benchAnchor.Add(12 * time.Hour) }}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var res *answer.Result
			for b.Loop() {
				var err error
				if res, err = e.Query(context.Background(), answer.Request{Args: []byte(c.args), Client: "claude-code"}); err != nil {
					b.Fatal(err)
				}
			}
			if res.IsError {
				b.Fatalf("%.300s", res.Blocks[0])
			}
			b.ReportMetric(float64(res.Report.SourceCalls), "source_calls")
		})
	}
}
