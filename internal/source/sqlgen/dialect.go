// Package sqlgen compiles a normalized query into one parameterized SQL
// statement. The translation is shared by every SQL source; what differs
// between engines (placeholders, casts, period truncation and formatting,
// substring tests, text ordering) is isolated in a small Dialect, so the same
// query means the same thing everywhere.
package sqlgen

import (
	"fmt"

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
	// Truncate is the first day (a DATE) of the week (ISO, Monday) or calendar
	// month holding the DATE expr.
	Truncate(g fit.Grain, expr string) string
	// FormatPeriod is the DATE expr as text: YYYY-MM for monthly, else YYYY-MM-DD.
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
	if g == fit.Monthly {
		return "strftime(" + e + ", '%Y-%m')"
	}
	return "strftime(" + e + ", '%Y-%m-%d')"
}
func (DuckDB) Lower(e string) string         { return "lower(" + e + ")" }
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
	if g == fit.Monthly {
		return "to_char(" + e + ", 'YYYY-MM')"
	}
	return "to_char(" + e + ", 'YYYY-MM-DD')"
}

// Lower uses ICU's root collation: lower() under the C locale (a common
// server default) changes ASCII letters only, where DuckDB lowers all of
// Unicode. PostgreSQL must be built with ICU (PGDG and Debian builds are).
func (Postgres) Lower(e string) string         { return "lower(" + e + ` COLLATE "und-x-icu")` }
func (Postgres) Contains(s, sub string) string { return "(strpos(" + s + ", " + sub + ") > 0)" }
func (Postgres) StartsWith(s, p string) string { return "starts_with(" + s + ", " + p + ")" }

func unit(g fit.Grain) string {
	if g == fit.Monthly {
		return "month"
	}
	return "week"
}
