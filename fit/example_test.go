package fit_test

import (
	"context"
	"fmt"
	"os"
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

// A server whose results come as rows builds its Table with a Builder: one
// value per column, a time.Time labelled at the table's grain, nil for no
// value (a ratio over a zero denominator). Ratios name their summed parts,
// hidden when nobody asked to see them.
func ExampleNewBuilder() {
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	t, err := fit.NewBuilder(fit.Daily,
		fit.Period(fit.Daily),
		fit.Dimension("product"),
		fit.SumMetric("revenue").InCurrency("EUR"),
		fit.SumMetric("orders").AsHidden(),
		fit.RatioMetric("avg_order_value", "revenue", "orders", 1).InCurrency("EUR"),
	).
		Row(start, "Lamp", 120.5, 3, 40.1667).
		Row(start.AddDate(0, 0, 1), "Lamp", 0, 0, nil). // no orders: no average
		Row(start.AddDate(0, 0, 2), "Desk", 310, 1, 310).
		Table()
	if err != nil {
		panic(err)
	}
	if err := fit.WriteCSV(os.Stdout, t); err != nil {
		panic(err)
	}
	// Output:
	// date,product,revenue,avg_order_value
	// 2026-01-05,Lamp,120.5,40.1667
	// 2026-01-06,Lamp,0,
	// 2026-01-07,Desk,310,310
}

// Rollup merges rows into a coarser grain exactly: sums add up, ratios are
// recomputed from their summed parts, and non-additive metrics, which cannot be
// merged, are left out and named.
func ExampleRollup() {
	b := fit.NewBuilder(fit.Daily,
		fit.Period(fit.Daily),
		fit.Dimension("product"),
		fit.SumMetric("revenue"),
		fit.SumMetric("orders").AsHidden(),
		fit.RatioMetric("avg_order_value", "revenue", "orders", 1),
		fit.NonAdditiveMetric("visitors"),
	)
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC) // a Monday
	for d := range 10 {
		b.Row(start.AddDate(0, 0, d), "Lamp", 10*(d+1), d+1, 10, 7)
	}
	daily, err := b.Table()
	if err != nil {
		panic(err)
	}
	weekly, dropped, err := fit.Rollup(daily, fit.Weekly)
	if err != nil {
		panic(err)
	}
	if err := fit.WriteCSV(os.Stdout, weekly); err != nil {
		panic(err)
	}
	fmt.Println("left out:", dropped)
	// Output:
	// week,product,revenue,avg_order_value
	// 2026-01-05,Lamp,280,10
	// 2026-01-12,Lamp,270,10
	// left out: [visitors]
}

// Summarize describes a whole table statistically: what a data_too_large
// answer carries instead of the rows when not even the coarsest grain fits.
func ExampleSummarize() {
	b := fit.NewBuilder(fit.Total, fit.Dimension("country"), fit.SumMetric("revenue").InCurrency("USD"))
	for i, c := range []string{"US", "US", "DE", "FR", "US", "DE"} {
		b.Row(c, 100*(i+1))
	}
	t, err := b.Table()
	if err != nil {
		panic(err)
	}
	s := fit.Summarize(t, fit.SummaryOptions{MainMetric: "revenue", TopValues: 2, TopByMetric: 2})
	out, err := fit.MarshalText(s)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out))
	// Output:
	// {"total_rows":6,"time_granularity":"total","token_estimate":0,"token_budget":0,"dimensions":[{"field":"country","unique_count":3,"top_values":["US","DE"],"top_by_revenue":[{"value":"DE","revenue":900,"share":0.4286},{"value":"US","revenue":800,"share":0.381}]}],"metrics":[{"field":"revenue","aggregation":"sum","currency":"USD","min":100,"max":600,"avg":350,"sum":2100}]}
}

// byteCounter is a TokenCounter for a model whose tokenizer is not o200k_base:
// here, conservatively, one token a byte. Exact must never exceed MaxTokens(s),
// the byte length; Estimate may be cruder.
type byteCounter struct{ calls int }

func (c *byteCounter) Estimate(s string) int { c.calls++; return len(s) }
func (c *byteCounter) Exact(s string) int    { c.calls++; return len(s) }

// A server for a model with another tokenizer gives Fit its own TokenCounter:
// the budget is then counted in that model's tokens.
func ExampleTokenCounter() {
	b := fit.NewBuilder(fit.Total, fit.Dimension("product"), fit.SumMetric("units"))
	for p := range 300 {
		b.Row("Product "+strconv.Itoa(p), p)
	}
	t, err := b.Table()
	if err != nil {
		panic(err)
	}
	o200k, err := fit.Fit(context.Background(), t, fit.Options{Budget: 4000})
	if err != nil {
		panic(err)
	}
	counter := &byteCounter{}
	bytes, err := fit.Fit(context.Background(), t, fit.Options{Budget: 4000, Counter: counter})
	if err != nil {
		panic(err)
	}
	size := 0
	for _, block := range bytes.Blocks {
		size += len(block)
	}
	fmt.Println("4000 o200k_base tokens:", o200k.Kind, o200k.Meta.ReturnedRows, "rows")
	fmt.Println("4000 bytes:", bytes.Kind, "; counted by the custom counter:", counter.calls > 0, "; within its budget:", size <= 4000)
	// Output:
	// 4000 o200k_base tokens: data 300 rows
	// 4000 bytes: data_too_large ; counted by the custom counter: true ; within its budget: true
}

// When not even the coarsest grain fits, the answer is data_too_large: a
// summary and narrower queries that do fit, each computed from the data in
// hand. Suggest writes a Narrowing as the server's own query arguments; Query
// is the query echoed in _meta, the one the narrowings start from.
func ExampleOptions_suggest() {
	type query struct {
		Products []string `json:"products,omitempty"`
		Limit    int      `json:"limit,omitempty"`
	}
	b := fit.NewBuilder(fit.Total, fit.Dimension("product"), fit.SumMetric("revenue").InCurrency("USD"))
	for p := range 2000 {
		b.Row(fmt.Sprintf("Product %04d", p), 10+p%97)
	}
	t, err := b.Table()
	if err != nil {
		panic(err)
	}
	resp, err := fit.Fit(context.Background(), t, fit.Options{Budget: 1500, Query: query{},
		Suggest: func(n fit.Narrowing) any {
			if n.Field != "product" {
				return nil // this server's queries can only narrow by product
			}
			return query{Products: n.Values}
		}})
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.Kind, "; rows summarized:", resp.TooLarge.Summary.TotalRows)
	for _, s := range resp.TooLarge.RequeryInstructions.Suggestions {
		fmt.Println(s.Description, "→", len(s.Query.(query).Products), "products,", s.ExpectedRows, "rows; fits:", s.TokenEstimate <= 1500)
	}
	// Output:
	// data_too_large ; rows summarized: 2000
	// Top 89 product by revenue (8% of the total), total → 89 products, 89 rows; fits: true
}
