// Package syncer copies the ad platforms' data into a warehouse (`adsmcp
// sync`, docs/sync.md): for every account the connectors reach, the days it
// lacks and the days the platform may still revise, fetched with the live
// source's plans (live.SyncPlans) and written one account × month at a time,
// each write atomic with the account's sync state, so that an interrupted
// run leaves every account whole up to the last chunk written and the next
// run goes on from there.
package syncer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/live"
)

// DefaultSince is how far back a first sync goes when --since is not given.
const DefaultSince = 90 * 24 * time.Hour

// Options configure a run.
type Options struct {
	// Connectors are the platforms' APIs, one per platform.
	Connectors []live.Connector
	// Target is the warehouse written.
	Target importer.SyncTarget
	// Accounts, when not empty, are the only accounts synced (IDs as people
	// write them: ads.FoldID).
	Accounts []string
	// Platforms, when not empty, are the only platforms synced.
	Platforms []string
	// Since is the first day a backfill goes back to (zero: DefaultSince
	// before today), clipped to each platform's history (catalog).
	Since time.Time
	// RefetchFrom, when set, fetches again every synced day from it to
	// today, as if the platform's lookback reached back to it: a past range
	// the platform revised later than its lookback (a Google conversion
	// window of 90 days).
	RefetchFrom time.Time
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Progress, when set, is called after every chunk and every account
	// (from one goroutine at a time).
	Progress func(Progress)
	Log      *slog.Logger
}

// Progress is where a run stands.
type Progress struct {
	Accounts, AccountsDone int
	Days, DaysDone         int
	Rows, Requests         int64
	Elapsed                time.Duration
}

// ETA is the time the rest should take at the pace so far (zero: unknown).
func (p Progress) ETA() time.Duration {
	if p.DaysDone == 0 || p.DaysDone >= p.Days {
		return 0
	}
	return time.Duration(float64(p.Elapsed) * float64(p.Days-p.DaysDone) / float64(p.DaysDone))
}

// AccountResult is what a run did for one account.
type AccountResult struct {
	Platform    string `json:"platform"`
	AccountID   string `json:"account_id"`
	AccountName string `json:"account_name"`
	// Days are the days written (lookback days again included).
	Days     int     `json:"days"`
	Rows     int64   `json:"rows"`
	Requests int64   `json:"requests"`
	Seconds  float64 `json:"seconds"`
	// SyncedFrom and SyncedThrough are what the warehouse now holds for the
	// account ("" when nothing).
	SyncedFrom    string `json:"synced_from,omitempty"`
	SyncedThrough string `json:"synced_through,omitempty"`
	// Error is why the account failed, and Fix what to do; its earlier data
	// stays.
	Error string `json:"error,omitempty"`
	Fix   string `json:"fix,omitempty"`
}

// Result is what a run did.
type Result struct {
	Target   string          `json:"target"`
	Accounts []AccountResult `json:"accounts"`
	Seconds  float64         `json:"seconds"`
}

// Failed counts the accounts that failed.
func (r *Result) Failed() int {
	n := 0
	for _, a := range r.Accounts {
		if a.Error != "" {
			n++
		}
	}
	return n
}

// Run syncs every selected account. An account that fails (a revoked
// token, a permission, a deleted account, a changed currency) is reported
// in its AccountResult while the others go on; Run's error is for what
// stops the whole run: the target, a platform's account list, ctx.
func Run(ctx context.Context, opt Options) (*Result, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	start := opt.Now()
	began := time.Now()
	if err := opt.Target.Check(ctx); err != nil {
		return nil, err
	}
	jobs, unlisted, err := plan(ctx, opt, start)
	if err != nil {
		return nil, err
	}
	r := &runner{opt: opt, start: began, writes: make(chan write)}
	for _, j := range jobs {
		r.progress.Accounts++
		for _, s := range j.spans {
			r.progress.Days += s.Days()
		}
	}
	r.report()
	results := append(r.run(ctx, jobs), unlisted...)
	res := &Result{Target: opt.Target.Name(), Accounts: results, Seconds: time.Since(began).Seconds()}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	return res, nil
}

// job is one account's work.
type job struct {
	conn  live.Connector
	acct  ads.Account
	state importer.SyncState
	spans []Span
}

// plan lists the accounts and what each needs. A platform whose accounts
// cannot be listed is a result of its own (the others go on): its accounts'
// data stays as it was.
func plan(ctx context.Context, opt Options, now time.Time) ([]job, []AccountResult, error) {
	states, err := opt.Target.States(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the sync state of %s: %w", opt.Target.Name(), err)
	}
	byID := map[string]importer.SyncState{}
	for _, s := range states {
		byID[ads.FoldID(s.AccountID)] = s
	}
	wanted := map[string]bool{}
	for _, id := range opt.Accounts {
		wanted[ads.FoldID(id)] = true
	}
	var jobs []job
	var unlisted []AccountResult
	found := map[string]bool{}
	for _, c := range opt.Connectors {
		if len(opt.Platforms) > 0 && !slices.Contains(opt.Platforms, c.Platform()) {
			continue
		}
		accts, err := c.Accounts(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			cause, fix := describe(err)
			unlisted = append(unlisted, AccountResult{Platform: c.Platform(), AccountID: "*",
				AccountName: "(every account: the list of accounts failed)", Error: cause, Fix: fix})
			for _, id := range opt.Accounts {
				found[ads.FoldID(id)] = true // not reported missing: its platform could not say
			}
			continue
		}
		for _, a := range accts {
			id := ads.FoldID(a.AccountID)
			if len(wanted) > 0 && !wanted[id] {
				continue
			}
			found[id] = true
			j := job{conn: c, acct: a, state: byID[id]}
			j.state.AccountID, j.state.Platform = cmp.Or(j.state.AccountID, a.AccountID), a.Platform
			day := today(now, a.Timezone)
			j.state.BackfillFrom = backfillFrom(opt.Since, day, a.Platform)
			back := lookback(a.Platform)
			if !opt.RefetchFrom.IsZero() && !opt.RefetchFrom.After(day) {
				back = max(back, Span{opt.RefetchFrom, day}.Days())
			}
			j.spans = work(j.state, j.state.BackfillFrom, day, back)
			jobs = append(jobs, j)
		}
	}
	var missing []string
	for _, id := range opt.Accounts {
		if !found[ads.FoldID(id)] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return nil, nil, fmt.Errorf("--accounts: %v: the credentials do not reach these accounts (run `adsmcp accounts` to list those they do)", missing)
	}
	return jobs, unlisted, nil
}

// backfillFrom is the first day a backfill goes back to: since, or
// DefaultSince before today, never beyond the platform's history.
func backfillFrom(since, today time.Time, platform string) time.Time {
	from := since
	if !from.IsZero() {
		y, m, d := from.Date()
		from = time.Date(y, m, d, 0, 0, 0, 0, time.UTC) // a day, as facts are dated
	}
	if from.IsZero() {
		from = today.Add(-DefaultSince).AddDate(0, 0, 1)
	}
	if p, ok := catalog.PlatformByName(platform); ok && p.MaxHistory > 0 {
		if oldest := today.AddDate(0, -p.MaxHistory, 0); from.Before(oldest) {
			from = oldest
		}
	}
	if from.After(today) {
		from = today
	}
	return from
}

// lookback is how many days before today a platform may still revise (the
// platform table's SyncLookback, with its sources).
func lookback(platform string) int {
	if p, ok := catalog.PlatformByName(platform); ok && p.SyncLookback > 0 {
		return p.SyncLookback
	}
	return 28
}

// runner runs the jobs: fetches in parallel (each platform on its
// connector's workers), writes one at a time.
type runner struct {
	opt      Options
	start    time.Time
	writes   chan write
	mu       sync.Mutex
	progress Progress
}

// write is one call on the target, made by the writer goroutine alone (a
// SyncTarget is for one goroutine at a time): a chunk, or else a failed
// account's state.
type write struct {
	chunk   *importer.Chunk
	failure importer.SyncState
	done    chan error
}

func (r *runner) run(ctx context.Context, jobs []job) []AccountResult {
	var writer sync.WaitGroup
	writer.Go(func() {
		for w := range r.writes {
			if w.chunk == nil {
				w.done <- r.opt.Target.RecordFailure(ctx, w.failure)
				continue
			}
			_, err := r.opt.Target.Write(ctx, w.chunk)
			w.done <- err
		}
	})
	results := make([]AccountResult, len(jobs))
	var wg sync.WaitGroup
	for _, c := range r.opt.Connectors {
		var mine []int
		for i, j := range jobs {
			if j.conn == c {
				mine = append(mine, i)
			}
		}
		next := make(chan int)
		for range max(1, min(c.Workers(), len(mine))) {
			wg.Go(func() {
				for i := range next {
					results[i] = r.account(ctx, jobs[i])
				}
			})
		}
		wg.Go(func() {
			defer close(next)
			for _, i := range mine {
				select {
				case next <- i:
				case <-ctx.Done():
					return
				}
			}
		})
	}
	wg.Wait()
	close(r.writes)
	writer.Wait()
	slices.SortStableFunc(results, func(a, b AccountResult) int {
		return cmp.Or(cmp.Compare(a.Platform, b.Platform), cmp.Compare(a.AccountName, b.AccountName), cmp.Compare(a.AccountID, b.AccountID))
	})
	return slices.DeleteFunc(results, func(a AccountResult) bool { return a.AccountID == "" })
}

// account syncs one account's spans in order, each chunk written before the
// next is fetched.
func (r *runner) account(ctx context.Context, j job) AccountResult {
	began := time.Now() // elapsed time: the real clock, whatever Now says the day is
	res := AccountResult{Platform: j.acct.Platform, AccountID: j.acct.AccountID, AccountName: j.acct.AccountName}
	var calls source.Calls
	cctx := source.WithCalls(ctx, &calls)
	st := j.state
	counted := 0 // requests already added to the progress
	fail := func(err error) AccountResult {
		res.Error, res.Fix = describe(err)
		st.LastAttempt = r.opt.Now().UTC()
		st.LastError = res.Error
		if res.Fix != "" {
			st.LastError += " Fix: " + res.Fix
		}
		if ctx.Err() == nil {
			if err := r.write(ctx, write{failure: st}); err != nil {
				r.opt.Log.Warn("recording a sync failure", "account", j.acct.AccountID, "error", err)
			}
		}
		return r.finish(res, st, began, &calls, counted)
	}
	for i, s := range j.spans {
		plans, err := live.SyncPlans(j.acct.Platform, s.First, s.Last)
		if err != nil {
			return fail(err)
		}
		batches, err := live.FetchPlans(cctx, j.conn, plans, j.acct)
		if err != nil {
			return fail(err)
		}
		c := chunkOf(j.acct, s, batches)
		next := after(st, s)
		next.LastAttempt = r.opt.Now().UTC()
		if i == len(j.spans)-1 {
			next.LastSuccess, next.LastError = next.LastAttempt, ""
		}
		c.State = next
		if err := r.write(ctx, write{chunk: c}); err != nil {
			return fail(err)
		}
		st = next
		res.Days += s.Days()
		res.Rows += int64(len(c.Facts) + len(c.Reach))
		n := calls.N()
		r.advance(s.Days(), int64(len(c.Facts)+len(c.Reach)), int64(n-counted))
		counted = n
	}
	return r.finish(res, st, began, &calls, counted)
}

// write hands w to the writer goroutine and waits for its result.
func (r *runner) write(ctx context.Context, w write) error {
	w.done = make(chan error, 1)
	select {
	case r.writes <- w:
	case <-ctx.Done():
		return ctx.Err()
	}
	return <-w.done
}

// finish completes an account's result; counted of its requests are in the
// progress already.
func (r *runner) finish(res AccountResult, st importer.SyncState, began time.Time, calls *source.Calls, counted int) AccountResult {
	res.Requests = int64(calls.N())
	res.Seconds = time.Since(began).Seconds()
	if !st.SyncedFrom.IsZero() {
		res.SyncedFrom, res.SyncedThrough = st.SyncedFrom.Format(time.DateOnly), st.SyncedThrough.Format(time.DateOnly)
	}
	r.mu.Lock()
	r.progress.AccountsDone++
	r.progress.Requests += res.Requests - int64(counted)
	r.mu.Unlock()
	r.report()
	return res
}

func (r *runner) advance(days int, rows, requests int64) {
	r.mu.Lock()
	r.progress.DaysDone += days
	r.progress.Rows += rows
	r.progress.Requests += requests
	r.mu.Unlock()
	r.report()
}

func (r *runner) report() {
	if r.opt.Progress == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.progress
	p.Elapsed = time.Since(r.start)
	r.opt.Progress(p)
}

// describe is an account's failure as the summary says it: the cause, and
// the fix.
func describe(err error) (cause, fix string) {
	var ae *source.AccountError
	var changed *importer.AccountChangedError
	switch {
	case errors.As(err, &ae):
		return fmt.Sprintf("%s: %s", ae.Kind, ae.Cause), ae.Fix
	case errors.As(err, &changed):
		return changed.Error(), ""
	case errors.Is(err, context.Canceled):
		return "interrupted", "run adsmcp sync again: it goes on from the last month written"
	case errors.Is(err, context.DeadlineExceeded):
		return "ran out of time", "run adsmcp sync again: it goes on from the last month written"
	}
	return err.Error(), ""
}
