package live

import (
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
)

// TestPeriodsEndingOwnsEachPeriodOnce: cutting days into consecutive ranges,
// every day, ISO week and month whose last day lies in the days is owned by
// exactly one range, as importer.SyncReachPeriods replaces them.
func TestPeriodsEndingOwnsEachPeriodOnce(t *testing.T) {
	start := time.Date(2023, 12, 20, 0, 0, 0, 0, time.UTC)
	end := time.Date(2024, 4, 9, 0, 0, 0, 0, time.UTC) // across a leap February
	for _, cut := range []int{1, 3, 7, 10, 31} {
		for _, g := range []fit.Grain{fit.Daily, fit.Weekly, fit.Monthly} {
			owned := map[time.Time]int{}
			for f := start; !f.After(end); f = f.AddDate(0, 0, cut) {
				l := min64(f.AddDate(0, 0, cut-1), end)
				from, to, ok := periodsEnding(g, f, l)
				if !ok {
					continue
				}
				step := func(d time.Time) time.Time { return d.AddDate(0, 0, 1) }
				if g == fit.Weekly {
					step = func(d time.Time) time.Time { return d.AddDate(0, 0, 7) }
				}
				if g == fit.Monthly {
					step = func(d time.Time) time.Time { return d.AddDate(0, 1, 0) }
				}
				for p := from; !p.After(to); p = step(p) {
					owned[p]++
				}
			}
			want := 0
			for p := periodStartOf(g, start); !p.After(end); {
				next := p.AddDate(0, 0, 1)
				switch g {
				case fit.Weekly:
					next = p.AddDate(0, 0, 7)
				case fit.Monthly:
					next = p.AddDate(0, 1, 0)
				}
				last := next.AddDate(0, 0, -1)
				if !last.Before(start) && !last.After(end) {
					want++
					if owned[p] != 1 {
						t.Errorf("cut %d, %s: the period starting %s is owned %d times", cut, g, p.Format(time.DateOnly), owned[p])
					}
				}
				p = next
			}
			if len(owned) != want {
				t.Errorf("cut %d, %s: %d periods owned, want %d", cut, g, len(owned), want)
			}
		}
	}
}

func min64(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// periodStartOf is the first day of d's period of grain g (Monday weeks).
func periodStartOf(g fit.Grain, d time.Time) time.Time {
	switch g {
	case fit.Weekly:
		return d.AddDate(0, 0, -(int(d.Weekday())+6)%7)
	case fit.Monthly:
		return time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	return d
}
