package live

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
)

// maxStaged bounds the warehouses one call keeps (the oldest is released
// first): a call whose queries the staged rows do not cover fetches again,
// and what it fetched before should not pile up in memory meanwhile.
const maxStaged = 3

// errReleased answers a query that arrives after its call ended.
var errReleased = errors.New("live: the staged rows were released when the tool call ended")

// staging is what one live source keeps for one tool call, in the call's
// source.Scope: the warehouses it staged, each with what it covers. Safe for
// concurrent use.
type staging struct {
	mu      sync.Mutex
	entries []*staged
	closed  bool
}

// staged is one pass's rows in an in-memory warehouse.
type staged struct {
	mu  sync.RWMutex // answers read the warehouse; release writes
	wh  *duckdb.Source
	cov *coverage
}

// staging is the source's staging for the call ctx belongs to, or nil
// outside a call (or once it ended).
func (s *Source) staging(ctx context.Context) *staging {
	sc := source.ScopeFrom(ctx)
	if sc == nil {
		return nil
	}
	st, _ := sc.Hold(s, func() io.Closer { return &staging{} }).(*staging)
	return st
}

// find is the newest staged warehouse that answers q exactly, or nil.
func (st *staging) find(q *query.Query) *staged {
	st.mu.Lock()
	defer st.mu.Unlock()
	for i := len(st.entries) - 1; i >= 0; i-- {
		if st.entries[i].cov.answers(q) {
			return st.entries[i]
		}
	}
	return nil
}

// keep adds a staged warehouse, released with the call (at once, after this
// query, if the call already ended).
func (st *staging) keep(wh *duckdb.Source, cov *coverage) (e *staged, release func()) {
	e = &staged{wh: wh, cov: cov}
	st.mu.Lock()
	if st.closed {
		st.mu.Unlock()
		return e, e.release
	}
	st.entries = append(st.entries, e)
	var oldest *staged
	if len(st.entries) > maxStaged {
		oldest, st.entries = st.entries[0], st.entries[1:]
	}
	st.mu.Unlock()
	if oldest != nil {
		oldest.release() // after the answers still reading it
	}
	return e, func() {}
}

// Close releases every staged warehouse; the scope calls it when the tool
// call ends.
func (st *staging) Close() error {
	st.mu.Lock()
	entries := st.entries
	st.entries, st.closed = nil, true
	st.mu.Unlock()
	for _, e := range entries {
		e.release()
	}
	return nil
}

// answer runs q on the staged rows: local work, not a request to the
// platform.
func (e *staged) answer(ctx context.Context, q *query.Query) (*fit.Table, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.wh == nil {
		return nil, errReleased
	}
	return e.wh.Query(source.WithCalls(ctx, &source.Calls{}), q)
}

func (e *staged) release() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.wh != nil {
		e.wh.Close()
		e.wh = nil
	}
}
