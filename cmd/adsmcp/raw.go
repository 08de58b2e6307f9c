package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/answer"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
)

// printRaw prints the complete, unfitted result as CSV, with normalization notes
// and source notices on stderr. With --compare it prints both windows' rows as
// the source returns them (see printRawCompare).
func printRaw(cmd *cobra.Command, src source.Source, raw []byte, now func() time.Time) error {
	stderr := stderrOf(cmd)
	accounts, err := src.Accounts(cmd.Context())
	if err != nil {
		return err
	}
	q, err := query.ParseAndNormalize(raw, query.Options{Accounts: accounts, Now: now})
	var tooMany *query.TooManyAccountsError
	if errors.As(err, &tooMany) {
		fmt.Fprintln(stderr, "accounts you may query (pass up to", tooMany.Max, "with --account, or narrow --platform):")
		for _, a := range accounts {
			fmt.Fprintf(stderr, "  %-22s %-10s %s (%s)\n", a.AccountID, a.Platform, a.AccountName, a.Currency)
		}
	}
	if err != nil {
		return describeQueryError(err)
	}
	for _, c := range q.Changes {
		fmt.Fprintf(stderr, "note: %s: %s\n", c.Type, c.Detail)
	}
	if q.Compare != nil {
		return printRawCompare(cmd, src, q)
	}
	t, err := src.Query(cmd.Context(), q)
	if err != nil {
		return describeQueryError(err)
	}
	for _, n := range t.Notices {
		fmt.Fprintf(stderr, "note: %s: %s\n", n.Type, n.Detail)
	}
	if q.Limit > 0 && t.RowsBeforeLimit > t.Len() {
		fmt.Fprintf(stderr, "note: limit: %d of %d rows shown (sorted by %s)\n", t.Len(), t.RowsBeforeLimit, q.Sort[0].Field)
	}
	return fit.WriteCSV(cmd.OutOrStdout(), t)
}

// Labels of the window column of a raw comparison.
const (
	rawWindowColumn  = "window"
	rawWindowCurrent = "current"
	rawWindowCompare = "compare"
)

// printRawCompare prints what the source returns for each window of a
// comparison, before the two are joined: one CSV whose first column, window,
// says which window a row is from (current: the date range; compare: the
// comparison window), so the m_compare and m_change of the fitted answer can be
// checked against the rows they come from. Each window is asked as the answer
// engine asks it: without the sort, limit and metric filters, which select the
// joined rows and so have nothing to apply to here (a note on stderr says so).
func printRawCompare(cmd *cobra.Command, src source.Source, q *query.Query) error {
	stderr := stderrOf(cmd)
	cur, old := answer.WindowQuery(q), answer.WindowQuery(q.CompareQuery())
	if len(q.Sort) > 0 || q.Limit > 0 || len(cur.Filters) < len(q.Filters) {
		fmt.Fprintln(stderr, "note: compare: --sort, --limit and metric filters select the compared rows, which --raw does not join: each window's rows are printed complete; drop --raw to apply them")
	}
	tabs := make([]*fit.Table, 2)
	for i, w := range []*query.Query{cur, old} {
		t, err := src.Query(cmd.Context(), w)
		if err != nil {
			return describeQueryError(err)
		}
		label := []string{rawWindowCurrent, rawWindowCompare}[i]
		for _, n := range t.Notices {
			fmt.Fprintf(stderr, "note: %s (window %s): %s\n", n.Type, label, n.Detail)
		}
		tabs[i] = t
	}
	fmt.Fprintf(stderr, "note: compare: column %s tells the windows apart: %s is the date range %s (%d days, %d rows), %s the comparison window %s (%d days, %d rows); without --raw they are joined row by row\n",
		rawWindowColumn, rawWindowCurrent, rawDates(cur), q.Days(), tabs[0].Len(), rawWindowCompare, rawDates(old), q.Compare.Days(), tabs[1].Len())
	return fit.WriteCSV(cmd.OutOrStdout(), stackWindows(tabs[0], tabs[1]))
}

func rawDates(q *query.Query) string {
	return q.Start.Format(time.DateOnly) + " … " + q.End.Format(time.DateOnly)
}

// stackWindows is cur's rows then base's under a first column, window, that
// labels them. The columns are cur's, then any only base has; a column one
// window lacks is empty in its rows.
func stackWindows(cur, base *fit.Table) *fit.Table {
	n, m := cur.Len(), base.Len()
	label := &fit.Column{Name: rawWindowColumn, Role: fit.RoleDimension, Strings: make([]string, 0, n+m)}
	for range n {
		label.Strings = append(label.Strings, rawWindowCurrent)
	}
	for range m {
		label.Strings = append(label.Strings, rawWindowCompare)
	}
	out := &fit.Table{Columns: []*fit.Column{label}, Grain: cur.Grain}
	var schema []*fit.Column
	seen := map[string]bool{}
	for _, t := range []*fit.Table{cur, base} {
		for _, c := range t.Columns {
			if !seen[c.Name] {
				seen[c.Name] = true
				schema = append(schema, c)
			}
		}
	}
	for _, s := range schema {
		c := *s
		c.Strings, c.Numbers, c.Null = nil, nil, nil
		for _, part := range []struct {
			t    *fit.Table
			rows int
		}{{cur, n}, {base, m}} {
			appendColumn(&c, part.t.Column(s.Name), part.rows)
		}
		out.Columns = append(out.Columns, &c)
	}
	return out
}

// appendColumn appends the first rows values of from to c: empty values
// when from is nil (the window has no such column).
func appendColumn(c, from *fit.Column, rows int) {
	for i := range rows {
		switch {
		case c.Role != fit.RoleMetric && from == nil:
			c.Strings = append(c.Strings, "")
		case c.Role != fit.RoleMetric:
			c.Strings = append(c.Strings, from.Strings[i])
		case from == nil:
			c.Numbers, c.Null = append(c.Numbers, 0), append(c.Null, true)
		default:
			c.Numbers, c.Null = append(c.Numbers, from.Numbers[i]), append(c.Null, from.IsNull(i))
		}
	}
}
