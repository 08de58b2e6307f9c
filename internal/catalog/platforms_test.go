package catalog

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/docstest"
)

// TestPlatformTable: the table is consistent — names and aliases name one
// platform each, every publisher platform belongs to a platform of the table,
// and AllPlatforms is the table's order.
func TestPlatformTable(t *testing.T) {
	seen := map[string]string{}
	for i, p := range Platforms() {
		if AllPlatforms[i] != p.Name {
			t.Errorf("AllPlatforms[%d] = %s, the table has %s", i, AllPlatforms[i], p.Name)
		}
		if p.Label == "" || p.DisplayName == "" {
			t.Errorf("%s: no label or display name", p.Name)
		}
		for _, s := range append([]string{p.Name}, p.Aliases...) {
			if other, dup := seen[foldKey(s)]; dup {
				t.Errorf("%q names both %s and %s", s, other, p.Name)
			}
			seen[foldKey(s)] = p.Name
		}
		if got, ok := PlatformByName(p.Name); !ok || got.Name != p.Name {
			t.Errorf("PlatformByName(%s) = %v %v", p.Name, got.Name, ok)
		}
	}
	for _, pub := range Publishers() {
		if _, ok := PlatformByName(pub.Platform); !ok {
			t.Errorf("publisher %s: platform %q is not in the table", pub.Name, pub.Platform)
		}
	}
	if got := PublisherNames(TikTokAds); len(got) != 3 || got[0] != "tiktok" {
		t.Errorf("TikTok's publisher platforms: %v", got)
	}
}

// TestAccountIDForms: an ID in a platform's own form says its platform, bare
// digits say nothing, and each form normalizes other spellings of its IDs.
func TestAccountIDForms(t *testing.T) {
	for s, want := range map[string]string{"act_1015": MetaAds, "ACT_1015": MetaAds, "617-204-8851": GoogleAds, "6172048851": "", "act_": "", "617-204-885x": ""} {
		if got, _ := PlatformOfAccountID(s); got != want {
			t.Errorf("PlatformOfAccountID(%q) = %q, want %q", s, got, want)
		}
	}
	for _, c := range []struct{ id, platform, want string }{
		{" ACT_1015 ", MetaAds, "act_1015"},
		{"1015", MetaAds, "act_1015"},
		{"act_x", MetaAds, "act_x"},
		{"6172048851", GoogleAds, "617-204-8851"},
		{"617-2048851", GoogleAds, "617-204-8851"},
		{"61720488", GoogleAds, "61720488"},
		{"7201845539016472318", TikTokAds, "7201845539016472318"},
	} {
		if got := NormalizeAccountID(c.id, c.platform); got != c.want {
			t.Errorf("NormalizeAccountID(%q, %s) = %q, want %q", c.id, c.platform, got, c.want)
		}
	}
}

// TestPlatformRowsNameWhatExists: a platform's row names only breakdown sets
// and stored metrics the catalog has, each once, delivery among its sets —
// a misspelling there would silently change what the platform reports.
func TestPlatformRowsNameWhatExists(t *testing.T) {
	for _, p := range Platforms() {
		if !slices.Contains(p.Sets, Delivery) {
			t.Errorf("%s: Sets %v lacks %s", p.Name, p.Sets, Delivery)
		}
		for i, k := range p.Sets {
			if _, ok := BreakdownSetByKey(k); !ok || slices.Index(p.Sets, k) != i {
				t.Errorf("%s: set %q is unknown or listed twice", p.Name, k)
			}
		}
		for i, m := range p.NotReported {
			f, ok := Lookup(m)
			if !ok || (f.Aggregation != Sum && f.Distinct == "") || slices.Index(p.NotReported, m) != i {
				t.Errorf("%s: NotReported %q is not a stored metric, or listed twice", p.Name, m)
			}
		}
	}
}

// TestPlatformSyncWindows: every platform says how many days a sync
// re-fetches and how far back a backfill may go, and the lookback lies well
// inside the history (a lookback reaching past the oldest day the platform
// reports would ask for days it refuses).
func TestPlatformSyncWindows(t *testing.T) {
	// Any day will do: the shortest history (February, leap or not) is the
	// one to beat.
	for _, today := range []time.Time{
		time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2028, 3, 31, 0, 0, 0, 0, time.UTC),
	} {
		for _, p := range Platforms() {
			if p.SyncLookback <= 0 || p.MaxHistory <= 0 {
				t.Errorf("%s: SyncLookback %d days, MaxHistory %d months: both must be set", p.Name, p.SyncLookback, p.MaxHistory)
				continue
			}
			lookbackFrom := today.AddDate(0, 0, -p.SyncLookback)
			historyFrom := today.AddDate(0, -p.MaxHistory, 0)
			if !historyFrom.Before(lookbackFrom) {
				t.Errorf("%s: a %d-day lookback from %s reaches %s, not inside %d months of history (from %s)",
					p.Name, p.SyncLookback, today.Format(time.DateOnly), lookbackFrom.Format(time.DateOnly), p.MaxHistory, historyFrom.Format(time.DateOnly))
			}
		}
	}
}

const (
	syncDoc        = "../../docs/sync.md"
	syncTableBegin = "<!-- generated from internal/catalog by `go test ./internal/catalog -update`; edit platforms.go, not this table -->"
	syncTableEnd   = "<!-- end of generated table -->"
)

// TestSyncDocFigures: the lookback and history figures docs/sync.md shows
// are the platform table's.
func TestSyncDocFigures(t *testing.T) {
	var b strings.Builder
	b.WriteString("| platform | lookback (`SyncLookback`) | history (`MaxHistory`) |\n|---|---|---|\n")
	for _, p := range Platforms() {
		fmt.Fprintf(&b, "| %s | %d days | %d months |\n", p.DisplayName, p.SyncLookback, p.MaxHistory)
	}
	docstest.Block(t, syncDoc, syncTableBegin, syncTableEnd, b.String(), *update, "go test ./internal/catalog -update")
}
