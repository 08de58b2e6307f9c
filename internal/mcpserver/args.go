package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
)

// platformArgs reads the {platform?} arguments of list_accounts and list_fields
// with the query tool's forgiveness: the key in any case ("Platform",
// "platforms"), the value as a string or an array of strings, platform names as
// people write them ("Facebook", "google"). Anything else is a problem naming
// the argument, the valid values and the fix.
func platformArgs(raw json.RawMessage) (platforms []string, problems []query.Problem) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, []query.Problem{{Field: "arguments", Problem: "arguments must be a JSON object",
			Fix: `send {} for everything, or {"platform":"meta_ads"}`}}
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if f := fold(k); f != "platform" && f != "platforms" {
			problems = append(problems, query.Problem{Field: k, Value: k, Problem: "unknown argument",
				Valid: []string{"platform"}, Fix: "remove it; the only argument is platform"})
			continue
		}
		v := obj[k]
		if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			continue
		}
		var names []string
		var one string
		if json.Unmarshal(v, &one) == nil {
			names = []string{one}
		} else if json.Unmarshal(v, &names) != nil {
			problems = append(problems, query.Problem{Field: k, Problem: "expected a string",
				Valid: catalog.AllPlatforms, Fix: `give platform as a string, e.g. "meta_ads"`})
			continue
		}
		for _, n := range names {
			if strings.TrimSpace(n) == "" {
				continue
			}
			p, err := query.CanonicalPlatform(n)
			if err != nil {
				problems = append(problems, query.Problem{Field: "platform", Value: n, Problem: "unknown platform",
					Valid: catalog.AllPlatforms, Fix: "use one of the valid platforms, or omit platform for all"})
				continue
			}
			if !slices.Contains(platforms, p) {
				platforms = append(platforms, p)
			}
		}
	}
	return platforms, problems
}

func fold(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

// schemaFor infers the JSON schema of T (descriptions from `jsonschema` tags),
// then tidies it for models: optional arrays are plain arrays (not
// ["null","array"]), and edit adds what tags cannot say (enums, bounds).
func schemaFor[T any](edit func(s *jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %T: %v", *new(T), err))
	}
	tidy(s)
	if edit != nil {
		edit(s)
	}
	return s
}

// tidy drops "null" from inferred type lists, recursively.
func tidy(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) > 0 {
		kept := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" })
		if len(kept) == 1 {
			s.Type, s.Types = kept[0], nil
		} else {
			s.Types = kept
		}
	}
	tidy(s.Items)
	for _, p := range s.Properties {
		tidy(p)
	}
	for _, sub := range s.AnyOf {
		tidy(sub)
	}
}

// enum turns strings into a schema enum.
func enum[S ~string](vals ...S) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = string(v)
	}
	return out
}

func ptr[T any](v T) *T { return &v }
