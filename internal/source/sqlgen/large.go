package sqlgen

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
)

// Runner runs one statement on a warehouse and hands its rows to read.
type Runner func(ctx context.Context, sql string, args []any, read func(Rows) error) error

// Sized measures and summarizes a query's result where its rows are
// (source.Sizer), for every SQL warehouse alike: the statements come from the
// same compiler as the query itself, so they count and add up exactly the
// rows the query would return. Embed it in a warehouse's Source.
type Sized struct {
	Dialect Dialect
	Run     Runner
}

// run counts the statement as a source call, then runs it.
func (s Sized) run(ctx context.Context, sql string, args []any, read func(Rows) error) error {
	source.CountCall(ctx)
	return s.Run(ctx, sql, args, read)
}

var _ source.Sizer = Sized{}

// aggregateDialect is what the aggregate statements need of an engine beyond
// Dialect.
type aggregateDialect interface {
	// Int64 casts a double expression holding an integer to a 64-bit integer.
	Int64(expr string) string
	// Materialize says the engine has WITH … AS MATERIALIZED: a subquery
	// referenced several times is computed once. Without it each reference
	// computes it again.
	Materialize() bool
	// TypedNulls says a NULL (or 0) in one branch of a UNION ALL takes the
	// type of the other branches' column; without it every branch computes
	// the same aggregates.
	TypedNulls() bool
}

func (DuckDB) Int64(e string) string     { return "CAST(" + e + " AS BIGINT)" }
func (DuckDB) Materialize() bool         { return true }
func (Postgres) Int64(e string) string   { return "CAST(" + e + " AS BIGINT)" }
func (Postgres) Materialize() bool       { return true }
func (ClickHouse) Int64(e string) string { return "toInt64(" + e + ")" }
func (ClickHouse) Materialize() bool     { return false }
func (DuckDB) TypedNulls() bool          { return true }
func (Postgres) TypedNulls() bool        { return true }
func (ClickHouse) TypedNulls() bool      { return false }

// RowCounts is how many rows q returns at each of grains, in one statement;
// -1 at a grain q cannot be asked at (a filter on a metric not available
// there).
func (s Sized) RowCounts(ctx context.Context, q *query.Query, grains []fit.Grain) ([]int, error) {
	b := &builder{d: s.Dialect}
	var parts []string
	counts := make([]int, len(grains))
	for i, g := range grains {
		qg := *q
		qg.Grain = g
		mark := len(b.args)
		p, err := compileWith(&qg, s.Dialect, b, nil)
		var invalid *query.Error
		if errors.As(err, &invalid) && i > 0 {
			b.args, counts[i] = b.args[:mark], -1
			continue
		}
		if err != nil {
			return nil, err
		}
		if p.Rows == "" {
			return nil, fmt.Errorf("%s: row counts of a query with a limit", s.Dialect.Name())
		}
		if p.Groups != "" { // no metric filter: the groups are the rows
			b.args = b.args[:p.groupsArgs]
			parts = append(parts, fmt.Sprintf("SELECT %d AS g, COUNT(*) AS n FROM (\n%s\n) AS r%d WHERE fact_rows > 0", i, p.Groups, i))
			continue
		}
		parts = append(parts, fmt.Sprintf("SELECT %d AS g, COUNT(*) AS n FROM (\n%s\n) AS r%d", i, p.Rows, i))
	}
	err := s.run(ctx, strings.Join(parts, "\nUNION ALL\n"), b.args, func(r Rows) error {
		for r.Next() {
			var g, n int64
			if err := r.Scan(&g, &n); err != nil {
				return err
			}
			counts[g] = int(n)
		}
		return r.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("%s: count rows: %w", s.Dialect.Name(), err)
	}
	return counts, nil
}

// Removed is the rows of q that fit's step 1 removes (every judged dimension
// empty): few — at most one per period and currency — and read in full, so
// the pipeline reports what they carry exactly as when it reads every row.
func (s Sized) Removed(ctx context.Context, q *query.Query) (*fit.Table, error) {
	p, err := Compile(q, s.Dialect)
	if err != nil {
		return nil, err
	}
	var judged []string
	for _, c := range fit.JudgedDimensions(p.Columns) {
		judged = append(judged, c.Name)
	}
	if len(judged) > 0 {
		if p, err = compileWith(q, s.Dialect, &builder{d: s.Dialect}, judged); err != nil {
			return nil, err
		}
	}
	var t *fit.Table
	err = s.run(ctx, p.SQL, p.Args, func(r Rows) error {
		var err error
		t, err = ReadTable(ctx, r, p, q.Grain)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: removed rows: %w", s.Dialect.Name(), err)
	}
	if len(judged) == 0 { // nothing is ever removed: no rows
		t = t.Select(nil)
	}
	return t, nil
}
