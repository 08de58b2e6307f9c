package main

import (
	"encoding/csv"
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/adsmcp/adsmcp/internal/query"
)

func newAccountsCommand(g *globals) *cobra.Command {
	var platform string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "accounts",
		Short: "List the ad accounts you can query",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			src, err := g.openSource(cmd.Context(), stderrOf(cmd))
			if err != nil {
				return err
			}
			defer src.Close()
			accounts, err := src.Accounts(cmd.Context())
			if err != nil {
				return err
			}
			if platform != "" {
				p, err := query.CanonicalPlatform(platform)
				if err != nil {
					return err
				}
				kept := accounts[:0]
				for _, a := range accounts {
					if a.Platform == p {
						kept = append(kept, a)
					}
				}
				accounts = kept
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(accounts)
			}
			w := csv.NewWriter(cmd.OutOrStdout())
			w.Write([]string{"platform", "account_id", "account_name", "currency", "timezone", "status"})
			for _, a := range accounts {
				w.Write([]string{a.Platform, a.AccountID, a.AccountName, a.Currency, a.Timezone, a.Status})
			}
			w.Flush()
			return w.Error()
		},
	}
	cmd.Flags().StringVarP(&platform, "platform", "p", "", "only accounts on this platform")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of CSV")
	return cmd
}
