package config

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/adsmcp/adsmcp/internal/source/plugins"
	"github.com/adsmcp/adsmcp/internal/source/registry"
)

// Sources are the sections under sources: that the file sets: ad platforms'
// APIs to query live, or a warehouse server in place of the embedded one.
// Which keys exist, what each holds and how it is checked belong to the
// sources themselves (internal/source/plugins lists them).
type Sources struct {
	configured []Configured
}

// Configured is one section of sources: the file sets.
type Configured struct {
	// Name is the section's key ("meta").
	Name string
	// Section is its settings: a registry.Live or a registry.Warehouse.
	Section registry.Section
}

// All are the configured sections, in the order of plugins.All.
func (s Sources) All() []Configured { return s.configured }

// Section is the configured section called name, or nil.
func (s Sources) Section(name string) registry.Section {
	for _, c := range s.configured {
		if c.Name == name {
			return c.Section
		}
	}
	return nil
}

// Live reports whether any API source is configured.
func (s Sources) Live() bool {
	for _, c := range s.configured {
		if _, ok := c.Section.(registry.Live); ok {
			return true
		}
	}
	return false
}

// Warehouse is the configured warehouse server, if any (the file's check
// allows at most one). With live sources too, it answers what a sync put in
// it and the APIs the rest.
func (s Sources) Warehouse() (Configured, registry.Warehouse, bool) {
	for _, c := range s.configured {
		if w, ok := c.Section.(registry.Warehouse); ok {
			return c, w, true
		}
	}
	return Configured{}, nil, false
}

// MarshalJSON writes the sections by name; their secrets marshal redacted.
func (s Sources) MarshalJSON() ([]byte, error) {
	m := make(map[string]registry.Section, len(s.configured))
	for _, c := range s.configured {
		m[c.Name] = c.Section
	}
	return json.Marshal(m)
}

// UnmarshalYAML decodes sources: into each plug-in's own section. It takes
// the older unmarshal-function form on purpose: that function decodes with the
// file's decoder, so unknown keys stay errors with their line (a node's Decode
// would forget KnownFields). The decoder sees one struct with a field per
// plug-in, built from plugins.All.
func (s *Sources) UnmarshalYAML(unmarshal func(any) error) error {
	fields := make([]reflect.StructField, len(plugins.All))
	under := map[string]string{} // Go type → where its keys are, for messages
	for i, p := range plugins.All {
		t := reflect.TypeOf(p.NewSection())
		fields[i] = reflect.StructField{Name: fmt.Sprintf("S%d", i), Type: t, Tag: reflect.StructTag(`yaml:"` + p.Name + `"`)}
		under[t.Elem().String()] = p.Name
	}
	all := reflect.StructOf(fields)
	under[all.String()] = "sources"
	v := reflect.New(all).Elem()
	err := unmarshal(v.Addr().Interface())
	for i, p := range plugins.All {
		if f := v.Field(i); !f.IsNil() {
			s.configured = append(s.configured, Configured{Name: p.Name, Section: f.Interface().(registry.Section)})
		}
	}
	return renameTypes(err, all.String(), under)
}

// unknownIn is yaml.v3's message for a key a type does not have.
var unknownIn = regexp.MustCompile(`^(line \d+: )?field (\S+) not found in type (.+)$`)

// renameTypes rewrites the decoder's messages about the types in under, which
// are not config's: unknown keys as unknownSetting says them, and the struct
// built for sources: (its Go spelling is all) as config.Sources.
func renameTypes(err error, all string, under map[string]string) error {
	te, ok := err.(*yaml.TypeError)
	if !ok {
		return err
	}
	for i, m := range te.Errors {
		if sub := unknownIn.FindStringSubmatch(m); sub != nil {
			if where, ok := under[sub[3]]; ok {
				te.Errors[i] = sub[1] + unknownSetting(sub[2], where)
				continue
			}
		}
		te.Errors[i] = strings.ReplaceAll(m, all, "config.Sources")
	}
	return te
}

// check checks each configured section, then what may be combined: any live
// sources together, with at most one warehouse server (which answers what a
// sync put in it; the APIs answer the rest and keep it synced, docs/sync.md).
func (s Sources) check(bad func(string, ...any)) {
	var earlier []string // the warehouses before this one in plugins.All
	for _, p := range plugins.All {
		sec := s.Section(p.Name)
		if sec != nil {
			sec.Check(bad)
		}
		if p.IsLive() {
			continue
		}
		if sec != nil && s.hasAny(earlier) {
			bad("sources.%s cannot be combined with %s: answer from one warehouse", p.Name, orList(earlier))
		}
		earlier = append(earlier, p.Name)
	}
}

// hasAny reports whether any of the sections called names is configured.
func (s Sources) hasAny(names []string) bool {
	for _, n := range names {
		if s.Section(n) != nil {
			return true
		}
	}
	return false
}

// orList writes names as prose: "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
