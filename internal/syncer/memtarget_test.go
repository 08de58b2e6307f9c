package syncer

import (
	"context"
	"errors"
	"sync"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/importer"
)

// memTarget is a warehouse in memory that keeps every chunk written and the
// states, and can fail a write on cue: the orchestration's tests, apart from
// any warehouse's own (sourcetest's sync suite checks those).
type memTarget struct {
	mu     sync.Mutex
	states map[string]importer.SyncState
	chunks []*importer.Chunk
	// failWrite, when set, is asked before each write: a non-nil error fails
	// it, and nothing of the chunk is kept.
	failWrite func(c *importer.Chunk) error
	// refuse is what Check says (a warehouse holding the demo dataset).
	refuse error
}

func newMemTarget() *memTarget { return &memTarget{states: map[string]importer.SyncState{}} }

func (m *memTarget) Name() string { return "memory" }

func (m *memTarget) States(context.Context) ([]importer.SyncState, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []importer.SyncState
	for _, s := range m.states {
		out = append(out, s)
	}
	return out, nil
}

func (m *memTarget) Write(ctx context.Context, c *importer.Chunk) (importer.ChunkResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return importer.ChunkResult{}, err
	}
	if m.failWrite != nil {
		if err := m.failWrite(c); err != nil {
			return importer.ChunkResult{}, err
		}
	}
	if old, ok := m.states[ads.FoldID(c.Account.AccountID)]; ok && old.Platform != c.Account.Platform {
		return importer.ChunkResult{}, errors.New("platform changed")
	}
	m.chunks = append(m.chunks, c)
	m.states[ads.FoldID(c.Account.AccountID)] = c.State
	return importer.ChunkResult{FactsAdded: int64(len(c.Facts)), ReachAdded: int64(len(c.Reach))}, nil
}

func (m *memTarget) RecordFailure(_ context.Context, st importer.SyncState) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.states[ads.FoldID(st.AccountID)] = st
	return nil
}

func (m *memTarget) Close() error { return nil }

func (m *memTarget) Check(context.Context) error { return m.refuse }
