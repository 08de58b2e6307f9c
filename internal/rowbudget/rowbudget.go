// Package rowbudget bounds the rows a server holds in memory for answers in
// flight: each call may read at most PerCall rows from its source, and all
// calls together at most InFlight (a call may always take Floor rows, so small
// calls are answered while large ones are refused). Rows are counted as the
// source reader materializes them, so a call over its bound stops reading at
// the bound — before the rest of its rows exist — and answers with an error
// that says which bound and how to narrow, never an out-of-memory crash.
//
// A Budget is shared by every call of a server; each call takes a Lease,
// carried in its context to the reader, and releases it when its answer is
// built.
package rowbudget

import (
	"context"
	"fmt"
	"sync"
)

// Defaults: about 1 KiB of process memory per row read (DuckDB, fit and the
// answer together, measured on the demo warehouse's largest query: 2.35M rows →
// 2.6 GiB), so a call holds at most ~0.5 GiB and the server ~1.5 GiB.
const (
	DefaultPerCall  = 500_000
	DefaultInFlight = 1_500_000
	DefaultFloor    = 20_000
)

// Budget is the server-wide bound. The zero value is not usable; nil means no
// bound (Lease on a nil Budget returns a nil Lease, which never refuses).
type Budget struct {
	PerCall, InFlight, Floor int64

	mu    sync.Mutex
	inUse int64
	peak  int64
}

// New is a Budget with the given bounds (0: the default).
func New(perCall, inFlight int64) *Budget {
	if perCall <= 0 {
		perCall = DefaultPerCall
	}
	if inFlight <= 0 {
		inFlight = DefaultInFlight
	}
	return &Budget{PerCall: perCall, InFlight: max(inFlight, perCall), Floor: min(DefaultFloor, perCall)}
}

// Lease is one call's share. Methods on a nil Lease do nothing.
type Lease struct {
	b    *Budget
	mu   sync.Mutex
	held int64
}

// Lease starts a call's share of the budget.
func (b *Budget) Lease() *Lease {
	if b == nil {
		return nil
	}
	return &Lease{b: b}
}

// ExceededError says which bound a call ran into.
type ExceededError struct {
	// Scope is "call" (the call alone reads more than PerCall rows) or
	// "server" (the rows of the calls in flight reached InFlight).
	Scope string
	// Limit is the bound, Read the rows the call had read when it stopped
	// (the next row did not fit).
	Limit, Read int64
}

func (e *ExceededError) Error() string {
	if e.Scope == "call" {
		return fmt.Sprintf("the call needs more than %d rows from the source (its answer, with any re-query at a coarser grain), the most this server reads for one call", e.Limit)
	}
	return fmt.Sprintf("the server is holding its limit of %d rows for the calls in flight (this call stopped after %d)", e.Limit, e.Read)
}

// Take reserves up to n more rows for the call and returns how many it got:
// n, or fewer when a bound is nearer (so chunked reservations stop exactly at
// the bound, not a chunk before it). It fails only when not one more row fits,
// saying which bound; what the call holds stays held until Release.
func (l *Lease) Take(n int64) (int64, error) {
	if l == nil {
		return n, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.b
	n = min(n, b.PerCall-l.held)
	if n <= 0 {
		return 0, &ExceededError{Scope: "call", Limit: b.PerCall, Read: l.held}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if l.held+n > b.Floor && b.inUse+n > b.InFlight {
		// What the server has left, or what the floor still allows the call.
		n = min(n, max(b.InFlight-b.inUse, b.Floor-l.held))
		if n <= 0 {
			return 0, &ExceededError{Scope: "server", Limit: b.InFlight, Read: l.held}
		}
	}
	b.inUse += n
	b.peak = max(b.peak, b.inUse)
	l.held += n
	return n, nil
}

// Release returns the call's rows to the budget; the call must no longer hold
// them (its answer is built). Safe to call more than once.
func (l *Lease) Release() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.mu.Lock()
	l.b.inUse -= l.held
	l.b.mu.Unlock()
	l.held = 0
}

// Held is the rows the call holds.
func (l *Lease) Held() int64 {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.held
}

// InUse and Peak are the rows held now by every call, and the most ever held
// at once (for metrics and tests).
func (b *Budget) InUse() int64 { b.mu.Lock(); defer b.mu.Unlock(); return b.inUse }
func (b *Budget) Peak() int64  { b.mu.Lock(); defer b.mu.Unlock(); return b.peak }

type leaseKey struct{}

// With carries a call's lease to the source reader.
func With(ctx context.Context, l *Lease) context.Context {
	if l == nil {
		return ctx
	}
	return context.WithValue(ctx, leaseKey{}, l)
}

// From is the call's lease (nil: no bound).
func From(ctx context.Context) *Lease {
	l, _ := ctx.Value(leaseKey{}).(*Lease)
	return l
}
