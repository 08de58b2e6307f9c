package answer

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/source"
)

// agencySource has the accounts of a large agency and no data.
type agencySource struct {
	source.Source
	accounts []ads.Account
}

func (a agencySource) Accounts(context.Context) ([]ads.Account, error) { return a.accounts, nil }

func agency(n int) agencySource {
	accts := make([]ads.Account, n)
	for i := range accts {
		accts[i] = ads.Account{AccountID: fmt.Sprintf("act_%016d", 1000000+i), Platform: "meta_ads",
			AccountName: fmt.Sprintf("Client %d — Brand Campaigns EU", i), Currency: "EUR", Timezone: "Europe/Madrid", Status: "active"}
	}
	return agencySource{accounts: accts}
}

// TestTooManyAccountsListFitsTheBudget: the list of accounts to choose from is
// complete when it fits, and otherwise the first accounts that fit, counted
// and explained — within the budget by an exact o200k count.
func TestTooManyAccountsListFitsTheBudget(t *testing.T) {
	for _, c := range []struct {
		accounts, budget int
		complete         bool
	}{
		{14, 1000, true},
		{300, 30000, true},
		{3000, 25000, false},
		{3000, 1000, false},
	} {
		e := &Engine{Source: agency(c.accounts)}
		res := ask(t, e, "", c.budget, `{"metrics":["spend"]}`)
		var body struct {
			Type     string            `json:"type"`
			Accounts []json.RawMessage `json:"accounts"`
			Total    int               `json:"accounts_total"`
			Listed   int               `json:"accounts_listed"`
			Note     string            `json:"accounts_note"`
		}
		if !res.IsError || json.Unmarshal([]byte(res.Blocks[0]), &body) != nil || body.Type != "too_many_accounts" {
			t.Fatalf("%d accounts: %.300s", c.accounts, res.Blocks[0])
		}
		if n := exactTokens(res); n > c.budget {
			t.Errorf("%d accounts, budget %d: %d tokens", c.accounts, c.budget, n)
		}
		if c.complete {
			if len(body.Accounts) != c.accounts || body.Total != 0 || body.Note != "" {
				t.Errorf("%d accounts, budget %d: listed %d of %d, note %q; want all", c.accounts, c.budget, len(body.Accounts), body.Total, body.Note)
			}
			continue
		}
		if body.Total != c.accounts || body.Listed != len(body.Accounts) || body.Listed == 0 && c.budget > 1000 ||
			!strings.Contains(body.Note, fmt.Sprintf("of %d accounts", c.accounts)) || !strings.Contains(body.Note, "list_accounts") {
			t.Errorf("%d accounts, budget %d: listed %d, total %d, note %q", c.accounts, c.budget, body.Listed, body.Total, body.Note)
		}
		// Nearly the whole budget is used: the list is not cut more than needed.
		if c.budget >= 25000 && exactTokens(res) < c.budget*7/10 {
			t.Errorf("budget %d: only %d tokens used", c.budget, exactTokens(res))
		}
	}
}

// TestNoRowsIsSaid: an answer with no rows says so in a warning, so the model
// does not report zero spend for a period the data does not cover.
func TestNoRowsIsSaid(t *testing.T) {
	e := engine(t)
	empty := ask(t, e, "", 0, `{"platforms":["meta_ads"],"metrics":["spend"],"date_range":{"start":"2024-01-01","end":"2024-01-31"}}`)
	full := ask(t, e, "", 0, `{"platforms":["meta_ads"],"metrics":["spend"],"date_preset":"last_7d"}`)
	if empty.IsError || full.IsError {
		t.Fatalf("%v %v", empty.Blocks, full.Blocks)
	}
	var w []string
	for _, x := range empty.Response.Meta.Warnings {
		w = append(w, x.Type+": "+x.Detail)
	}
	if len(w) != 1 || !strings.Contains(w[0], "no_rows: No data: ") || !strings.Contains(w[0], "have data from 2025-02-08 to 2026-03-14; nothing in 2024-01-01 … 2024-01-31") {
		t.Errorf("empty answer warnings: %q", w)
	}
	for _, x := range full.Response.Meta.Warnings {
		if x.Type == "no_rows" {
			t.Errorf("an answer with rows warns no_rows")
		}
	}
}
