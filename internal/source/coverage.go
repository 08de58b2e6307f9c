package source

import (
	"context"
	"time"
)

// Coverage is the span of dates an account has data (fact rows) for: the first
// and the last such date, inclusive. Dates inside the span may still be
// missing (an account paused for a while).
type Coverage struct {
	First, Last time.Time
	// Facts is how many delivery rows the account has in all (the other
	// breakdown sets split the same delivery again): with the span, an
	// estimate of how many a date range reads (the answer engine's cue to
	// count a query's rows before reading them).
	Facts int
}

// Overlaps reports whether the span shares a day with [start, end].
func (c Coverage) Overlaps(start, end time.Time) bool {
	return !c.Last.Before(start) && !c.First.After(end)
}

// CoverageSource is a source that can say, cheaply, which dates each account
// has data for. It is optional: the answer uses it to explain empty answers
// ("account X has data from … to …; nothing in the range you asked for")
// instead of only saying that nothing matched.
type CoverageSource interface {
	// Coverage returns the coverage of each of accountIDs that has any data;
	// an account without any is absent from the map.
	Coverage(ctx context.Context, accountIDs []string) (map[string]Coverage, error)
}
