package query

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/adsmcp/adsmcp/internal/catalog"
)

// operatorAliases forgive symbols and spellings of operators; keys are folded.
var operatorAliases = map[string]Operator{
	"=": Equals, "==": Equals, "eq": Equals, "equal": Equals, "equals": Equals, "is": Equals,
	"!=": NotEquals, "<>": NotEquals, "ne": NotEquals, "neq": NotEquals, "notequal": NotEquals, "notequals": NotEquals, "isnot": NotEquals,
	"contains": Contains, "contain": Contains, "like": Contains, "ilike": Contains, "includes": Contains,
	"notcontains": NotContains, "notcontain": NotContains, "notlike": NotContains, "doesnotcontain": NotContains,
	"startswith": StartsWith, "beginswith": StartsWith, "prefix": StartsWith,
	"in": In, "anyof": In, "notin": NotIn, "noneof": NotIn,
	">": GreaterThan, "gt": GreaterThan, "greaterthan": GreaterThan,
	">=": GreaterThanOrEqual, "gte": GreaterThanOrEqual, "ge": GreaterThanOrEqual, "greaterthanorequal": GreaterThanOrEqual, "greaterthanorequalto": GreaterThanOrEqual, "atleast": GreaterThanOrEqual,
	"<": LessThan, "lt": LessThan, "lessthan": LessThan,
	"<=": LessThanOrEqual, "lte": LessThanOrEqual, "le": LessThanOrEqual, "lessthanorequal": LessThanOrEqual, "lessthanorequalto": LessThanOrEqual, "atmost": LessThanOrEqual,
	"between": Between, "inrange": Between, "range": Between,
}

func parseOperator(s string) (Operator, bool) {
	t := strings.TrimSpace(s)
	if op, ok := operatorAliases[t]; ok { // symbols
		return op, true
	}
	op, ok := operatorAliases[foldName(t)]
	return op, ok
}

func opNames(ops []Operator) []string {
	out := make([]string, len(ops))
	for i, o := range ops {
		out[i] = string(o)
	}
	return out
}

func (n *normalizer) filters(given []FilterArg) {
	for i, fa := range given {
		at := fmt.Sprintf("filters[%d]", i)
		if IsTimeWord(fa.Field) {
			n.problem(Problem{Field: at + ".field", Value: fa.Field, Problem: "time cannot be filtered on",
				Fix: `set the dates with date_range {"start":"YYYY-MM-DD","end":"YYYY-MM-DD"} or date_preset`})
			continue
		}
		f, exact, ok := catalog.Resolve(fa.Field)
		if !ok {
			if d, m, dok := resolveDerived(fa.Field); dok {
				if !n.derivedAvailable(at+".field", fa.Field, d, m) {
					continue
				}
				f, exact, ok = catalog.Field{Name: d, Kind: catalog.Metric, Type: catalog.Number}, d == fa.Field, true
			}
		}
		if !ok {
			p := Problem{Field: at + ".field", Value: fa.Field, Problem: "unknown field",
				Closest: catalog.Closest(fa.Field, 3), Fix: "use a dimension or metric name from list_fields"}
			if strings.TrimSpace(fa.Field) == "" {
				p.Problem, p.Value = "is missing", nil
			}
			n.problem(p)
			continue
		}
		if !exact {
			n.change(Change{Type: ChangeFieldRenamed, Field: at + ".field", From: fa.Field, To: f.Name,
				Detail: fmt.Sprintf("Filter field %q read as %q", fa.Field, f.Name)})
		}
		valid := TextOperators
		if f.Type == catalog.Number {
			valid = NumberOperators
		}
		op, ok := parseOperator(fa.Operator)
		if !ok {
			p := Problem{Field: at + ".operator", Value: fa.Operator, Problem: "unknown operator",
				Valid: opNames(valid), Closest: closestStrings(fa.Operator, opNames(valid), 2)}
			if strings.TrimSpace(fa.Operator) == "" {
				p.Problem, p.Value = "is missing", nil
			}
			n.problem(p)
			continue
		}
		if string(op) != fa.Operator {
			n.change(Change{Type: ChangeValueNormalized, Field: at + ".operator", From: fa.Operator, To: string(op),
				Detail: fmt.Sprintf("Operator %q read as %q", fa.Operator, op)})
		}
		if !slices.Contains(valid, op) {
			n.problem(Problem{Field: at + ".operator", Value: string(op),
				Problem: fmt.Sprintf("is not valid for %s field %q", f.Type, f.Name), Valid: opNames(valid)})
			continue
		}
		vals, prob := n.filterValues(at, f, op, fa.Value)
		if prob != "" {
			n.problem(Problem{Field: at + ".value", Value: shortValue(fa.Value), Problem: prob, Fix: valueFix(f, op)})
			continue
		}
		flt := Filter{Field: f.Name, Operator: op, Values: vals, Metric: f.IsMetric()}
		switch f.Name {
		case "platform":
			flt, ok = n.platformFilter(at, flt)
		case "publisher_platform":
			ok = n.publisherFilter(at, flt)
		}
		if ok {
			n.q.Filters = append(n.q.Filters, flt)
		}
	}
}

// matchesWhole reports whether op compares whole values (EQUALS, NOT_EQUALS, IN,
// NOT_IN), as opposed to substrings.
func matchesWhole(op Operator) bool {
	return op == Equals || op == NotEquals || op == In || op == NotIn
}

// platformFilter writes a platform filter's values as the data stores them
// ("Facebook" → meta_ads). Placements ("Instagram") are not platforms: a filter
// naming only placements becomes the same filter on publisher_platform; one
// mixing platforms and placements, or a substring match on a placement, is
// rejected. With EQUALS, NOT_EQUALS, IN and NOT_IN an unknown platform is
// rejected with the valid values (it would match nothing, silently).
func (n *normalizer) platformFilter(at string, f Filter) (Filter, bool) {
	var whole, placeGiven []string
	var pubs []catalog.Publisher
	out := slices.Clone(f.Values)
	for i, v := range f.Values {
		s := v.(string)
		if p, ok := canonicalPlatform(s); ok {
			if p != s {
				n.change(Change{Type: ChangeValueNormalized, Field: at + ".value", From: s, To: p,
					Detail: platformReadAs("Filter value", s, p)})
			}
			out[i] = p
			whole = append(whole, p)
			continue
		}
		if pub, ok := catalog.LookupPublisher(s); ok {
			pubs = append(pubs, pub)
			placeGiven = append(placeGiven, s)
			continue
		}
		if matchesWhole(f.Operator) {
			n.problem(Problem{Field: at + ".value", Value: s, Problem: "unknown platform", Valid: platformValues(),
				Closest: closestPlatforms(s), Fix: unknownPlatformFix})
			return f, false
		}
	}
	if len(pubs) == 0 {
		f.Values = out
		return f, true
	}
	var names []string
	for _, p := range pubs {
		names = append(names, p.Name)
	}
	if !matchesWhole(f.Operator) {
		n.problem(Problem{Field: at + ".value", Value: strings.Join(placeGiven, ", "),
			Problem: fmt.Sprintf("%s; a platform filter cannot match it", placementsDetail(placeGiven, pubs)),
			Fix:     fmt.Sprintf(`filter publisher_platform instead, e.g. {"field":"publisher_platform","operator":%q,"value":%q}`, f.Operator, names[0])})
		return f, false
	}
	if len(whole) > 0 {
		given := make([]string, len(f.Values))
		for i, v := range f.Values {
			given[i] = v.(string)
		}
		n.problem(mixedPlatformsProblem(at+".value", shortValue(f.Values), given, f.Operator))
		return f, false
	}
	vals := make([]any, len(names))
	for i, s := range names {
		vals[i] = s
	}
	g := Filter{Field: "publisher_platform", Operator: f.Operator, Values: vals}
	shown := strings.Join(names, ", ")
	if f.Operator == In || f.Operator == NotIn {
		shown = jsonList(names)
	}
	n.change(Change{Type: ChangePublisherPlatformFilter, Field: at, From: strings.Join(placeGiven, ", "),
		To:     fmt.Sprintf("publisher_platform %s %s", f.Operator, shown),
		Detail: fmt.Sprintf("%s; filter read as publisher_platform %s %s", placementsDetail(placeGiven, pubs), f.Operator, shown)})
	return g, true
}

// publisherFilter writes a publisher_platform filter's values as the data stores
// them ("IG" → instagram, "Audience Network" → audience_network). With EQUALS,
// NOT_EQUALS, IN and NOT_IN a value the catalog does not know is rejected with the
// valid values; the empty string (rows without a publisher platform) is kept.
// Substring filters keep other text as given.
func (n *normalizer) publisherFilter(at string, f Filter) bool {
	for i, v := range f.Values {
		s := v.(string)
		if s == "" {
			continue
		}
		if pub, ok := catalog.LookupPublisher(s); ok {
			if pub.Name != s {
				n.change(Change{Type: ChangeValueNormalized, Field: at + ".value", From: s, To: pub.Name,
					Detail: fmt.Sprintf("Filter value %q read as %q (%s)", s, pub.Name, pub.Platform)})
				f.Values[i] = pub.Name
			}
			continue
		}
		if !matchesWhole(f.Operator) {
			continue
		}
		p := Problem{Field: at + ".value", Value: s, Problem: "unknown publisher platform", Valid: catalog.PublisherNames(),
			Closest: closestPublishers(s),
			Fix: "use a valid value: where the ad ran inside its platform (positions such as feed, stories or reels are not a dimension; " +
				"each value covers all of its positions)"}
		if pl, ok := canonicalPlatform(s); ok {
			p.Fix = fmt.Sprintf(`%q is an ad platform: filter {"field":"platform","operator":%q,"value":%q}`, s, f.Operator, pl)
		}
		n.problem(p)
		return false
	}
	return true
}

// filterValues checks the value's shape for the operator and converts each item to
// the field's type. It returns a problem text, or "".
func (n *normalizer) filterValues(at string, f catalog.Field, op Operator, v any) ([]any, string) {
	var items []any
	switch op {
	case In, NotIn, Between:
		arr, ok := v.([]any)
		if !ok {
			return nil, fmt.Sprintf("%s takes an array of values, got %s", op, jsonKind(v))
		}
		if len(arr) == 0 {
			return nil, fmt.Sprintf("%s takes a non-empty array", op)
		}
		if op == Between && len(arr) != 2 {
			return nil, fmt.Sprintf("BETWEEN takes exactly two values [low, high], got %d", len(arr))
		}
		if len(arr) > MaxFilterValues {
			return nil, fmt.Sprintf("%s takes at most %d values, got %d", op, MaxFilterValues, len(arr))
		}
		items = arr
	default:
		if _, isArr := v.([]any); isArr {
			return nil, fmt.Sprintf("%s takes a single value, got an array (use IN for a list)", op)
		}
		items = []any{v}
	}
	out := make([]any, len(items))
	for i, it := range items {
		if f.Type == catalog.Number {
			x, ok := toNumber(it)
			if !ok {
				return nil, fmt.Sprintf("%q is a metric: its values must be numbers, got %s", f.Name, jsonKind(it))
			}
			out[i] = x
			continue
		}
		s, ok := toText(it)
		if !ok {
			return nil, fmt.Sprintf("%q is text: its values must be strings, got %s", f.Name, jsonKind(it))
		}
		if len(s) > MaxValueLength {
			return nil, fmt.Sprintf("a value is %d characters long, at most %d", len(s), MaxValueLength)
		}
		if c := n.canonicalValue(f, op, s); c != s {
			n.change(Change{Type: ChangeValueNormalized, Field: at + ".value", From: s, To: c,
				Detail: fmt.Sprintf("Filter value %q read as %q", s, c)})
			s = c
		}
		out[i] = s
	}
	if op == Between && out[0].(float64) > out[1].(float64) {
		return nil, "BETWEEN's low value is above its high value"
	}
	return out, ""
}

// canonicalValue writes a filter value the way the data stores it, for exact
// matches on account IDs ("1015" → act_1015), which would otherwise silently match
// nothing. Platform and publisher platform values: platformFilter and
// publisherFilter.
func (n *normalizer) canonicalValue(f catalog.Field, op Operator, s string) string {
	if f.Name == "account_id" && matchesWhole(op) {
		if a, _, ok := findAccount(n.opt.Accounts, s); ok {
			return a.AccountID
		}
	}
	return s
}

func toNumber(v any) (float64, bool) {
	var x float64
	switch t := v.(type) {
	case float64:
		x = t
	case json.Number:
		f, err := t.Float64()
		if err != nil {
			return 0, false
		}
		x = f
	case int:
		x = float64(t)
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
		if err != nil {
			return 0, false
		}
		x = f
	default:
		return 0, false
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, false
	}
	return x, true
}

func toText(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case json.Number:
		return t.String(), true
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64), true
	case int:
		return strconv.Itoa(t), true
	}
	return "", false
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64, json.Number, int:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func shortValue(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

func valueFix(f catalog.Field, op Operator) string {
	ex := `"brand"`
	if f.Type == catalog.Number {
		ex = "100"
	}
	switch op {
	case In, NotIn:
		if f.Type == catalog.Number {
			return fmt.Sprintf(`give an array, e.g. {"field":%q,"operator":%q,"value":[100,200]}`, f.Name, op)
		}
		return fmt.Sprintf(`give an array, e.g. {"field":%q,"operator":%q,"value":["a","b"]}`, f.Name, op)
	case Between:
		return fmt.Sprintf(`give [low, high], e.g. {"field":%q,"operator":"BETWEEN","value":[10,100]}`, f.Name)
	}
	return fmt.Sprintf(`e.g. {"field":%q,"operator":%q,"value":%s}`, f.Name, op, ex)
}
