package meta

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/live"
)

// TestDeviceSameNumbersEverywhere: Meta's delivery by device and publisher
// platform (the device_platform set: Insights reports it apart from country)
// answers the same from the demo warehouse, through the connector over the
// fake, and from an import of the Ads Manager export by "Platform" and
// "Impression device" that holds those numbers.
func TestDeviceSameNumbersEverywhere(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil)
	wh := duckdbtest.Open(t)
	raw := `{"metrics":["spend","impressions","clicks"],"dimensions":["device","publisher_platform"],"account_ids":["` + lumenUS +
		`"],"time_granularity":"daily","date_preset":"last_14d"}`
	q := normalize(t, f.accounts(t), raw)
	want, err := wh.Query(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	got, err := live.New(nil, f.conn).Query(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	whCSV := csvOf(t, want)
	if liveCSV := csvOf(t, got); liveCSV != whCSV || want.Len() == 0 {
		t.Fatalf("the connector differs from the warehouse:\n%.800s\n---\n%.800s", liveCSV, whCSV)
	}

	// The export: one line per day, platform and device, as Ads Manager
	// writes it (no Country column: Meta does not report it with these).
	acct := q.Accounts[0]
	var b strings.Builder
	fmt.Fprintf(&b, "Account ID,Account name,Day,Platform,Impression device,Impressions,Clicks (all),Amount spent (%s)\n", acct.Currency)
	period, dev, pub := want.Column("date"), want.Column("device"), want.Column("publisher_platform")
	imps, clicks, spend := want.Column("impressions"), want.Column("clicks"), want.Column("spend")
	for i := range want.Len() {
		fmt.Fprintf(&b, "%s,%s,%s,%s,%s,%.0f,%.0f,%.2f\n", strings.TrimPrefix(acct.AccountID, "act_"), acct.AccountName,
			period.Strings[i], pub.Strings[i], dev.Strings[i], imps.Numbers[i], clicks.Numbers[i], spend.Numbers[i])
	}
	ex, err := importer.Parse("meta_by_device.csv", []byte(b.String()), importer.Options{Timezone: acct.Timezone})
	if err != nil {
		t.Fatal(err)
	}
	if ex.BreakdownKey() != "device_platform" {
		t.Fatalf("the export is stored as %s rows", ex.BreakdownKey())
	}
	path := filepath.Join(t.TempDir(), "imported.duckdb")
	if _, err := duckdb.Import(ctx, path, []*importer.Export{ex}, duckdb.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	imported, err := duckdb.Open(ctx, path, duckdb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = imported.Close() })
	accts, err := imported.Accounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fromImport, err := imported.Query(ctx, normalize(t, accts, raw))
	if err != nil {
		t.Fatal(err)
	}
	if importCSV := csvOf(t, fromImport); importCSV != whCSV {
		t.Errorf("the import differs from the warehouse:\n%.800s\n---\n%.800s", importCSV, whCSV)
	}
}

// TestSyncFetchesEachSetAsStored: a sync's plans (one per set the catalog
// says Meta reports, with the dimensions Meta's rows of it carry) are each
// one report Meta accepts — delivery by country alone, device_platform by
// publisher_platform and device — and the two sets' rows sum to the same
// totals, as the warehouse stores them.
func TestSyncFetchesEachSetAsStored(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil)
	var acct ads.Account
	for _, a := range f.accounts(t) {
		if a.AccountID == lumenUS {
			acct = a
		}
	}
	now := duckdbtest.Now()
	last := time.Date(now.Year(), now.Month(), now.Day()-1, 0, 0, 0, 0, time.UTC)
	plans, err := live.SyncPlans(catalog.MetaAds, last.AddDate(0, 0, -6), last)
	if err != nil {
		t.Fatal(err)
	}
	batches, err := live.FetchPlans(ctx, f.conn, plans, acct)
	if err != nil {
		t.Fatal(err)
	}
	totals := map[string]*[catalog.NumMeasures]float64{}
	for _, b := range batches {
		_, _, _, facts, _ := b.Snapshot()
		for _, x := range facts {
			key := x.BreakdownKey()
			switch {
			case key == catalog.Delivery && (x.Device != "" || x.PublisherPlatform != ""):
				t.Fatalf("a Meta delivery row with a device or publisher platform: %+v", x)
			case key == "device_platform" && x.Country != "":
				t.Fatalf("a device_platform row with a country: %+v", x)
			}
			if totals[key] == nil {
				totals[key] = &[catalog.NumMeasures]float64{}
			}
			for m, v := range x.Measures {
				if v != ads.NotReported {
					totals[key][m] += v
				}
			}
		}
	}
	d, dp := totals[catalog.Delivery], totals["device_platform"]
	if d == nil || dp == nil || d[catalog.Spend] == 0 || *d != *dp {
		t.Errorf("delivery sums to %v, device_platform to %v", d, dp)
	}
	for _, r := range f.srv.Requests() {
		if b := r.Params.Get("breakdowns"); strings.Contains(b, "country") && b != "country" {
			t.Errorf("a request Meta refuses: breakdowns=%s", b)
		}
	}
}
