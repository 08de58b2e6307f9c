package importer

import (
	"context"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
)

// Sync: the ad platforms' data written into a warehouse by `adsmcp sync`
// (docs/sync.md), through the same rules as imports: an account × date range
// is replaced whole, accounts match by ads.FoldID, campaigns, ad sets and ads
// merge by ID, and demo data is never mixed with real data.

// KindSync is the dataset kind of a warehouse filled by `adsmcp sync`. A
// warehouse of kind KindImport or KindSync holds real data: a sync writes into
// either, and so does an import.
const KindSync = "sync"

// SyncLabel is the dataset label of a warehouse filled by a sync.
const SyncLabel = "synced from the ad platforms' APIs (adsmcp sync)"

// Chunk is one account × date range a sync writes: everything the warehouse
// stores for that account on those days, as the platform reported it.
// Writing it replaces, for the account from First to Last, the facts of every
// set in Sets and the reach of every period that ends in the range
// (SyncReachPeriods), and records State, all at once: a reader sees the
// warehouse before the chunk or after it, never between.
type Chunk struct {
	// Account is the account as the platform lists it now; the warehouse's
	// account takes its name, status, attribution window and conversion
	// actions. A different platform, currency or time zone than the
	// warehouse holds is refused (an *AccountChangedError): an account's
	// days and money are never mixed.
	Account     ads.Account
	First, Last time.Time
	// Sets are the keys (facts.breakdown) of every breakdown set the
	// platform stores (catalog.PlatformSets): all of them are replaced, so a
	// set with no rows on these days is emptied there.
	Sets []string
	// Campaigns, AdSets and Ads merge by ID: new ones are added, known ones
	// take the chunk's non-empty name, objective and status and the earlier
	// start date.
	Campaigns []ads.Campaign
	AdSets    []ads.AdSet
	Ads       []ads.Ad
	// Facts are in date order; Reach are whole periods ending in the range
	// (account and campaign level, daily, weekly and monthly).
	Facts []ads.Fact
	Reach []ads.Reach
	// State is the account's sync state once the chunk is written.
	State SyncState
}

// SyncState is what the warehouse knows of one account's sync (table
// sync_state): the days it holds, and how the last attempt went.
type SyncState struct {
	AccountID string // the warehouse's spelling
	Platform  string
	// SyncedFrom … SyncedThrough are the days synced, one contiguous span
	// (zero: none yet). A backfill goes back from the newest days, so the
	// questions people ask most are answered first.
	SyncedFrom, SyncedThrough time.Time
	// BackfillFrom is the first day the backfill goes back to (--since).
	BackfillFrom time.Time
	// LastSuccess is when a sync last completed the account (UTC); zero:
	// never.
	LastSuccess time.Time
	// LastAttempt is when a sync last wrote the state (UTC).
	LastAttempt time.Time
	// LastError is why the last attempt failed and what fixes it ("" after a
	// success); the data synced before stays.
	LastError string
}

// SyncReachPeriods are the reach periods a chunk from first to last
// replaces: those whose last day lies in the range (a day, an ISO week
// ending on a Sunday, a calendar month), so that the chunk holding a
// period's last day owns it. A period is whole only once its last day is
// synced; a later sync's lookback re-fetches the periods it revises.
func SyncReachPeriods(first, last time.Time) []ReachPeriod {
	out := []ReachPeriod{{Grain: "daily", From: first, To: last}}
	// ISO weeks: Monday start; the week ending on day d starts on d-6.
	out = append(out, ReachPeriod{Grain: "weekly", From: first.AddDate(0, 0, -6), To: last.AddDate(0, 0, -6)})
	// Months whose last day is in [first, last]: from first's own month
	// (its last day is never before first), to last's if last is its last
	// day, else the month before.
	from := monthStart(first)
	to := monthStart(last)
	if !monthEnd(last).Equal(last) {
		to = to.AddDate(0, -1, 0)
	}
	if !to.Before(from) {
		out = append(out, ReachPeriod{Grain: "monthly", From: from, To: to})
	}
	return out
}

func monthStart(d time.Time) time.Time {
	return time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, d.Location())
}

func monthEnd(d time.Time) time.Time { return monthStart(d).AddDate(0, 1, -1) }

// ChunkResult is what writing a chunk did.
type ChunkResult struct {
	FactsAdded, FactsReplaced int64
	ReachAdded, ReachReplaced int64
	NewAccount                bool
	NewCampaigns              int64
}

// SyncOptions configure a SyncTarget.
type SyncOptions struct {
	// ReplaceDemo deletes the demo dataset before the first chunk, instead
	// of refusing (ErrDemoData).
	ReplaceDemo bool
	// Now stamps states and the dataset (nil: time.Now).
	Now func() time.Time
}

// SyncTarget is a warehouse a sync writes, one chunk at a time; safe for
// use by one goroutine at a time (the sync serializes writes: fetching, not
// writing, is what takes time).
type SyncTarget interface {
	// Name names the warehouse in reports and errors (never with a
	// password).
	Name() string
	// States are the sync states of every account synced so far.
	States(ctx context.Context) ([]SyncState, error)
	// Check refuses, before anything is fetched, what every Write would
	// refuse: a warehouse holding the demo dataset (ErrDemoData) unless
	// ReplaceDemo.
	Check(ctx context.Context) error
	// Write writes c atomically (see Chunk). A warehouse holding the demo
	// dataset is refused with ErrDemoData unless ReplaceDemo.
	Write(ctx context.Context, c *Chunk) (ChunkResult, error)
	// RecordFailure stores st for an account that failed: its data is not
	// touched.
	RecordFailure(ctx context.Context, st SyncState) error
	Close() error
}

// AccountChangedError refuses a chunk whose account the warehouse holds
// under another platform, currency or time zone.
type AccountChangedError struct {
	AccountID string
	Field     string // "platform", "currency" or "timezone"
	Was, Now  string
}

func (e *AccountChangedError) Error() string {
	return "account " + e.AccountID + "'s " + e.Field + " is " + e.Now + " on the platform and " + e.Was +
		" in the warehouse; its days and money cannot be mixed: sync it into another warehouse (--db or --target), or delete the account's data from this one"
}
