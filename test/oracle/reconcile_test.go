package oracle

import "math"

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
