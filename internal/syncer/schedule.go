package syncer

import (
	"time"

	"github.com/adsmcp/adsmcp/internal/importer"
)

// Span is a range of days, inclusive.
type Span struct{ First, Last time.Time }

// Days is how many days the span holds.
func (s Span) Days() int { return int(s.Last.Sub(s.First).Hours()/24) + 1 }

// work is what one run syncs for one account, in the order it is written:
// the forward chunks oldest first (the new days, and the lookback the
// platform may still revise), then the backfill's newest first — each step
// keeps the synced days one contiguous span, so that an interrupted run
// leaves a state that says exactly what the warehouse holds.
func work(st importer.SyncState, backfillFrom, today time.Time, lookback int) []Span {
	if st.SyncedThrough.IsZero() {
		// Nothing synced yet: the whole range, newest first.
		return newestFirst(Span{backfillFrom, today})
	}
	var out []Span
	// Forward: from the first day the platform may still revise (or the day
	// after the synced days, if that is earlier) to today.
	from := today.AddDate(0, 0, 1-lookback)
	if next := st.SyncedThrough.AddDate(0, 0, 1); next.Before(from) {
		from = next
	}
	if from.Before(st.SyncedFrom) {
		from = st.SyncedFrom
	}
	if !today.Before(from) {
		out = append(out, oldestFirst(Span{from, today})...)
	}
	// Backfill: what lies between the --since day and the synced days.
	if backfillFrom.Before(st.SyncedFrom) {
		out = append(out, newestFirst(Span{backfillFrom, st.SyncedFrom.AddDate(0, 0, -1)})...)
	}
	return out
}

// months cuts s at calendar months: a chunk is at most one month, so that
// what one write holds in memory is bounded by a month of one account.
func months(s Span) []Span {
	var out []Span
	for d := s.First; !d.After(s.Last); {
		end := time.Date(d.Year(), d.Month()+1, 0, 0, 0, 0, 0, time.UTC)
		if end.After(s.Last) {
			end = s.Last
		}
		out = append(out, Span{d, end})
		d = end.AddDate(0, 0, 1)
	}
	return out
}

func oldestFirst(s Span) []Span { return months(s) }

func newestFirst(s Span) []Span {
	out := months(s)
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// after is the state once chunk c is written: the synced span grows by c
// (c always touches or lies within it, see work).
func after(st importer.SyncState, c Span) importer.SyncState {
	if st.SyncedFrom.IsZero() || c.First.Before(st.SyncedFrom) {
		st.SyncedFrom = c.First
	}
	if st.SyncedThrough.IsZero() || c.Last.After(st.SyncedThrough) {
		st.SyncedThrough = c.Last
	}
	return st
}
