package sqlgen

import (
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/query"
)

// Each dialect groups a quarterly query by the quarter's first day and labels
// it YYYY-Qn, in the functions its engine has (ClickHouse 18.16's
// formatDateTime has no quarter pattern).
func TestQuarterlySQL(t *testing.T) {
	for _, c := range []struct {
		d                  Dialect
		truncate, label    string
		notTruncate, notIn string
	}{
		{DuckDB{}, "date_trunc('quarter', f.date)::DATE", "(strftime(p, '%Y') || '-Q' || CAST(quarter(p) AS VARCHAR))", "'month'", "'%Y-%m'"},
		{Postgres{}, "date_trunc('quarter', f.date)::date", `to_char(p, 'YYYY-"Q"Q')`, "'month'", "'YYYY-MM'"},
		{ClickHouse{}, "toStartOfQuarter(f.date)", "concat(toString(toYear(p)), '-Q', toString(toQuarter(p)))", "toStartOfMonth", "'%Y-%m'"},
	} {
		t.Run(c.d.Name(), func(t *testing.T) {
			q := sampleQuery(query.Contains)
			q.Grain, q.Metrics = fit.Quarterly, []string{"spend", "ctr"}
			p, err := Compile(q, c.d)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{c.truncate + " AS p", c.label} {
				if !strings.Contains(p.SQL, want) {
					t.Errorf("no %q in\n%s", want, p.SQL)
				}
			}
			for _, not := range []string{c.notTruncate, c.notIn} {
				if strings.Contains(p.SQL, not) {
					t.Errorf("a monthly %q in quarterly SQL:\n%s", not, p.SQL)
				}
			}
			if got := p.Columns[0].Name; got != "quarter" {
				t.Errorf("first column %q, want quarter", got)
			}
		})
	}
}

// Reach is stored per day, week and month only: at quarterly grain it is
// left out with a notice naming the months that could answer instead, and
// never summed; reach alone is kept as an empty column. No stored reach is
// read (live connectors fetch none).
func TestQuarterlyReachIsUnavailable(t *testing.T) {
	q := sampleQuery(query.Contains)
	q.Grain, q.Filters = fit.Quarterly, nil
	q.Start, q.End = time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 12, 31, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		metrics []string
		what    string
	}{
		{[]string{"spend", "reach", "frequency"}, "reach and frequency left out: "},
		{[]string{"reach"}, "reach is empty: "},
	} {
		q.Metrics = c.metrics
		for _, d := range []Dialect{DuckDB{}, Postgres{}, ClickHouse{}} {
			p, err := Compile(q, d)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Notices) != 1 || p.Notices[0].Type != "metric_unavailable_at_grain" ||
				!strings.HasPrefix(p.Notices[0].Detail, c.what+"reach is not stored per calendar quarter") ||
				!strings.Contains(p.Notices[0].Detail, "the 3 whole months 2025-10-01 … 2025-12-31") {
				t.Errorf("%s %v: notices %+v", d.Name(), c.metrics, p.Notices)
			}
			if strings.Contains(p.SQL, "FROM reach") || strings.Contains(p.SQL, "MAX(r.reach)") {
				t.Errorf("%s %v: quarterly SQL reads stored reach:\n%s", d.Name(), c.metrics, p.SQL)
			}
		}
		if need := ReachNeeded(q, c.metrics); need != nil {
			t.Errorf("%v: ReachNeeded = %+v, want none", c.metrics, need)
		}
	}
	// A filter on reach cannot apply where reach is unavailable.
	q.Metrics = []string{"spend", "reach"}
	q.Filters = []query.Filter{{Field: "reach", Operator: query.GreaterThan, Values: []any{1.0}, Metric: true}}
	if _, err := Compile(q, DuckDB{}); err == nil || !strings.Contains(err.Error(), "not available for this query") {
		t.Errorf("a reach filter at quarterly grain: %v", err)
	}
}
