package fit

import (
	"context"
	"time"
)

// Options configure Fit. Only Budget is required; the zero value of every other
// field is a working default. The fields at the top are what any server needs;
// Report, Partitions and Dialect group what a server with richer reporting (such
// as adsmcp) adds, and can be left alone.
type Options struct {
	// Budget is the number of tokens the whole response (every block the model
	// reads) may use, as counted by Counter's Exact (o200k_base by default).
	Budget int
	// Counter counts tokens (default: NewO200k()).
	Counter TokenCounter
	// MaxBytes and MaxLines, when positive, are limits the client applies
	// besides tokens, as Measure counts them: some clients keep only the first
	// and last kilobytes or lines of a tool result and drop the middle. The
	// response stays within whichever binds first, and _meta.binding_limit
	// names the limit the answer as asked was over. They are exact: no margin
	// is taken off them.
	MaxBytes, MaxLines int
	// Measure counts a response's bytes and lines as the client does (default
	// MeasureText: the blocks joined by a newline).
	Measure func(blocks []string) Extent

	// Requery fetches the same data afresh at a coarser grain: needed for
	// non-additive metrics, for grains that do not nest (weekly → monthly or quarterly) and
	// where Selection rules out a roll-up. Nil: those grains are skipped or their
	// non-additive metrics reported unavailable.
	Requery func(ctx context.Context, g Grain) (*Table, error)
	// Definitions say what the caller's numbers mean where their definition
	// varies by source (which conversions a count holds, under which
	// attribution window), reported as _meta.definitions (as JSON), so the
	// reader never repeats a number without its definition. Nil: none.
	Definitions any
	// Provenance says where the table's rows came from and how fresh they
	// are (for adsmcp: a synced warehouse, per account, or the platforms'
	// APIs), reported as _meta.data_source (as JSON). Nil: not said.
	Provenance any
	// Query is the query that produced the table, reported in _meta.query (as
	// JSON) so the model can re-run or change it. Nil: no echo.
	Query any
	// Suggest turns a Narrowing into ready-to-run query arguments for a
	// data_too_large answer; nil, or a nil result, means no suggestion of that
	// kind.
	Suggest func(Narrowing) any

	// Start and End are the inclusive dates the table covers, for partial-period
	// warnings and shorter-range suggestions. Zero: unknown.
	Start, End time.Time
	// Sort is the order the caller asked for; every answer keeps it, at every
	// grain (see SortRows).
	Sort []SortKey
	// MainMetric ranks values in summaries and suggestions (default: the first
	// visible Sum metric).
	MainMetric string
	// Selection, when not empty, says how the table's rows were selected at the
	// requested grain (a filter on aggregated metric values, a top-N limit), in
	// words for the reader: "spend > 30", "the top 50 by spend". A coarser grain
	// then aggregates exactly the selected rows (a local roll-up, whose detail
	// says so); where a roll-up is impossible (non-additive metrics, weekly →
	// monthly) a re-query applies the selection to the coarser periods instead,
	// and a filter_at_coarser_grain warning says so. Suggestions stay at the
	// requested grain, where they can be re-run exactly.
	Selection string

	// Compare, when set, answers the table side by side with the same query
	// over another window (see Comparison).
	Compare *Comparison
	// Report is what _meta says of the work done before Fit.
	Report Report
	// Partitions say which part of the data each row belongs to, for the
	// all_zero_metrics warning.
	Partitions Partitions
	// Dialect describes the caller's query language where Fit writes queries
	// back to the model: shorter echoes, operators, limits per partition.
	Dialect Dialect
}

// Report is what a response's _meta says of the work done before Fit: the
// caller's budget and where it came from, what the query's normalization
// changed, and the source calls so far. Every field is optional.
type Report struct {
	// AnnouncedBudget is the budget reported in _meta.token_budget when it
	// differs from Budget (a client's budget less a tokenizer margin).
	// Default: Budget.
	AnnouncedBudget int
	// BudgetSource says where the budget came from (_meta.budget_source).
	BudgetSource string
	// Optimizations and Warnings made before the pipeline (query
	// normalization) are reported first.
	Optimizations []Optimization
	Warnings      []Warning
	// SourceCalls already made to produce the table; each re-query adds one.
	SourceCalls int
	// SourceCallsSoFar, when set, replaces that count: _meta.source_calls is
	// what it returns when the response is built. For sources that count their
	// own requests (an ad platform's API makes several HTTP calls per query).
	SourceCallsSoFar func() int
	// Started is when the work began, for _meta.elapsed_ms (default: Fit's
	// start).
	Started time.Time
}

// Partitions say which part of the data each row belongs to (adsmcp: an ad
// account). A partition whose every metric is zero gets an all_zero_metrics
// warning naming its key — in adsmcp a healthy connection whose token likely
// lacks the right scopes — and suggestions leave room for the warnings of a
// narrower answer that leaves partitions without rows. The zero value treats
// the whole table as one partition with no key.
type Partitions struct {
	// Column names the column whose values are the partition keys. When the
	// table has no such column, the whole table is one partition and Keys are
	// the keys reported (none, when the caller cannot tell which partitions the
	// rows come from). No warning is given for a Selection.
	Column string
	// Keys are the partitions the query asked for.
	Keys []string
	// ZeroDetail explains an all-zero partition to the user.
	ZeroDetail string
	// Judged says the caller judged each partition itself, for a table
	// without Column (adsmcp asks its source per account, so whether an
	// account is all zero does not depend on the dimensions asked): Zero are
	// the partitions it found all zero (AllZeroPartitions over the table by
	// Column), and Fit warns about them instead of judging the table as one
	// partition. Ignored when the table has Column.
	Judged bool
	Zero   []string
}

// zeroOf is the all-zero judgement of a table whose own judgement (by the
// partition column, or as one partition) is keys and whole: the caller's,
// when it judged the partitions of a table without their column.
func (o Partitions) zeroOf(t *Table, keys []string, whole bool) ([]string, bool) {
	if o.Judged && (o.Column == "" || t.Column(o.Column) == nil) {
		return o.Zero, false
	}
	return keys, whole
}

// Dialect describes the caller's query language where Fit writes queries back
// to the model: in _meta.query and in a data_too_large answer's
// requery_instructions. The zero value echoes the full query or none, lists no
// operators, and counts a limit over the whole table.
type Dialect struct {
	// Echoes gives shorter forms of a query (Options.Query, or a suggestion's)
	// for _meta.query, tried in order when the response does not fit with the
	// full one; after them the echo is left out. Nil: full, then left out.
	Echoes func(query any) []Echo
	// Operators lists the filter operators a narrower query may use
	// (requery_instructions.operators).
	Operators []string
	// LimitPartition names the column within each of whose values the source
	// applied a top-N limit (a limit per currency), so a suggested smaller limit
	// counts its rows the same way.
	LimitPartition string
}
