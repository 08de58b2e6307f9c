package oracle

import (
	"math"
	"slices"
	"sort"
	"strings"
)

// selection is what a query selects from rows at one grain.
type selection struct {
	passed     []*Row // pass the metric filters (HAVING), empty rows included
	removed    []*Row // of passed: every user dimension empty (step 1)
	qualifying []*Row // of passed: not removed, in the requested order
	kept       []*Row // of qualifying: within the limit
	perCur     bool   // the limit applies within each currency
	// curOnly are the qualifying rows whose only non-empty user dimension is an
	// explicitly requested currency.
	curOnly int
}

// getter reads one field of a row: a number (NaN for empty) or a string.
type getter func(field string) (num float64, str string, isNum bool)

// timeFields are the names a sort key may give the time column.
var timeFields = map[string]bool{"date": true, "week": true, "month": true, "quarter": true}

// compareRows orders two rows by the sort keys, then the tie columns ascending
// (the time column, then the dimensions, byte order). Empty metric values sort
// last in either direction. indeterminate is set when two rounded values are
// equal, so their true order cannot be read from the CSV.
func compareRows(a, b getter, keys []SortKey, ties []string, rounded func(string) bool) (c int, indeterminate bool) {
	for _, k := range keys {
		an, as, num := a(k.Field)
		bn, bs, _ := b(k.Field)
		if num {
			switch {
			case math.IsNaN(an) && math.IsNaN(bn):
				continue
			case math.IsNaN(an):
				return 1, false
			case math.IsNaN(bn):
				return -1, false
			case an == bn:
				if rounded != nil && rounded(k.Field) {
					return 0, true
				}
				continue
			}
			c = -1
			if an > bn {
				c = 1
			}
		} else {
			if as == bs {
				continue
			}
			if *flagEmptyLast && (as == "" || bs == "") {
				if as == "" {
					return 1, false
				}
				return -1, false
			}
			c = strings.Compare(as, bs)
		}
		if k.Desc {
			c = -c
		}
		return c, false
	}
	for _, f := range ties {
		_, as, _ := a(f)
		_, bs, _ := b(f)
		if as == bs {
			continue
		}
		if *flagEmptyLast && (as == "" || bs == "") {
			if as == "" {
				return 1, false
			}
			return -1, false
		}
		return strings.Compare(as, bs), false
	}
	return 0, false
}

// rowGetter reads an oracle row of q at grain g (d, for reach, may be nil).
func rowGetter(d *Data, q *Query, g string, r *Row) getter {
	return func(field string) (float64, string, bool) {
		if (field == "reach" || field == "frequency") && d != nil {
			if r.reach == nil {
				v := math.NaN()
				if reach, one, ok := d.ReachOf(q, r, g); ok && one {
					v = float64(reach)
				}
				r.reach = &v
			}
			if field == "frequency" {
				return r.Sums.Impressions() / *r.reach, "", true
			}
			return *r.reach, "", true
		}
		if timeFields[field] || field == "" {
			return 0, r.Period, false
		}
		if i := slices.Index(q.Dims, field); i >= 0 {
			return 0, r.Dims[i], false
		}
		if isMetric(field) {
			return Value(field, &r.Sums), "", true
		}
		return 0, "", false
	}
}

// tieColumns are the time column (named "" for oracle rows) and the dimensions.
func tieColumns(q *Query, timeCol string) []string {
	var out []string
	if timeCol != "" {
		out = append(out, timeCol)
	}
	return append(out, q.Dims...)
}

func (d *Data) hasMetricFilter(q *Query) bool {
	return slices.ContainsFunc(q.Filters, func(f Filter) bool { return f.Metric })
}

// sortsOnMoney: a sort key is a money metric.
func sortsOnMoney(q *Query) bool {
	return slices.ContainsFunc(q.Sort, func(k SortKey) bool { return Money[k.Field] })
}

// selectRows applies the metric filters, step 1 (userDims all empty), the sort
// and the limit to rows of q.
func (d *Data) selectRows(rows []*Row, q *Query, userDims []string, g string) *selection {
	s := &selection{}
	for _, r := range rows {
		ok := true
		for _, f := range q.Filters {
			if f.Metric && !MatchNumber(metricValue(d, q, g, r, f.Field), f) {
				ok = false
			}
		}
		if !ok {
			continue
		}
		s.passed = append(s.passed, r)
		empty := len(userDims) > 0
		for _, u := range userDims {
			if r.Dims[slices.Index(q.Dims, u)] != "" {
				empty = false
			}
		}
		if empty {
			s.removed = append(s.removed, r)
		} else {
			s.qualifying = append(s.qualifying, r)
			only := slices.Contains(userDims, "currency")
			for _, u := range userDims {
				if u != "currency" && r.Dims[slices.Index(q.Dims, u)] != "" {
					only = false
				}
			}
			if only {
				s.curOnly++
			}
		}
	}
	ties := tieColumns(q, "date")
	sort.SliceStable(s.qualifying, func(i, j int) bool {
		c, _ := compareRows(rowGetter(d, q, g, s.qualifying[i]), rowGetter(d, q, g, s.qualifying[j]), q.Sort, ties, nil)
		return c < 0
	})
	curs := map[string]bool{}
	for _, r := range s.qualifying {
		curs[r.Currency()] = true
	}
	s.perCur = sortsOnMoney(q) && len(curs) > 1
	s.kept = s.qualifying
	if q.Limit > 0 {
		s.kept = nil
		n := map[string]int{}
		for _, r := range s.qualifying {
			k := ""
			if s.perCur {
				k = r.Currency()
			}
			if n[k] < q.Limit {
				n[k]++
				s.kept = append(s.kept, r)
			}
		}
	}
	return s
}

// expectation is what the oracle expects of a CSV answer.
type expectation struct {
	G, R    string
	coarse  bool // filter_at_coarser_grain: filters and limit apply to the coarse rows
	local   bool // rolled up locally from the selected fine rows
	coarser bool // returned at a coarser grain than requested
	sel     *selection
	rows    []*Row // the expected returned rows, at grain R
	passedG *selection
	notes   []string
}

func (d *Data) expect(q *Query, userDims []string, returned string, coarse bool) *expectation {
	e := &expectation{G: q.Grain, R: returned, coarse: coarse}
	if e.R == "" {
		e.R = e.G
	}
	e.coarser = e.R != e.G
	fine := d.Aggregate(q, e.G)
	e.passedG = d.selectRows(fine, q, userDims, e.G)
	selects := d.hasMetricFilter(q) || q.Limit > 0
	switch {
	case e.R == e.G:
		e.sel = e.passedG
		e.rows = e.sel.kept
	case coarse || !selects:
		e.sel = d.selectRows(d.Aggregate(q, e.R), q, userDims, e.R)
		e.rows = e.sel.kept
	case e.G == "weekly" && (e.R == "monthly" || e.R == "quarterly"):
		e.notes = append(e.notes, "weekly→"+e.R+" (does not nest) with a metric filter or limit, without a filter_at_coarser_grain warning")
		e.sel = d.selectRows(d.Aggregate(q, e.R), q, userDims, e.R)
		e.rows = e.sel.kept
	default:
		e.local = true
		e.sel = e.passedG
		e.rows = Rollup(e.sel.kept, e.R)
	}
	return e
}

// metricValue is metric m of row r of q at grain g, reach and frequency included.
func metricValue(d *Data, q *Query, g string, r *Row, m string) float64 {
	v, _, _ := rowGetter(d, q, g, r)(m)
	return v
}
