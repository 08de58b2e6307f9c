package meta

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

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
