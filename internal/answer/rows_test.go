package answer

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/rowbudget"
)

// The row bound meets the re-query: a daily answer that fits the bound but
// not the budget is asked again at a coarser grain (reach needs it), and the
// re-query's rows count for the call too. Over the bound the answer says the
// call needs more rows, re-queries included — not that the result alone has.
func TestRowBoundCountsReQueries(t *testing.T) {
	args := `{` + meta6 + `,"date_preset":"last_90d","dimensions":["campaign_name"],"metrics":["spend","reach"],"time_granularity":"daily"}`
	e := engine(t)
	first := ask(t, e, "", 3000, args)
	if first.IsError || first.Response.Meta.SourceCalls < 2 {
		t.Fatalf("the case needs a re-query: isError %v, source_calls %d", first.IsError, first.Response.Meta.SourceCalls)
	}
	daily := int64(first.Response.Meta.OriginalRows)

	// A bound that holds the daily rows but not the re-query's besides.
	e.Rows = rowbudget.New(daily+1, daily+1)
	e.Rows.Floor = 1
	res, err := e.Query(context.Background(), Request{Args: []byte(args), Budget: 3000})
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(res.Blocks[0]), &body); err != nil || !res.IsError || body["type"] != "too_many_rows" {
		t.Fatalf("want too_many_rows, got isError %v: %.300s", res.IsError, res.Blocks[0])
	}
	if d := body["detail"].(string); !strings.Contains(d, "re-query") {
		t.Errorf("the detail does not say re-queries count: %s", d)
	}
	if e.Rows.InUse() != 0 {
		t.Errorf("%d rows still held after the answer", e.Rows.InUse())
	}

	// With room for both, the same call answers as before.
	e.Rows = rowbudget.New(10*daily, 10*daily)
	if again := ask(t, e, "", 3000, args); again.IsError || again.Response.Meta.ReturnedRows != first.Response.Meta.ReturnedRows {
		t.Errorf("with room for the re-query: isError %v, %d rows (want %d)", again.IsError, again.Response.Meta.ReturnedRows, first.Response.Meta.ReturnedRows)
	}
}
