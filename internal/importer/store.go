package importer

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
)

// Store is a warehouse as the import engine (Write) sees it: what a plan
// needs to read, and the writes that carry it out. The rules — what is new,
// what conflicts, what is replaced, what is reported — are the engine's; a
// store only reads and writes rows, so that every warehouse imports alike.
//
// A transactional store (Target.Transactional) runs every call of one Write
// in one transaction that its warehouse commits, or rolls back on an error or
// a dry run; its reads see its own writes. A store without transactions
// (ClickHouse) is not written at all in a dry run.
type Store interface {
	// Target describes the warehouse, for reports and errors.
	Target() Target
	// State is what the warehouse holds before the import.
	State(ctx context.Context) (State, error)
	// Accounts are the warehouse's accounts.
	Accounts(ctx context.Context) ([]ads.Account, error)
	// Imported looks a file up in the ledger by its SHA-256.
	Imported(ctx context.Context, sha256 string) (entry LedgerEntry, found bool, err error)
	// Campaigns are the (account, campaign) IDs the warehouse knows for
	// these accounts.
	Campaigns(ctx context.Context, accountIDs []string) ([]CampaignKey, error)
	// Replaced is what replacing r would delete: its facts and reach rows, and
	// the campaigns (ID, and name, else the ID) that have facts in it.
	Replaced(ctx context.Context, r Range) (Replacement, error)
	// FactDates are the first and last day with a fact (ok false: none).
	FactDates(ctx context.Context) (first, last time.Time, ok bool, err error)

	// ClearDemo deletes everything the warehouse holds (ReplaceDemo).
	ClearDemo(ctx context.Context) error
	// WriteFile carries out one file's plan: delete its Ranges, add or update
	// its Accounts, merge its campaigns, ad sets and ads by ID (new ones are
	// added; known ones take the file's non-empty name, objective and status
	// and the earlier start date), write its facts and reach (FilePlan.Send),
	// and record its Ledger entry (a plan without one, a sync chunk's, has
	// no ledger row: Ledger.SHA256 is empty).
	WriteFile(ctx context.Context, p *FilePlan) error
	// WriteDataset sets the dataset description's rows, in this order (the
	// last one is complete=true).
	WriteDataset(ctx context.Context, rows [][2]string) error

	// SyncStates are the rows of sync_state (none when the warehouse has no
	// such table: an older layout, never synced).
	SyncStates(ctx context.Context) ([]SyncState, error)
	// WriteSyncState replaces the account's row of sync_state.
	WriteSyncState(ctx context.Context, st SyncState) error
}

// Target describes a store's warehouse.
type Target struct {
	// Name names the warehouse in reports and errors (never with a password).
	Name string
	// Elsewhere ends the demo refusal's fix: how to import into another
	// warehouse ("--db to write another (new) file").
	Elsewhere string
	// Transactional: every call of a Write is in one transaction, rolled back
	// on an error and in a dry run.
	Transactional bool
}

// State is what a warehouse holds before an import.
type State struct {
	// Empty: no account, no fact and no dataset row (a new warehouse).
	Empty bool
	// Kind is the dataset's kind: "import" for a warehouse filled by imports,
	// "sync" for one filled by syncs, "demo" for the demo dataset, "" when
	// unset.
	Kind string
	// Label is the dataset's label ("" when unset).
	Label string
}

// LedgerEntry is one row of the imports ledger (table imports).
type LedgerEntry struct {
	SHA256       string
	FileName     string // the file's base name
	Platform     string
	Accounts     []string // the warehouse's spelling of the file's account IDs
	First, Last  time.Time
	Facts        int64
	ReachRows    int64
	SkippedLines int64
	ImportedAt   time.Time // UTC
}

// CampaignKey identifies a campaign: IDs are unique within an account.
type CampaignKey struct{ AccountID, CampaignID string }

// Range is what importing a file replaces for one of its accounts: the facts
// of its breakdown sets from First to Last, and the reach rows of each
// ReachPeriod. An export of one breakdown set (age and gender, placement)
// replaces that set's rows only, so that importing an age export never
// deletes the delivery rows of its days, nor a delivery export the age rows.
type Range struct {
	AccountID   string // the warehouse's spelling
	First, Last time.Time
	// Breakdowns are the keys (facts.breakdown) of the sets replaced: a
	// delivery export's are catalog.Delivery and conversion_action (its
	// conversions by action are read from the same lines, and must sum to
	// them); another set's export's, that set's key alone.
	Breakdowns []string
	// Reach is empty when the file replaces no reach (a breakdown set's
	// export: reach is never stored per breakdown).
	Reach []ReachPeriod
}

// FactWhere is the SQL condition selecting r's facts, and its arguments in
// order, for a store's DELETE and counts: account, dates and breakdown sets.
// alias prefixes the columns ("f." in a join); param writes the placeholder
// of the nth argument (from 1; date: a day).
func (r Range) FactWhere(alias string, param func(n int, date bool) string) (string, []any) {
	args := []any{r.AccountID, r.First, r.Last}
	in := make([]string, len(r.Breakdowns))
	for i, b := range r.Breakdowns {
		in[i] = param(len(args)+1, false)
		args = append(args, b)
	}
	if len(in) == 0 {
		in = []string{"NULL"} // no set: nothing (never happens in a plan)
	}
	return fmt.Sprintf("%[1]saccount_id = %[2]s AND %[1]sdate BETWEEN %[3]s AND %[4]s AND %[1]sbreakdown IN (%[5]s)",
		alias, param(1, false), param(2, true), param(3, true), strings.Join(in, ", ")), args
}

// ReachPeriod selects the reach rows of one grain whose period starts from
// From to To (inclusive).
type ReachPeriod struct {
	Grain    string // daily, weekly or monthly
	From, To time.Time
}

// Replacement is what a Range holds before it is replaced.
type Replacement struct {
	Facts, Reach int64
	// Campaigns are those with facts in the range.
	Campaigns []DroppedCampaign
}

// ReachWhere is the SQL condition selecting r's reach rows, and its
// arguments in order, for a store's DELETE and count. param writes the
// placeholder of the nth argument (from 1; date: a day). A range without
// reach periods selects none ("account_id = ? AND FALSE" would not read
// alike everywhere): check HasReach first.
func (r Range) ReachWhere(param func(n int, date bool) string) (string, []any) {
	args := []any{r.AccountID}
	terms := make([]string, len(r.Reach))
	for i, p := range r.Reach {
		n := len(args)
		terms[i] = fmt.Sprintf("grain = %s AND period_start BETWEEN %s AND %s", param(n+1, false), param(n+2, true), param(n+3, true))
		args = append(args, p.Grain, p.From, p.To)
	}
	return "account_id = " + param(1, false) + " AND (" + strings.Join(terms, " OR ") + ")", args
}

// HasReach reports whether r replaces reach rows.
func (r Range) HasReach() bool { return len(r.Reach) > 0 }
