package fit

// Summary describes a complete table statistically, so that the model understands
// its shape without reading it.
type Summary struct {
	TotalRows       int                `json:"total_rows"`
	TimeGranularity Grain              `json:"time_granularity"`
	TokenEstimate   int                `json:"token_estimate"`
	TokenBudget     int                `json:"token_budget"`
	Dimensions      []DimensionSummary `json:"dimensions"`
	Metrics         []MetricSummary    `json:"metrics"`
	// Movers, in a comparison's summary, are the values that changed most.
	Movers *Movers `json:"movers,omitempty"`
}

// DimensionSummary describes one dimension column.
type DimensionSummary struct {
	Field       string `json:"field"`
	UniqueCount int    `json:"unique_count"`
	// TopValues are the most frequent values, most frequent first.
	TopValues []string `json:"top_values"`
	// First and Last are the smallest and largest labels of the time column (its
	// range); empty for other dimensions.
	First string `json:"first,omitempty"`
	Last  string `json:"last,omitempty"`
	// TopByMetric are the values with the largest total of the main metric, with
	// their share of it; serialized as "top_by_<metric>" (e.g. top_by_spend).
	// For money, per currency (Currency set).
	MainMetric  string       `json:"-"`
	TopByMetric []ValueShare `json:"-"`
}

// ValueShare is a value's total of the main metric and its share of the total.
type ValueShare struct {
	Value    string  `json:"value"`
	Amount   float64 `json:"-"` // serialized under the main metric's name
	Share    float64 `json:"share"`
	Currency string  `json:"currency,omitempty"`
}

// MetricSummary describes one metric column (for money: one per currency).
type MetricSummary struct {
	Field       string `json:"field"`
	Aggregation string `json:"aggregation"`
	Currency    string `json:"currency,omitempty"`
	// Min, Max and Avg are over the rows with a value; nil when there is none.
	// Avg is nil for ratios too: a ratio is recomputed from its parts (Overall),
	// never averaged.
	Min *float64 `json:"min,omitempty"`
	Max *float64 `json:"max,omitempty"`
	Avg *float64 `json:"avg,omitempty"`
	// Sum and Overall, in the pipeline's summaries, are over everything
	// asked: the rows step 1 removed are in them (overWhole).
	Sum     *float64 `json:"sum,omitempty"`
	Overall *float64 `json:"overall,omitempty"`
	// EmptyValues counts rows without a value (a ratio over zero).
	EmptyValues int `json:"empty_values,omitempty"`
}
