package catalog

import (
	"fmt"
	"slices"
	"strings"
)

// Attribution windows: how long after a click or a view a conversion is
// credited to the ad. Meta's Insights API takes them as
// action_attribution_windows (1d_click, 7d_click, 28d_click, 1d_view,
// 1d_ev; 7d_view and 28d_view were withdrawn on 2026-01-12:
// developers.facebook.com/blog/post/2025/10/16/ads-insights-api-metric-availability-updates).
// adsmcp names a window by its parts joined with "_", clicks first:
// "7d_click_1d_view".

// AttributionParts are the parts a window is made of, in the order a name
// writes them.
var AttributionParts = []string{"1d_click", "7d_click", "28d_click", "1d_ev", "1d_view"}

// PerActionWindow is the window of an account whose conversion actions each
// have their own (Google Ads: every conversion action sets its click-through
// and view-through windows).
const PerActionWindow = "per_conversion_action"

// PerAdGroupWindow is the window of a TikTok advertiser read live: TikTok
// counts each ad group's conversions under the ad group's own attribution
// setting, and its reports take no window.
const PerAdGroupWindow = "per_ad_group"

// AttributionPlatforms are the platforms whose API counts conversions under a
// window the query chooses (Meta's action_attribution_windows): those
// without a FixedAttribution in the platform table.
var AttributionPlatforms = func() []string {
	var out []string
	for _, p := range platforms {
		if p.FixedAttribution == "" {
			out = append(out, p.Name)
		}
	}
	return out
}()

// ParseAttributionWindow reads a window name: its parts joined by "_" or ","
// in any order and case ("1d_view,7d_click" is "7d_click_1d_view"). It
// returns the canonical name and the parts, or an error naming the parts
// that exist.
func ParseAttributionWindow(s string) (string, []string, error) {
	norm := strings.ToLower(strings.TrimSpace(s))
	norm = strings.NewReplacer(",", "_", " ", "_", "-", "_", "+", "_").Replace(norm)
	toks := strings.FieldsFunc(norm, func(r rune) bool { return r == '_' })
	var parts []string
	for i := 0; i < len(toks); i++ {
		if i+1 >= len(toks) {
			return "", nil, fmt.Errorf("%q: %q is not a window part", s, toks[i])
		}
		p := toks[i] + "_" + toks[i+1]
		i++
		if !slices.Contains(AttributionParts, p) {
			return "", nil, fmt.Errorf("%q: %q is not a window part (valid parts: %s)", s, p, strings.Join(AttributionParts, ", "))
		}
		if slices.Contains(parts, p) {
			return "", nil, fmt.Errorf("%q: %s is repeated", s, p)
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return "", nil, fmt.Errorf("%q: empty; write e.g. 7d_click_1d_view or 1d_click", s)
	}
	clicks := 0
	for _, p := range parts {
		if strings.HasSuffix(p, "_click") {
			clicks++
		}
	}
	if clicks > 1 {
		return "", nil, fmt.Errorf("%q: two click windows; a window has at most one (1d_click, 7d_click or 28d_click)", s)
	}
	slices.SortFunc(parts, func(a, b string) int {
		return slices.Index(AttributionParts, a) - slices.Index(AttributionParts, b)
	})
	return strings.Join(parts, "_"), parts, nil
}

// ExampleAttributionWindows are windows to offer in messages and schemas.
var ExampleAttributionWindows = []string{"7d_click_1d_view", "1d_click", "7d_click", "28d_click", "1d_click_1d_view"}
