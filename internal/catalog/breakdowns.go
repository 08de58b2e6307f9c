package catalog

import (
	"fmt"
	"slices"
	"strings"
)

// BreakdownSet is a group of breakdown dimensions an ad platform reports
// together, in one report: Meta gives age with gender, placement
// (platform_position) with publisher_platform and device, but never age with
// placement; Google gives age and gender in separate views. Every source
// stores each set as its own fact rows (facts.breakdown = Key), whose sums
// equal the delivery rows' totals, so a query reads exactly one set per
// platform: asking for dimensions no set holds together is an error naming
// the sets, never an answer with metrics silently missing (docs/fields.md,
// "Breakdowns").
type BreakdownSet struct {
	// Key is the value of facts.breakdown for the set's rows.
	Key string
	// Dimensions are the breakdown dimensions its rows carry.
	Dimensions []string
	// Metrics, when not nil, are the only metrics its rows hold: conversions
	// by action have no spend or impressions of their own. Nil: every
	// additive metric of the platform.
	Metrics []string
	// Level is the finest object level the set is stored at: ad for delivery
	// (and Meta's device_platform); ad set for Google's location, which
	// Google reports per ad group at the finest; campaign for the others,
	// which keeps a warehouse's breakdown rows in proportion to its
	// campaigns, not its ads.
	Level Level
	// Platforms report the set: those whose row in the platform table lists
	// it (Platform.Sets).
	Platforms []string
	// Label names the set in messages ("age and gender").
	Label string
}

// Delivery is the key of the base set: every fact row written before
// breakdown sets existed, with country, device and publisher_platform — or
// those of them its platform reports with its objects' delivery
// (Platform.Delivery).
const Delivery = "delivery"

// breakdownSets is the table, in the order a query prefers them: a query
// whose breakdowns more than one set of a platform holds reads the first.
var breakdownSets = setsReportedBy([]BreakdownSet{
	{Key: Delivery, Dimensions: []string{"country", "device", "publisher_platform"}, Level: LevelAd,
		Label: "country, device and publisher_platform"},
	// Meta's device and publisher_platform, which Insights does not report
	// with country (Insights API Breakdowns, "Combining breakdowns"); every
	// other platform has them in its delivery rows.
	{Key: "device_platform", Dimensions: []string{"device", "publisher_platform"}, Level: LevelAd,
		Label: "device and publisher_platform"},
	// Google's countries: user_location_view, whose rows are per ad group at
	// the finest, segmented by device and ad network type
	// (https://developers.google.com/google-ads/api/fields/latest/user_location_view);
	// Google's delivery rows per ad carry device and publisher_platform.
	{Key: "location", Dimensions: []string{"country", "device", "publisher_platform"}, Level: LevelAdSet,
		Label: "country with device and publisher_platform, per ad group"},
	{Key: "age_gender", Dimensions: []string{"age", "gender"}, Level: LevelCampaign,
		Label: "age and gender"},
	{Key: "age", Dimensions: []string{"age"}, Level: LevelCampaign,
		Label: "age (alone)"},
	{Key: "gender", Dimensions: []string{"gender"}, Level: LevelCampaign,
		Label: "gender (alone)"},
	{Key: "placement", Dimensions: []string{"publisher_platform", "placement", "device"}, Level: LevelCampaign,
		Label: "placement with publisher_platform and device"},
	{Key: "conversion_action", Dimensions: []string{"conversion_action"}, Level: LevelCampaign,
		Metrics: []string{"conversions", "conversion_value"},
		Label:   "conversion_action (with conversions and conversion_value only)"},
})

// BreakdownSets returns the table. The slice is a copy.
func BreakdownSets() []BreakdownSet { return slices.Clone(breakdownSets) }

// BreakdownSetByKey returns the set stored under key.
func BreakdownSetByKey(key string) (BreakdownSet, bool) {
	for _, s := range breakdownSets {
		if s.Key == key {
			return s, true
		}
	}
	return BreakdownSet{}, false
}

// PerObjectReports says whether the set's rows are its platforms' reports
// of campaigns or ad groups (Level above ad): delivery that no campaign
// holds is in none of them, and a query reading the set reads it beside
// them (docs/fields.md, "Breakdowns").
func (s BreakdownSet) PerObjectReports() bool {
	return s.Key != Delivery && s.Level < LevelAd
}

// Holds reports whether the set's rows carry every one of dims.
func (s BreakdownSet) Holds(dims []string) bool {
	for _, d := range dims {
		if !slices.Contains(s.Dimensions, d) {
			return false
		}
	}
	return true
}

// HasMetric reports whether the set's rows hold metric name (a ratio or
// derived metric needs both its parts).
func (s BreakdownSet) HasMetric(name string) bool {
	if s.Metrics == nil {
		return true
	}
	f, ok := Lookup(name)
	if !ok {
		return false
	}
	if f.Aggregation == Sum {
		return slices.Contains(s.Metrics, name)
	}
	return f.Numerator != "" && s.HasMetric(f.Numerator) && s.HasMetric(f.Denominator)
}

// SetFor is the set a query on platform with these breakdown dimensions
// reads: the first of the platform's sets (PlatformSets) that holds them all.
func SetFor(platform string, dims []string) (BreakdownSet, bool) {
	for _, s := range PlatformSets(platform) {
		if s.Holds(dims) {
			return s, true
		}
	}
	return BreakdownSet{}, false
}

// PlatformSets are the sets a platform reports, in preference order, each
// with the dimensions the platform's rows of it carry: Meta's delivery rows
// carry country alone (Platform.Delivery). What a sync fetches is one report
// per set with all of these dimensions as breakdowns.
func PlatformSets(platform string) []BreakdownSet {
	p, _ := PlatformByName(platform)
	var out []BreakdownSet
	for _, s := range breakdownSets {
		if slices.Contains(s.Platforms, platform) {
			out = append(out, p.narrow(s))
		}
	}
	return out
}

// narrow is s as platform p's rows carry it: the delivery set with p's
// Delivery dimensions, labelled by them.
func (p Platform) narrow(s BreakdownSet) BreakdownSet {
	if s.Key != Delivery || p.Delivery == nil {
		return s
	}
	s.Dimensions = slices.Clone(p.Delivery)
	s.Label = joinWords(s.Dimensions, "and")
	if len(s.Dimensions) == 1 {
		s.Label += " (alone)"
	}
	return s
}

// SetLabels lists a platform's sets for a message: "age and gender; placement
// with publisher_platform and device; …".
func SetLabels(platform string) string {
	var out []string
	for _, s := range PlatformSets(platform) {
		out = append(out, s.Label)
	}
	return strings.Join(out, "; ")
}

// IsBreakdown reports whether name is a breakdown dimension (one some set
// carries).
func IsBreakdown(name string) bool {
	for _, s := range breakdownSets {
		if slices.Contains(s.Dimensions, name) {
			return true
		}
	}
	return false
}

// checkBreakdownSets refuses a table a query could not read: a platform's
// delivery dimensions (Platform.Delivery) must be some of the delivery set's,
// and every breakdown dimension a set holds must be one. Two platforms may
// read different sets for the same breakdowns (Meta device_platform, Google
// delivery): a warehouse reads each set's rows of the platforms that chose
// it (query.Query.SetReads), never another platform's.
func checkBreakdownSets() error {
	for _, s := range breakdownSets {
		for _, d := range s.Dimensions {
			if f, ok := Lookup(d); !ok || f.Level != LevelBreakdown {
				return fmt.Errorf("breakdown set %s: %s is not a breakdown dimension", s.Key, d)
			}
		}
	}
	delivery, _ := BreakdownSetByKey(Delivery)
	for _, p := range platforms {
		if p.Delivery != nil && !delivery.Holds(p.Delivery) {
			return fmt.Errorf("%s: delivery dimensions %v are not the delivery set's %v", p.Name, p.Delivery, delivery.Dimensions)
		}
	}
	return nil
}

var _ = mustCheck(checkBreakdownSets)

func mustCheck(check func() error) bool {
	if err := check(); err != nil {
		panic("catalog: " + err.Error())
	}
	return true
}
