package source

import (
	"context"
	"sync/atomic"
)

// Calls counts the requests a source makes for one tool call — SQL statements
// for a warehouse, HTTP requests for an ad platform's API — for _meta.source_calls.
type Calls struct{ n atomic.Int64 }

type callsKey struct{}

// WithCalls returns a context whose sources count their requests in c.
func WithCalls(ctx context.Context, c *Calls) context.Context {
	return context.WithValue(ctx, callsKey{}, c)
}

// CountCall records one request made by a source working for ctx (nothing
// when nobody counts).
func CountCall(ctx context.Context) {
	if c, ok := ctx.Value(callsKey{}).(*Calls); ok {
		c.n.Add(1)
	}
}

// N is the number of requests counted.
func (c *Calls) N() int { return int(c.n.Load()) }
