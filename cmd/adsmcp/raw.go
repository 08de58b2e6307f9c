package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
)

// printRaw prints the complete, unfitted result as CSV, with normalization notes
// and source notices on stderr.
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
