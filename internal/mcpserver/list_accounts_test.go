package mcpserver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/budget"
	"github.com/adsmcp/adsmcp/internal/source"
)

// namedAccountsSource lists the accounts it is given; everything else is the
// embedded source's.
type namedAccountsSource struct {
	source.Source
	accounts []ads.Account
}

func (s *namedAccountsSource) Accounts(context.Context) ([]ads.Account, error) {
	return s.accounts, nil
}

// TestListAccountsWithinBudgetWhateverTheScript lists accounts named in Yi and
// Cherokee, where o200k_base spends about a token a byte and the estimate is a
// quarter of that, under a 1,000-token budget: every list, from a few accounts to
// many, counts at most 1,000 tokens exactly. Before, the list was trusted to the
// estimate below 80% of the budget and went out at up to twice the budget.
func TestListAccountsWithinBudgetWhateverTheScript(t *testing.T) {
	const limit = 1000
	c := fit.NewO200k()
	for _, sc := range []struct {
		name   string
		lo, hi rune
	}{{"yi", 0xa000, 0xa48d}, {"cherokee", 0x13a0, 0x13f6}} {
		t.Run(sc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(13, 8))
			var all []ads.Account
			for i := range 40 {
				var name strings.Builder
				for range 10 + r.IntN(30) {
					name.WriteRune(sc.lo + rune(r.IntN(int(sc.hi-sc.lo))))
				}
				all = append(all, ads.Account{AccountID: fmt.Sprintf("act_%d", 1000+i), Platform: "meta_ads",
					AccountName: name.String(), Currency: "USD", Timezone: "America/New_York", Status: "active"})
			}
			worst := 0
			for _, n := range []int{1, 2, 3, 5, 8, 12, 20, 40} {
				// A server per list: accounts are cached for a while.
				cfg := testConfig(t)
				cfg.Source = &namedAccountsSource{Source: cfg.Source, accounts: all[:n]}
				cfg.BudgetOverrides = budget.TokensFor(limit)
				cs := connect(t, cfg, "tiny")
				b := texts(t, call(t, cs, "list_accounts", `{}`))
				tokens := c.Exact(strings.Join(b, "\n"))
				if tokens > limit {
					t.Errorf("%d accounts: %d tokens (exact) for a budget of %d; _meta %s", n, tokens, limit, b[0])
				}
				worst = max(worst, tokens)
			}
			t.Logf("largest list: %d tokens", worst)
		})
	}
}
