// Package fit turns a complete query result into a response that fits an AI
// client's context budget without silently dropping a row: it encodes the table as
// CSV, counts tokens, coarsens the time grain with exact local roll-ups and, when
// nothing else fits, summarizes the whole result with ready-to-run narrower queries.
//
// The package knows nothing of advertising. Its input is a Table: typed dimension
// columns, at most one time column and metric columns that declare how they
// aggregate (sum, ratio of two summed columns, or non-additive). Sources of any kind
// build a Table; adsmcp's ad-data sources are one such producer.
//
// The Table type lives here, rather than in a package of its own, because it is the
// pipeline's input contract: a Go developer who imports fit for another MCP server
// needs exactly this type and nothing else from adsmcp.
//
// Three options keep an answer's meaning when it is coarsened: Selection says the
// rows were chosen at their own grain (a filter on aggregated values, a top-N), so a
// roll-up merges exactly those rows and says so; Sort is the order every answer
// keeps, at every grain (SortRows); LimitPartition names the column a top-N was
// taken within. Rows whose dimensions are all empty (JudgedDimensions) are removed
// with what they carried (Totals), so the rows returned plus the removed totals
// always equal the complete totals.
package fit
