package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
)

type importFlags struct {
	platform, target                           string
	accountID, accountName, currency, timezone string
	dryRun, replaceDemo                        bool
}

func newImportCommand(g *globals) *cobra.Command {
	f := &importFlags{}
	cmd := &cobra.Command{
		Use:   "import FILE...",
		Short: "Import Meta Ads Manager, Google Ads and TikTok Ads Manager report exports (CSV) into the warehouse",
		Long: `Reads report exports downloaded from Meta Ads Manager or Google Ads (CSV, English or
Spanish headers) or TikTok Ads Manager (a custom report's CSV, English headers) and writes them into the embedded warehouse (or, with --target, a
PostgreSQL warehouse), then prints what was imported and what was skipped, and why.
The rows must be broken down by day.

All files go in one transaction: if any file is malformed, nothing is imported and
the error names the file, line and column. Importing is idempotent: a file already
imported adds nothing, and a file replaces what the warehouse held for its accounts
on the dates it covers, so overlapping exports never count a day twice.

A warehouse holding the demo dataset is not mixed with real data: pass
--replace-demo to delete the demo data, or --db to import into a new file.

--target postgres://USER@HOST:PORT/DATABASE writes into PostgreSQL instead, with the
same rules, creating the tables when missing (add ?search_path=SCHEMA for another
schema; keep the password in $PGPASSWORD or ~/.pgpass). Query it with
sources.postgres in the configuration file. See docs/import.md.`,
		Example: `  adsmcp import --db ads.duckdb last-quarter.csv
  adsmcp import --db ads.duckdb --account-id 123-456-7890 --account-name "Acme - Search" google-ads.csv
  adsmcp import --dry-run informe.csv
  adsmcp import --target postgres://adsmcp@db.internal:5432/ads last-quarter.csv`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, files []string) error {
			return runImport(cmd, g, f, files)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.platform, "platform", "p", "", "meta_ads, google_ads or tiktok_ads (default: detect from the headers)")
	fl.StringVar(&f.accountID, "account-id", "", "account ID, when the file has no account ID column (Meta act_…, Google 123-456-7890, TikTok the advertiser ID)")
	fl.StringVar(&f.accountName, "account-name", "", "account name, when the file has no account name column")
	fl.StringVar(&f.currency, "currency", "", "ISO 4217 currency, when the file does not say it (no currency column, no \"(USD)\" in a header)")
	fl.StringVar(&f.timezone, "timezone", "", "IANA time zone of a new account (default UTC)")
	fl.BoolVar(&f.dryRun, "dry-run", false, "parse, check and report, and write nothing")
	fl.BoolVar(&f.replaceDemo, "replace-demo", false, "delete the demo dataset in the warehouse, then import")
	fl.StringVar(&f.target, "target", "", "write into this database instead of the --db file: postgres://USER@HOST:PORT/DATABASE")
	return cmd
}

func runImport(cmd *cobra.Command, g *globals, f *importFlags, files []string) error {
	t, err := targetOf(cmd, g, f.target)
	if err != nil {
		return err
	}
	opt := importer.Options{AccountID: f.accountID, AccountName: f.accountName, Currency: f.currency, Timezone: f.timezone}
	if f.platform != "" {
		p, err := query.CanonicalPlatform(f.platform)
		if err != nil {
			return fmt.Errorf("--platform: %w", err)
		}
		if !slices.Contains(importer.Platforms, p) {
			return fmt.Errorf("--platform %s: imports read Meta Ads Manager (meta_ads), Google Ads (google_ads) and TikTok Ads Manager (tiktok_ads) exports", p)
		}
		opt.Platform = p
	}
	var exports []*importer.Export
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return fmt.Errorf("%w (nothing was imported)", err)
		}
		ex, err := importer.Parse(file, data, opt)
		if err != nil {
			return fmt.Errorf("%w (nothing was imported)", err)
		}
		exports = append(exports, ex)
	}
	wopt := importer.WriteOptions{ReplaceDemo: f.replaceDemo, DryRun: f.dryRun}
	var res *importer.WriteResult
	if t.engine == nil {
		res, err = duckdb.Import(cmd.Context(), t.path, exports, wopt)
	} else {
		res, err = importServer(cmd.Context(), t, exports, wopt)
	}
	if err != nil {
		if errors.Is(err, importer.ErrDemoData) {
			return err
		}
		return fmt.Errorf("%w (nothing was imported)", err)
	}
	printImport(cmd.OutOrStdout(), exports, res)
	if res.Created && !res.DryRun {
		fmt.Fprint(cmd.OutOrStdout(), t.queryHint())
	}
	return nil
}

// importServer writes the exports into a warehouse server; the report names
// the target as given, without its password.
func importServer(ctx context.Context, t *target, exports []*importer.Export, opt importer.WriteOptions) (*importer.WriteResult, error) {
	res, err := t.engine.Import(ctx, t.url, exports, opt)
	if err != nil {
		return nil, t.failure(err)
	}
	res.Target = t.String()
	return res, nil
}

// printImport prints each file's report and what the warehouse did with it.
func printImport(w io.Writer, exports []*importer.Export, res *importer.WriteResult) {
	var added, replaced int64
	imported := 0
	for i, ex := range exports {
		fmt.Fprint(w, ex.Report.String())
		r := res.Files[i]
		if r.AlreadyImported {
			fmt.Fprintf(w, "  warehouse: already imported on %s (as %s): nothing added\n", r.ImportedAt.Format("2006-01-02 15:04"), r.ImportedAs)
			continue
		}
		imported++
		added += r.FactsAdded
		replaced += r.FactsReplaced
		fmt.Fprintf(w, "  warehouse: %d facts added, %d replaced (same accounts, %s to %s); %d reach rows added, %d replaced; %d new campaign%s",
			r.FactsAdded, r.FactsReplaced, ex.Report.First, ex.Report.Last, r.ReachAdded, r.ReachReplaced, r.NewCampaigns, importPlural(r.NewCampaigns))
		if len(r.NewAccounts) > 0 {
			fmt.Fprintf(w, "; new account%s %s", importPlural(int64(len(r.NewAccounts))), strings.Join(r.NewAccounts, ", "))
		}
		fmt.Fprintln(w)
		if len(r.Dropped) > 0 {
			list := r.Dropped
			more := ""
			if len(list) > 10 {
				list, more = list[:10], fmt.Sprintf(" and %d more", len(r.Dropped)-10)
			}
			fmt.Fprintf(w, "  note: campaigns with data on these dates that the file does not have were replaced too (a filtered export?): %s%s\n",
				strings.Join(list, ", "), more)
		}
	}
	var where []string
	if res.Created {
		where = append(where, "a new warehouse")
	}
	if res.DemoReplaced {
		where = append(where, "the demo data deleted")
	}
	suffix := ""
	if len(where) > 0 {
		suffix = " (" + strings.Join(where, ", ") + ")"
	}
	if res.DryRun {
		fmt.Fprintf(w, "dry run: %d of %d file%s would be imported into %s%s: %d facts added, %d replaced; nothing was written\n",
			imported, len(exports), importPlural(int64(len(exports))), res.Target, suffix, added, replaced)
		return
	}
	fmt.Fprintf(w, "imported %d of %d file%s into %s%s: %d facts added, %d replaced\n",
		imported, len(exports), importPlural(int64(len(exports))), res.Target, suffix, added, replaced)
}

func importPlural(n int64) string {
	if n == 1 {
		return ""
	}
	return "s"
}
