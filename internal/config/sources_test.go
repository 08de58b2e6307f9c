package config

import (
	"fmt"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/source/plugins"
)

// TestSourceSectionsStayStrict: the sections are the plug-ins' own types, yet
// an unknown key in one, or under sources:, is refused with its line, as
// anywhere in the file; a wrong value keeps its line too.
func TestSourceSectionsStayStrict(t *testing.T) {
	_, err := Parse([]byte("sources:\n  meta:\n    acces_token: x\n  tik_tok: {}\n  google_ads: {client_id: a, workers: many}\n"), env(nil))
	for _, want := range []string{`line 3: unknown setting "acces_token" under meta`, `line 4: unknown setting "tik_tok" under sources`, "line 5", "many"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want %q in %v", want, err)
		}
	}
	_, err = Parse([]byte("sources:\n  postgres:\n    dns: x\n"), env(nil))
	if err == nil || !strings.Contains(err.Error(), `line 3: unknown setting "dns" under postgres`) {
		t.Errorf("a misspelled key of a server section: %v", err)
	}
	_, err = Parse([]byte("sources: [meta]\n"), env(nil))
	if err == nil || !strings.Contains(err.Error(), "line 1") || !strings.Contains(err.Error(), "config.Sources") || strings.Contains(err.Error(), "struct {") {
		t.Errorf("sources as a list: %v, want line 1 and config.Sources", err)
	}
}

// TestSourcesCombineByKind: any live sources combine, and with one warehouse
// server (which answers what a sync put in it, the APIs the rest); two
// warehouses do not. The rule follows from each plug-in's kind, for every
// pair.
func TestSourcesCombineByKind(t *testing.T) {
	for _, a := range plugins.All {
		for _, b := range plugins.All {
			if a.Name >= b.Name {
				continue
			}
			raw := fmt.Sprintf("sources:\n  %s: {}\n  %s: {}\n", a.Name, b.Name)
			_, err := Parse([]byte(raw), env(nil))
			refused := err != nil && strings.Contains(err.Error(), "cannot be combined")
			if want := !a.IsLive() && !b.IsLive(); refused != want {
				t.Errorf("%q: %v, want refused %v", raw, err, want)
			}
		}
	}
	for raw, want := range map[string]string{
		"sources:\n  clickhouse: {dsn: x}\n  postgres: {dsn: y}\n": "sources.clickhouse cannot be combined with postgres: answer from one warehouse",
	} {
		if _, err := Parse([]byte(raw), env(nil)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", raw, err, want)
		}
	}
	f, err := Parse([]byte("sources:\n  postgres: {dsn: x}\n"), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c, _, ok := f.Sources.Warehouse(); !ok || c.Name != "postgres" || f.Sources.Live() {
		t.Errorf("postgres alone: warehouse %q %v, live %v", c.Name, ok, f.Sources.Live())
	}
	f, err = Parse([]byte("sources:\n  clickhouse: {dsn: x}\n  tiktok: {access_token: t, app_id: a, app_secret: s}\n"), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c, _, ok := f.Sources.Warehouse(); !ok || c.Name != "clickhouse" || !f.Sources.Live() {
		t.Errorf("clickhouse with tiktok: warehouse %q %v, live %v", c.Name, ok, f.Sources.Live())
	}
}
