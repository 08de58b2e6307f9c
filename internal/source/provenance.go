package source

import (
	"context"
	"sync"
	"time"
)

// Provenance is where an answer's rows came from and how fresh they are,
// for its _meta: a warehouse that a sync fills says which days it holds and
// when it last synced them (docs/sync.md) — once when every account of the
// answer says the same, else per account.
type Provenance struct {
	// From is FromSynced or FromLive.
	From string `json:"from"`
	// SyncedFrom, SyncedThrough and SyncedAt are every account's, when they
	// are the same for all (Accounts is then empty).
	SyncedFrom    string    `json:"synced_from,omitempty"`
	SyncedThrough string    `json:"synced_through,omitempty"`
	SyncedAt      time.Time `json:"synced_at,omitzero"`
	// Accounts are the freshness of each account of an answer from synced
	// data, when they differ.
	Accounts []AccountFreshness `json:"accounts,omitempty"`
	// NextSync is when the next sync runs, when known.
	NextSync time.Time `json:"next_sync,omitzero"`
}

// Where an answer's rows came from.
const (
	// FromSynced: a warehouse filled by `adsmcp sync`.
	FromSynced = "synced"
	// FromLive: the ad platforms' APIs, at the time of the call.
	FromLive = "live"
)

// AccountFreshness is what a synced warehouse holds of one account.
type AccountFreshness struct {
	AccountID     string    `json:"account_id"`
	SyncedFrom    time.Time `json:"-"`
	SyncedThrough time.Time `json:"-"`
	// SyncedAt is when a sync last wrote the account (UTC).
	SyncedAt time.Time `json:"synced_at,omitzero"`
	// Days are SyncedFrom … SyncedThrough as dates ("" when none).
	From    string `json:"synced_from,omitempty"`
	Through string `json:"synced_through,omitempty"`
}

// ProvenanceNotes collects what the sources of one tool call say of their
// rows' provenance (one note per source query; a comparison makes two).
type ProvenanceNotes struct {
	mu    sync.Mutex
	notes []Provenance
}

type provenanceKey struct{}

// WithProvenance returns a context whose sources note their provenance in n.
func WithProvenance(ctx context.Context, n *ProvenanceNotes) context.Context {
	return context.WithValue(ctx, provenanceKey{}, n)
}

// NoteProvenance records p for the call ctx belongs to (nothing when nobody
// collects).
func NoteProvenance(ctx context.Context, p Provenance) {
	n, ok := ctx.Value(provenanceKey{}).(*ProvenanceNotes)
	if !ok {
		return
	}
	same := len(p.Accounts) > 0
	for i := range p.Accounts {
		a := &p.Accounts[i]
		if !a.SyncedFrom.IsZero() {
			a.From, a.Through = a.SyncedFrom.Format(time.DateOnly), a.SyncedThrough.Format(time.DateOnly)
		}
		b := p.Accounts[0]
		same = same && a.From == b.From && a.Through == b.Through && a.SyncedAt.Equal(b.SyncedAt)
	}
	if same {
		p.SyncedFrom, p.SyncedThrough, p.SyncedAt = p.Accounts[0].From, p.Accounts[0].Through, p.Accounts[0].SyncedAt
		p.Accounts = nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.notes = append(n.notes, p)
}

// Notes are the provenance notes recorded so far.
func (n *ProvenanceNotes) Notes() []Provenance {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]Provenance(nil), n.notes...)
}

// ProvenanceNotesFrom is the notes ctx collects into, or nil.
func ProvenanceNotesFrom(ctx context.Context) *ProvenanceNotes {
	n, _ := ctx.Value(provenanceKey{}).(*ProvenanceNotes)
	return n
}
