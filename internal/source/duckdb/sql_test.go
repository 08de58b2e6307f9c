package duckdb

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/query"
)

func sqlTestQuery() *query.Query {
	return &query.Query{
		Accounts:   []ads.Account{{AccountID: "act_1", Platform: "meta_ads", Currency: "USD"}},
		Start:      time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		End:        time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC),
		Dimensions: []string{"campaign_name"},
		Metrics:    []string{"spend", "ctr"},
		Grain:      fit.Weekly,
	}
}

// Values never appear in the SQL text: they travel as parameters.
func TestCompileParameterizesValues(t *testing.T) {
	q := sqlTestQuery()
	evil := `x'); DROP TABLE facts; --`
	q.Filters = []query.Filter{
		{Field: "campaign_name", Operator: query.Contains, Values: []any{evil}},
		{Field: "spend", Operator: query.GreaterThan, Values: []any{12345.5}, Metric: true},
	}
	q.Sort = []query.SortKey{{Field: "spend", Desc: true}}
	q.Limit = 7
	p, err := compile(q)
	if err != nil {
		t.Fatal(err)
	}
	for _, lit := range []string{"DROP", "12345.5", "act_1", "2026-01"} {
		if strings.Contains(p.sql, lit) {
			t.Errorf("SQL contains the value %q:\n%s", lit, p.sql)
		}
	}
	if strings.Count(p.sql, "?") != len(p.args) {
		t.Errorf("%d placeholders, %d args", strings.Count(p.sql, "?"), len(p.args))
	}
	if !slices.Contains(p.args, any(evil)) || !slices.Contains(p.args, any(12345.5)) || !slices.Contains(p.args, any(7)) {
		t.Errorf("args %v lack the filter values or the limit", p.args)
	}
}

// A name that is not in the catalog cannot become SQL, even if normalization
// were bypassed.
func TestCompileRejectsNonCatalogNames(t *testing.T) {
	for _, mutate := range []func(*query.Query){
		func(q *query.Query) { q.Dimensions = []string{"campaign_name; DROP TABLE facts"} },
		func(q *query.Query) { q.Metrics = []string{"spend) FROM facts; --"} },
		func(q *query.Query) {
			q.Filters = []query.Filter{{Field: "1=1 OR campaign_name", Operator: query.Equals, Values: []any{"x"}}}
		},
		func(q *query.Query) { q.Grain = "hourly" },
	} {
		q := sqlTestQuery()
		mutate(q)
		if p, err := compile(q); err == nil {
			t.Errorf("compiled %+v:\n%s", q, p.sql)
		}
	}
}

// Joins are added only when a dimension or filter needs them.
func TestCompileJoinsOnlyWhatIsNeeded(t *testing.T) {
	q := sqlTestQuery()
	q.Dimensions = []string{"account_id"}
	p, err := compile(q)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range []string{"campaigns", "adsets", "ads d"} {
		if strings.Contains(p.sql, j) {
			t.Errorf("account_id only, yet joins %s", j)
		}
	}
	q.Filters = []query.Filter{{Field: "ad_name", Operator: query.Contains, Values: []any{"x"}}}
	if p, _ = compile(q); !strings.Contains(p.sql, "LEFT JOIN ads d") {
		t.Error("a filter on ad_name does not join ads")
	}
}
