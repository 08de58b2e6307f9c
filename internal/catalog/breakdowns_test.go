package catalog

import (
	"slices"
	"testing"
)

// TestBreakdownSetsAreUnambiguous: the table passes its own check, which
// the package runs at start; and every breakdown dimension a platform lists
// is in one of its sets, so a dimension the catalog offers on a platform can
// always be asked for there.
func TestBreakdownSetsAreUnambiguous(t *testing.T) {
	if err := checkBreakdownSets(); err != nil {
		t.Fatal(err)
	}
	for _, f := range Fields() {
		if f.IsMetric() || f.Level != LevelBreakdown {
			continue
		}
		for _, p := range f.Platforms {
			if _, ok := SetFor(p, []string{f.Name}); !ok {
				t.Errorf("%s lists %s, but no breakdown set of %s holds it", f.Name, p, p)
			}
		}
		for _, p := range AllPlatforms {
			if _, ok := SetFor(p, []string{f.Name}); ok && !f.HasPlatform(p) {
				t.Errorf("a set of %s holds %s, which does not list the platform", p, f.Name)
			}
		}
	}
}

// TestSetFor states the combinations each platform reports together.
func TestSetFor(t *testing.T) {
	cases := []struct {
		platform string
		dims     []string
		want     string // "" : none
	}{
		{MetaAds, nil, Delivery},
		{MetaAds, []string{"country"}, Delivery},
		// Insights reports country alone ("Combining breakdowns"): Meta's
		// devices and publisher platforms are their own set.
		{MetaAds, []string{"country", "device"}, ""},
		{MetaAds, []string{"country", "publisher_platform"}, ""},
		{MetaAds, []string{"publisher_platform", "device"}, "device_platform"},
		{MetaAds, []string{"device"}, "device_platform"},
		// Google reports countries per ad group (user_location_view), its
		// delivery per ad by device and network.
		{GoogleAds, []string{"country", "device"}, "location"},
		{GoogleAds, []string{"country"}, "location"},
		{GoogleAds, []string{"device", "publisher_platform"}, Delivery},
		{TikTokAds, []string{"publisher_platform", "device"}, Delivery},
		{MetaAds, []string{"age", "gender"}, "age_gender"},
		{MetaAds, []string{"age"}, "age_gender"},
		{GoogleAds, []string{"age"}, "age"},
		{GoogleAds, []string{"gender"}, "gender"},
		{GoogleAds, []string{"age", "gender"}, ""},
		{GoogleAds, []string{"placement"}, ""},
		{TikTokAds, []string{"placement", "publisher_platform"}, "placement"},
		{MetaAds, []string{"age", "country"}, ""},
		{MetaAds, []string{"conversion_action"}, "conversion_action"},
		{MetaAds, []string{"conversion_action", "age"}, ""},
	}
	for _, c := range cases {
		s, ok := SetFor(c.platform, c.dims)
		if got := map[bool]string{true: s.Key}[ok]; got != c.want {
			t.Errorf("SetFor(%s, %v) = %q, want %q", c.platform, c.dims, got, c.want)
		}
	}
	// What a platform's rows of each set carry: the sets a sync fetches.
	for _, c := range []struct {
		platform, key string
		dims          []string
	}{
		{MetaAds, Delivery, []string{"country"}},
		{MetaAds, "device_platform", []string{"device", "publisher_platform"}},
		{GoogleAds, Delivery, []string{"device", "publisher_platform"}},
		{GoogleAds, "location", []string{"country", "device", "publisher_platform"}},
		{TikTokAds, Delivery, []string{"country", "device", "publisher_platform"}},
	} {
		i := slices.IndexFunc(PlatformSets(c.platform), func(s BreakdownSet) bool { return s.Key == c.key })
		if i < 0 || !slices.Equal(PlatformSets(c.platform)[i].Dimensions, c.dims) {
			t.Errorf("PlatformSets(%s) %s: want dimensions %v, got %v", c.platform, c.key, c.dims, PlatformSets(c.platform))
		}
	}
	if s, _ := SetFor(MetaAds, []string{"country"}); s.Label != "country (alone)" {
		t.Errorf("Meta's delivery set is labelled %q", s.Label)
	}
	ca, _ := BreakdownSetByKey("conversion_action")
	for m, want := range map[string]bool{"conversions": true, "conversion_value": true, "spend": false, "cpa": false, "roas": false, "conversion_rate": false} {
		if ca.HasMetric(m) != want {
			t.Errorf("conversion_action HasMetric(%s) = %v", m, !want)
		}
	}
	if d, _ := BreakdownSetByKey(Delivery); !d.HasMetric("cpa") {
		t.Error("delivery rows hold every metric")
	}
}

func TestParseAttributionWindow(t *testing.T) {
	for in, want := range map[string]string{
		"7d_click_1d_view": "7d_click_1d_view", "1d_view,7d_click": "7d_click_1d_view", "1D_CLICK": "1d_click",
		"28d_click": "28d_click", " 7d_click + 1d_ev ": "7d_click_1d_ev",
	} {
		got, parts, err := ParseAttributionWindow(in)
		if err != nil || got != want || len(parts) == 0 {
			t.Errorf("ParseAttributionWindow(%q) = %q, %v, %v; want %q", in, got, parts, err, want)
		}
	}
	for _, bad := range []string{"", "7d", "7d_view", "28d_view", "1d_click_7d_click", "1d_click_1d_click", "yesterday"} {
		if got, _, err := ParseAttributionWindow(bad); err == nil {
			t.Errorf("ParseAttributionWindow(%q) = %q, want an error", bad, got)
		}
	}
	if !slices.Contains(AttributionPlatforms, MetaAds) {
		t.Error("Meta takes a window per request")
	}
}

func FuzzParseAttributionWindow(f *testing.F) {
	for _, s := range []string{"7d_click_1d_view", "1d_click", "", "_", "1d_view,7d_click"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, _, err := ParseAttributionWindow(s)
		if err != nil {
			return
		}
		again, _, err := ParseAttributionWindow(got)
		if err != nil || again != got {
			t.Fatalf("%q → %q, which reads as %q, %v", s, got, again, err)
		}
	})
}
