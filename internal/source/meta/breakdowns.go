package meta

import (
	"fmt"

	"github.com/adsmcp/adsmcp/internal/ads"
	"slices"
	"strings"

	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source/live"
)

// DefaultAttributionWindow is the window Meta counts conversions under unless
// an ad set says otherwise (7-day click or 1-day view, Meta's default
// attribution setting). The ad account object has no attribution field of its
// own (attribution is set per ad set), so Accounts reports this one; see
// docs/meta.md.
const DefaultAttributionWindow = "7d_click_1d_view"

// metaBreakdowns are the Insights breakdowns behind one of our breakdown
// dimensions. Placement is Meta's platform_position, which Meta reports only
// together with publisher_platform (a platform_position alone is refused:
// "Current combination of data breakdown columns … is invalid").
// conversion_action has none: it is the action_type of the actions lists.
func (c *Connector) metaBreakdowns(dim string) ([]string, bool) {
	switch dim {
	case "country", "publisher_platform", "age", "gender":
		return []string{dim}, true
	case "device":
		return []string{c.opts.DeviceBreakdown}, true
	case "placement":
		return []string{"publisher_platform", "platform_position"}, true
	case "conversion_action":
		return nil, true
	}
	return nil, false
}

// breakdownOrder is the order breakdowns are sent in: Meta's documentation
// writes its combinations in this order ("publisher_platform,
// platform_position, impression_device").
var breakdownOrder = []string{"age", "gender", "country", "publisher_platform", "platform_position", "impression_device", "device_platform"}

// attributionWindow is the window a plan's conversions are asked under: the
// query's, else the one Accounts states for every account
// (DefaultAttributionWindow), asked explicitly. Without
// action_attribution_windows Meta counts each ad set under its own
// attribution setting, and _meta.definitions would state a window some ad
// sets do not use; asked, the stated window is the one counted. A query
// without conversions asks none.
func attributionWindow(p *live.Plan) string {
	switch {
	case p.Window != "":
		return p.Window
	case p.Conversions:
		return DefaultAttributionWindow
	}
	return ""
}

// demographicWindowParts are the window parts Meta reports off-Meta actions
// for with age and gender breakdowns (Ads Action Stats reference: with
// impacted breakdowns such as age and gender, "metrics will be available if
// querying with action_attribution_windows=1d_click,7d_click,1d_view").
var demographicWindowParts = []string{"1d_click", "7d_click", "1d_view"}

// planWindows sets the action_attribution_windows of a window name, refusing
// what Meta cannot answer: a window it does not know, and, with age or
// gender, a part whose off-Meta conversions Meta leaves out of such a report
// (which would read as zero purchases, not as missing data).
func (p *fetchPlan) planWindows(window string) error {
	if window == "" {
		return nil
	}
	name, parts, err := catalog.ParseAttributionWindow(window)
	if err != nil {
		return &query.Error{Problems: []query.Problem{{Field: "attribution_window", Value: window, Problem: err.Error(),
			Valid: catalog.AttributionParts, Fix: "write the window as its parts joined by _, e.g. 7d_click_1d_view or 1d_click"}}}
	}
	if p.set == "age_gender" {
		var bad []string
		for _, part := range parts {
			if !slices.Contains(demographicWindowParts, part) {
				bad = append(bad, part)
			}
		}
		if len(bad) > 0 {
			return &query.Error{Problems: []query.Problem{{Field: "attribution_window", Value: name,
				Problem: fmt.Sprintf("Meta does not report conversions counted within %s broken down by age or gender (it leaves them out of such reports)", strings.Join(bad, " and ")),
				Fix:     "ask age and gender with a window made of 1d_click, 7d_click and 1d_view (e.g. 7d_click_1d_view), or drop age and gender to use " + name}}}
		}
	}
	p.windows = parts
	return nil
}

// placementOf maps Meta's platform_position onto the catalog's placement
// values. Meta names some positions after their platform (facebook_stories,
// instagram_stories, messenger_stories; facebook_reels, instagram_reels;
// instagram_explore, messenger_inbox, an_classic…); the publisher_platform
// column already says which platform, so the placement is the position
// alone: story, reels, explore, search, profile_feed, inbox, classic. Other
// values pass through (feed, marketplace, right_hand_column, video_feeds,
// instream_video, rewarded_video, …). See docs/meta.md for the table.
func placementOf(position string) string {
	switch position {
	case "facebook_stories", "instagram_stories", "messenger_stories", "story":
		return "story"
	case "facebook_reels", "instagram_reels", "facebook_reels_overlay", "instagram_profile_reels", "reels":
		return "reels"
	case "instagram_explore", "instagram_explore_grid_home", "explore", "explore_home":
		return "explore"
	case "instagram_search", "search":
		return "search"
	case "instagram_profile_feed", "facebook_profile_feed", "profile_feed":
		return "profile_feed"
	case "instagram_feed", "facebook_feed", "feed":
		return "feed"
	case "messenger_inbox":
		return "inbox"
	case "an_classic":
		return "classic"
	}
	return position
}

// ageOf writes Meta's age brackets as the catalog does ("Unknown" →
// "unknown"); genderOf likewise.
func ageOf(v string) string    { return strings.ToLower(v) }
func genderOf(v string) string { return strings.ToLower(v) }

// conversionEvents are Meta's standard events (Meta Pixel and Conversions
// API): the action types a conversion_action breakdown lists, beside the
// configured ActionTypes. Other actions (link_click, video_view,
// post_engagement, …) are engagement, not conversions.
var conversionEvents = []string{"purchase", "add_to_cart", "initiate_checkout", "add_payment_info", "add_to_wishlist",
	"complete_registration", "lead", "contact", "customize_product", "donate", "find_location", "schedule",
	"search", "start_trial", "submit_application", "subscribe", "view_content"}

// eventPrefixes are the channel prefixes Meta puts before an event's name in
// an action_type, in the order one type is preferred for an event: the
// plain name (all channels), omni_ (all channels, older name), the pixel's,
// then on-site and app events.
var eventPrefixes = []string{"", "omni_", "offsite_conversion.fb_pixel_", "onsite_web_", "onsite_conversion.", "app_custom_event.fb_mobile_"}

// omniNames are omni_ action types whose event has another name.
var omniNames = map[string]string{"initiated_checkout": "initiate_checkout"}

// actionEvent is the event an action type reports ("omni_purchase" →
// "purchase") and the rank of its prefix (lower is preferred); an action
// type without a known prefix is its own event, with the worst rank.
func actionEvent(actionType string) (string, int) {
	for rank := len(eventPrefixes) - 1; rank >= 1; rank-- {
		if rest, ok := strings.CutPrefix(actionType, eventPrefixes[rank]); ok && rest != "" {
			if n, ok := omniNames[rest]; ok {
				rest = n
			}
			return rest, rank
		}
	}
	if slices.Contains(conversionEvents, actionType) {
		return actionType, 0
	}
	return actionType, len(eventPrefixes)
}

// conversionActionNames are the conversion_action values of the configured
// action types, in order and without repeats: what ads.Account's
// ConversionActions says conversions counts.
func (c *Connector) conversionActionNames() []string {
	var out []string
	for _, t := range c.opts.ActionTypes {
		if e, _ := actionEvent(t); !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// conversionActionSet is the key of the set whose rows are actions.
const conversionActionSet = "conversion_action"

// attributed is a conversion action's value under the plan's attribution:
// its "value" (the default attribution) when no window was asked, else the
// sum of the per-window values asked ("7d_click" + "1d_view"): Meta's
// reference describes "value" as the default window's figure, so it is not
// read when windows are asked. A window the entry lacks counts 0.
func (p *fetchPlan) attributed(a Action) int64 {
	if len(p.windows) == 0 {
		return a.Micros
	}
	var sum int64
	for _, w := range p.windows {
		sum += a.Windows[w]
	}
	return sum
}

// conversionActionFacts turns one Insights row into the conversion_action
// set's facts: one per conversion action with conversions or value. The
// configured ActionTypes come first, named by their event ("omni_purchase" →
// "purchase"), with exactly the counts conversions sums, so that the default
// actions' rows equal the delivery rows' conversions. Then every other
// standard event the row reports, each from one action type (the plain
// name, else omni_, else the pixel's: Meta reports one purchase under
// several types, and summing them would count it several times). Only
// conversions and conversion_value are set; the other measures are 0.
func (c *Connector) conversionActionFacts(p *fetchPlan, base ads.Fact, r *Row) []ads.Fact {
	configured := c.conversionActionNames()
	type sums struct{ count, value int64 }
	got := map[string]*sums{}
	var names []string
	at := func(name string) *sums {
		s := got[name]
		if s == nil {
			s = &sums{}
			got[name] = s
			names = append(names, name)
		}
		return s
	}
	type pick struct {
		rank   int
		micros int64
	}
	lists := []struct {
		field string
		into  func(*sums) *int64
	}{
		{conversionsField, func(s *sums) *int64 { return &s.count }},
		{conversionValueField, func(s *sums) *int64 { return &s.value }},
	}
	for _, t := range c.opts.ActionTypes {
		e, _ := actionEvent(t)
		at(e)
	}
	for _, l := range lists {
		best := map[string]pick{}
		for _, a := range r.Actions[l.field] {
			if c.isConversion(a.Type) {
				e, _ := actionEvent(a.Type)
				*l.into(at(e)) += p.attributed(a)
				continue
			}
			e, rank := actionEvent(a.Type)
			if !slices.Contains(conversionEvents, e) || slices.Contains(configured, e) {
				continue
			}
			if b, ok := best[e]; !ok || rank < b.rank {
				best[e] = pick{rank, p.attributed(a)}
			}
		}
		for e, b := range best {
			*l.into(at(e)) += b.micros
		}
	}
	convField, valueField := catalog.MustLookup("conversions"), catalog.MustLookup("conversion_value")
	// Configured events first, then the others in alphabetical order, for a
	// stable staging order.
	slices.SortStableFunc(names, func(a, b string) int {
		ia, ib := slices.Index(configured, a), slices.Index(configured, b)
		switch {
		case ia >= 0 && ib >= 0:
			return ia - ib
		case ia >= 0:
			return -1
		case ib >= 0:
			return 1
		}
		return strings.Compare(a, b)
	})
	var out []ads.Fact
	for _, name := range names {
		s := got[name]
		if s.count == 0 && s.value == 0 {
			continue
		}
		f := base
		f.Measures = [catalog.NumMeasures]float64{}
		f.ConversionAction = name
		f.Measures[catalog.Conversions] = measureOf(convField, s.count)
		f.Measures[catalog.ConversionValue] = measureOf(valueField, s.value)
		out = append(out, f)
	}
	return out
}
