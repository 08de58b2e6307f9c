package googleads

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/googleads/googleadstest"
	"github.com/adsmcp/adsmcp/internal/source/live"
)

const outdoorUS = "617-204-8851"

// TestCountryPerAdRefusedEverywhere: Google reports countries
// (user_location_view) per ad group at the finest, so a Google query by
// country with an ad's dimension or filter is the query layer's
// invalid_query — refused before any source, warehouse or live, reads it.
func TestCountryPerAdRefusedEverywhere(t *testing.T) {
	h := newHarness(t, googleadstest.Config{})
	for _, raw := range []string{
		`{"metrics":["spend"],"dimensions":["country","ad_name"],"account_ids":["` + outdoorUS + `"],"date_preset":"last_7d"}`,
		`{"metrics":["spend"],"dimensions":["ad_id"],"account_ids":["` + outdoorUS + `"],"date_preset":"last_7d",` +
			`"filters":[{"field":"country","operator":"EQUALS","value":"US"}]}`,
	} {
		_, err := query.ParseAndNormalize([]byte(raw), query.Options{Accounts: h.accounts(t), Now: duckdbtest.Now})
		var qe *query.Error
		if !errors.As(err, &qe) {
			t.Fatalf("%s: want an invalid query, got %v", raw, err)
		}
		if msg := qe.Error(); !strings.Contains(msg, "per ad set") || !strings.Contains(msg, "adset_name") {
			t.Errorf("%s: the refusal does not say what Google keeps countries per and what to ask: %s", raw, msg)
		}
	}
}

// TestCountrySameNumbersEverywhere: Google's delivery by country (the
// location set, per ad group) answers the same from the demo warehouse,
// through the connector over the fake, and from an import of a user
// locations export holding those numbers.
func TestCountrySameNumbersEverywhere(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, googleadstest.Config{})
	wh := duckdbtest.Open(t)
	raw := `{"metrics":["spend","impressions","clicks"],"dimensions":["campaign_name","country"],"account_ids":["` + outdoorUS +
		`"],"time_granularity":"daily","date_preset":"last_14d"}`
	q := normalize(t, h.accounts(t), raw)
	want, err := wh.Query(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	got, err := live.New(nil, h.conn).Query(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	whCSV := csvOf(t, want)
	if liveCSV := csvOf(t, got); liveCSV != whCSV || want.Len() == 0 {
		t.Fatalf("the connector differs from the warehouse: %s", firstDiff(whCSV, liveCSV))
	}

	// The export: one line per day, campaign and country, as the
	// user locations report writes it. Its lines are campaigns': the
	// delivery no campaign holds (the answer's line with no campaign, read
	// beside the location set) is in no such report, nor then in the import.
	acct := q.Accounts[0]
	var b strings.Builder
	fmt.Fprintf(&b, "Day,Customer ID,Account,Campaign,Country/Territory (User location),Currency code,Cost,Impr.,Clicks\n")
	period, camp, country := want.Column("date"), want.Column("campaign_name"), want.Column("country")
	imps, clicks, spend := want.Column("impressions"), want.Column("clicks"), want.Column("spend")
	lines := strings.SplitAfter(whCSV, "\n")
	campaigns := lines[0] // the header
	for i := range want.Len() {
		if camp.Strings[i] == "" {
			continue
		}
		campaigns += lines[i+1]
		fmt.Fprintf(&b, "%s,%s,%s,%s,%s,%s,%.2f,%.0f,%.0f\n", period.Strings[i], acct.AccountID, acct.AccountName,
			camp.Strings[i], country.Strings[i], acct.Currency, spend.Numbers[i], imps.Numbers[i], clicks.Numbers[i])
	}
	if campaigns == whCSV {
		t.Error("no delivery that no campaign holds in the answer: the test proves nothing about it")
	}
	ex, err := importer.Parse("google_user_locations.csv", []byte(b.String()), importer.Options{Timezone: acct.Timezone})
	if err != nil {
		t.Fatal(err)
	}
	if ex.BreakdownKey() != "location" {
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
	if importCSV := csvOf(t, fromImport); importCSV != campaigns {
		t.Errorf("the import differs from the warehouse's campaigns: %s", firstDiff(campaigns, importCSV))
	}
}

// TestSyncFetchesEachSetAsStored: a sync's plans (one per set the catalog
// says Google reports, with the dimensions Google's rows of it carry) each
// compile to one GAQL query — delivery by device and network per ad, the
// location set from user_location_view per ad group — and the two sets'
// rows sum to the same totals but for the delivery no campaign holds.
func TestSyncFetchesEachSetAsStored(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, googleadstest.Config{})
	var acct ads.Account
	for _, a := range h.accounts(t) {
		if a.AccountID == outdoorUS {
			acct = a
		}
	}
	now := duckdbtest.Now()
	last := time.Date(now.Year(), now.Month(), now.Day()-1, 0, 0, 0, 0, time.UTC)
	plans, err := live.SyncPlans(catalog.GoogleAds, last.AddDate(0, 0, -6), last)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plans {
		if _, err := compile(p); err != nil {
			t.Fatalf("the %s plan does not compile: %v", p.Set.Key, err)
		}
	}
	batches, err := live.FetchPlans(ctx, h.conn, plans, acct)
	if err != nil {
		t.Fatal(err)
	}
	totals := map[string]*[catalog.NumMeasures]float64{}
	for _, b := range batches {
		_, _, _, facts, _ := b.Snapshot()
		for _, x := range facts {
			key := x.BreakdownKey()
			switch {
			case key == catalog.Delivery && x.Country != "":
				t.Fatalf("a Google delivery row with a country: %+v", x)
			case key == "location" && x.AdID != "":
				t.Fatalf("a location row with an ad: %+v", x)
			case key == catalog.Delivery && x.CampaignID == "":
				continue // no campaign holds it: in no user_location_view row
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
	d, l := totals[catalog.Delivery], totals["location"]
	if d == nil || l == nil || d[catalog.Spend] == 0 {
		t.Fatalf("delivery sums to %v, location to %v", d, l)
	}
	for m := range d {
		if diff := d[m] - l[m]; diff > 1e-6 || diff < -1e-6 {
			t.Errorf("measure %d: delivery (with a campaign) sums to %v, location to %v", m, d[m], l[m])
		}
	}
	var located bool
	for _, r := range h.fake.Requests() {
		located = located || strings.Contains(r.Query, " FROM user_location_view ") && strings.Contains(r.Query, "ad_group.id")
	}
	if !located {
		t.Error("no user_location_view request per ad group")
	}
}
