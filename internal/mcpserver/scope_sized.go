package mcpserver

import (
	"context"
	"fmt"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/auth"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
)

// Sized is the source's Sizer as the principal sees it: like Query, it
// refuses accounts outside the principal's (source.SizedSource).
func (s scoped) Sized() source.Sizer {
	inner := source.SizerOf(s.Source)
	if inner == nil {
		return nil
	}
	return scopedSizer{inner: inner, p: s.p}
}

type scopedSizer struct {
	inner source.Sizer
	p     *auth.Principal
}

func (s scopedSizer) allowed(q *query.Query) error {
	for _, a := range q.Accounts {
		if !s.p.Allows(a) {
			return fmt.Errorf("account %s not found", a.AccountID)
		}
	}
	return nil
}

func (s scopedSizer) RowCounts(ctx context.Context, q *query.Query, grains []fit.Grain) ([]int, error) {
	if err := s.allowed(q); err != nil {
		return nil, err
	}
	return s.inner.RowCounts(ctx, q, grains)
}

func (s scopedSizer) Removed(ctx context.Context, q *query.Query) (*fit.Table, error) {
	if err := s.allowed(q); err != nil {
		return nil, err
	}
	return s.inner.Removed(ctx, q)
}

func (s scopedSizer) Aggregates(ctx context.Context, q *query.Query) (*fit.Aggregates, error) {
	if err := s.allowed(q); err != nil {
		return nil, err
	}
	return s.inner.Aggregates(ctx, q)
}
