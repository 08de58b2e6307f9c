package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Sync configures the server's background sync (docs/sync.md): the ad
// platforms' data copied into a warehouse, from which the server answers
// what the copy covers.
type Sync struct {
	// Every is how often the server syncs; unset: the default (SyncEvery).
	Every SyncEvery `yaml:"every"`
	// Since is the first day the backfill goes back to (unset: 90 days).
	Since SyncSince `yaml:"since"`
	// Database is the embedded warehouse file the server syncs into when no
	// warehouse server is configured (empty: duckdb.DefaultSyncedPath, next
	// to the embedded warehouse).
	Database string `yaml:"database"`
}

// DefaultSyncEvery is how often the server syncs an ad platform's API into
// the embedded synced file unless sync.every says otherwise: hourly keeps
// today's numbers an hour fresh at a few requests per account and run
// (the platforms' lookback, docs/sync.md).
const DefaultSyncEvery = time.Hour

// MinSyncEvery is the shortest sync.every: each run fetches the days the
// platforms may still revise again (up to 28 for Meta), so a shorter
// interval spends the accounts' rate limits for numbers that barely change.
const MinSyncEvery = 15 * time.Minute

// SyncEvery is sync.every: a duration, or off.
type SyncEvery struct {
	set, off bool
	d        time.Duration
}

// EveryOff and Every are sync.every's values, for tests and callers.
func EveryOff() SyncEvery             { return SyncEvery{set: true, off: true} }
func Every(d time.Duration) SyncEvery { return SyncEvery{set: true, d: d} }
func (e SyncEvery) String() string {
	switch {
	case !e.set:
		return ""
	case e.off:
		return "off"
	}
	return e.d.String()
}

// UnmarshalYAML reads "off" (or false) or a Go duration ("1h", "30m").
func (e *SyncEvery) UnmarshalYAML(n *yaml.Node) error {
	s := strings.TrimSpace(n.Value)
	if strings.EqualFold(s, "off") || strings.EqualFold(s, "false") {
		*e = EveryOff()
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("line %d: sync.every %q: want a duration such as 1h or 30m, or off to answer every query live", n.Line, n.Value)
	}
	*e = Every(d)
	return nil
}

// SyncSince is sync.since: a first day (2026-01-01) or a number of days
// back from today (90), as `adsmcp sync --since` takes it.
type SyncSince struct {
	day  time.Time
	days int
}

// ParseSince reads a first day (YYYY-MM-DD) or a number of days ("90",
// "90d").
func ParseSince(s string) (SyncSince, error) {
	s = strings.TrimSpace(s)
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		return SyncSince{day: d}, nil
	}
	if n, err := strconv.Atoi(strings.TrimSuffix(s, "d")); err == nil && n > 0 {
		return SyncSince{days: n}, nil
	}
	return SyncSince{}, fmt.Errorf("%q: want the backfill's first day (YYYY-MM-DD) or a number of days, e.g. 90 or 365", s)
}

// UnmarshalYAML reads ParseSince's forms.
func (s *SyncSince) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParseSince(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: sync.since %w", n.Line, err)
	}
	*s = v
	return nil
}

// From is the backfill's first day when today is today (zero: unset, the
// sync's default).
func (s SyncSince) From(today time.Time) time.Time {
	if s.days > 0 {
		y, m, d := today.Date()
		return time.Date(y, m, d-s.days+1, 0, 0, 0, 0, time.UTC)
	}
	return s.day
}

// SyncsEvery is how often `adsmcp serve` syncs, and whether it does:
// sync.every when set (off: never); else, with an ad platform's API and no
// warehouse server, DefaultSyncEvery into the embedded synced file. A
// warehouse server is synced only when sync.every says so: replicas sharing
// it must not all sync it (docs/deployment.md).
func (f *File) SyncsEvery() (time.Duration, bool) {
	e := f.Sync.Every
	switch {
	case e.off:
		return 0, false
	case e.set:
		return e.d, true
	}
	if _, _, ok := f.Sources.Warehouse(); ok || !f.Sources.Live() {
		return 0, false
	}
	return DefaultSyncEvery, true
}

// check checks sync: against the sources it syncs from and into.
func (f *File) checkSync(bad func(string, ...any)) {
	s := f.Sync
	c, _, server := f.Sources.Warehouse()
	if s.Every.set && !s.Every.off {
		switch {
		case s.Every.d < MinSyncEvery:
			bad("sync.every %s: want at least %s (each run fetches again the days the platforms still revise), e.g. 1h, or off", s.Every.d, MinSyncEvery)
		case !f.Sources.Live():
			bad("sync.every %s: no ad platform's API is configured under sources: to sync from; add one (docs/configuration.md), or remove sync.every", s.Every.d)
		}
	}
	if s.Database != "" {
		switch {
		case server:
			bad("sync.database %s: the server syncs into sources.%s, not into a file; remove sync.database", s.Database, c.Name)
		case !f.Sources.Live():
			bad("sync.database %s: no ad platform's API is configured under sources: to sync from; to serve a warehouse file, set database: instead", s.Database)
		}
	}
	if s.Since != (SyncSince{}) && !f.Sources.Live() {
		bad("sync.since: no ad platform's API is configured under sources: to sync from; remove sync.since")
	}
}
