// Package sqlgen compiles a normalized query into one parameterized SQL
// statement. The translation is shared by every SQL source; what differs
// between engines (placeholders, casts, period truncation and formatting,
// substring tests, text ordering) is isolated in a small Dialect, so the same
// query means the same thing everywhere.
package sqlgen

import (
	"fmt"
	"strings"

	"github.com/adsmcp/adsmcp/fit"
)

// Dialect is what one SQL engine spells differently. Every method returns SQL
// text built only from its arguments, which are SQL expressions produced by
// this package (never values).
type Dialect interface {
	// Name prefixes errors ("duckdb", "postgres").
	Name() string
	// Placeholder is the n-th (1-based) parameter marker.
	Placeholder(n int) string
	// Double casts expr to a double-precision float.
	Double(expr string) string
	// Truncate is the first day (a DATE) of the week (ISO, Monday), calendar
	// month or calendar quarter holding the DATE expr.
	Truncate(g fit.Grain, expr string) string
	// FormatPeriod is the DATE expr as the grain's label (fit.ParsePeriod
	// reads it back): YYYY-MM for monthly, YYYY-Qn for quarterly (the quarter
	// holding expr), else YYYY-MM-DD.
	FormatPeriod(g fit.Grain, expr string) string
	// Lower is the text expr in lower case, for case-insensitive matching,
	// Unicode-aware whatever the database's locale.
	Lower(expr string) string
	// Contains and StartsWith test text s against text sub (both already
	// lowercased by the caller).
	Contains(s, sub string) string
	StartsWith(s, prefix string) string
	// TextOrder is a text sort key in byte (code point) order, whatever the
	// database's collation.
	TextOrder(expr string) string
	// Date is a DATE parameter at placeholder ph. Compile passes dates as
	// time.Time; a source whose driver cannot bind them converts the arguments
	// (see Plan.DateArgs).
	Date(ph string) string
	// Layout is how the warehouse's tables are laid out in this engine.
	Layout() Layout
	// JoinReach is the FROM clause joining the aggregated rows (subquery agg,
	// aliased g) to their stored reach (subquery rch, aliased r) on keys, a
	// LEFT join that matches NULL keys to each other; with no keys rch has one
	// row, joined to every row of agg.
	JoinReach(agg, rch string, keys []string) string
	// WindowCount says whether the engine has COUNT(*) OVER (). Without it the
	// plan counts the rows before the limit, and applies the limit, while
	// reading (Plan.ReaderLimit).
	WindowCount() bool
}

// Layout is how the warehouse's tables are laid out.
type Layout int

const (
	// Normalized is the documented schema of schema.sql: facts and reach
	// joined to accounts, campaigns, ad sets and ads by ID.
	Normalized Layout = iota
	// Denormalized stores every descriptive column (platform, account_name,
	// campaign_name, …) on each facts and reach row, as ClickHouse prefers:
	// no joins at query time.
	Denormalized
)

// joinOn is the standard LEFT JOIN with NULL-safe key equality.
func joinOn(agg, rch string, keys []string) string {
	on := make([]string, len(keys))
	for i, k := range keys {
		on[i] = fmt.Sprintf("r.%[1]s IS NOT DISTINCT FROM g.%[1]s", k)
	}
	if len(on) == 0 {
		on = append(on, "TRUE")
	}
	return "(" + agg + ") AS g\n  LEFT JOIN (" + rch + ") AS r ON " + strings.Join(on, " AND ")
}

// DuckDB is the embedded warehouse's dialect.
type DuckDB struct{}

func (DuckDB) Name() string              { return "duckdb" }
func (DuckDB) Placeholder(int) string    { return "?" }
func (DuckDB) Double(e string) string    { return e + "::DOUBLE" }
func (DuckDB) TextOrder(e string) string { return e }
func (DuckDB) Truncate(g fit.Grain, e string) string {
	return fmt.Sprintf("date_trunc('%s', %s)::DATE", unit(g), e)
}
func (DuckDB) FormatPeriod(g fit.Grain, e string) string {
	switch g {
	case fit.Monthly:
		return "strftime(" + e + ", '%Y-%m')"
	case fit.Quarterly:
		return "(strftime(" + e + ", '%Y') || '-Q' || CAST(quarter(" + e + ") AS VARCHAR))"
	}
	return "strftime(" + e + ", '%Y-%m-%d')"
}
func (DuckDB) Lower(e string) string { return "lower(" + e + ")" }
func (DuckDB) Date(ph string) string { return ph }
func (DuckDB) Layout() Layout        { return Normalized }
func (DuckDB) WindowCount() bool     { return true }
func (DuckDB) JoinReach(agg, rch string, keys []string) string {
	return joinOn(agg, rch, keys)
}
func (DuckDB) Contains(s, sub string) string { return "contains(" + s + ", " + sub + ")" }
func (DuckDB) StartsWith(s, p string) string { return "starts_with(" + s + ", " + p + ")" }

// Postgres is PostgreSQL's dialect (15 and later).
type Postgres struct{}

func (Postgres) Name() string              { return "postgres" }
func (Postgres) Placeholder(n int) string  { return fmt.Sprintf("$%d", n) }
func (Postgres) Double(e string) string    { return e + "::double precision" }
func (Postgres) TextOrder(e string) string { return e + ` COLLATE "C"` }
func (Postgres) Truncate(g fit.Grain, e string) string {
	return fmt.Sprintf("date_trunc('%s', %s)::date", unit(g), e)
}
func (Postgres) FormatPeriod(g fit.Grain, e string) string {
	switch g {
	case fit.Monthly:
		return "to_char(" + e + ", 'YYYY-MM')"
	case fit.Quarterly:
		return "to_char(" + e + `, 'YYYY-"Q"Q')`
	}
	return "to_char(" + e + ", 'YYYY-MM-DD')"
}

// Lower uses ICU's root collation: lower() under the C locale (a common
// server default) changes ASCII letters only, where DuckDB lowers all of
// Unicode. PostgreSQL must be built with ICU (PGDG and Debian builds are).
func (Postgres) Lower(e string) string         { return "lower(" + e + ` COLLATE "und-x-icu")` }
func (Postgres) Contains(s, sub string) string { return "(strpos(" + s + ", " + sub + ") > 0)" }
func (Postgres) StartsWith(s, p string) string { return "starts_with(" + s + ", " + p + ")" }
func (Postgres) Date(ph string) string         { return ph }
func (Postgres) Layout() Layout                { return Normalized }
func (Postgres) WindowCount() bool             { return true }
func (Postgres) JoinReach(agg, rch string, keys []string) string {
	return joinOn(agg, rch, keys)
}

// ClickHouse is ClickHouse's dialect, down to 18.16 (the Debian package): no
// CTEs, no window functions, one JOIN per SELECT, so the warehouse is
// Denormalized and the reach join goes by USING. Parameters are "?", bound
// by the driver on the client; dates are bound as 'YYYY-MM-DD' text.
type ClickHouse struct{}

func (ClickHouse) Name() string              { return "clickhouse" }
func (ClickHouse) Placeholder(int) string    { return "?" }
func (ClickHouse) Double(e string) string    { return "toFloat64(" + e + ")" }
func (ClickHouse) TextOrder(e string) string { return e } // String compares bytes
func (ClickHouse) Truncate(g fit.Grain, e string) string {
	switch g {
	case fit.Monthly:
		return "toStartOfMonth(" + e + ")"
	case fit.Quarterly:
		return "toStartOfQuarter(" + e + ")"
	}
	return "toMonday(" + e + ")"
}

// FormatPeriod spells a quarter with toQuarter: 18.16's formatDateTime has no
// quarter pattern.
func (ClickHouse) FormatPeriod(g fit.Grain, e string) string {
	switch g {
	case fit.Monthly:
		return "formatDateTime(" + e + ", '%Y-%m')"
	case fit.Quarterly:
		return "concat(toString(toYear(" + e + ")), '-Q', toString(toQuarter(" + e + ")))"
	}
	return "toString(" + e + ")"
}

// Lower is lowerUTF8, which lowers letters whose lower case has as many
// bytes as the upper case: all of Latin, Greek and Cyrillic but a few
// oddities such as U+0130 (İ).
func (ClickHouse) Lower(e string) string         { return "lowerUTF8(" + e + ")" }
func (ClickHouse) Contains(s, sub string) string { return "(position(" + s + ", " + sub + ") > 0)" }
func (ClickHouse) StartsWith(s, p string) string { return "startsWith(" + s + ", " + p + ")" }
func (ClickHouse) Date(ph string) string         { return "toDate(" + ph + ")" }
func (ClickHouse) Layout() Layout                { return Denormalized }
func (ClickHouse) WindowCount() bool             { return false }

// JoinReach uses USING, which in ClickHouse never matches NULL keys: both
// sides join on ifNull(key, ”) copies of the dimension keys (the period key
// is a DATE, never NULL), and the right side keeps only those and reach so
// no other name clashes. Reach is Nullable, so an unmatched row gets NULL.
func (ClickHouse) JoinReach(agg, rch string, keys []string) string {
	if len(keys) == 0 {
		return "(" + agg + ") AS g\n  CROSS JOIN (" + rch + ") AS r"
	}
	var left, right, using []string
	for _, k := range keys {
		if k == "p" {
			right = append(right, "p")
			using = append(using, "p")
			continue
		}
		left = append(left, "ifNull("+k+", '') AS k_"+k)
		right = append(right, "ifNull("+k+", '') AS k_"+k)
		using = append(using, "k_"+k)
	}
	l := "(" + agg + ")"
	if len(left) > 0 {
		l = "(SELECT *, " + strings.Join(left, ", ") + " FROM (" + agg + "))"
	}
	return l + " AS g\n  ANY LEFT JOIN (SELECT " + strings.Join(right, ", ") + ", reach FROM (" + rch + ")) AS r USING (" + strings.Join(using, ", ") + ")"
}

// unit is date_trunc's name for the period of g (weekly unless told otherwise).
func unit(g fit.Grain) string {
	switch g {
	case fit.Monthly:
		return "month"
	case fit.Quarterly:
		return "quarter"
	}
	return "week"
}
