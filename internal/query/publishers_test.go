package query

import (
	"slices"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/catalog"
)

// Publisher platforms (placements: Instagram, YouTube, …) are parts of an ad
// platform. Naming one, in platforms or in a platform filter, restricts the query
// to publisher_platform, never widens it to the whole platform.

const changePublisher = "publisher_platform_filter"

// publisherFilter returns the query's only publisher_platform filter, or fails.
func publisherFilter(t *testing.T, q *Query) Filter {
	t.Helper()
	var out []Filter
	for _, f := range q.Filters {
		if f.Field == "publisher_platform" {
			out = append(out, f)
		}
	}
	if len(out) != 1 {
		t.Fatalf("%d publisher_platform filters, want 1: %+v", len(out), q.Filters)
	}
	return out[0]
}

func TestPlatformsPublisher(t *testing.T) {
	tests := []struct {
		name      string
		accounts  []string
		in        []string
		platforms []string
		op        Operator
		values    []any
		detail    []string // substrings of the change's detail
	}{
		{"Instagram", nil, []string{"Instagram"}, []string{"meta_ads"}, Equals, []any{"instagram"},
			[]string{`"Instagram" is a placement inside meta_ads, not an ad platform`, "publisher_platform = instagram within meta_ads"}},
		{"alias", nil, []string{"IG"}, []string{"meta_ads"}, Equals, []any{"instagram"}, []string{"placement inside meta_ads"}},
		{"same twice", nil, []string{"Instagram", "insta"}, []string{"meta_ads"}, Equals, []any{"instagram"}, nil},
		{"two Meta placements", nil, []string{"Instagram", "Audience Network"}, []string{"meta_ads"}, In, []any{"instagram", "audience_network"},
			[]string{"publisher_platform IN (instagram, audience_network)"}},
		{"YouTube", nil, []string{"YouTube"}, []string{"google_ads"}, Equals, []any{"youtube"}, []string{"placement inside google_ads"}},
		{"Google's enum", nil, []string{"CONTENT"}, []string{"google_ads"}, Equals, []any{"display"}, nil},
		{"placements of two platforms", []string{"act_1011", "123-456-7803"}, []string{"Instagram", "YouTube"},
			[]string{"meta_ads", "google_ads"}, In, []any{"instagram", "youtube"}, []string{"meta_ads", "google_ads"}},
		{"Pangle", nil, []string{"pangle"}, []string{"tiktok_ads"}, Equals, []any{"pangle"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := mustNormalize(t, Args{AccountIDs: tt.accounts, Platforms: tt.in, Metrics: []string{"spend"}})
			if !slices.Equal(q.Platforms, tt.platforms) {
				t.Errorf("platforms %v, want %v", q.Platforms, tt.platforms)
			}
			for _, a := range q.Accounts {
				if !slices.Contains(tt.platforms, a.Platform) {
					t.Errorf("account %s on %s", a.AccountID, a.Platform)
				}
			}
			f := publisherFilter(t, q)
			if f.Operator != tt.op || !slices.Equal(f.Values, tt.values) || f.Metric {
				t.Errorf("filter %+v, want %s %v", f, tt.op, tt.values)
			}
			c := oneChange(t, q, changePublisher)
			for _, s := range tt.detail {
				if !strings.Contains(c.Detail, s) {
					t.Errorf("detail %q lacks %q", c.Detail, s)
				}
			}
			noChange(t, q, ChangeValueNormalized)
			// The echoed arguments run the same query, with nothing left to change.
			again := mustNormalize(t, q.Args())
			if !slices.Equal(again.Platforms, q.Platforms) || len(again.Filters) != len(q.Filters) || len(again.Changes) != 0 {
				t.Errorf("re-run: %+v", again)
			}
			publisherFilter(t, again)
		})
	}
}

func TestPlatformsWholeOrPlacement(t *testing.T) {
	// Bare "facebook" is read as Meta Ads, and says it is all of Meta.
	for _, s := range []string{"facebook", "FB"} {
		q := mustNormalize(t, Args{Platforms: []string{s}, Metrics: []string{"spend"}})
		if !slices.Equal(q.Platforms, []string{"meta_ads"}) || len(q.Filters) != 0 {
			t.Fatalf("%s: %v %+v", s, q.Platforms, q.Filters)
		}
		c := oneChange(t, q, ChangeValueNormalized)
		for _, want := range []string{"all Meta placements", "publisher_platform EQUALS facebook"} {
			if !strings.Contains(c.Detail, want) {
				t.Errorf("%s: detail %q lacks %q", s, c.Detail, want)
			}
		}
	}
	q := mustNormalize(t, Args{Platforms: []string{"Facebook Ads"}, Metrics: []string{"spend"}})
	if c := oneChange(t, q, ChangeValueNormalized); strings.Contains(c.Detail, "placement") {
		t.Errorf("Facebook Ads is the platform, nothing to explain: %q", c.Detail)
	}
	q = mustNormalize(t, Args{Platforms: []string{"tiktok"}, Metrics: []string{"spend"}})
	if c := oneChange(t, q, ChangeValueNormalized); !strings.Contains(c.Detail, "publisher_platform EQUALS tiktok") {
		t.Errorf("tiktok: %q", c.Detail)
	}

	// A whole platform and a placement together are rejected: all of Meta, or
	// only Instagram? A placement filter would also cut the other platforms.
	for _, in := range [][]string{{"meta_ads", "Instagram"}, {"Facebook", "Instagram"}, {"Instagram", "google_ads"}} {
		p := problemAt(t, mustFail(t, Args{Platforms: in, Metrics: []string{"spend"}}), "platforms")
		if !strings.Contains(p.Problem, "instagram") || !strings.Contains(p.Fix, `["instagram"]`) {
			t.Errorf("%v: %+v", in, p)
		}
	}
	p := problemAt(t, mustFail(t, Args{Platforms: []string{"meta_ads", "Instagram"}, Metrics: []string{"spend"}}), "platforms")
	if !strings.Contains(p.Fix, `["meta_ads"]`) {
		t.Errorf("both readings must be offered: %+v", p)
	}

	p = problemAt(t, mustFail(t, Args{Platforms: []string{"Facebook", "Instagram"}, Metrics: []string{"spend"}}), "platforms")
	if !strings.Contains(p.Fix, `{"field":"publisher_platform","operator":"IN","value":["facebook","instagram"]}`) {
		t.Errorf("the placements facebook and instagram must be offered: %+v", p)
	}

	// An unknown name lists the platforms and the publisher platforms.
	p = problemAt(t, mustFail(t, Args{Platforms: []string{"myspace"}, Metrics: []string{"spend"}}), "platforms[0]")
	for _, v := range []string{"meta_ads", "google_ads", "tiktok_ads", "instagram", "youtube", "audience_network"} {
		if !slices.Contains(p.Valid, v) {
			t.Errorf("valid lacks %s: %+v", v, p)
		}
	}
	p = problemAt(t, mustFail(t, Args{Platforms: []string{"instagarm"}, Metrics: []string{"spend"}}), "platforms[0]")
	if len(p.Closest) == 0 || p.Closest[0] != "instagram" {
		t.Errorf("instagarm: %+v", p)
	}

	if _, err := CanonicalPlatform("Instagram"); err == nil || !strings.Contains(err.Error(), "placement inside meta_ads") {
		t.Errorf("CanonicalPlatform(Instagram): %v", err)
	}
	if p, err := CanonicalPlatform("Facebook"); err != nil || p != "meta_ads" {
		t.Errorf("CanonicalPlatform(Facebook) = %q, %v", p, err)
	}
}

func TestPlatformFilterPublisher(t *testing.T) {
	tests := []struct {
		name   string
		field  string
		op     string
		value  any
		want   Filter // zero: rejected at .value
		change string
	}{
		{"EQUALS Instagram", "platform", "EQUALS", "Instagram", Filter{Field: "publisher_platform", Operator: Equals, Values: []any{"instagram"}}, changePublisher},
		{"network synonym", "network", "=", "YouTube", Filter{Field: "publisher_platform", Operator: Equals, Values: []any{"youtube"}}, changePublisher},
		{"IN placements", "platform", "IN", []any{"Instagram", "YouTube"}, Filter{Field: "publisher_platform", Operator: In, Values: []any{"instagram", "youtube"}}, changePublisher},
		{"NOT_EQUALS Instagram", "platform", "NOT_EQUALS", "Instagram", Filter{Field: "publisher_platform", Operator: NotEquals, Values: []any{"instagram"}}, changePublisher},
		{"NOT_IN placements", "platform", "NOT_IN", []any{"messenger", "Audience Network"}, Filter{Field: "publisher_platform", Operator: NotIn, Values: []any{"messenger", "audience_network"}}, changePublisher},
		{"platforms stay", "platform", "IN", []any{"google", "TikTok"}, Filter{Field: "platform", Operator: In, Values: []any{"google_ads", "tiktok_ads"}}, ChangeValueNormalized},
		{"facebook is Meta", "platform", "EQUALS", "facebook", Filter{Field: "platform", Operator: Equals, Values: []any{"meta_ads"}}, ChangeValueNormalized},
		{"CONTAINS text kept", "platform", "CONTAINS", "goo", Filter{Field: "platform", Operator: Contains, Values: []any{"goo"}}, ""},
		{"mixed", "platform", "IN", []any{"meta_ads", "Instagram"}, Filter{}, ""},
		{"mixed, other platform", "platform", "IN", []any{"google_ads", "Instagram"}, Filter{}, ""},
		{"facebook and instagram", "platform", "IN", []any{"Facebook", "Instagram"}, Filter{}, ""},
		{"CONTAINS placement", "platform", "CONTAINS", "Instagram", Filter{}, ""},
		{"unknown platform", "platform", "EQUALS", "myspace", Filter{}, ""},
		{"unknown in IN", "platform", "IN", []any{"meta_ads", "myspace"}, Filter{}, ""},

		{"publisher alias", "publisher_platform", "EQUALS", "IG", Filter{Field: "publisher_platform", Operator: Equals, Values: []any{"instagram"}}, ChangeValueNormalized},
		{"publisher IN aliases", "publisher_platform", "IN", []any{"Audience Network", "CONTENT", "search"},
			Filter{Field: "publisher_platform", Operator: In, Values: []any{"audience_network", "display", "search"}}, ChangeValueNormalized},
		{"publisher canonical", "publisher_platform", "NOT_EQUALS", "facebook", Filter{Field: "publisher_platform", Operator: NotEquals, Values: []any{"facebook"}}, ""},
		{"publisher empty", "publisher_platform", "EQUALS", "", Filter{Field: "publisher_platform", Operator: Equals, Values: []any{""}}, ""},
		{"publisher CONTAINS text kept", "publisher_platform", "CONTAINS", "feed", Filter{Field: "publisher_platform", Operator: Contains, Values: []any{"feed"}}, ""},
		{"publisher unknown", "publisher_platform", "EQUALS", "Facebook Feed", Filter{}, ""},
		{"publisher unknown in NOT_IN", "publisher_platform", "NOT_IN", []any{"instagram", "reels"}, Filter{}, ""},
		{"publisher platform name", "publisher_platform", "EQUALS", "meta_ads", Filter{}, ""},

		{"other dimensions untouched", "campaign_name", "EQUALS", "Instagram", Filter{Field: "campaign_name", Operator: Equals, Values: []any{"Instagram"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := base()
			a.Filters = []FilterArg{{Field: tt.field, Operator: tt.op, Value: tt.value}}
			if tt.want.Field == "" {
				e := mustFail(t, a)
				p := problemAt(t, e, "filters[0].value")
				if len(p.Valid) == 0 && p.Fix == "" {
					t.Errorf("rejection says nothing to do: %+v", p)
				}
				return
			}
			q := mustNormalize(t, a)
			if len(q.Filters) != 1 {
				t.Fatalf("filters %+v", q.Filters)
			}
			f := q.Filters[0]
			if f.Field != tt.want.Field || f.Operator != tt.want.Operator || !slices.Equal(f.Values, tt.want.Values) {
				t.Errorf("filter %+v, want %+v", f, tt.want)
			}
			if tt.change != "" {
				if len(changesOf(q, tt.change)) == 0 {
					t.Errorf("no %s change: %+v", tt.change, q.Changes)
				}
			} else if len(q.Changes) > 0 {
				t.Errorf("unexpected changes %+v", q.Changes)
			}
			if tt.change == changePublisher {
				c := oneChange(t, q, changePublisher)
				if !strings.Contains(c.Detail, "placement") || !strings.Contains(c.Detail, "not a") || c.Field != "filters[0]" {
					t.Errorf("change %+v", c)
				}
			}
		})
	}

	// The rejection of an unknown publisher platform lists the valid values and
	// says what the nearest one is.
	a := base()
	a.Filters = []FilterArg{{Field: "publisher_platform", Operator: "EQUALS", Value: "Facebook Feed"}}
	p := problemAt(t, mustFail(t, a), "filters[0].value")
	if !slices.Equal(p.Valid, catalog.PublisherNames()) || !slices.Contains(p.Closest, "facebook") {
		t.Errorf("%+v", p)
	}
	// A placement in a platform filter that cannot be rewritten says how to write it.
	a.Filters = []FilterArg{{Field: "platform", Operator: "IN", Value: []any{"Facebook", "Instagram"}}}
	p = problemAt(t, mustFail(t, a), "filters[0].value")
	if !strings.Contains(p.Fix, `"publisher_platform"`) || !strings.Contains(p.Fix, `["facebook","instagram"]`) {
		t.Errorf("%+v", p)
	}
}
