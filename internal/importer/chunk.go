package importer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
)

// WriteChunk writes one sync chunk into the warehouse s by the import
// engine's rules (see Chunk and the engine's comment in engine.go), and
// records its State, in the store's transaction (a transactional store is
// left to its caller to commit; see each warehouse's SyncTarget):
//
//   - A warehouse holding the demo dataset (or data of another kind) is
//     refused with ErrDemoData unless opt.ReplaceDemo, which deletes it.
//   - The account matches the warehouse's by ads.FoldID and keeps the
//     warehouse's spelling; another platform, currency or time zone is an
//     *AccountChangedError, and nothing is written.
//   - It replaces, for the account from First to Last, the facts of every set
//     in c.Sets and the reach of SyncReachPeriods; campaigns, ad sets and ads
//     merge by ID.
//   - A chunk is not a file: it has no row in the imports ledger.
//   - The dataset rows say the kind (DatasetKind), the label, the first and
//     last day of all facts, and complete=true.
func WriteChunk(ctx context.Context, s Store, c *Chunk, opt SyncOptions) (ChunkResult, error) {
	var res ChunkResult
	if c.Last.Before(c.First) {
		return res, fmt.Errorf("sync chunk of account %s: last day %s before the first %s", c.Account.AccountID,
			c.Last.Format(time.DateOnly), c.First.Format(time.DateOnly))
	}
	if len(c.Sets) == 0 {
		return res, errors.New("sync chunk of account " + c.Account.AccountID + ": no breakdown set to replace")
	}
	st, err := s.State(ctx)
	if err != nil {
		return res, err
	}
	fresh := st.Empty
	if !st.Empty && !RealData(st.Kind) {
		if !opt.ReplaceDemo {
			return res, demoError(s.Target(), st.Kind, "sync")
		}
		if err := s.ClearDemo(ctx); err != nil {
			return res, err
		}
		fresh, st = true, State{Empty: true}
	}
	pl := &planner{ctx: ctx, s: s, fresh: fresh,
		accounts: map[string]ads.Account{}, campaigns: map[CampaignKey]bool{}, campaignsRead: map[string]bool{}, seen: map[string]string{}}
	if !fresh {
		if err := pl.readAccounts(); err != nil {
			return res, err
		}
	}
	pa, err := pl.syncAccount(c.Account)
	if err != nil {
		return res, err
	}
	ex := &Export{First: c.First, Last: c.Last, Accounts: []Account{{Account: c.Account}},
		Campaigns: c.Campaigns, AdSets: c.AdSets, Ads: c.Ads, Facts: c.Facts, Reach: c.Reach}
	r := Range{AccountID: pa.AccountID, First: c.First, Last: c.Last, Breakdowns: c.Sets, Reach: SyncReachPeriods(c.First, c.Last)}
	p := &FilePlan{Export: ex, Accounts: []PlannedAccount{pa}, Ranges: []Range{r},
		ids: map[string]string{c.Account.AccountID: pa.AccountID}, NewCampaigns: map[CampaignKey]bool{}}
	if err := pl.newCampaigns(p); err != nil {
		return res, err
	}
	if !fresh {
		rep, err := s.Replaced(ctx, r)
		if err != nil {
			return res, err
		}
		res.FactsReplaced, res.ReachReplaced = rep.Facts, rep.Reach
	}
	if err := s.WriteFile(ctx, p); err != nil {
		return res, err
	}
	if err := writeDataset(ctx, s, st, KindSync); err != nil {
		return res, err
	}
	state := c.State
	state.AccountID, state.Platform = pa.AccountID, pa.Platform
	if state.LastAttempt.IsZero() {
		state.LastAttempt = syncNow(opt)
	}
	if err := s.WriteSyncState(ctx, state); err != nil {
		return res, err
	}
	res.FactsAdded, res.ReachAdded = int64(len(c.Facts)), int64(len(c.Reach))
	res.NewAccount, res.NewCampaigns = pa.New, int64(len(p.NewCampaigns))
	return res, nil
}

// RecordSyncFailure stores st for an account whose sync failed, in the
// warehouse's spelling of its ID when it holds the account; its data is not
// touched.
func RecordSyncFailure(ctx context.Context, s Store, st SyncState, opt SyncOptions) error {
	if st.LastAttempt.IsZero() {
		st.LastAttempt = syncNow(opt)
	}
	accounts, err := s.Accounts(ctx)
	if err != nil {
		return err
	}
	for _, a := range accounts {
		if ads.FoldID(a.AccountID) == ads.FoldID(st.AccountID) {
			st.AccountID = a.AccountID
		}
	}
	return s.WriteSyncState(ctx, st)
}

func syncNow(opt SyncOptions) time.Time {
	if opt.Now != nil {
		return opt.Now().UTC()
	}
	return time.Now().UTC()
}

// RealData reports whether a warehouse of dataset kind holds real data,
// which imports and syncs write into: theirs ("import", "sync"). Demo data,
// or any other kind, is never mixed with it.
func RealData(kind string) bool { return kind == KindImport || kind == KindSync }

// syncAccount is the chunk's account as the warehouse will hold it: a known
// one keeps its ID's spelling and takes the platform's name, status,
// attribution window and conversion actions; another platform, currency or
// time zone is refused.
func (pl *planner) syncAccount(a ads.Account) (PlannedAccount, error) {
	key := ads.FoldID(a.AccountID)
	old, known := pl.accounts[key]
	if !known {
		pl.accounts[key] = a
		return PlannedAccount{Account: a, New: true}, nil
	}
	for _, f := range []struct{ field, was, now string }{
		{"platform", old.Platform, a.Platform},
		{"currency", old.Currency, a.Currency},
		{"timezone", old.Timezone, a.Timezone},
	} {
		if f.was != f.now {
			return PlannedAccount{}, &AccountChangedError{AccountID: old.AccountID, Field: f.field, Was: f.was, Now: f.now}
		}
	}
	next := a
	next.AccountID = old.AccountID
	pl.accounts[key] = next
	return PlannedAccount{Account: next, Changed: next != old}, nil
}

// StoreTarget is a SyncTarget over a warehouse's Store: each Write and
// RecordFailure runs in one call of Run, which gives the store (over one
// transaction, committed when the call succeeds, where the warehouse has
// them).
type StoreTarget struct {
	Warehouse string
	Options   SyncOptions
	// Run calls write with the store; the store's writes are kept only if
	// write succeeds.
	Run func(ctx context.Context, write func(Store) error) error
	// ReadStates reads sync_state (SyncTarget.States).
	ReadStates func(ctx context.Context) ([]SyncState, error)
	// Release releases what the target holds (nil: nothing).
	Release func() error
}

func (t *StoreTarget) Name() string { return t.Warehouse }

func (t *StoreTarget) States(ctx context.Context) ([]SyncState, error) { return t.ReadStates(ctx) }

func (t *StoreTarget) Check(ctx context.Context) error {
	return t.Run(ctx, func(s Store) error {
		st, err := s.State(ctx)
		if err != nil {
			return err
		}
		if !st.Empty && !RealData(st.Kind) && !t.Options.ReplaceDemo {
			return demoError(s.Target(), st.Kind, "sync")
		}
		return nil
	})
}

func (t *StoreTarget) Write(ctx context.Context, c *Chunk) (res ChunkResult, err error) {
	err = t.Run(ctx, func(s Store) error {
		res, err = WriteChunk(ctx, s, c, t.Options)
		return err
	})
	return res, err
}

func (t *StoreTarget) RecordFailure(ctx context.Context, st SyncState) error {
	return t.Run(ctx, func(s Store) error { return RecordSyncFailure(ctx, s, st, t.Options) })
}

func (t *StoreTarget) Close() error {
	if t.Release == nil {
		return nil
	}
	return t.Release()
}
