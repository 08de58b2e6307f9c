package oracle

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/live/livetest"
)

var flagSource = flag.String("oracle.source", "warehouse",
	"what the engine answers from: warehouse (the embedded DuckDB test warehouse) or live (the live source over the Meta, Google and TikTok fake APIs, which serve the same demo data)")

// engineSource is the source the engine under test answers from
// (-oracle.source). The oracle's own figures come from the demo data itself
// either way (Load), so a live run checks the connectors, the fetch plan and
// the staging against the same ground truth as the warehouse.
func engineSource(t testing.TB) source.Source {
	t.Helper()
	switch *flagSource {
	case "warehouse":
		return duckdbtest.Open(t)
	case "live":
	default:
		t.Fatalf("-oracle.source %q: want warehouse or live", *flagSource)
	}
	return livetest.Start(t, livetest.Config{}).Source()
}

// liveSource says whether the engine answers from the live source.
func liveSource() bool { return *flagSource == "live" }

// asLive makes the data what the live connectors can say of it where they
// cannot say what the demo data holds:
//   - a TikTok advertiser's attribution is each ad group's own (its API has
//     no account setting; docs/tiktok.md, "Conversions"), so its
//     conversions are grouped under per_ad_group;
//   - TikTok reports no tablets: its platform dimension is ANDROID, IOS or
//     PC, mobile or desktop (docs/tiktok.md, "Breakdowns");
//   - TikTok reports each conversion event as metrics of a campaign's row:
//     an event with no count and no value has no conversion_action row
//     (docs/tiktok.md, "Conversion actions");
//   - a Google customer's conversion actions are listed in name order.
func (d *Data) asLive() {
	w := catalog.PerAdGroupWindow
	d.lowers[w] = w
	for id, a := range d.Accounts {
		switch a.Platform {
		case catalog.GoogleAds:
			names := strings.Split(a.ConversionActions, ", ")
			slices.Sort(names)
			a.ConversionActions = strings.Join(names, ", ")
		case catalog.TikTokAds:
			a.AttributionWindow = w
			fix := func(fs []Fact) {
				for i := range fs {
					fs[i].Dims[19] = w
					if fs[i].Dims[13] == "tablet" {
						fs[i].Dims[13] = "mobile"
					}
				}
			}
			fix(d.Facts[id])
			for _, byAcct := range d.Sets {
				fix(byAcct[id])
			}
			if byAcct := d.Sets["conversion_action"]; byAcct != nil {
				byAcct[id] = slices.DeleteFunc(byAcct[id], func(f Fact) bool {
					return f.Sums.Measures[catalog.Conversions] == 0 && f.Sums.Measures[catalog.ConversionValue] == 0
				})
			}
		}
		d.Accounts[id] = a
	}
}

// unmodelledLive says why the oracle cannot tell a live answer's numbers
// ("" when it can): Meta recounts conversions under a window the accounts
// do not hold, which the demo data the oracle reads does not carry.
func unmodelledLive(d *Data, args []byte) string {
	if !liveSource() {
		return ""
	}
	c := callOf(d, args)
	w, ok := CanonicalWindow(c.Window)
	if c.Window == "" || !ok || w == "" {
		return ""
	}
	for _, a := range c.Accounts {
		if a.Platform == metaAds && a.AttributionWindow != w {
			return "Meta recounted under " + w
		}
	}
	return ""
}

// checkNoSourceError: no call fails at the source.
func checkNoSourceError(_ *Data, c *tcase) []string {
	if c.head.Type != "source_error" && c.head.Type != "internal_error" {
		return nil
	}
	return []string{fmt.Sprintf("[%s] %.300s", c.head.Type, c.head.Detail)}
}

// warehouseOnly skips a test of what only a warehouse does (its size-first
// path, the one window it holds per account) or of the demo data itself,
// when the engine answers live.
func warehouseOnly(t *testing.T) {
	t.Helper()
	if liveSource() {
		t.Skip("-oracle.source live: a test of the warehouse or of the demo data itself")
	}
}
