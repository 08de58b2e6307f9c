package sqlgen

import (
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
	q := &query.Query{
		Accounts:   []ads.Account{{AccountID: "act_1", Platform: "meta_ads", Currency: "USD"}},
		Start:      time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		End:        time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC),
		Dimensions: []string{"account_id", "campaign_name"},
		Metrics:    []string{"spend", "ctr", "reach"},
		Filters: []query.Filter{
			{Field: "campaign_name", Operator: query.Contains, Values: []any{"x"}},
			{Field: "spend", Operator: query.GreaterThan, Values: []any{1.5}, Metric: true},
		},
		Grain: fit.Weekly,
		Limit: 5,
	}
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
