package main

import (
	"encoding/csv"
	"encoding/json"
	"strings"

	"github.com/spf13/cobra"

	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
)

func newFieldsCommand() *cobra.Command {
	var platform string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "fields",
		Short: "List the dimensions and metrics you can query, with their semantics",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p := ""
			if platform != "" {
				var err error
				if p, err = query.CanonicalPlatform(platform); err != nil {
					return err
				}
			}
			fields := catalog.ForPlatform(p)
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(fields)
			}
			w := csv.NewWriter(cmd.OutOrStdout())
			w.Write([]string{"name", "kind", "type", "aggregation", "unit", "platforms", "description", "synonyms"})
			for _, f := range fields {
				agg := string(f.Aggregation)
				if f.Aggregation == catalog.Ratio || f.Aggregation == catalog.NonAdditive && f.Numerator != "" {
					agg += " (" + f.Numerator + " / " + f.Denominator + ")"
				}
				w.Write([]string{f.Name, string(f.Kind), string(f.Type), agg, string(f.Unit),
					strings.Join(f.Platforms, " "), f.Description, strings.Join(f.Synonyms, " ")})
			}
			w.Flush()
			return w.Error()
		},
	}
	cmd.Flags().StringVarP(&platform, "platform", "p", "", "only fields this platform reports")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of CSV")
	return cmd
}
