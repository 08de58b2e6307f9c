package oracle

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/catalog"
)

// currencyTotals are sums per currency bucket and metric, and how many rows
// went into each bucket (money's tolerance grows with them, a rounding of
// half a cent per row): what the reconciliation checks of single-window and
// compared answers add up, returned rows and removed totals alike.
type currencyTotals struct {
	sum  map[string]map[string]float64
	rows map[string]int
}

func newCurrencyTotals() *currencyTotals {
	return &currencyTotals{sum: map[string]map[string]float64{}, rows: map[string]int{}}
}

// add adds v to metric m of bucket cur; NaN (an empty cell) adds nothing.
func (c *currencyTotals) add(cur, m string, v float64) {
	if c.sum[cur] == nil {
		c.sum[cur] = map[string]float64{}
	}
	if !math.IsNaN(v) {
		c.sum[cur][m] += v
	}
}

// addRemoved adds a validation_filter's removed_totals: one row per entry,
// in the bucket of its currency, the metrics of sums it reports.
func (c *currencyTotals) addRemoved(removed []map[string]any, sums []string, bucket func(string) string) {
	for _, rt := range removed {
		cur, _ := rt["currency"].(string)
		c.rows[bucket(cur)]++
		for _, m := range sums {
			if v, ok := rt[m].(float64); ok {
				c.add(bucket(cur), m, v)
			}
		}
	}
}

// mismatches calls bad for each currency and metric of sums where want and
// got differ by more than the tolerance of got's rows.
func mismatches(want, got *currencyTotals, sums []string, bad func(cur, m string, w, g float64)) {
	curs := map[string]bool{}
	for k := range want.sum {
		curs[k] = true
	}
	for k := range got.sum {
		curs[k] = true
	}
	for cur := range curs {
		for _, m := range sums {
			w, g := want.sum[cur][m], got.sum[cur][m]
			tol := 1e-6
			if Money[m] {
				tol = 0.005*float64(got.rows[cur]) + 0.011
			}
			if math.Abs(w-g) > tol {
				bad(cur, m, w, g)
			}
		}
	}
}

// A breakdown set kept per campaign (age, gender, placement) is made of
// campaigns' reports, so delivery no campaign holds is in none of its rows;
// the answer must still add up to the accounts' delivery. These checks
// compare it with the raw delivery rows themselves (Data.Facts), never with
// the oracle's model of the set, so a model that shares the engine's gap
// cannot hide it.

// deliveryReconciled says whether q's answer must add up to its accounts'
// delivery rows: it reads a set kept per campaign or ad group on some account and
// selects nothing (no filter, no limit). conversion_action is left out: its
// rows of actions other than the defaults are not conversions.
func deliveryReconciled(d *Data, q *Query) bool {
	if len(q.Filters) > 0 || q.Limit > 0 || slices.Contains(q.Dims, "conversion_action") {
		return false
	}
	bd := q.Breakdowns()
	return slices.ContainsFunc(q.AccountIDs, func(id string) bool {
		s, ok := SetOf(d.Accounts[id].Platform, bd)
		return ok && s.OfReports()
	})
}

// deliveryTotals are the sums of q's accounts' delivery rows from start to
// end, per currency bucket.
func (d *Data) deliveryTotals(q *Query, start, end time.Time, sums []string, bucket func(string) string) *currencyTotals {
	out := newCurrencyTotals()
	for _, id := range q.AccountIDs {
		for i := range d.Facts[id] {
			f := &d.Facts[id][i]
			if f.Date.Before(start) || f.Date.After(end) {
				continue
			}
			for _, m := range sums {
				out.add(bucket(f.Dims[DimIndex("currency")]), m, Value(m, &f.Sums))
			}
		}
	}
	return out
}

// unattributedSpend is the spend (in micros, over currencies) of q's
// accounts' delivery no campaign holds from start to end: what the
// composition exposes when not zero.
func (d *Data) unattributedSpend(q *Query, start, end time.Time) float64 {
	var s float64
	for _, id := range q.AccountIDs {
		for i := range d.Facts[id] {
			f := &d.Facts[id][i]
			if !f.Date.Before(start) && !f.Date.After(end) && f.Dims[DimIndex("campaign_id")] == "" {
				s += f.Sums.Measures[catalog.Spend]
			}
		}
	}
	return s
}

// breakdownTally counts the answers checked against the delivery rows, so a
// run shows the generator made the composition: compared, coarsened, and
// with delivery no campaign holds.
var breakdownTally tally

type tally struct{ checked, compared, coarsened, unattributed int }

func tallyBreakdown(d *Data, q *Query, compared, coarsened bool, windows ...[2]time.Time) {
	breakdownTally.checked++
	if compared {
		breakdownTally.compared++
	}
	if coarsened {
		breakdownTally.coarsened++
	}
	if slices.ContainsFunc(windows, func(w [2]time.Time) bool { return d.unattributedSpend(q, w[0], w[1]) != 0 }) {
		breakdownTally.unattributed++
	}
}

// logBreakdownTally reports the tally and fails a run of many cases that
// made no breakdown answer over delivery no campaign holds.
func logBreakdownTally(t *testing.T, ncases int) {
	b := breakdownTally
	t.Logf("breakdown answers checked against the delivery rows: %d (%d compared, %d coarsened, %d with delivery no campaign holds)",
		b.checked, b.compared, b.coarsened, b.unattributed)
	if ncases >= 200 && b.unattributed == 0 {
		t.Errorf("%d cases made no breakdown answer over delivery no campaign holds: the generator lost the composition", ncases)
	}
}
