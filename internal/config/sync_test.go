package config

import (
	"strings"
	"testing"
	"time"
)

const tiktokSection = "sources:\n  tiktok: {access_token: t, app_id: a, app_secret: s}\n"

// TestSyncDefaults: an ad platform's API alone syncs hourly into the
// embedded synced file; a warehouse server is synced only when sync.every
// says so; off answers everything live; without an API nothing syncs.
func TestSyncDefaults(t *testing.T) {
	for _, c := range []struct {
		name, raw string
		every     time.Duration
		syncs     bool
	}{
		{"an API alone", tiktokSection, DefaultSyncEvery, true},
		{"an API, every 30m", tiktokSection + "sync: {every: 30m}\n", 30 * time.Minute, true},
		{"an API, off", tiktokSection + "sync: {every: off}\n", 0, false},
		{"an API and a warehouse server", tiktokSection + "  postgres: {dsn: x}\n", 0, false},
		{"an API and a warehouse server, every 2h", tiktokSection + "  postgres: {dsn: x}\nsync: {every: 2h}\n", 2 * time.Hour, true},
		{"the embedded warehouse", "", 0, false},
		{"a warehouse server alone", "sources:\n  clickhouse: {dsn: x}\n", 0, false},
	} {
		f, err := Parse([]byte(c.raw), env(nil))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if every, syncs := f.SyncsEvery(); every != c.every || syncs != c.syncs {
			t.Errorf("%s: syncs every %s (%v), want %s (%v)", c.name, every, syncs, c.every, c.syncs)
		}
	}
}

func TestSyncSince(t *testing.T) {
	today := time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC)
	for raw, want := range map[string]string{"2025-06-01": "2025-06-01", "90": "2026-01-01", "31d": "2026-03-01"} {
		f, err := Parse([]byte(tiktokSection+"sync: {since: \""+raw+"\"}\n"), env(nil))
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if got := f.Sync.Since.From(today).Format(time.DateOnly); got != want {
			t.Errorf("since %s: from %s, want %s", raw, got, want)
		}
	}
	if f, _ := Parse([]byte(tiktokSection), env(nil)); !f.Sync.Since.From(today).IsZero() {
		t.Error("an unset since is not the sync's default")
	}
}

// TestSyncChecks: each problem names sync.<key>, says what is wrong and
// what to write.
func TestSyncChecks(t *testing.T) {
	for raw, want := range map[string][]string{
		tiktokSection + "sync: {every: soon}\n":                                {"line 3", "sync.every \"soon\"", "1h", "off"},
		tiktokSection + "sync: {every: 1m}\n":                                  {"sync.every 1m0s", "at least 15m0s", "1h"},
		"sync: {every: 1h}\n":                                                  {"sync.every 1h0m0s", "no ad platform's API", "remove sync.every"},
		"sources:\n  postgres: {dsn: x}\nsync: {every: 1h}\n":                  {"sync.every 1h0m0s", "no ad platform's API"},
		tiktokSection + "sync: {since: last year}\n":                           {"line 3", "sync.since \"last year\"", "YYYY-MM-DD", "90"},
		tiktokSection + "sync: {since: \"0\"}\n":                               {"sync.since \"0\""},
		"sync: {since: \"30\"}\n":                                              {"sync.since", "remove sync.since"},
		tiktokSection + "  clickhouse: {dsn: x}\nsync: {database: a.duckdb}\n": {"sync.database a.duckdb", "sources.clickhouse", "remove sync.database"},
		"sync: {database: a.duckdb}\n":                                         {"sync.database a.duckdb", "set database: instead"},
		tiktokSection + "sync: {evry: 1h}\n":                                   {"unknown setting \"evry\" under sync"},
	} {
		_, err := Parse([]byte(raw), env(nil))
		for _, w := range want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%q: %v, want %q", raw, err, w)
			}
		}
	}
}
