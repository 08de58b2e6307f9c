package sqlgen

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/query"
)

// PostgreSQL numbers its placeholders $1…$n in the order of the arguments, and
// none of DuckDB's spellings leak into its SQL.
func TestPostgresDialect(t *testing.T) {
	q := sampleQuery(query.Contains)
	p, err := Compile(q, Postgres{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Args {
		if !strings.Contains(p.SQL, fmt.Sprintf("$%d", i+1)) {
			t.Errorf("no $%d in\n%s", i+1, p.SQL)
		}
	}
	if strings.Contains(p.SQL, fmt.Sprintf("$%d", len(p.Args)+1)) || strings.Contains(p.SQL, "?") {
		t.Errorf("placeholders do not match %d args:\n%s", len(p.Args), p.SQL)
	}
	for _, duck := range []string{"::DOUBLE", "strftime", "contains(", "::DATE"} {
		if strings.Contains(p.SQL, duck) {
			t.Errorf("DuckDB's %q in PostgreSQL SQL:\n%s", duck, p.SQL)
		}
	}
}

// ClickHouse 18 has no CTEs, no window functions and one JOIN per SELECT: the
// SQL uses none of them, binds one "?" per argument with dates wrapped in
// toDate, and leaves the limit and the count before it to the reader.
func TestClickHouseDialect(t *testing.T) {
	q := sampleQuery(query.StartsWith)
	p, err := Compile(q, ClickHouse{})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(p.SQL, "?"); n != len(p.Args) {
		t.Errorf("%d placeholders for %d args:\n%s", n, len(p.Args), p.SQL)
	}
	for _, banned := range []string{"WITH ", " OVER ", "LIMIT", "IS NOT DISTINCT", "JOIN accounts", "JOIN campaigns", "::"} {
		if strings.Contains(p.SQL, banned) {
			t.Errorf("%q in ClickHouse SQL:\n%s", banned, p.SQL)
		}
	}
	if strings.Count(p.SQL, "toDate(?)") != 4 || !strings.Contains(p.SQL, "ANY LEFT JOIN") {
		t.Errorf("dates not wrapped in toDate, or no reach join:\n%s", p.SQL)
	}
	if !p.ReaderCounts || p.ReaderLimit != 5 {
		t.Errorf("ReaderCounts %v, ReaderLimit %d: the reader must apply the limit", p.ReaderCounts, p.ReaderLimit)
	}
}

// Reading past the limit counts the rows without keeping them.
func TestReadTableReaderLimit(t *testing.T) {
	p := &Plan{Columns: []*fit.Column{{Name: "campaign_name", Role: fit.RoleDimension}, {Name: "spend", Role: fit.RoleMetric}},
		ReaderCounts: true, ReaderLimit: 2}
	rows := &fakeRows{data: [][2]any{{"a", 3.0}, {"b", 2.0}, {"c", 1.0}}}
	tab, err := ReadTable(context.Background(), rows, p, fit.Total)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 2 || tab.RowsBeforeLimit != 3 || tab.Columns[0].Strings[1] != "b" {
		t.Errorf("rows %d, before limit %d, %v", tab.Len(), tab.RowsBeforeLimit, tab.Columns[0].Strings)
	}
}

type fakeRows struct {
	data [][2]any
	i    int
}

func (r *fakeRows) Next() bool { r.i++; return r.i <= len(r.data) }
func (r *fakeRows) Err() error { return nil }
func (r *fakeRows) Scan(dest ...any) error {
	row := r.data[r.i-1]
	if err := dest[0].(interface{ Scan(any) error }).Scan(row[0]); err != nil {
		return err
	}
	return dest[1].(interface{ Scan(any) error }).Scan(row[1])
}

// sampleQuery uses every part of the SQL: weekly periods, two dimensions, a
// ratio, reach, a text filter with op, a metric filter and a limit.
func sampleQuery(op query.Operator) *query.Query {
	return &query.Query{
		Accounts:   []ads.Account{{AccountID: "act_1", Platform: "meta_ads", Currency: "USD"}},
		Start:      time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		End:        time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC),
		Dimensions: []string{"account_id", "campaign_name"},
		Metrics:    []string{"spend", "ctr", "reach"},
		Filters: []query.Filter{
			{Field: "campaign_name", Operator: op, Values: []any{"x"}},
			{Field: "spend", Operator: query.GreaterThan, Values: []any{1.5}, Metric: true},
		},
		Grain: fit.Weekly,
		Limit: 5,
	}
}
