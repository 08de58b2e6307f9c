package demo

// profile is how an objective performs on a platform, in USD: the cost of reach
// (CPM), how often people click (CTR) and buy (CVR, of clicks), and what they spend.
// Figures are typical industry benchmarks; each campaign then gets its own
// multiplicative "quality" around them.
type profile struct {
	cpm       float64 // USD per 1000 impressions
	ctr       float64 // clicks / impressions
	linkShare float64 // link clicks / clicks (Meta only)
	cvr       float64 // conversions / clicks
	aov       float64 // USD per conversion
	views     float64 // video views / impressions
}

// profiles by platform and objective. Retargeting and brand campaigns adjust these
// (see campaignPlan.perf).
var profiles = map[string]map[string]profile{
	metaAds: {
		"OUTCOME_SALES":      {cpm: 11, ctr: 0.011, linkShare: 0.64, cvr: 0.028, aov: 82, views: 0.16},
		"OUTCOME_TRAFFIC":    {cpm: 7, ctr: 0.016, linkShare: 0.78, cvr: 0.008, aov: 70, views: 0.12},
		"OUTCOME_AWARENESS":  {cpm: 4, ctr: 0.005, linkShare: 0.45, cvr: 0.004, aov: 75, views: 0.28},
		"OUTCOME_ENGAGEMENT": {cpm: 5, ctr: 0.012, linkShare: 0.35, cvr: 0.005, aov: 70, views: 0.3},
		"OUTCOME_LEADS":      {cpm: 9, ctr: 0.01, linkShare: 0.7, cvr: 0.06, aov: 22, views: 0.1},
	},
	googleAds: {
		"SEARCH":          {cpm: 70, ctr: 0.055, cvr: 0.038, aov: 92},
		"PERFORMANCE_MAX": {cpm: 12, ctr: 0.012, cvr: 0.03, aov: 90, views: 0.05},
		"DISPLAY":         {cpm: 3, ctr: 0.0045, cvr: 0.007, aov: 80},
		"VIDEO":           {cpm: 8, ctr: 0.0035, cvr: 0.005, aov: 85, views: 0.3},
	},
	tiktokAds: {
		"CONVERSIONS": {cpm: 7, ctr: 0.01, cvr: 0.02, aov: 65, views: 0.26},
		"TRAFFIC":     {cpm: 4.5, ctr: 0.015, cvr: 0.006, aov: 60, views: 0.22},
		"VIDEO_VIEWS": {cpm: 3, ctr: 0.004, cvr: 0.002, aov: 60, views: 0.38},
	},
}

// videoCompletion is the share of video views watched to the end
// (video_views_p100 / video_views), by platform; Google reports no count of it.
var videoCompletion = map[string]float64{metaAds: 0.14, tiktokAds: 0.09}

// publisher is where an ad runs, with its device mix (mobile, desktop, tablet).
type publisher struct {
	name    string
	weight  float64
	devices [3]float64
}

var devices = [3]string{"mobile", "desktop", "tablet"}

// publishers by platform; Google's depend on the campaign type (search ads run on
// search, video on youtube, Performance Max everywhere).
var publishers = map[string][]publisher{
	metaAds: {
		{"facebook", 0.46, [3]float64{0.82, 0.13, 0.05}},
		{"instagram", 0.44, [3]float64{0.94, 0.03, 0.03}},
		{"audience_network", 0.06, [3]float64{0.95, 0, 0.05}},
		{"messenger", 0.04, [3]float64{0.9, 0.07, 0.03}},
	},
	"SEARCH":          {{"search", 1, [3]float64{0.6, 0.34, 0.06}}},
	"DISPLAY":         {{"display", 1, [3]float64{0.58, 0.32, 0.1}}},
	"VIDEO":           {{"youtube", 1, [3]float64{0.7, 0.2, 0.1}}},
	"PERFORMANCE_MAX": {{"search", 0.5, [3]float64{0.6, 0.34, 0.06}}, {"youtube", 0.2, [3]float64{0.7, 0.2, 0.1}}, {"display", 0.3, [3]float64{0.58, 0.32, 0.1}}},
	tiktokAds: {
		{"tiktok", 0.86, [3]float64{0.95, 0.02, 0.03}},
		{"pangle", 0.14, [3]float64{0.96, 0, 0.04}},
	},
}

// objectives by platform with their share of campaigns (for templates without a
// fixed objective).
var objectives = map[string][]string{
	metaAds:   {"OUTCOME_SALES", "OUTCOME_TRAFFIC", "OUTCOME_AWARENESS", "OUTCOME_ENGAGEMENT", "OUTCOME_LEADS"},
	googleAds: {"SEARCH", "PERFORMANCE_MAX", "DISPLAY", "VIDEO"},
	tiktokAds: {"CONVERSIONS", "TRAFFIC", "VIDEO_VIEWS"},
}
