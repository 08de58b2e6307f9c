package catalog

import "maps"

// fields is the catalog. Dimensions first, then metrics; docs/contract.md §3 is the spec.
// Which platforms report each field comes from the platform table (reportedBy).
var fields = reportedBy([]Field{
	// Dimensions.
	dim("platform", "Platform", "Ad platform: "+PlatformNames("or")+".", LevelAccount, UnitText,
		"ad_platform", "channel", "network", "source_platform"),
	dim("account_id", "Account ID", "Ad account identifier, unique across the server.", LevelAccount, UnitID,
		"ad_account_id", "customer_id", "advertiser_id", "act_id"),
	dim("account_name", "Account name", "Ad account name.", LevelAccount, UnitText,
		"account", "ad_account", "ad_account_name", "customer_name", "customer_descriptive_name", "advertiser_name"),
	describing(dim("currency", "Currency", "ISO 4217 currency of the account; money metrics are in it.", LevelAccount, UnitISOCode,
		"currency_code", "account_currency")),
	describing(dim("attribution_window", "Attribution window", "The window the account's conversions are counted under (7d_click_1d_view, 1d_click…; per_conversion_action on Google; unknown when the source does not say). Added by itself when conversions of accounts under different windows would otherwise be summed.", LevelAccount, UnitText,
		"attribution", "attribution_setting", "conversion_window")),
	dim("campaign_id", "Campaign ID", "Campaign identifier.", LevelCampaign, UnitID),
	dim("campaign_name", "Campaign name", "Campaign name.", LevelCampaign, UnitText,
		"campaign", "campaign_title"),
	dim("campaign_objective", "Campaign objective", "What the campaign optimizes for (e.g. OUTCOME_SALES, SEARCH, CONVERSIONS).", LevelCampaign, UnitText,
		"objective", "campaign_type", "advertising_channel_type"),
	dim("campaign_status", "Campaign status", "Campaign delivery status (ACTIVE, PAUSED, ARCHIVED…).", LevelCampaign, UnitText,
		"campaign_effective_status", "campaign_delivery"),
	dim("adset_id", "Ad set ID", "Ad set (Google: ad group) identifier.", LevelAdSet, UnitID,
		"ad_set_id", "ad_group_id", "adgroup_id"),
	dim("adset_name", "Ad set name", "Ad set (Google: ad group) name.", LevelAdSet, UnitText,
		"adset", "ad_set", "ad_set_name", "ad_group", "ad_group_name", "adgroup", "adgroup_name"),
	dim("ad_id", "Ad ID", "Ad identifier.", LevelAd, UnitID,
		"creative_id"),
	dim("ad_name", "Ad name", "Ad name.", LevelAd, UnitText,
		"ad", "creative", "creative_name"),
	dim("country", "Country", "ISO 3166-1 alpha-2 country where the ad was shown.", LevelBreakdown, UnitISOCode,
		"country_code", "geo", "geo_country"),
	dim("device", "Device", "Device the ad was shown on: mobile, desktop, tablet.", LevelBreakdown, UnitText,
		"device_type", "device_platform", "impression_device"),
	dim("publisher_platform", "Publisher platform", "Where the ad ran inside the platform (facebook, instagram, search, youtube, tiktok…).", LevelBreakdown, UnitText,
		"publisher", "publisher_platforms", "placement_platform", "network_type", "ad_network_type"),
	dim("age", "Age", "Age bracket of the people reached: 13-17, 18-24, 25-34, 35-44, 45-54, 55-64, 65+ (TikTok: 55+ instead of 55-64 and 65+), unknown.", LevelBreakdown, UnitText,
		"age_range", "age_group", "age_bracket"),
	dim("gender", "Gender", "Gender of the people reached: female, male, unknown.", LevelBreakdown, UnitText,
		"sex", "genders"),
	dim("placement", "Placement", "Where inside a publisher platform the ad ran (Meta platform_position: feed, story, reels…; TikTok placement).", LevelBreakdown, UnitText,
		"platform_position", "position", "ad_placement", "placements"),
	dim("conversion_action", "Conversion action", "The kind of conversion counted (Meta action type such as purchase or lead, a Google conversion action, a TikTok event); only conversions and conversion_value split by it.", LevelBreakdown, UnitText,
		"action_type", "conversion_type", "conversion_action_name", "event", "conversion_event", "action"),

	// Additive metrics: each is stored once (stored) and says how every platform
	// reports it (meta, google, exports); see storage.go and fetch.go.
	sum("spend", "Spend", "Amount spent, in the account's currency.", Money,
		"cost", "amount_spent", "spent", "ad_spend", "costs", "media_cost").
		stored(Spend, "spend_micros", Micros).
		export(ExportMeta, Export{EN: names("amount spent"), ES: names("importe gastado")}).
		export(ExportGoogle, Export{EN: names("cost"), ES: names("coste", "costo")}).
		export(ExportTikTok, Export{EN: names("cost", "total cost")}),
	sum("impressions", "Impressions", "Times ads were shown.", Count,
		"impr", "imps", "views_impressions").
		stored(Impressions, "impressions", Integer).
		export(ExportMeta, Export{EN: names("impressions"), ES: names("impresiones")}).
		export(ExportGoogle, Export{EN: names("impressions", "impr."), ES: names("impresiones", "impr.")}).
		export(ExportTikTok, Export{EN: names("impressions")}),
	sum("clicks", "Clicks", "All clicks on ads.", Count,
		"all_clicks", "total_clicks").
		stored(Clicks, "clicks", Integer).
		export(ExportMeta, Export{EN: names("clicks (all)"), ES: names("clics (todos)")}).
		export(ExportGoogle, Export{EN: names("clicks"), ES: names("clics")}).
		export(ExportTikTok, Export{EN: names("clicks (destination)", "clicks")}),
	sum("link_clicks", "Link clicks", "Clicks on links that lead to the advertiser's destination (Meta).", Count,
		"inline_link_clicks", "link_click").
		stored(LinkClicks, "link_clicks", Integer).
		export(ExportMeta, Export{EN: names("link clicks"), ES: names("clics en el enlace")}),
	sum("conversions", "Conversions", "Conversions (Meta: purchases by default), as the platform attributes them.", Count,
		"purchases", "results", "conv", "actions", "total_conversions").
		stored(Conversions, "conversions", Double).
		export(ExportMeta, Export{EN: names("purchases", "website purchases"), ES: names("compras", "compras en el sitio web"),
			Whole: true, Name: "purchases"}).
		export(ExportGoogle, Export{EN: names("conversions"), ES: names("conversiones")}).
		export(ExportTikTok, Export{EN: names("conversions"), Whole: true}),
	sum("conversion_value", "Conversion value", "Value of conversions, in the account's currency.", Money,
		"revenue", "purchase_value", "conversions_value", "conv_value", "action_values", "sales").
		stored(ConversionValue, "conversion_value_micros", Micros).
		export(ExportMeta, Export{EN: names("purchases conversion value", "website purchases conversion value", "purchase conversion value"),
			ES: names("valor de conversion de compras", "valor de conversion de las compras"), Name: "purchase value"}).
		export(ExportGoogle, Export{EN: names("conv. value", "conversion value", "conversions value"),
			ES: names("valor de conv.", "valor de conversion", "valor de las conversiones")}).
		export(ExportTikTok, Export{EN: names("total complete payment value", "complete payment value"), Name: "complete payment value"}),
	sum("video_views", "Video views", "Video views as the platform counts them.", Count,
		"video_plays", "views", "video_view").
		stored(VideoViews, "video_views", Integer).
		export(ExportMeta, Export{EN: names("3-second video plays", "video plays"), ES: names("reproducciones de video de 3 segundos")}).
		export(ExportGoogle, Export{EN: names("views", "video views"), ES: names("visualizaciones", "reproducciones")}).
		export(ExportTikTok, Export{EN: names("video views")}),
	// Google Ads reports only the share of impressions watched to the end
	// (metrics.video_quartile_p100_rate), not a count: not reported there.
	sum("video_views_p100", "Video views at 100%", "Times a video was played to the end (100% of its length); replays are not counted.", Count,
		"video_p100_watched", "video_plays_at_100", "completed_views", "video_completions").
		stored(VideoViewsP100, "video_views_p100", Integer).
		export(ExportMeta, Export{EN: names("video plays at 100%"), ES: names("reproducciones de video al 100%")}).
		export(ExportTikTok, Export{EN: names("video views at 100%")}),

	// Ratio metrics: always recomputed from summed parts.
	ratio("ctr", "CTR", "Click-through rate: clicks / impressions × 100.", Percent, "clicks", "impressions", 100,
		"click_through_rate", "clickthrough_rate"),
	ratio("cpc", "CPC", "Cost per click: spend / clicks.", Money, "spend", "clicks", 1,
		"cost_per_click", "avg_cpc", "average_cpc"),
	ratio("cpm", "CPM", "Cost per thousand impressions: spend / impressions × 1000.", Money, "spend", "impressions", 1000,
		"cost_per_mille", "cost_per_thousand_impressions", "average_cpm", "avg_cpm"),
	ratio("cpa", "CPA", "Cost per conversion: spend / conversions.", Money, "spend", "conversions", 1,
		"cost_per_conversion", "cost_per_acquisition", "cost_per_result", "cost_per_purchase"),
	ratio("roas", "ROAS", "Return on ad spend: conversion_value / spend.", Multiple, "conversion_value", "spend", 1,
		"return_on_ad_spend", "purchase_roas"),
	ratio("conversion_rate", "Conversion rate", "Conversions / clicks × 100.", Percent, "conversions", "clicks", 100,
		"cvr", "conv_rate", "conversions_rate", "conversion_rate_percent"),

	// Non-additive metrics: distinct people; never summed across days or objects.
	{Name: "reach", Label: "Reach", Description: "People who saw the ads at least once in the period; never summed across days or objects.",
		Kind: Metric, Type: Number, Aggregation: NonAdditive, Unit: Count,
		Synonyms: []string{"unique_reach", "people_reached", "unique_users"}, Distinct: "reach",
		Exports: map[string]Export{ExportMeta: {EN: names("reach"), ES: names("alcance")}, ExportTikTok: {EN: names("reach")}}},
	{Name: "frequency", Label: "Frequency", Description: "Average times each person saw the ads: impressions / reach at the same grain.",
		Kind: Metric, Type: Number, Aggregation: NonAdditive, Numerator: "impressions", Denominator: "reach", Scale: 1,
		Unit:     Multiple,
		Synonyms: []string{"avg_frequency", "average_frequency"}},
})

func dim(name, label, desc string, level Level, unit Unit, synonyms ...string) Field {
	return Field{Name: name, Label: label, Description: desc, Kind: Dimension, Type: String,
		Unit: unit, Synonyms: synonyms, Level: level}
}

// describing marks a dimension as one that says how a row's numbers are
// measured (Field.Describes). It returns f.
func describing(f Field) Field {
	f.Describes = true
	return f
}

func sum(name, label, desc string, unit Unit, synonyms ...string) Field {
	return Field{Name: name, Label: label, Description: desc, Kind: Metric, Type: Number,
		Aggregation: Sum, Unit: unit, Synonyms: synonyms}
}

func ratio(name, label, desc string, unit Unit, num, den string, scale float64, synonyms ...string) Field {
	return Field{Name: name, Label: label, Description: desc, Kind: Metric, Type: Number,
		Aggregation: Ratio, Numerator: num, Denominator: den, Scale: scale, Unit: unit,
		Synonyms: synonyms}
}

// stored says where a Sum metric is stored.
func (f Field) stored(m Measure, column string, kind ColumnKind) Field {
	f.Storage = &Storage{Measure: m, Column: column, Kind: kind}
	return f
}

// export adds how one platform's report export titles the metric.
func (f Field) export(platform string, e Export) Field {
	f.Exports = maps.Clone(f.Exports)
	if f.Exports == nil {
		f.Exports = map[string]Export{}
	}
	f.Exports[platform] = e
	return f
}

func names(n ...string) []string { return n }
