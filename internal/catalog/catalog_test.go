package catalog

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// Spec lists from docs/contract.md §3, hard-coded so that a catalog edit that drops or
// renames a field the contract promises fails here.
var (
	specDimensions = []string{"platform", "account_id", "account_name", "currency", "campaign_id",
		"campaign_name", "campaign_objective", "campaign_status", "adset_id", "adset_name", "ad_id",
		"ad_name", "country", "device", "publisher_platform", "age", "gender", "placement", "conversion_action", "attribution_window"}
	specAdditive    = []string{"spend", "impressions", "clicks", "link_clicks", "conversions", "conversion_value", "video_views", "video_views_p100"}
	specNonAdditive = []string{"reach", "frequency"}
	// specRatios: name → numerator, denominator, scale.
	specRatios = map[string]struct {
		num, den string
		scale    float64
	}{
		"ctr":             {"clicks", "impressions", 100},
		"cpc":             {"spend", "clicks", 1},
		"cpm":             {"spend", "impressions", 1000},
		"cpa":             {"spend", "conversions", 1},
		"roas":            {"conversion_value", "spend", 1},
		"conversion_rate": {"conversions", "clicks", 100},
	}
)

func specMetrics() []string {
	var out []string
	out = append(out, specAdditive...)
	for m := range specRatios {
		out = append(out, m)
	}
	out = append(out, specNonAdditive...)
	sort.Strings(out)
	return out
}

func TestSpecFieldListsPresent(t *testing.T) {
	dims := slices.Clone(specDimensions)
	sort.Strings(dims)
	if got := Names(Dimension); !slices.Equal(got, dims) {
		t.Errorf("dimensions = %v\ndocs/contract.md §3 lists %v", got, dims)
	}
	if got, want := Names(Metric), specMetrics(); !slices.Equal(got, want) {
		t.Errorf("metrics = %v\ndocs/contract.md §3 lists %v", got, want)
	}
	for _, m := range specAdditive {
		if f := MustLookup(m); f.Aggregation != Sum {
			t.Errorf("%s: aggregation %q, spec says additive (sum)", m, f.Aggregation)
		}
	}
	for _, m := range specNonAdditive {
		if f := MustLookup(m); f.Aggregation != NonAdditive {
			t.Errorf("%s: aggregation %q, spec says non-additive", m, f.Aggregation)
		}
	}
	for m, r := range specRatios {
		f := MustLookup(m)
		if f.Aggregation != Ratio || f.Numerator != r.num || f.Denominator != r.den || f.Scale != r.scale {
			t.Errorf("%s = %s(%s / %s × %g), spec says ratio(%s / %s × %g)", m, f.Aggregation,
				f.Numerator, f.Denominator, f.Scale, r.num, r.den, r.scale)
		}
	}
	if f := MustLookup("frequency"); f.Numerator != "impressions" || f.Denominator != "reach" {
		t.Errorf("frequency = %s / %s, spec says impressions / reach", f.Numerator, f.Denominator)
	}
}

func TestFieldsOrderDimensionsFirst(t *testing.T) {
	fs := Fields()
	seenMetric := false
	for _, f := range fs {
		if f.IsMetric() {
			seenMetric = true
		} else if seenMetric {
			t.Errorf("dimension %s comes after a metric; Fields promises dimensions first", f.Name)
		}
	}
	// Fields returns a copy.
	fs[0].Name = "mutated"
	if Fields()[0].Name == "mutated" {
		t.Error("Fields() exposes the catalog's backing array")
	}
}

func TestEveryFieldIsComplete(t *testing.T) {
	names := map[string]bool{}
	for _, f := range Fields() {
		if names[f.Name] {
			t.Errorf("%s defined twice", f.Name)
		}
		names[f.Name] = true
		if f.Name == "" || f.Name != strings.ToLower(f.Name) || strings.ContainsFunc(f.Name, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_')
		}) {
			t.Errorf("%q: canonical names are lower_snake_case ASCII", f.Name)
		}
		if strings.TrimSpace(f.Label) == "" {
			t.Errorf("%s: no label", f.Name)
		}
		if strings.TrimSpace(f.Description) == "" {
			t.Errorf("%s: no description", f.Name)
		}
		if f.Kind != Dimension && f.Kind != Metric {
			t.Errorf("%s: kind %q", f.Name, f.Kind)
		}
		if f.Type != String && f.Type != Number {
			t.Errorf("%s: type %q", f.Name, f.Type)
		}
		if f.Unit == UnitNone {
			t.Errorf("%s: no unit", f.Name)
		}
		if len(f.Platforms) == 0 {
			t.Errorf("%s: no platforms", f.Name)
		}
		for _, p := range f.Platforms {
			if !slices.Contains(AllPlatforms, p) {
				t.Errorf("%s: platform %q not in AllPlatforms %v", f.Name, p, AllPlatforms)
			}
		}
		for _, p := range AllPlatforms {
			if f.HasPlatform(p) != slices.Contains(f.Platforms, p) {
				t.Errorf("%s: HasPlatform(%s) disagrees with Platforms", f.Name, p)
			}
		}
		switch f.Kind {
		case Dimension:
			if f.Aggregation != None {
				t.Errorf("dimension %s has aggregation %q", f.Name, f.Aggregation)
			}
			if f.Type != String {
				t.Errorf("dimension %s has type %q; dimensions are text", f.Name, f.Type)
			}
			if f.IsMetric() {
				t.Errorf("dimension %s: IsMetric() is true", f.Name)
			}
			if f.Numerator != "" || f.Denominator != "" || f.Scale != 0 {
				t.Errorf("dimension %s has ratio parts", f.Name)
			}
			if f.Unit == Money || f.Unit == Count || f.Unit == Percent || f.Unit == Multiple {
				t.Errorf("dimension %s has a metric unit %q", f.Name, f.Unit)
			}
		case Metric:
			switch f.Aggregation {
			case Sum, Ratio, NonAdditive:
			default:
				t.Errorf("metric %s has aggregation %q", f.Name, f.Aggregation)
			}
			if f.Type != Number {
				t.Errorf("metric %s has type %q", f.Name, f.Type)
			}
			if !f.IsMetric() {
				t.Errorf("metric %s: IsMetric() is false", f.Name)
			}
			if f.Unit == UnitText || f.Unit == UnitID || f.Unit == UnitISOCode {
				t.Errorf("metric %s has a dimension unit %q", f.Name, f.Unit)
			}
		}
	}
}

func TestRatioPartsExistAndAreAdditive(t *testing.T) {
	ratios := 0
	for _, f := range Fields() {
		if f.Aggregation != Ratio {
			continue
		}
		ratios++
		if f.Scale <= 0 {
			t.Errorf("%s: scale %g", f.Name, f.Scale)
		}
		for _, part := range []string{f.Numerator, f.Denominator} {
			p, ok := Lookup(part)
			if !ok {
				t.Errorf("%s: part %q is not in the catalog", f.Name, part)
				continue
			}
			if p.Aggregation != Sum {
				t.Errorf("%s: part %s aggregates as %q; a ratio is recomputed from summed parts", f.Name, part, p.Aggregation)
			}
			// A platform reporting the ratio must report its parts.
			for _, pl := range f.Platforms {
				if !p.HasPlatform(pl) {
					t.Errorf("%s is on %s but its part %s is not", f.Name, pl, part)
				}
			}
		}
		if f.Numerator == f.Denominator {
			t.Errorf("%s: numerator and denominator are both %s", f.Name, f.Numerator)
		}
	}
	if ratios != len(specRatios) {
		t.Errorf("%d ratio metrics, spec has %d", ratios, len(specRatios))
	}
	// Non-ratio metrics carry no parts, except frequency.
	for _, f := range Fields() {
		if f.Aggregation == Ratio || f.Name == "frequency" {
			continue
		}
		if f.Numerator != "" || f.Denominator != "" {
			t.Errorf("%s (%s) has ratio parts", f.Name, f.Aggregation)
		}
	}
}

func TestFrequencyParts(t *testing.T) {
	f := MustLookup("frequency")
	if f.Aggregation != NonAdditive {
		t.Fatalf("frequency aggregation = %q", f.Aggregation)
	}
	num, ok1 := Lookup(f.Numerator)
	den, ok2 := Lookup(f.Denominator)
	if !ok1 || !ok2 {
		t.Fatalf("frequency parts %q / %q not both in the catalog", f.Numerator, f.Denominator)
	}
	if num.Aggregation != Sum {
		t.Errorf("frequency numerator %s aggregates as %q", num.Name, num.Aggregation)
	}
	if den.Name != "reach" || den.Aggregation != NonAdditive {
		t.Errorf("frequency denominator = %s (%s), want reach (non_additive)", den.Name, den.Aggregation)
	}
	if f.Scale != 1 {
		t.Errorf("frequency scale = %g", f.Scale)
	}
	if !slices.Equal(f.Platforms, MustLookup("reach").Platforms) {
		t.Errorf("frequency platforms %v differ from reach's %v", f.Platforms, MustLookup("reach").Platforms)
	}
}

func TestMoneyUnits(t *testing.T) {
	money := map[string]bool{"spend": true, "conversion_value": true, "cpc": true, "cpm": true, "cpa": true}
	for _, f := range Fields() {
		if (f.Unit == Money) != money[f.Name] {
			t.Errorf("%s: unit %q; money metrics are %v", f.Name, f.Unit, money)
		}
	}
	for _, m := range []string{"ctr", "conversion_rate"} {
		if MustLookup(m).Unit != Percent {
			t.Errorf("%s is a percentage", m)
		}
	}
}

func TestDimensionLevels(t *testing.T) {
	want := map[string]Level{
		"attribution_window": LevelAccount, "platform": LevelAccount, "account_id": LevelAccount, "account_name": LevelAccount, "currency": LevelAccount,
		"campaign_id": LevelCampaign, "campaign_name": LevelCampaign, "campaign_objective": LevelCampaign, "campaign_status": LevelCampaign,
		"adset_id": LevelAdSet, "adset_name": LevelAdSet, "ad_id": LevelAd, "ad_name": LevelAd,
		"country": LevelBreakdown, "device": LevelBreakdown, "publisher_platform": LevelBreakdown,
		"age": LevelBreakdown, "gender": LevelBreakdown, "placement": LevelBreakdown, "conversion_action": LevelBreakdown,
	}
	for _, f := range Fields() {
		if f.IsMetric() {
			continue
		}
		if l, ok := want[f.Name]; !ok || l != f.Level {
			t.Errorf("%s: level %d, want %d", f.Name, f.Level, l)
		}
	}
}

// fold is an independent re-statement of the folding rule: lowercase letters
// and digits only.
func fold(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestNamesAndSynonymsFoldToExactlyOneField(t *testing.T) {
	owner := map[string]string{}
	for _, f := range Fields() {
		for _, s := range append([]string{f.Name}, f.Synonyms...) {
			k := fold(s)
			if k == "" {
				t.Errorf("%s: synonym %q folds to nothing", f.Name, s)
				continue
			}
			if o, dup := owner[k]; dup && o != f.Name {
				t.Errorf("%q folds to %q, which names both %s and %s", s, k, o, f.Name)
			}
			owner[k] = f.Name
			got, _, ok := Resolve(s)
			if !ok || got.Name != f.Name {
				t.Errorf("Resolve(%q) = %q, %v; want %s", s, got.Name, ok, f.Name)
			}
			if Key(s) != k {
				t.Errorf("Key(%q) = %q, want %q", s, Key(s), k)
			}
			// Synonyms with API prefixes would be stripped by Key: none may start so.
			for _, p := range apiPrefixes {
				if strings.HasPrefix(k, p) && k != p {
					t.Errorf("%s: synonym %q starts with API prefix %q", f.Name, s, p)
				}
			}
		}
	}
	if len(owner) != len(byKey) {
		t.Errorf("byKey has %d keys, names and synonyms fold to %d", len(byKey), len(owner))
	}
	for k, i := range byKey {
		if owner[k] != fields[i].Name {
			t.Errorf("byKey[%q] = %s, want %s", k, fields[i].Name, owner[k])
		}
	}
}

func TestResolve(t *testing.T) {
	tests := []struct {
		in    string
		want  string
		exact bool
	}{
		{"campaign_name", "campaign_name", true},
		{"spend", "spend", true},
		{"Campaign Name", "campaign_name", false},
		{"campaign.name", "campaign_name", false},
		{"campaignName", "campaign_name", false},
		{"CAMPAIGN_NAME", "campaign_name", false},
		{"campaign-name", "campaign_name", false},
		{"  campaign_name  ", "campaign_name", false},
		{"COST", "spend", false},
		{"cost", "spend", false},
		{"Amount Spent", "spend", false},
		{"metrics.clicks", "clicks", false},
		{"metrics.cost", "spend", false},
		{"metrics.ctr", "ctr", false},
		{"segments.device", "device", false},
		{"insights.reach", "reach", false},
		{"ad group name", "adset_name", false},
		{"ad_group_id", "adset_id", false},
		{"adGroupName", "adset_name", false},
		{"revenue", "conversion_value", false},
		{"purchase_roas", "roas", false},
		{"CVR", "conversion_rate", false},
		{"customer.id", "account_id", false},
		{"Click-Through Rate", "ctr", false},
	}
	for _, tt := range tests {
		f, exact, ok := Resolve(tt.in)
		if !ok || f.Name != tt.want || exact != tt.exact {
			t.Errorf("Resolve(%q) = %q, exact=%v, ok=%v; want %q, exact=%v", tt.in, f.Name, exact, ok, tt.want, tt.exact)
		}
	}
}

func TestResolveRejects(t *testing.T) {
	for _, in := range []string{
		"", "   ", "---", "spnd", "campain_name", "metrics", "segments", "metrics.", "date", "day",
		"spend; DROP TABLE facts", "campaign_name' OR 1=1 --", "spend, clicks", "1=1",
		"spend) UNION SELECT * FROM accounts --", "campaign_name/*x*/", "spend spend",
	} {
		if f, _, ok := Resolve(in); ok {
			t.Errorf("Resolve(%q) = %s; want unknown", in, f.Name)
		}
	}
}

func TestKey(t *testing.T) {
	tests := map[string]string{
		"Campaign Name":   "campaignname",
		"campaign.name":   "campaignname",
		"campaignName":    "campaignname",
		"CAMPAIGN_NAME":   "campaignname",
		"metrics.clicks":  "clicks",
		"segments.device": "device",
		"metrics":         "metrics",
		"metricsx":        "x",
		"":                "",
	}
	for in, want := range tests {
		if got := Key(in); got != want {
			t.Errorf("Key(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClosest(t *testing.T) {
	tests := []struct {
		in    string
		kinds []Kind
		first string
	}{
		{"spnd", nil, "spend"},
		{"spend_", nil, "spend"},
		{"campain_name", nil, "campaign_name"},
		{"campain_name", []Kind{Dimension}, "campaign_name"},
		{"impresions", nil, "impressions"},
		{"clikcs", []Kind{Metric}, "clicks"},
		{"conversion_vlaue", nil, "conversion_value"},
		{"adst_name", nil, "adset_name"},
		{"publisher", nil, "publisher_platform"},
	}
	for _, tt := range tests {
		got := Closest(tt.in, 3, tt.kinds...)
		if len(got) == 0 || got[0] != tt.first {
			t.Errorf("Closest(%q, %v) = %v; want %s first", tt.in, tt.kinds, got, tt.first)
		}
		if len(got) > 3 {
			t.Errorf("Closest(%q, 3) returned %d names", tt.in, len(got))
		}
		seen := map[string]bool{}
		for _, n := range got {
			f, ok := Lookup(n)
			if !ok {
				t.Errorf("Closest(%q) returned non-canonical %q", tt.in, n)
			}
			if len(tt.kinds) > 0 && !slices.Contains(tt.kinds, f.Kind) {
				t.Errorf("Closest(%q, %v) returned %s of kind %s", tt.in, tt.kinds, n, f.Kind)
			}
			if seen[n] {
				t.Errorf("Closest(%q) returned %s twice", tt.in, n)
			}
			seen[n] = true
		}
	}
	for _, nonsense := range []string{"zzqxjvkw", "qqqqqqqqqqqqqqqqqqqq", "xyzzy", "🙂🙂🙂", "", "---", "zz", "x"} {
		if got := Closest(nonsense, 3); len(got) != 0 {
			t.Errorf("Closest(%q) = %v; want nothing", nonsense, got)
		}
	}
	// The kind filter excludes: the closest metric to a dimension's name is not it.
	for _, n := range Closest("campain_name", 5, Metric) {
		if n == "campaign_name" {
			t.Errorf("Closest(campain_name, Metric) returned the dimension campaign_name")
		}
	}
	if got := Closest("spnd", 0); len(got) != 0 {
		t.Errorf("Closest(n=0) = %v", got)
	}
	// Deterministic.
	a, b := Closest("camp", 5), Closest("camp", 5)
	if !slices.Equal(a, b) {
		t.Errorf("Closest is not deterministic: %v vs %v", a, b)
	}
}

func TestForPlatform(t *testing.T) {
	if got := len(ForPlatform("")); got != len(Fields()) {
		t.Errorf("ForPlatform(\"\") = %d fields, want all %d", got, len(Fields()))
	}
	google := ForPlatform(GoogleAds)
	for _, f := range google {
		if !f.HasPlatform(GoogleAds) {
			t.Errorf("ForPlatform(google_ads) returned %s", f.Name)
		}
	}
	for _, n := range []string{"reach", "frequency", "link_clicks"} {
		if slices.ContainsFunc(google, func(f Field) bool { return f.Name == n }) {
			t.Errorf("google_ads reports %s according to the catalog", n)
		}
	}
	if got := ForPlatform("myspace_ads"); len(got) != 0 {
		t.Errorf("ForPlatform(unknown) = %d fields", len(got))
	}
}

func TestLookup(t *testing.T) {
	if _, ok := Lookup("Spend"); ok {
		t.Error("Lookup is exact: Spend is not canonical")
	}
	if _, ok := Lookup("cost"); ok {
		t.Error("Lookup is exact: cost is a synonym")
	}
	defer func() {
		if recover() == nil {
			t.Error("MustLookup(unknown) did not panic")
		}
	}()
	MustLookup("nope")
}

func TestFieldJSON(t *testing.T) {
	b, err := json.Marshal(MustLookup("ctr"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"name", "label", "description", "kind", "type", "aggregation", "numerator", "denominator", "scale", "unit", "platforms", "synonyms"} {
		if _, ok := m[k]; !ok {
			t.Errorf("field JSON lacks %q: %s", k, b)
		}
	}
	b, _ = json.Marshal(MustLookup("campaign_name"))
	if strings.Contains(string(b), `"aggregation"`) {
		t.Errorf("dimension JSON carries an aggregation: %s", b)
	}
}

func TestPublishers(t *testing.T) {
	seen := map[string]bool{}
	last := -1
	for _, p := range Publishers() {
		if p.Name == "" || seen[p.Name] {
			t.Errorf("publisher %+v: empty or duplicate name", p)
		}
		seen[p.Name] = true
		if p.Name != strings.ToLower(p.Name) || strings.ContainsAny(p.Name, " -") {
			t.Errorf("%q: stored values are lower snake_case", p.Name)
		}
		i := slices.Index(AllPlatforms, p.Platform)
		if i < 0 {
			t.Errorf("%s: unknown platform %q", p.Name, p.Platform)
		}
		if i < last {
			t.Errorf("%s: publishers are grouped by platform in AllPlatforms order", p.Name)
		}
		last = i
		for _, s := range append([]string{p.Name}, p.Aliases...) {
			if got, ok := LookupPublisher(s); !ok || got.Name != p.Name {
				t.Errorf("LookupPublisher(%q) = %+v, %v; want %s", s, got, ok, p.Name)
			}
			if PublisherKeys()[fold(s)] != p.Name {
				t.Errorf("PublisherKeys()[%q] != %s", fold(s), p.Name)
			}
		}
	}
	// Every platform has its publisher platforms; the demo data's are known.
	for _, pl := range AllPlatforms {
		if len(PublisherNames(pl)) == 0 {
			t.Errorf("%s has no publisher platforms", pl)
		}
	}
	for _, v := range []string{"facebook", "instagram", "audience_network", "messenger", "search", "display", "youtube", "tiktok", "pangle"} {
		if _, ok := LookupPublisher(v); !ok {
			t.Errorf("demo value %q unknown", v)
		}
	}
	tests := map[string]string{
		"Instagram": "instagram", "IG": "instagram", "insta": "instagram", "Instagram Ads": "instagram",
		"Audience Network": "audience_network", "AUDIENCE_NETWORK": "audience_network", "FB": "facebook",
		"CONTENT": "display", "Google Display Network": "display", "YouTube": "youtube", "SEARCH_PARTNERS": "search_partners",
		"Search Network": "search", "PLACEMENT_PANGLE": "pangle",
	}
	for in, want := range tests {
		if got, ok := LookupPublisher(in); !ok || got.Name != want {
			t.Errorf("LookupPublisher(%q) = %q, %v; want %s", in, got.Name, ok, want)
		}
	}
	for _, in := range []string{"", "meta_ads", "google", "Facebook Feed", "stories", "reels", "instagramm"} {
		if got, ok := LookupPublisher(in); ok {
			t.Errorf("LookupPublisher(%q) = %q, want unknown", in, got.Name)
		}
	}
	if got := PublisherNames(MetaAds); !slices.Equal(got, []string{"facebook", "instagram", "messenger", "audience_network", "threads"}) {
		t.Errorf("meta publishers %v", got)
	}
	if len(PublisherNames()) != len(publishers) {
		t.Errorf("PublisherNames() has %d, want %d", len(PublisherNames()), len(publishers))
	}
}
