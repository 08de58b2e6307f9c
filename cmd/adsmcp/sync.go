package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/config"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
	"github.com/adsmcp/adsmcp/internal/syncer"
)

type syncFlags struct {
	target, since, today, refetch string
	accounts, platforms           []string
	json, replaceDemo             bool
	// progressLines prints every progress update as a line of its own on
	// stderr, terminal or not: what a script (or the kill test) waits on.
	progressLines bool
}

// syncLookbacks says each platform's lookback in a sentence, from the
// platform table (which cites each figure): "Meta Ads 28, … days".
func syncLookbacks() string {
	var parts []string
	for _, p := range catalog.Platforms() {
		parts = append(parts, fmt.Sprintf("%s %d", p.DisplayName, p.SyncLookback))
	}
	return strings.Join(parts, ", ") + " days"
}

func newSyncCommand(g *globals) *cobra.Command {
	f := &syncFlags{}
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Copy the ad platforms' data into a warehouse, so that questions never wait on an ad API",
		Long: `Fetches, for every account the configured credentials reach (sources: in the config
file; or --accounts, --platform), everything the warehouse needs to answer what the live
APIs answer — delivery, every breakdown set, reach, conversions by action, names,
status and objectives — and writes it into the embedded warehouse (` + duckdb.DefaultSyncedPath() + `,
or the --db file), or with --target into PostgreSQL or ClickHouse.

The first run backfills --since (default 90 days; at most what each platform keeps).
Later runs fetch the new days and the days each platform may still revise (its
lookback: ` + syncLookbacks() + `), so a run costs requests for the new
days, not the history. Each account × month is replaced in one transaction, with the
account's sync state: Ctrl-C, a crash or kill -9 leaves every account whole up to its
last month written, and the next run goes on from there.

An account that fails (a revoked token, a missing permission, a deleted account, a
changed currency or time zone) is reported with the cause and the fix while the
others complete; its earlier data stays. The exit status is 1 when any failed.

DuckDB lets one process write a file while no other has it open: a server answering
from the file syncs it itself (sync: in its config), and this command then says so.
See docs/sync.md.`,
		Example: `  adsmcp sync --config adsmcp.yaml
  adsmcp sync --config adsmcp.yaml --since 2025-01-01 --platform meta_ads
  adsmcp sync --config adsmcp.yaml --target postgres://adsmcp@db.internal:5432/ads --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSync(cmd, g, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.target, "target", "", "write into this database instead of a DuckDB file: postgres://USER@HOST:PORT/DATABASE or clickhouse://USER@HOST:PORT/DATABASE")
	fl.StringVar(&f.refetch, "refetch-from", "", "fetch again every synced day from this one (YYYY-MM-DD, or a number of days such as 90d) to today: a past range the platform revised after its lookback (e.g. Google conversion windows up to 90 days)")
	fl.StringVar(&f.since, "since", "", "first day the backfill reaches: YYYY-MM-DD, or a number of days counting today such as 90d (default 90d); an earlier one on a later run extends the history")
	fl.StringSliceVar(&f.accounts, "accounts", nil, "sync only these accounts (IDs, comma-separated)")
	fl.StringSliceVar(&f.platforms, "platform", nil, "sync only these platforms ("+catalog.PlatformNames("or")+")")
	fl.BoolVar(&f.json, "json", false, "print the summary as JSON, for scripts")
	fl.BoolVar(&f.replaceDemo, "replace-demo", false, "delete the demo dataset in the warehouse, then sync")
	// For tests and demos over the fakes, whose data ends on a fixed day.
	fl.StringVar(&f.today, "today", "", "sync as if today were this date (YYYY-MM-DD)")
	fl.BoolVar(&f.progressLines, "progress-lines", false, "print every progress update on a line of its own on stderr")
	fl.MarkHidden("today")
	fl.MarkHidden("progress-lines")
	return cmd
}

func runSync(cmd *cobra.Command, g *globals, f *syncFlags) error {
	ctx := cmd.Context()
	stderr := stderrOf(cmd)
	if g.cfg == nil || !g.cfg.Sources.Live() {
		return errors.New("adsmcp sync reads the ad platforms' APIs, and no credentials are configured: put them under sources: in a config file and pass it with --config (docs/configuration.md); to try it without an ad account, run the fake APIs (docs/fakeapis.md)")
	}
	now, err := clockFor(f.today)
	if err != nil {
		return err
	}
	var platforms []string
	for _, p := range f.platforms {
		c, err := query.CanonicalPlatform(p)
		if err != nil {
			return fmt.Errorf("--platform: %w", err)
		}
		platforms = append(platforms, c)
	}
	since, err := dayFlag("since", f.since, now())
	if err != nil {
		return err
	}
	refetch, err := dayFlag("refetch-from", f.refetch, now())
	if err != nil {
		return err
	}
	connectors, err := connectorsFor(g.cfg.Sources, g.logger(stderr))
	if err != nil {
		return err
	}
	tg, t, err := openSyncTarget(cmd, g, f.target, importer.SyncOptions{ReplaceDemo: f.replaceDemo, Now: now})
	if err != nil {
		return err
	}
	defer tg.Close()
	opt := syncer.Options{Connectors: connectors, Target: tg, Accounts: f.accounts, Platforms: platforms, Since: since, RefetchFrom: refetch, Now: now, Log: g.logger(stderr)}
	switch {
	case f.progressLines:
		opt.Progress = progressLines(stderr)
	case isTerminal(stderr):
		opt.Progress = progressLine(stderr)
	}
	res, err := syncer.Run(ctx, opt)
	if opt.Progress != nil && !f.progressLines {
		fmt.Fprintln(stderr) // end the rewritten line
	}
	if res != nil {
		res.Target = t.String()
		for i := range res.Accounts {
			a := &res.Accounts[i]
			a.Error, a.Fix = t.scrub(a.Error), t.scrub(a.Fix)
		}
		if perr := printSync(cmd.OutOrStdout(), res, f.json); perr != nil {
			return perr
		}
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return fmt.Errorf("sync into %s interrupted: every account is whole up to its last month written; run adsmcp sync again to go on from there", t)
	case err != nil && t.engine != nil:
		return t.wrap("sync", err)
	case err != nil:
		return fmt.Errorf("sync into %s: %w", t, err)
	case res.Failed() > 0:
		return fmt.Errorf("%d of %d accounts failed, each with its cause and fix above (their earlier data stays); fix them and run adsmcp sync again", res.Failed(), len(res.Accounts))
	}
	return nil
}

// openSyncTarget opens the warehouse a sync writes: the --target server,
// else the --db file (or the config file's database:), which may be new in a
// folder that exists, else the synced file next to the default warehouse
// (duckdb.DefaultSyncedPath, which a syncing server reads too). The returned
// target names it for printing (never with a password) and scrubs the
// drivers' messages.
func openSyncTarget(cmd *cobra.Command, g *globals, rawTarget string, opt importer.SyncOptions) (importer.SyncTarget, *target, error) {
	ctx := cmd.Context()
	var t *target
	if strings.TrimSpace(rawTarget) == "" && g.dbFrom == "" {
		t = &target{path: duckdb.DefaultSyncedPath()}
	} else {
		var err error
		if t, err = targetOf(cmd, g, rawTarget); err != nil {
			return nil, nil, err
		}
	}
	if t.engine == nil {
		tg, err := duckdb.OpenSync(ctx, t.path, opt)
		return tg, t, err
	}
	if t.engine.OpenSync == nil {
		return nil, nil, fmt.Errorf("--target %s: %s does not take syncs; %s", t, t.engine.Label, targetFix)
	}
	tg, err := t.engine.OpenSync(ctx, t.url, opt)
	if err != nil {
		return nil, nil, t.failure(err)
	}
	return tg, t, nil
}

// dayFlag reads a flag that names a day: a date, or a number of days back
// from today, today counted (90d: today and the 89 days before), as
// sync.since does (config.ParseSince); zero when not given.
func dayFlag(name, s string, now time.Time) (time.Time, error) {
	if strings.TrimSpace(s) == "" {
		return time.Time{}, nil
	}
	v, err := config.ParseSince(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("--%s %w", name, err)
	}
	y, m, d := now.Date()
	return v.From(time.Date(y, m, d, 0, 0, 0, 0, time.UTC)), nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressText is where the run stands, in words.
func progressText(p syncer.Progress) string {
	eta := ""
	if d := p.ETA(); d > 0 {
		eta = " · about " + d.Round(time.Second).String() + " left"
	}
	return fmt.Sprintf("sync: %d/%d accounts · %d/%d days · %d rows · %d requests%s",
		p.AccountsDone, p.Accounts, p.DaysDone, p.Days, p.Rows, p.Requests, eta)
}

// progressLine rewrites one line of a terminal with where the run stands.
func progressLine(w io.Writer) func(syncer.Progress) {
	return func(p syncer.Progress) { fmt.Fprintf(w, "\r%s\033[K", progressText(p)) }
}

// progressLines prints where the run stands on a line of its own at every
// update (--progress-lines).
func progressLines(w io.Writer) func(syncer.Progress) {
	return func(p syncer.Progress) { fmt.Fprintln(w, progressText(p)) }
}

// printSync prints the summary: one line per account, and the totals.
func printSync(w io.Writer, res *syncer.Result, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PLATFORM\tACCOUNT\tNAME\tDAYS\tROWS\tREQUESTS\tSECONDS\tSYNCED\tRESULT")
	var days int
	var rows, requests int64
	for _, a := range res.Accounts {
		synced := "-"
		if a.SyncedFrom != "" {
			synced = a.SyncedFrom + " … " + a.SyncedThrough
		}
		result := "ok"
		if a.Error != "" {
			result = "FAILED: " + a.Error
			if a.Fix != "" {
				result += " — fix: " + a.Fix
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%.1f\t%s\t%s\n", a.Platform, a.AccountID, a.AccountName, a.Days, a.Rows, a.Requests, a.Seconds, synced, result)
		days += a.Days
		rows += a.Rows
		requests += a.Requests
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d accounts into %s: %d account-days, %d rows, %d requests in %.1f s; %d failed\n",
		len(res.Accounts), res.Target, days, rows, requests, res.Seconds, res.Failed())
	return err
}
