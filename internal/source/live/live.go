// Package live is the source over ad platforms' APIs: for a query it asks
// every platform's connector, in parallel, for the rows of its accounts, stages
// them in an in-memory DuckDB warehouse and answers with the warehouse's own
// SQL. So a query over Meta and Google accounts together has exactly the
// semantics of the embedded warehouse (grains, ratios from summed parts, metric
// filters, reach only where exact), and a connector only has to fetch rows.
// Within one tool call the staged rows are kept and answer the call's later
// queries they cover, so the pipeline's re-queries cost no API request.
package live

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"sync"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
)

// Source answers queries over its connectors' accounts.
type Source struct {
	connectors []Connector
	log        *slog.Logger
}

var _ source.Source = (*Source)(nil)

// New returns a source over connectors (one per platform).
func New(log *slog.Logger, connectors ...Connector) *Source {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Source{connectors: connectors, log: log}
}

// Accounts merges every connector's accounts, listed in parallel. A connector
// that fails fails the list, naming its platform: without it, account IDs of
// that platform would read as unknown.
func (s *Source) Accounts(ctx context.Context) ([]ads.Account, error) {
	lists := make([][]ads.Account, len(s.connectors))
	errs := make([]error, len(s.connectors))
	var wg sync.WaitGroup
	for i, c := range s.connectors {
		wg.Go(func() {
			lists[i], errs[i] = c.Accounts(ctx)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("listing %s accounts: %w", c.Platform(), errs[i])
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var all []ads.Account
	for _, l := range lists {
		all = append(all, l...)
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].Platform != all[j].Platform {
			return all[i].Platform < all[j].Platform
		}
		return all[i].AccountName < all[j].AccountName
	})
	return all, nil
}

// Query fetches what q needs from each platform in parallel, then answers it
// from the staged rows. If any account fails, the query fails with a
// *source.AccountsError naming each failed account: never a subset passed off
// as the whole.
//
// Within a tool call (a source.Scope in ctx), the staged rows are kept until
// the call ends and answer the call's later queries they cover (see
// coverage): the pipeline's re-query at a coarser grain, a probe, a narrower
// selection. The first fetch is then one pass at the finest grain the call may
// need, with reach at every coarser grain (see planPass), so that those later
// queries make no new request.
// RecountsWindows: a live source asks the platform for the query's window
// (source.WindowRecounter); the connectors refuse what their platform cannot
// recount.
func (s *Source) RecountsWindows() bool { return true }

func (s *Source) Query(ctx context.Context, q *query.Query) (*fit.Table, error) {
	q = q.Recounted()
	e, release, err := s.stagedFor(ctx, q)
	if err != nil {
		return nil, err
	}
	defer release()
	return e.answer(ctx, q)
}

// stagedFor is a staged warehouse that answers q exactly, and what to call
// once done with it: the call's own when one covers q, else a new fetch (kept
// for the call's later queries when ctx belongs to a call, released after
// this query otherwise).
func (s *Source) stagedFor(ctx context.Context, q *query.Query) (*staged, func(), error) {
	st := s.staging(ctx)
	if st != nil {
		if e := st.find(q); e != nil {
			return e, func() {}, nil
		}
	}
	wh, cov, err := s.stage(ctx, q, planPass(q, st != nil))
	if err != nil {
		return nil, nil, err
	}
	if st == nil {
		e := &staged{wh: wh, cov: cov}
		return e, e.release, nil
	}
	e, release := st.keep(wh, cov)
	return e, release, nil
}

// stage runs pass over q's accounts and loads the rows in an in-memory
// warehouse, returning what it covers.
func (s *Source) stage(ctx context.Context, q *query.Query, p pass) (*duckdb.Source, *coverage, error) {
	b, reach, err := s.fetch(ctx, q, p)
	if err != nil {
		return nil, nil, err
	}
	mem, err := duckdb.OpenMemory(ctx, func(ctx context.Context, sink ads.Sink) error {
		return b.emit(q.Accounts, sink)
	})
	if err != nil {
		return nil, nil, fmt.Errorf("staging the fetched rows: %w", err)
	}
	return mem, newCoverage(p.facts, reach), nil
}

// fetch runs the pass's requests on every platform in parallel and returns
// the rows and the reach they hold for every account.
func (s *Source) fetch(ctx context.Context, q *query.Query, p pass) (*Batch, []duckdb.ReachNeed, error) {
	byPlatform := map[string][]ads.Account{}
	for _, a := range q.Accounts {
		byPlatform[a.Platform] = append(byPlatform[a.Platform], a)
	}
	for platform, accts := range byPlatform {
		if s.connector(platform) == nil {
			return nil, nil, fmt.Errorf("no %s connector is configured for accounts %v", platform, accountIDs(accts))
		}
	}
	b := newBatch()
	missing := make([]bool, len(p.reach)) // reach steps a reach-reporting platform could not fetch
	var (
		mu     sync.Mutex
		failed []*source.AccountError
		other  []error
		wg     sync.WaitGroup
	)
	run := func(platform string, fetch func() error) {
		wg.Go(func() {
			err := fetch()
			if err == nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			var many *source.AccountsError
			var one *source.AccountError
			switch {
			case errors.As(err, &many):
				failed = append(failed, many.Failed...)
			case errors.As(err, &one):
				failed = append(failed, one)
			default:
				other = append(other, fmt.Errorf("%s: %w", platform, err))
			}
		})
	}
	type leftOut struct {
		platform string
		accts    []ads.Account
		delivery *Batch
	}
	var sets []leftOut
	for platform, accts := range byPlatform {
		c := s.connector(platform)
		run(platform, func() error { return Fetch(ctx, c, p.facts, accts, b) })
		if delivery, fetch := fetchUnattributed(ctx, c, p.facts, accts); fetch != nil {
			sets = append(sets, leftOut{platform, accts, delivery})
			run(platform, fetch)
		}
		for i, step := range p.reach {
			fetch, ok := reachFetch(c, step.q, accts, b)
			switch {
			case ok:
				run(platform, func() error { return fetch(ctx) })
			case reportsReach(platform):
				missing[i] = true
			}
		}
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if len(other) > 0 {
		if qe := queryProblems(other); qe != nil {
			return nil, nil, qe
		}
		return nil, nil, errors.Join(other...)
	}
	if len(failed) > 0 {
		failed = distinctAccounts(failed)
		for _, f := range failed {
			s.log.Warn("account fetch failed", "platform", f.Platform, "account", f.AccountID, "kind", f.Kind, "error", f.Err)
		}
		return nil, nil, &source.AccountsError{Failed: failed, Succeeded: succeeded(q.Accounts, failed)}
	}
	for _, l := range sets {
		set, _ := perCampaignSet(p.facts, l.platform)
		b.Facts(unattributed(set, l.accts, l.delivery, b)...)
	}
	return b, p.reachFetched(missing), nil
}

// Fetch has c add to b the rows q needs from accounts (all on c's
// platform), as a query's fetch does: the plan (PlanFor), compiled by the
// connector, run on the worker pool. Failures as fetchAccounts says.
// Connectors' tests call it.
func Fetch(ctx context.Context, c Connector, q *query.Query, accounts []ads.Account, b *Batch) error {
	p, err := PlanFor(q, c.Platform())
	if err != nil {
		return err
	}
	fetch, err := c.Compile(p)
	if err != nil || fetch == nil {
		return err
	}
	return fetchAccounts(ctx, c.Platform(), c.Workers(), fetch, accounts, b)
}

// reachFetch is the fetch of the reach alone q reads from accounts into b;
// false when c fetches no reach (its platform has none).
func reachFetch(c Connector, q *query.Query, accounts []ads.Account, b *Batch) (func(context.Context) error, bool) {
	p, err := reachOnly(q, c.Platform())
	if err != nil {
		return func(context.Context) error { return err }, true
	}
	if p == nil {
		return func(context.Context) error { return nil }, true
	}
	fetch, err := c.Compile(p)
	if err != nil {
		return func(context.Context) error { return err }, true
	}
	if fetch == nil {
		return nil, false
	}
	return func(ctx context.Context) error {
		return fetchAccounts(ctx, c.Platform(), c.Workers(), fetch, accounts, b)
	}, true
}

// FetchReach has c add to b only the reach q reads from accounts, as a
// pass's reach step does; nothing when c cannot fetch reach alone.
// Connectors' tests call it.
func FetchReach(ctx context.Context, c Connector, q *query.Query, accounts []ads.Account, b *Batch) error {
	if fetch, ok := reachFetch(c, q, accounts, b); ok {
		return fetch(ctx)
	}
	return nil
}

// queryProblems are the problems of every platform that refused the query's
// shape (a *query.Error from its connector's Compile), in one error, in a
// fixed order: each platform plans in parallel, and the caller fixes every
// problem at once rather than the one that happened to finish first. Nil
// when no platform refused it.
func queryProblems(errs []error) *query.Error {
	var out query.Error
	for _, err := range errs {
		var qe *query.Error
		if !errors.As(err, &qe) {
			continue
		}
		for _, p := range qe.Problems {
			if !slices.ContainsFunc(out.Problems, func(x query.Problem) bool { return x.Field == p.Field && x.Problem == p.Problem }) {
				out.Problems = append(out.Problems, p)
			}
		}
	}
	if len(out.Problems) == 0 {
		return nil
	}
	slices.SortStableFunc(out.Problems, func(a, b query.Problem) int {
		return cmp.Or(cmp.Compare(a.Field, b.Field), cmp.Compare(a.Problem, b.Problem))
	})
	return &out
}

// Close does nothing: connectors hold no open resources.
func (s *Source) Close() error { return nil }

func (s *Source) connector(platform string) Connector {
	for _, c := range s.connectors {
		if c.Platform() == platform {
			return c
		}
	}
	return nil
}

func accountIDs(accts []ads.Account) []string {
	out := make([]string, len(accts))
	for i, a := range accts {
		out[i] = a.AccountID
	}
	return out
}

// distinctAccounts keeps each failed account once (a pass may ask it several
// things), the first error reported for it.
func distinctAccounts(failed []*source.AccountError) []*source.AccountError {
	seen := map[string]bool{}
	return slices.DeleteFunc(failed, func(f *source.AccountError) bool {
		dup := seen[f.AccountID]
		seen[f.AccountID] = true
		return dup
	})
}

func succeeded(all []ads.Account, failed []*source.AccountError) []string {
	var out []string
	for _, a := range all {
		if !slices.ContainsFunc(failed, func(f *source.AccountError) bool { return f.AccountID == a.AccountID }) {
			out = append(out, a.AccountID)
		}
	}
	return out
}
