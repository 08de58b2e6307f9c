package answer

import "context"

// Gate admits at most a fixed number of calls at once to a piece of heavy
// work; the others wait their turn, within their deadline. A nil Gate admits
// every call.
type Gate struct{ places chan struct{} }

// NewGate is a Gate of n places (at least one).
func NewGate(n int) *Gate { return &Gate{places: make(chan struct{}, max(1, n))} }

// enter waits for a place and returns its release, or ctx's error when the
// call's deadline comes first.
func (g *Gate) enter(ctx context.Context) (func(), error) {
	if g == nil {
		return func() {}, nil
	}
	select {
	case g.places <- struct{}{}:
		return func() { <-g.places }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
