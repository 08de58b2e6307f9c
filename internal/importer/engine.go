package importer

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
)

// The import engine: parsed exports written into any warehouse (a Store),
// with one set of rules (docs/import.md):
//
//   - Checked first: every file is planned against the warehouse — its
//     accounts' platform and currency must agree with the warehouse's — before
//     anything is written, so a bad file changes nothing even where the
//     warehouse has no transactions.
//   - Idempotent, two ways. A file already imported (the ledger is keyed by the
//     file's SHA-256; a file given twice is imported once) is skipped. And a
//     file replaces what the warehouse holds for its accounts over the dates
//     it covers — facts, and the reach of every period overlapping them — so
//     the newest import wins on the days it covers and no day counts twice.
//   - Demo data is never mixed with imports: a warehouse holding data that
//     was not imported is refused (ErrDemoData) unless ReplaceDemo, which
//     deletes it — after every file has been checked.
//   - Accounts match by ads.FoldID and keep the warehouse's spelling;
//     campaigns, ad sets and ads merge by ID. A campaign is new once, however
//     many files of one import have it.
//   - The dataset description says kind=import (DatasetKind: a warehouse a
//     sync filled keeps kind=sync), the label, the first and last day of all
//     facts, and complete=true (so a server does not fill the warehouse with
//     demo data).

// KindImport is the dataset kind of a warehouse filled by imports.
const KindImport = "import"

// Write imports exports into the warehouse s, by the rules above, and says
// what it did. A transactional store is left to commit (or, in a dry run,
// roll back) by its caller; a store without transactions is not written in a
// dry run.
func Write(ctx context.Context, s Store, exports []*Export, opt WriteOptions) (*WriteResult, error) {
	if opt.Now.IsZero() {
		opt.Now = time.Now()
	}
	target := s.Target()
	res := &WriteResult{Target: target.Name, DryRun: opt.DryRun}
	st, err := s.State(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case st.Empty:
		res.Created = true
	case RealData(st.Kind):
	case !opt.ReplaceDemo:
		return nil, DemoError(target.Name, st.Kind, target.Elsewhere)
	default:
		res.DemoReplaced = true
	}
	// writes: the store is written (a dry run of a transactional store is
	// rolled back afterwards). readable: its reads tell what the import meets.
	writes := target.Transactional || !opt.DryRun
	fresh := res.Created || res.DemoReplaced
	readable := !fresh || writes

	pl := &planner{ctx: ctx, s: s, now: opt.Now.UTC(), fresh: fresh,
		accounts: map[string]ads.Account{}, campaigns: map[CampaignKey]bool{}, campaignsRead: map[string]bool{}, seen: map[string]string{}}
	if !fresh {
		if err := pl.readAccounts(); err != nil {
			return nil, err
		}
	}
	plans := make([]*FilePlan, len(exports))
	for i, ex := range exports {
		p, f, err := pl.plan(ex)
		if err != nil {
			return nil, err
		}
		plans[i] = p
		res.Files = append(res.Files, f)
	}

	if res.DemoReplaced && writes {
		if err := s.ClearDemo(ctx); err != nil {
			return nil, err
		}
	}
	written := false
	for i, p := range plans {
		f := &res.Files[i]
		if f.AlreadyImported {
			continue
		}
		if readable {
			for _, r := range p.Ranges {
				rep, err := s.Replaced(ctx, r)
				if err != nil {
					return nil, err
				}
				f.FactsReplaced += rep.Facts
				f.ReachReplaced += rep.Reach
				f.Dropped = append(f.Dropped, p.dropped(r.AccountID, rep.Campaigns)...)
			}
		}
		if writes {
			if err := s.WriteFile(ctx, p); err != nil {
				return nil, err
			}
			written = true
		}
	}
	if written || writes && fresh {
		if res.DemoReplaced {
			st = State{Empty: true}
		}
		if err := writeDataset(ctx, s, st, KindImport); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// writeDataset describes the warehouse after a write of kind own (KindImport
// or KindSync) into a warehouse that was st: its kind and label
// (DatasetKind), the first and last day of its facts, complete=true.
func writeDataset(ctx context.Context, s Store, st State, own string) error {
	kind, label := DatasetKind(st, own)
	rows := [][2]string{{"kind", kind}, {"label", label}}
	first, last, ok, err := s.FactDates(ctx)
	if err != nil {
		return err
	}
	if ok {
		rows = append(rows, [2]string{"first_date", first.Format(time.DateOnly)}, [2]string{"last_date", last.Format(time.DateOnly)})
	}
	return s.WriteDataset(ctx, append(rows, [2]string{"complete", "true"}))
}

// MixedLabel is the dataset label of a warehouse both imports and syncs
// have written.
const MixedLabel = "imported report exports and data synced from the ad platforms' APIs (adsmcp import and adsmcp sync)"

// DatasetKind is the dataset kind and label of a warehouse that was st
// after a write of kind own (KindImport or KindSync). A new (or emptied)
// warehouse takes the writer's; one the other writer filled keeps its kind
// — both are real data, and a reader tells only demo from real — and its
// label says it holds both, from then on.
func DatasetKind(st State, own string) (kind, label string) {
	ownLabel := Label
	if own == KindSync {
		ownLabel = SyncLabel
	}
	switch {
	case st.Empty || !RealData(st.Kind):
		return own, ownLabel
	case st.Kind == own && st.Label != MixedLabel:
		return own, ownLabel
	default:
		return st.Kind, MixedLabel
	}
}

// DemoError is the refusal to import into a warehouse (named target) whose
// dataset is of kind, not real data; elsewhere is the fix's alternative.
func DemoError(target, kind, elsewhere string) error {
	return demoError(Target{Name: target, Elsewhere: elsewhere}, kind, "import")
}

// demoError refuses to write (verb: "import", "sync") into the warehouse t,
// whose dataset is of kind, not real data.
func demoError(t Target, kind, verb string) error {
	what := "the demo dataset"
	if kind != "demo" {
		what = fmt.Sprintf("data that was neither imported nor synced (dataset kind %q)", kind)
	}
	return fmt.Errorf("%w: %s holds %s; pass --replace-demo to delete it and %s, or %s", ErrDemoData, t.Name, what, verb, t.Elsewhere)
}

// planner plans the files of one import in order, keeping what the earlier
// files add: accounts, campaigns and ledger entries.
type planner struct {
	ctx   context.Context
	s     Store
	now   time.Time
	fresh bool // the warehouse holds nothing (new, or its demo data to be deleted)

	accounts      map[string]ads.Account // by ads.FoldID
	campaigns     map[CampaignKey]bool   // known: the warehouse's (of the accounts in campaignsRead) and the earlier files'
	campaignsRead map[string]bool
	seen          map[string]string // SHA-256 → the name of the earlier file of this import with it
}

func (pl *planner) readAccounts() error {
	accounts, err := pl.s.Accounts(pl.ctx)
	if err != nil {
		return err
	}
	for _, a := range accounts {
		pl.accounts[ads.FoldID(a.AccountID)] = a
	}
	return nil
}

// plan checks one file against the warehouse (and the files before it) and
// says what importing it writes and reports.
func (pl *planner) plan(ex *Export) (*FilePlan, WrittenFile, error) {
	f := WrittenFile{File: ex.File, SHA256: ex.SHA256}
	if as, ok := pl.seen[ex.SHA256]; ok {
		f.AlreadyImported, f.ImportedAt, f.ImportedAs = true, pl.now, as
		return nil, f, nil
	}
	if !pl.fresh {
		e, found, err := pl.s.Imported(pl.ctx, ex.SHA256)
		if err != nil {
			return nil, f, err
		}
		if found {
			f.AlreadyImported, f.ImportedAt, f.ImportedAs = true, e.ImportedAt.UTC(), e.FileName
			return nil, f, nil
		}
	}
	p := &FilePlan{Export: ex, ids: map[string]string{}, NewCampaigns: map[CampaignKey]bool{}}
	for _, a := range ex.Accounts {
		pa, err := pl.account(ex, a)
		if err != nil {
			return nil, f, err
		}
		p.Accounts = append(p.Accounts, pa)
		p.ids[a.AccountID] = pa.AccountID
		p.Ranges = append(p.Ranges, replaceRange(pa.AccountID, ex.BreakdownKey(), ex.First, ex.Last))
		if pa.New {
			f.NewAccounts = append(f.NewAccounts, pa.AccountID)
		}
	}
	if err := pl.newCampaigns(p); err != nil {
		return nil, f, err
	}
	ids := make([]string, len(p.Accounts))
	for i, a := range p.Accounts {
		ids[i] = a.AccountID
	}
	p.Ledger = LedgerEntry{SHA256: ex.SHA256, FileName: filepath.Base(ex.File), Platform: ex.Platform, Accounts: ids,
		First: ex.First, Last: ex.Last, Facts: int64(len(ex.Facts)), ReachRows: int64(len(ex.Reach)),
		SkippedLines: int64(ex.SkippedLines()), ImportedAt: pl.now}
	pl.seen[ex.SHA256] = p.Ledger.FileName
	f.FactsAdded, f.ReachAdded = int64(len(ex.Facts)), int64(len(ex.Reach))
	f.NewCampaigns = int64(len(p.NewCampaigns))
	return p, f, nil
}

// account is a file's account as the warehouse will hold it; a known account
// of another platform or currency is a conflict.
func (pl *planner) account(ex *Export, a Account) (PlannedAccount, error) {
	key := ads.FoldID(a.AccountID)
	old, known := pl.accounts[key]
	if !known {
		pl.accounts[key] = a.Account
		return PlannedAccount{Account: a.Account, New: true}, nil
	}
	if old.Platform != a.Platform {
		return PlannedAccount{}, fmt.Errorf("%s: account %s is a %s account in the warehouse, and this is a %s export; fix: check --account-id, or --platform",
			ex.File, old.AccountID, old.Platform, a.Platform)
	}
	if old.Currency != a.Currency {
		return PlannedAccount{}, fmt.Errorf("%s: account %s is in %s in the warehouse, and this file's money is in %s; fix: check --account-id and --currency (an account has one currency)",
			ex.File, old.AccountID, old.Currency, a.Currency)
	}
	if a.AttributionWindow != "" && old.AttributionWindow != "" && a.AttributionWindow != old.AttributionWindow {
		return PlannedAccount{}, fmt.Errorf("%s: account %s's conversions in the warehouse are counted under the attribution window %s, and this file's under %s; "+
			"fix: export the report with the account's attribution setting (%s), or import into another warehouse (an account's conversions are held under one window)",
			ex.File, old.AccountID, old.AttributionWindow, a.AttributionWindow, old.AttributionWindow)
	}
	next := old
	if a.NameKnown {
		next.AccountName = a.AccountName
	}
	if a.TimezoneKnown {
		next.Timezone = a.Timezone
	}
	if a.AttributionWindow != "" {
		next.AttributionWindow = a.AttributionWindow
	}
	next.ConversionActions = mergeActions(old.ConversionActions, a.ConversionActions)
	pl.accounts[key] = next
	return PlannedAccount{Account: next, Changed: next != old}, nil
}

// mergeActions is what an account's conversions count after an import: the
// file's description joined to the warehouse's when they differ (its
// conversions then count one on some days and the other on others).
func mergeActions(old, file string) string {
	switch {
	case file == "" || old == file:
		return old
	case old == "":
		return file
	}
	for _, part := range strings.Split(old, "; ") {
		if part == file {
			return old
		}
	}
	return old + "; " + file
}

// newCampaigns finds the file's campaigns that are new, and counts them as
// known for the files after it.
func (pl *planner) newCampaigns(p *FilePlan) error {
	var unread []string
	for _, a := range p.Accounts {
		if !pl.campaignsRead[a.AccountID] {
			pl.campaignsRead[a.AccountID] = true
			if !a.New && !pl.fresh {
				unread = append(unread, a.AccountID)
			}
		}
	}
	if len(unread) > 0 {
		known, err := pl.s.Campaigns(pl.ctx, unread)
		if err != nil {
			return err
		}
		for _, k := range known {
			pl.campaigns[k] = true
		}
	}
	for _, c := range p.Export.Campaigns {
		k := CampaignKey{p.AccountID(c.AccountID), c.CampaignID}
		if !pl.campaigns[k] {
			pl.campaigns[k], p.NewCampaigns[k] = true, true
		}
	}
	return nil
}
