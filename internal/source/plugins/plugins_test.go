package plugins

import (
	"reflect"
	"testing"

	"github.com/adsmcp/adsmcp/internal/source/registry"
)

// TestEveryPluginIsWellFormed: each plug-in has its own key, a section that is
// a pointer to a struct and either live or a warehouse (the combination rules
// depend on it), and a --target scheme no other plug-in claims.
func TestEveryPluginIsWellFormed(t *testing.T) {
	names, schemes := map[string]bool{}, map[string]string{}
	for _, p := range All {
		if p.Name == "" || names[p.Name] {
			t.Errorf("plug-in %q: empty or duplicate name", p.Name)
		}
		names[p.Name] = true
		sec := p.NewSection()
		if v := reflect.ValueOf(sec); v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
			t.Errorf("%s: the section is a %T, want a pointer to a struct for the YAML decoder", p.Name, sec)
		}
		_, live := sec.(registry.Live)
		_, warehouse := sec.(registry.Warehouse)
		if live == warehouse {
			t.Errorf("%s: live %v, warehouse %v: want exactly one", p.Name, live, warehouse)
		}
		if p.IsLive() != live {
			t.Errorf("%s: IsLive %v", p.Name, p.IsLive())
		}
		if tg := p.Target; tg != nil {
			if live {
				t.Errorf("%s: a live source with a --target", p.Name)
			}
			if tg.CheckURL == nil || tg.Import == nil || tg.LoadDemo == nil || tg.Migrate == nil || tg.ErrNotEmpty == nil || tg.Label == "" || tg.Example == "" {
				t.Errorf("%s: the target is incomplete: %+v", p.Name, tg)
			}
			for _, s := range tg.Schemes {
				if other, dup := schemes[s]; dup {
					t.Errorf("scheme %s: both %s and %s", s, other, p.Name)
				}
				schemes[s] = p.Name
			}
		}
		var problems []string
		sec.Check(func(format string, _ ...any) { problems = append(problems, format) })
		if len(problems) == 0 {
			t.Errorf("%s: an empty section passes its check, yet names no account or server", p.Name)
		}
	}
}
