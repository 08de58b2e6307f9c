package catalog

import (
	"slices"
	"strings"
)

// Platforms known to adsmcp, as the data and the tools name them.
const (
	MetaAds   = "meta_ads"
	GoogleAds = "google_ads"
	TikTokAds = "tiktok_ads"
)

// Platform is one ad platform: the one place its names, the form of its
// account IDs and its publisher platforms are written. Every list of
// platforms (the tools' valid values, the aliases people write, prompts'
// prose, tenants' account entries, the importer, the demo) reads it.
type Platform struct {
	// Name is the canonical name ("meta_ads").
	Name string
	// Label names the platform in prose ("all Meta placements").
	Label string
	// DisplayName is the product's name ("Meta Ads").
	DisplayName string
	// Aliases are other names people write for it ("facebook", "adwords"); they
	// fold, like Name, ignoring case, spaces and punctuation.
	Aliases []string
	// AccountID is the form the platform writes account IDs in, when it has
	// one of its own (nil: bare digits, which say nothing of the platform).
	AccountID *AccountIDForm
	// Publishers are the publisher_platform values of its delivery (where
	// inside the platform an ad ran), with their aliases.
	Publishers []Publisher
	// Sets are the breakdown sets its reports give (BreakdownSet keys, in
	// the sets' order): the breakdown dimensions it reports are theirs.
	Sets []string
	// Delivery, when not nil, are the only dimensions of the delivery set
	// its delivery rows carry; its other breakdown dimensions are in other
	// sets. Nil: all of the delivery set's.
	Delivery []string
	// NotReported are the stored metrics it does not report: its facts hold
	// NULL for them and answers warn metric_not_reported. It reports every
	// other stored metric, and a computed metric where it reports all the
	// metric's parts.
	NotReported []string
	// FixedAttribution, when not empty, says how the platform counts
	// conversions when its reports take no attribution window per request
	// ("counts each conversion action under its own …"): an
	// attribution_window other than its accounts' is refused with it. Empty:
	// the reports take a window (AttributionPlatforms).
	FixedAttribution string
	// SyncLookback is how many days before the newest synced day a sync
	// fetches again, because the platform still revises them: a conversion
	// is counted on the day of the ad's click or view, up to the end of the
	// attribution (conversion) window after it. Each row cites its figure;
	// docs/sync.md#lookback-per-platform compares them with what established
	// connectors re-fetch (Fivetran, Airbyte, Singer).
	SyncLookback int
	// MaxHistory is how many months back from today a backfill may go: the
	// oldest data the platform's reports return (each row cites its figure;
	// docs/sync.md#history-limits).
	MaxHistory int
}

// platforms is the table, in AllPlatforms order. Bare "facebook"/"fb" and
// "tiktok" are both platform aliases and publisher platforms: as a platform
// they mean the whole platform (see internal/query).
var platforms = []Platform{
	{
		Name: MetaAds, Label: "Meta", DisplayName: "Meta Ads",
		Aliases:   []string{"meta", "facebook", "fb", "facebook ads", "fb ads", "meta marketing"},
		AccountID: &metaAccountID,
		Sets:      []string{Delivery, "device_platform", "age_gender", "placement", "conversion_action"},
		// Insights reports country alone: with device or publisher_platform
		// it refuses the request (Insights API Breakdowns, "Combining
		// breakdowns"), so Meta's delivery by device is its own report.
		Delivery: []string{"country"},
		Publishers: []Publisher{
			{Name: "facebook", Aliases: []string{"fb"}},
			{Name: "instagram", Aliases: []string{"ig", "insta", "instagram ads"}},
			{Name: "messenger", Aliases: []string{"facebook messenger", "fb messenger"}},
			{Name: "audience_network", Aliases: []string{"fan", "facebook audience network", "meta audience network"}},
			{Name: "threads"},
		},
		// Meta's longest attribution window is 28-day click (28d_click, Ads
		// Insights action_attribution_windows); Airbyte's source-facebook-marketing
		// (insights_lookback_window) and Singer's tap-facebook
		// (insights_buffer_days) re-fetch 28 days by default.
		SyncLookback: 28,
		// date_preset=maximum returns at most 37 months:
		// https://developers.facebook.com/docs/graph-api/reference/adaccount/insights
		MaxHistory: 37,
	},
	{
		Name: GoogleAds, Label: "Google", DisplayName: "Google Ads",
		Aliases:   []string{"google", "adwords"},
		AccountID: &googleAccountID,
		Sets:      []string{Delivery, "location", "age", "gender", "conversion_action"},
		// Google reports countries (user_location_view) per ad group at the
		// finest, not per ad: its delivery rows per ad carry device and
		// ad network type, its countries are the location set.
		Delivery:         []string{"device", "publisher_platform"},
		NotReported:      []string{"link_clicks", "video_views_p100", "reach"},
		FixedAttribution: "counts each conversion action under its own click-through and view-through windows",
		Publishers: []Publisher{
			{Name: "search", Aliases: []string{"google search", "search network", "google search network"}},
			{Name: "search_partners", Aliases: []string{"search partner", "search partner network"}},
			{Name: "display", Aliases: []string{"content", "display network", "google display network", "gdn"}},
			{Name: "youtube", Aliases: []string{"yt", "youtube ads"}},
			{Name: "youtube_search"},
			{Name: "youtube_watch"},
			{Name: "google_tv"},
			{Name: "google_owned_channels"},
			{Name: "gmail"},
			{Name: "discover", Aliases: []string{"google discover"}},
			{Name: "maps", Aliases: []string{"google maps"}},
			{Name: "mixed", Aliases: []string{"cross network"}},
		},
		// Google Ads' default conversion window is 30 days (a conversion action
		// may set 1 to 90): https://support.google.com/google-ads/answer/3123169.
		// The Databricks and DinMo Google Ads connectors re-fetch 30 days by
		// default too.
		SyncLookback: 30,
		// Account data, performance metrics included, is kept 11 years since
		// 2024-11-13: https://support.google.com/google-ads/answer/10769131
		MaxHistory: 132,
	},
	{
		Name: TikTokAds, Label: "TikTok", DisplayName: "TikTok Ads",
		Aliases:          []string{"tiktok"},
		Sets:             []string{Delivery, "age_gender", "placement", "conversion_action"},
		NotReported:      []string{"link_clicks"},
		FixedAttribution: "counts conversions under each ad group's attribution setting",
		Publishers: []Publisher{
			{Name: "tiktok", Aliases: []string{"placement_tiktok"}},
			{Name: "pangle", Aliases: []string{"placement_pangle"}},
			{Name: "global_app_bundle", Aliases: []string{"placement_global_app_bundle"}},
		},
		// TikTok's longest click-through attribution window is 28 days
		// (view-through 7); Fivetran's TikTok Ads attribution_window_size goes
		// up to 28 (TWENTY_EIGHT).
		SyncLookback: 28,
		// TikTok documents no limit where we looked; 24 months is the longest
		// fixed backfill Fivetran's TikTok Ads connector offers
		// (timeframe_months TWENTY_FOUR).
		MaxHistory: 24,
	},
}

// AllPlatforms lists every platform's name, in a stable order.
var AllPlatforms = func() []string {
	out := make([]string, len(platforms))
	for i, p := range platforms {
		out[i] = p.Name
	}
	return out
}()

// Platforms returns the table. The slice is a copy; do not modify the
// entries' slices.
func Platforms() []Platform {
	out := make([]Platform, len(platforms))
	copy(out, platforms)
	return out
}

// PlatformByName returns the platform called name (canonical, not an alias).
func PlatformByName(name string) (Platform, bool) {
	for _, p := range platforms {
		if p.Name == name {
			return p, true
		}
	}
	return Platform{}, false
}

// PlatformNames are the platforms' canonical names in a sentence, the last
// joined by conj: "meta_ads, google_ads or tiktok_ads". Prose that lists the
// platforms reads it, so a new row of the table is named everywhere.
func PlatformNames(conj string) string { return joinWords(AllPlatforms, conj) }

// PlatformLabels are the labels of the platforms called names (every
// platform when none is given) in a sentence, the last joined by conj:
// "Meta, Google and TikTok".
func PlatformLabels(conj string, names ...string) string {
	var labels []string
	for _, p := range platforms {
		if len(names) == 0 || slices.Contains(names, p.Name) {
			labels = append(labels, p.Label)
		}
	}
	return joinWords(labels, conj)
}

func joinWords(words []string, conj string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + conj + " " + words[len(words)-1]
}
