package fit_test

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/adsmcp/adsmcp/fit"
)

// A server of any kind hands Fit its complete result and a budget; Fit returns
// the blocks to send, and says in _meta what it did.
func ExampleFit() {
	t := &fit.Table{Grain: fit.Daily}
	date := &fit.Column{Name: "date", Role: fit.RoleTime}
	product := &fit.Column{Name: "product", Role: fit.RoleDimension}
	revenue := &fit.Column{Name: "revenue", Role: fit.RoleMetric, Aggregation: fit.Sum, Money: true, Currency: "USD"}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for d := range 90 {
		for p := range 40 {
			date.Strings = append(date.Strings, start.AddDate(0, 0, d).Format(time.DateOnly))
			product.Strings = append(product.Strings, "Product "+strconv.Itoa(p))
			revenue.Numbers = append(revenue.Numbers, float64(100+d+p))
		}
	}
	t.Columns = []*fit.Column{date, product, revenue}

	resp, err := fit.Fit(context.Background(), t, fit.Options{Budget: 5000,
		Start: start, End: start.AddDate(0, 0, 89)})
	if err != nil {
		panic(err)
	}
	m := resp.Meta
	fmt.Println(resp.Kind, m.OriginalRows, "rows →", m.ReturnedRows, "rows,", m.TimeGranularity.Requested, "→", m.TimeGranularity.Returned)
	fmt.Println(len(resp.Blocks), "blocks; within budget:", m.TokenEstimate <= 5000)
	// Output:
	// data 3600 rows → 120 rows, daily → monthly
	// 2 blocks; within budget: true
}

// A client that keeps only 10 KiB or 256 lines of a tool result (older Codex)
// is given both limits besides its tokens: the answer is coarsened until every
// limit holds, and _meta names the one that bound.
func ExampleOptions_maxBytes() {
	t := &fit.Table{Grain: fit.Daily}
	date := &fit.Column{Name: "date", Role: fit.RoleTime}
	product := &fit.Column{Name: "product", Role: fit.RoleDimension}
	units := &fit.Column{Name: "units", Role: fit.RoleMetric, Aggregation: fit.Sum}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for d := range 60 {
		for p := range 8 {
			date.Strings = append(date.Strings, start.AddDate(0, 0, d).Format(time.DateOnly))
			product.Strings = append(product.Strings, "Product "+strconv.Itoa(p))
			units.Numbers = append(units.Numbers, float64(d+p))
		}
	}
	t.Columns = []*fit.Column{date, product, units}

	resp, err := fit.Fit(context.Background(), t, fit.Options{Budget: 30000, MaxBytes: 10240, MaxLines: 256,
		Start: start, End: start.AddDate(0, 0, 59)})
	if err != nil {
		panic(err)
	}
	m := resp.Meta
	e := fit.MeasureText(resp.Blocks)
	fmt.Println(m.TimeGranularity.Requested, "→", m.TimeGranularity.Returned, "; binding limit:", m.BindingLimit)
	fmt.Println("within 10 KiB and 256 lines:", e.Bytes <= 10240 && e.Lines <= 256)
	// Output:
	// daily → weekly ; binding limit: lines
	// within 10 KiB and 256 lines: true
}
