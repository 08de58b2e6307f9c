// Package synced answers queries from a warehouse that `adsmcp sync` fills
// (docs/sync.md), falling back on the ad platforms' APIs for what the sync
// does not hold yet: a query whose every account is synced over its whole
// date range is answered from the warehouse (fast, no request to a
// platform); any other is answered live, so that no answer is ever short of
// the days a sync has not reached. Without a live source (a warehouse
// server synced by a cron job), such a query is answered from the warehouse
// with a notice that says, per account, where its data ends.
//
// Every answer says where it came from and how fresh it is (Provenance,
// noted in the call's context for the answer's _meta).
package synced

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
)

// Source answers from Warehouse what its sync covers, and from Live the
// rest.
type Source struct {
	Warehouse source.Source
	// Live answers what the warehouse does not cover; nil: nothing does
	// (the answer then says where each account's data ends).
	Live source.Source
	// States are the warehouse's sync states.
	States func(ctx context.Context) ([]importer.SyncState, error)
	// NextSync is when the next sync runs (zero: not known, e.g. a cron job
	// elsewhere); nil: never said.
	NextSync func() time.Time
}

var _ source.Source = (*Source)(nil)

// Accounts are the live source's (what the credentials reach now), or the
// warehouse's without one.
func (s *Source) Accounts(ctx context.Context) ([]ads.Account, error) {
	if s.Live != nil {
		return s.Live.Accounts(ctx)
	}
	return s.Warehouse.Accounts(ctx)
}

// RecountsWindows: with a live source, a query asking another attribution
// window than the accounts' own is answered live (the warehouse holds each
// account's own window only).
func (s *Source) RecountsWindows() bool {
	r, ok := s.Live.(source.WindowRecounter)
	return ok && r.RecountsWindows()
}

// Query answers q from the warehouse when the sync covers it, else live.
func (s *Source) Query(ctx context.Context, q *query.Query) (*fit.Table, error) {
	states, err := s.stateOf(ctx, q)
	if err != nil {
		return nil, err
	}
	short := shortAccounts(q, states, s.Live == nil)
	live := s.Live != nil && (len(short) > 0 || q.AttributionWindow != "")
	if live {
		source.NoteProvenance(ctx, source.Provenance{From: source.FromLive})
		return s.Live.Query(ctx, q)
	}
	source.NoteProvenance(ctx, s.provenance(q, states))
	tab, err := s.Warehouse.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	if len(short) > 0 {
		tab.Notices = append(tab.Notices, s.beyondSynced(q, short, states))
	}
	return tab, nil
}

// stateOf reads the sync state of q's accounts, by their folded IDs.
func (s *Source) stateOf(ctx context.Context, q *query.Query) (map[string]importer.SyncState, error) {
	all, err := s.States(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err() // the call ended: not the warehouse's failure
		}
		return nil, fmt.Errorf("reading the sync state: %w", err)
	}
	out := map[string]importer.SyncState{}
	for _, st := range all {
		out[ads.FoldID(st.AccountID)] = st
	}
	return out, nil
}

// shortAccounts are q's accounts whose synced days do not cover q's range
// (and, for a comparison, its other window: the engine asks each window
// as a query of its own). An account no sync ever wrote is short when a
// live source can answer it; without one, the warehouse's account list is
// where q found it, so its data was imported and no sync makes a claim
// about it (imports and syncs share a warehouse, docs/sync.md).
func shortAccounts(q *query.Query, states map[string]importer.SyncState, imported bool) []string {
	var out []string
	for _, a := range q.Accounts {
		st, ok := states[ads.FoldID(a.AccountID)]
		if !ok && imported {
			continue
		}
		if !ok || st.SyncedFrom.IsZero() || q.Start.Before(st.SyncedFrom) || q.End.After(st.SyncedThrough) {
			out = append(out, a.AccountID)
		}
	}
	return out
}

// provenance is what an answer from the warehouse says of its freshness.
func (s *Source) provenance(q *query.Query, states map[string]importer.SyncState) source.Provenance {
	p := source.Provenance{From: source.FromSynced}
	if s.NextSync != nil {
		p.NextSync = s.NextSync()
	}
	for _, a := range q.Accounts {
		st := states[ads.FoldID(a.AccountID)]
		f := source.AccountFreshness{AccountID: a.AccountID, SyncedAt: st.LastAttempt}
		if !st.SyncedFrom.IsZero() {
			f.SyncedFrom, f.SyncedThrough = st.SyncedFrom, st.SyncedThrough
		}
		p.Accounts = append(p.Accounts, f)
	}
	return p
}

// beyondSynced is the notice of an answer from the warehouse whose range
// goes past what some accounts hold: where each one's data ends, and when
// the next sync runs.
func (s *Source) beyondSynced(q *query.Query, short []string, states map[string]importer.SyncState) fit.Notice {
	var parts []string
	for _, id := range short {
		st, ok := states[ads.FoldID(id)]
		switch {
		case !ok || st.SyncedFrom.IsZero():
			parts = append(parts, id+" has not been synced yet")
		default:
			parts = append(parts, fmt.Sprintf("%s holds %s … %s", id, st.SyncedFrom.Format(time.DateOnly), st.SyncedThrough.Format(time.DateOnly)))
		}
	}
	slices.Sort(parts)
	next := "when the next sync runs"
	if s.NextSync != nil {
		if t := s.NextSync(); !t.IsZero() {
			next = "after the next sync, at " + t.UTC().Format(time.RFC3339)
		}
	}
	return fit.Notice{Type: "beyond_synced", Detail: fmt.Sprintf(
		"This answer covers %s … %s only where the warehouse holds the days: %s. The days outside are not in these figures; tell the user, and ask again %s",
		q.Start.Format(time.DateOnly), q.End.Format(time.DateOnly), strings.Join(parts, "; "), next)}
}

// SyncStates are the warehouse's sync states (list_accounts shows them).
func (s *Source) SyncStates(ctx context.Context) ([]importer.SyncState, error) { return s.States(ctx) }

// DataSource says, for list_accounts' _meta, where query answers come from.
func (s *Source) DataSource() string {
	if s.Live == nil {
		return "Queries are answered from the synced warehouse; a range past an account's synced days says where its data ends (warning beyond_synced)."
	}
	return "Queries are answered from the synced warehouse when every account's synced days cover the range (synced_from … synced_through), else live from the ad platforms' APIs; each answer's _meta.data_source says which."
}

// Close closes both sources.
func (s *Source) Close() error {
	err := s.Warehouse.Close()
	if s.Live != nil {
		if lerr := s.Live.Close(); err == nil {
			err = lerr
		}
	}
	return err
}
