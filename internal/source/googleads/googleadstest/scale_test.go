package googleadstest

import (
	"slices"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/source/fakescale"
)

// TestSettingsWithoutFacts: a customer built for a request that needs no
// numbers has the same settings and conversion actions (IDs included) as
// when built whole.
func TestSettingsWithoutFacts(t *testing.T) {
	d, err := fakescale.Load(fakescale.Scale{Accounts: 7, Days: 60, Seed: 42, Anchor: time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC)}, catalog.GoogleAds)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range d.Accounts() {
		whole, err := loadCustomer(d, a.AccountID)
		if err != nil {
			t.Fatal(err)
		}
		light, err := loadSettings(d, a.AccountID)
		if err != nil {
			t.Fatal(err)
		}
		w, l := whole.customers[digits(a.AccountID)], light.customers[digits(a.AccountID)]
		if len(w.facts) == 0 || len(l.facts) != 0 || w.account != l.account || !slices.Equal(w.actions, l.actions) || len(w.actions) < 2 {
			t.Errorf("%s: whole %d facts, %v; settings only %d facts, %v", a.AccountID, len(w.facts), w.actions, len(l.facts), l.actions)
		}
	}
}
