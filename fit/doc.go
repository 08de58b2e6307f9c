// Package fit turns a complete query result into a response that fits an AI
// client's context budget without silently dropping a row: it encodes the table as
// CSV, counts tokens, coarsens the time grain with exact local roll-ups and, when
// nothing else fits, summarizes the whole result with ready-to-run narrower queries.
//
// The package knows nothing of advertising and imports nothing but the standard
// library and its tokenizer. Its input is a Table: typed dimension columns, at most
// one time column and metric columns that declare how they aggregate (sum, ratio of
// two summed columns, or non-additive). Sources of any kind build a Table — with
// NewBuilder and the column constructors (Dimension, Period, SumMetric,
// RatioMetric, NonAdditiveMetric) from rows, or directly as columns; adsmcp's
// ad-data sources are one such producer.
//
// The core is Fit(ctx, table, Options{Budget: n}). Options.Requery lets the pipeline
// ask the source again at a coarser grain, Options.Suggest writes its narrower
// queries in the caller's query language, Options.Counter counts another model's
// tokens (TokenCounter). Rollup and Summarize are the pipeline's coarsening and its
// data_too_large summary, usable on their own.
//
// Three options keep an answer's meaning when it is coarsened: Selection says the
// rows were chosen at their own grain (a filter on aggregated values, a top-N), so a
// roll-up merges exactly those rows and says so; Sort is the order every answer
// keeps, at every grain (SortRows); Dialect.LimitPartition names the column a top-N
// was taken within. Rows whose dimensions are all empty (JudgedDimensions) are
// removed with what they carried (Totals), so the rows returned plus the removed
// totals always equal the complete totals.
//
// What a richer server reports besides is grouped in Options.Report (the budget's
// source, the query's normalizations, source calls), Options.Partitions (the
// all_zero_metrics warning) and Options.Dialect (shorter query echoes, operators):
// each is optional.
package fit
