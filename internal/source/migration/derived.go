package migration

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Derived is a version's data step: rows the layout before the version could
// not hold, made from rows the warehouse holds. Unlike a version's
// statements, its SQL is written here in Go, from the facts columns the
// warehouse has when it runs (after the final step added the declared ones):
// which measures to sum depends on the warehouse, not on the version. It is
// idempotent — it writes only where the rows it would make are missing — so
// it may run again on a warehouse that has them (a ClickHouse migration
// interrupted before the version was recorded, a warehouse that already
// holds the rows from a newer writer).
type Derived struct {
	// Insert is the statement that writes the missing rows, in dialect d,
	// for a facts table with columns cols (in their order) of which measures
	// are summed.
	Insert func(d Dialect, cols []string, measures map[string]bool) string
	// Missing is a query returning a row when Insert would write one: a
	// warehouse older than the version that holds nothing to derive (or
	// already holds the rows) still answers every query.
	Missing func(d Dialect) string
}

// metaDevicePlatform is version 4's data step. Meta's delivery rows used to
// carry country, device and publisher_platform together; since Meta's device
// × publisher_platform rows are a breakdown set of their own (Insights
// reports country apart from them: Insights API, "Breakdowns", combining
// breakdowns), every read by device or publisher_platform reads that set, so
// a warehouse written before has none to read. They are its delivery rows
// summed over country per date × account × campaign × ad set × ad × device ×
// publisher_platform — what the demo generator writes (internal/demo,
// breakdownGen.perAd) and a Meta export by Platform and Impression device
// holds — for the Meta accounts' days that have delivery rows and no
// device_platform row. A device or publisher platform the delivery row did
// not know (NULL, or empty in an old import) stays unknown (NULL, as every
// writer stores it): the rows still add up to the delivery totals.
var metaDevicePlatform = derivedSet{platform: "meta_ads", key: "device_platform",
	cleared: func(c string) bool { return c == "country" },
	unknown: func(c string) bool { return c == "device" || c == "publisher_platform" }}.derived()

// derivedSet makes a platform's rows of a breakdown set from its delivery
// rows, on the days that have none.
type derivedSet struct {
	platform, key string
	// cleared columns are NULL in the set's rows (summed over); unknown
	// ones are grouped by, an empty value as NULL.
	cleared, unknown func(col string) bool
	// where, when set, keeps only the delivery rows f it selects.
	where string
}

func (ds derivedSet) derived() Derived {
	return Derived{
		Insert: func(d Dialect, cols []string, measures map[string]bool) string {
			var sel, group []string
			for _, c := range cols {
				switch {
				case measures[c]:
					sel = append(sel, "SUM(f."+c+")")
				case c == "breakdown":
					sel = append(sel, "'"+ds.key+"'")
				case ds.cleared(c):
					sel = append(sel, "NULL")
				case ds.unknown(c):
					e := "NULLIF(f." + c + ", '')"
					sel, group = append(sel, e), append(group, e)
				default: // ids, dates, and in ClickHouse the names facts repeats
					sel, group = append(sel, "f."+c), append(group, "f."+c)
				}
			}
			// No alias in the SELECT: ClickHouse lets an alias shadow a
			// column of the same name in WHERE; INSERT … SELECT maps by
			// position.
			return fmt.Sprintf("INSERT INTO %s (%s)\nSELECT %s\nFROM %s f\nWHERE %s\nGROUP BY %s",
				factsTable, strings.Join(cols, ", "), strings.Join(sel, ", "), factsTable,
				ds.daysWithout(d), strings.Join(group, ", "))
		},
		Missing: func(d Dialect) string {
			return fmt.Sprintf("SELECT 'missing' FROM %s f WHERE %s LIMIT 1", factsTable, ds.daysWithout(d))
		},
	}
}

// daysWithout selects the delivery rows f of the platform's accounts on the
// days of the account with no row of the set.
func (ds derivedSet) daysWithout(d Dialect) string {
	guard := "NOT EXISTS (SELECT 1 FROM " + factsTable + " x WHERE x.breakdown = '" + ds.key + "' AND x.account_id = f.account_id AND x.date = f.date)"
	if !d.CorrelatedSubqueries {
		guard = "(f.account_id, f.date) NOT IN (SELECT account_id, date FROM " + factsTable + " WHERE breakdown = '" + ds.key + "')"
	}
	w := "f.breakdown = 'delivery' AND f.account_id IN (SELECT account_id FROM accounts WHERE platform = '" + ds.platform + "') AND " + guard
	if ds.where != "" {
		w += " AND " + ds.where
	}
	return w
}

// derive runs version v's data step, after adding the declared columns facts
// lacks (so that it sums them all), and reports the columns it added.
func derive(ctx context.Context, ex Executor, s Schema, v Version, declared []Column, res *Result) error {
	if err := addMissing(ctx, ex, s.Dialect, declared, res); err != nil {
		return err
	}
	cols, err := ex.Strings(ctx, s.Dialect.FactColumns)
	if err != nil {
		return fmt.Errorf("%s: listing the facts table's columns: %w", s.Dialect.Name, err)
	}
	measures := map[string]bool{}
	for _, c := range slices.Concat(catalogColumns(), declared) {
		measures[c.Name] = true
	}
	if err := ex.Exec(ctx, v.Derived.Insert(s.Dialect, cols, measures)); err != nil {
		return fmt.Errorf("%s: schema version %d (%s): %w", s.Dialect.Name, v.Number, v.Summary, err)
	}
	return nil
}

// underived are the versions after from whose data step would write rows:
// what a read-only open of the warehouse lacks. It stops at a version reads
// need (State.Readable refuses the warehouse anyway, and a later step's
// query may need that version's layout).
func underived(ctx context.Context, ex Executor, d Dialect, from int) ([]int, error) {
	var out []int
	for _, v := range Versions[min(from, len(Versions)):] {
		if v.Derived == nil {
			if v.NeededByReads {
				break
			}
			continue
		}
		rows, err := ex.Strings(ctx, v.Derived.Missing(d))
		if err != nil {
			return nil, fmt.Errorf("%s: looking for the rows schema version %d derives: %w", d.Name, v.Number, err)
		}
		if len(rows) > 0 {
			out = append(out, v.Number)
		}
	}
	return out, nil
}
