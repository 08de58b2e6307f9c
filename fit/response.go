package fit

import (
	"bytes"
	"encoding/json"
)

// Response is what the pipeline returns: the blocks of text the model reads, and
// their structured form. Kind says which of the two shapes it is.
type Response struct {
	Kind Kind
	// Blocks are the exact texts the model reads, in order. For KindData: the
	// _meta JSON object, then the CSV. For KindTooLarge: one JSON object.
	Blocks []string
	// Meta is the _meta block, also embedded in Blocks.
	Meta Meta
	// Table is the table returned as CSV (KindData only), after filtering and any
	// roll-up.
	Table *Table
	// TooLarge is the summary response (KindTooLarge only).
	TooLarge *TooLarge
}

// Kind of response.
type Kind string

const (
	// KindData: the complete data, possibly at a coarser grain, as CSV.
	KindData Kind = "data"
	// KindTooLarge: a statistical summary of the complete data and narrower
	// queries, because even the coarsest grain does not fit the budget.
	KindTooLarge Kind = "data_too_large"
)

// Meta tells the model what was done to produce a response.
type Meta struct {
	OriginalRows    int    `json:"original_rows"`
	ReturnedRows    int    `json:"returned_rows"`
	RowsBeforeLimit int    `json:"rows_before_limit,omitempty"`
	Format          string `json:"format"`
	TokenEstimate   int    `json:"token_estimate"`
	TokenBudget     int    `json:"token_budget"`
	// ByteBudget and LineBudget are the client's other limits (Options.MaxBytes,
	// MaxLines), when it has them.
	ByteBudget   int    `json:"byte_budget,omitempty"`
	LineBudget   int    `json:"line_budget,omitempty"`
	BudgetSource string `json:"budget_source,omitempty"`
	// BindingLimit names the limit ("tokens", "bytes" or "lines") the answer as
	// asked was over, when it had to be coarsened or summarized.
	BindingLimit    string         `json:"binding_limit,omitempty"`
	TimeGranularity *GrainChange   `json:"time_granularity,omitempty"`
	Optimizations   []Optimization `json:"optimizations_applied"`
	Warnings        []Warning      `json:"warnings"`
	// Alternatives are narrower queries that keep the requested grain, offered
	// when the answer had to be coarsened (see Alternative).
	Alternatives []Alternative `json:"alternatives,omitempty"`
	// Comparison states both windows of a period-over-period answer.
	Comparison  *ComparisonMeta `json:"comparison,omitempty"`
	Definitions any             `json:"definitions,omitempty"`
	Provenance  any             `json:"data_source,omitempty"`
	Query       any             `json:"query,omitempty"`
	SourceCalls int             `json:"source_calls"`
	ElapsedMS   int64           `json:"elapsed_ms"`
}

// GrainChange is the requested and the returned time granularity.
type GrainChange struct {
	Requested Grain `json:"requested"`
	Returned  Grain `json:"returned"`
}

// Optimization is one thing done to the data or the query, reported so nothing is
// lost silently.
type Optimization struct {
	Type  string `json:"type"`
	Field string `json:"field,omitempty"`
	From  string `json:"from,omitempty"`
	To    string `json:"to,omitempty"`
	// Grain is the grain of the rows an optimization concerns when it is not
	// the requested one (a validation_filter on a re-query's rows).
	Grain       Grain `json:"grain,omitempty"`
	RowsRemoved int   `json:"rows_removed,omitempty"`
	// RemovedTotals are the sums the removed rows carried, per currency, so the
	// rows returned plus these equal the complete totals.
	RemovedTotals []Totals `json:"removed_totals,omitempty"`
	RowsBefore    int      `json:"rows_before,omitempty"`
	RowsAfter     int      `json:"rows_after,omitempty"`
	Detail        string   `json:"detail"`
}

// Warning is something the model should tell the user.
type Warning struct {
	Type   string   `json:"type"`
	Detail string   `json:"detail"`
	Fields []string `json:"fields,omitempty"`
	// Keys are the partition keys concerned (for adsmcp: account IDs).
	Keys []string `json:"keys,omitempty"`
	// aboutEmpty is the Notice's AboutEmpty.
	aboutEmpty []string
}

// TooLarge is the data_too_large response.
type TooLarge struct {
	Type                string              `json:"type"`
	Summary             *Summary            `json:"summary"`
	RequeryInstructions RequeryInstructions `json:"requery_instructions"`
	Meta                *Meta               `json:"_meta"`
}

// RequeryInstructions help the model ask a narrower question.
type RequeryInstructions struct {
	Operators   []string     `json:"operators,omitempty"`
	Suggestions []Suggestion `json:"suggestions"`
}

// Suggestion is a complete, ready-to-run narrower query whose result size was
// computed from the data in hand.
type Suggestion struct {
	Description   string `json:"description"`
	Query         any    `json:"query"`
	ExpectedRows  int    `json:"expected_rows"`
	TokenEstimate int    `json:"token_estimate"`
}

// Alternative is a ready-to-run query that keeps the grain a coarsened answer
// gave up: the requested grain on the top values of the main dimension, whose
// answer fits the budget. Rest, when set, is its companion: the same grain with
// the other values folded into one row per period (and per remaining
// dimension), so that the two answers together count every amount of the
// requested data. Rows and tokens of both are computed from the data in hand,
// as a Suggestion's are.
type Alternative struct {
	Suggestion
	Rest *Suggestion `json:"rest,omitempty"`
}

// MarshalText encodes v as compact JSON the way responses are written: without
// HTML escaping ("Harbor & Pine" stays readable and costs fewer tokens) and
// without a trailing newline.
func MarshalText(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
