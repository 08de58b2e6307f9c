package source

import (
	"context"
	"errors"
	"io"
	"sync"
)

// Scope holds what sources keep for the length of one tool call, and releases
// it when the call ends. A live source stages what it fetched from a platform
// API in one, so the pipeline's later questions of the same call (a coarser
// grain, a probe) are answered from the rows already fetched instead of new
// requests; nothing outlives the call, so no answer is ever served from data
// fetched for another one.
type Scope struct {
	mu     sync.Mutex
	values map[any]io.Closer
	order  []any
	closed bool
}

type scopeKey struct{}

// WithScope returns a context carrying a new scope; the caller closes the
// scope when the call ends.
func WithScope(ctx context.Context) (context.Context, *Scope) {
	s := &Scope{values: map[any]io.Closer{}}
	return context.WithValue(ctx, scopeKey{}, s), s
}

// ScopeFrom is the scope ctx carries, or nil: a source then keeps nothing
// between queries.
func ScopeFrom(ctx context.Context) *Scope {
	s, _ := ctx.Value(scopeKey{}).(*Scope)
	return s
}

// Hold returns the value kept under key, made by create the first time. Once
// the scope is closed it returns nil: the caller then works without keeping
// anything.
func (s *Scope) Hold(key any, create func() io.Closer) io.Closer {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	v, ok := s.values[key]
	if !ok {
		v = create()
		s.values[key] = v
		s.order = append(s.order, key)
	}
	return v
}

// Close releases every value the scope holds, last made first. Closing twice
// does nothing.
func (s *Scope) Close() error {
	s.mu.Lock()
	values, order := s.values, s.order
	s.values, s.order, s.closed = nil, nil, true
	s.mu.Unlock()
	var errs []error
	for i := len(order) - 1; i >= 0; i-- {
		if err := values[order[i]].Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
