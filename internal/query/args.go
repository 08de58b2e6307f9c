// Package query is adsmcp's query language: the arguments of the query tool as an
// AI client sends them (Args), and the normalized, validated Query that sources
// run. Normalization forgives the predictable mistakes of AI clients (time used as a
// dimension, "cost" for "spend", "Campaign Name" for "campaign_name") and records
// each correction so the response's _meta can report it; what cannot be understood
// is rejected with an error naming the field, the problem, the valid values and the
// closest matches.
package query

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"

	"github.com/adsmcp/adsmcp/internal/catalog"
)

// Args are the arguments of the query tool, exactly as docs/contract.md §4 lists them.
// Its JSON form is both what clients send and what _meta and re-query suggestions
// return, so a normalized query can be run again as is.
type Args struct {
	AccountIDs      []string    `json:"account_ids,omitempty"`
	Platforms       []string    `json:"platforms,omitempty"`
	DateRange       *DateRange  `json:"date_range,omitempty"`
	DatePreset      string      `json:"date_preset,omitempty"`
	Dimensions      []string    `json:"dimensions,omitempty"`
	Metrics         []string    `json:"metrics,omitempty"`
	TimeGranularity string      `json:"time_granularity,omitempty"`
	Filters         []FilterArg `json:"filters,omitempty"`
	Sort            []SortArg   `json:"sort,omitempty"`
	Limit           *int        `json:"limit,omitempty"`
	Compare         *CompareArg `json:"compare,omitempty"`
	// AttributionWindow asks conversions counted under this window
	// (7d_click_1d_view, 1d_click…) instead of each account's own.
	AttributionWindow string `json:"attribution_window,omitempty"`
	TokenBudget       *int   `json:"token_budget,omitempty"`
}

// DateRange is an inclusive range of dates, YYYY-MM-DD, in each account's timezone.
type DateRange struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

// dateRangeKeys are the spellings of the range's ends that AI clients borrow from
// the platforms' APIs (Meta's time_range is {since, until}); folded keys.
var dateRangeKeys = map[string]string{
	"start": "start", "startdate": "start", "since": "start", "from": "start", "begin": "start",
	"end": "end", "enddate": "end", "until": "end", "to": "end", "stop": "end",
}

// UnmarshalJSON reads {start, end} and its usual spellings ({since, until},
// {from, to}, {start_date, end_date}); any other key is an error that names it.
func (d *DateRange) UnmarshalJSON(b []byte) error { return unmarshalRange(b, "date_range", d) }

// unmarshalRange reads the {start, end} object of the argument arg (date_range,
// or compare's explicit window) into d, forgiving the same key spellings.
func unmarshalRange(b []byte, arg string, d *DateRange) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return &json.UnmarshalTypeError{Value: jsonKindOf(b), Type: reflect.TypeOf(DateRange{})}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var dst *string
		switch dateRangeKeys[foldName(k)] {
		case "start":
			dst = &d.Start
		case "end":
			dst = &d.End
		default:
			return fmt.Errorf("unknown key %q in %s; use start and end", k, arg)
		}
		if err := json.Unmarshal(m[k], dst); err != nil {
			return &json.UnmarshalTypeError{Value: jsonKindOf(m[k]), Type: reflect.TypeOf(""), Field: dateRangeKeys[foldName(k)]}
		}
	}
	return nil
}

// jsonKindOf names the JSON type of a raw value, for error messages.
func jsonKindOf(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

// FilterArg is one filter as sent: Value is a string, a number or an array of them.
type FilterArg struct {
	Field    string `json:"field"`
	Operator string `json:"operator"`
	Value    any    `json:"value"`
}

// SortArg is one sort key as sent.
type SortArg struct {
	Field     string `json:"field"`
	Direction string `json:"direction,omitempty"`
}

// argumentNames are the canonical top-level argument names.
var argumentNames = []string{"account_ids", "platforms", "date_range", "date_preset", "dimensions",
	"metrics", "time_granularity", "filters", "sort", "limit", "compare", "attribution_window", "token_budget"}

// argumentAliases maps names AI clients use for arguments (often borrowed from the
// platforms' own APIs) to adsmcp's. Keys are folded: lowercase, letters and digits.
var argumentAliases = func() map[string]string {
	m := map[string]string{
		"accountids": "account_ids", "accounts": "account_ids", "accountid": "account_ids", "account": "account_ids",
		"adaccountids": "account_ids", "customerids": "account_ids",
		"platform":  "platforms",
		"daterange": "date_range", "timerange": "date_range",
		"datepreset": "date_preset", "preset": "date_preset",
		"dimension": "dimensions", "groupby": "dimensions", "breakdowns": "dimensions",
		"metric": "metrics", "measures": "metrics",
		"timegranularity": "time_granularity", "granularity": "time_granularity", "timeincrement": "time_granularity",
		"grain":  "time_granularity",
		"filter": "filters", "filtering": "filters", "where": "filters",
		"sort": "sort", "sortby": "sort", "orderby": "sort", "order": "sort",
		"limit": "limit", "top": "limit",
		"comparison": "compare", "compareto": "compare", "comparewith": "compare", "vs": "compare", "versus": "compare",
		"tokenbudget": "token_budget", "budget": "token_budget", "maxtokens": "token_budget",
		"attribution": "attribution_window", "actionattributionwindows": "attribution_window",
		"attributionwindows": "attribution_window", "attributionsetting": "attribution_window",
	}
	for _, n := range argumentNames {
		m[foldName(n)] = n
	}
	return m
}()

// Parse decodes the query tool's JSON arguments. Argument names are forgiven
// ("granularity" → "time_granularity", each reported as a Change); unknown
// arguments, arguments given twice, wrong types (with the path of the value at
// fault, such as "filters[1].field") and malformed JSON are returned as *Error,
// never a panic.
func Parse(raw []byte) (Args, []Change, error) {
	var a Args
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return a, nil, &Error{Problems: []Problem{{Field: "arguments", Problem: "no arguments were given",
			Fix: `send a JSON object such as {"metrics":["spend"],"date_preset":"last_30d"}`}}}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return a, nil, &Error{Problems: []Problem{{Field: "arguments", Problem: "arguments must be a JSON object: " + jsonProblem(err),
			Fix: `send a JSON object such as {"metrics":["spend"],"date_preset":"last_30d"}`}}}
	}
	var changes []Change
	var problems []Problem
	canon := make(map[string]json.RawMessage, len(obj))
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range duplicateKeys(raw) {
		problems = append(problems, Problem{Field: argField(k), Value: k, Problem: "is given more than once",
			Fix: "send each argument once"})
	}
	for _, k := range keys {
		name, ok := argumentAliases[foldName(k)]
		if !ok {
			problems = append(problems, Problem{Field: argField(k), Value: k, Problem: "unknown argument",
				Valid: argumentNames, Closest: closestStrings(k, argumentNames, 3),
				Fix: "remove it or use one of the valid arguments"})
			continue
		}
		if _, dup := canon[name]; dup {
			problems = append(problems, Problem{Field: k, Problem: fmt.Sprintf("gives %s a second time", name),
				Fix: "send each argument once"})
			continue
		}
		if name != k {
			changes = append(changes, Change{Type: ChangeArgumentRenamed, Field: name, From: k, To: name,
				Detail: fmt.Sprintf("Argument %q read as %q", k, name)})
		}
		canon[name] = obj[k]
	}
	for _, name := range argumentNames {
		v, ok := canon[name]
		if !ok || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			continue
		}
		if field, err := decodeArgument(name, v, &a); err != nil {
			problems = append(problems, Problem{Field: field, Problem: jsonProblem(err), Fix: fixFor(name)})
		}
	}
	if len(problems) > 0 {
		return Args{}, changes, &Error{Problems: problems}
	}
	return a, changes, nil
}

// argField is the Field of a problem about the top-level key k: k itself, or
// "arguments" when k is blank (a Problem always says where).
func argField(k string) string {
	if strings.TrimSpace(k) == "" {
		return "arguments"
	}
	return k
}

// duplicateKeys returns the top-level keys of a valid JSON object that occur more
// than once: encoding/json would silently keep the last value.
func duplicateKeys(raw []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	count := map[string]int{}
	var dups []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return dups
		}
		k, _ := t.(string)
		if count[k]++; count[k] == 2 {
			dups = append(dups, k)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return dups
		}
	}
	return dups
}

// decodeArgument decodes one argument into a. On error it also returns the path
// of the offending value, down to the array element ("filters[1].field").
func decodeArgument(name string, v json.RawMessage, a *Args) (string, error) {
	target := argumentTarget(name, a)
	if name == "time_granularity" {
		// Meta's time_increment is a number of days (1, 7) as often as a word.
		var num json.Number
		if decodeStrict(v, &num) == nil {
			a.TimeGranularity = num.String()
			return name, nil
		}
	}
	err := decodeStrict(v, target)
	if err == nil {
		return name, nil
	}
	field := fieldOf(name, err)
	// For arrays, find the first element at fault to name its index.
	if t := reflect.TypeOf(target).Elem(); t.Kind() == reflect.Slice {
		var elems []json.RawMessage
		if json.Unmarshal(v, &elems) == nil {
			for i, e := range elems {
				if eerr := decodeStrict(e, reflect.New(t.Elem()).Interface()); eerr != nil {
					return fieldOf(fmt.Sprintf("%s[%d]", name, i), eerr), eerr
				}
			}
		}
	}
	return field, err
}

func decodeStrict(v json.RawMessage, target any) error {
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(target); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("trailing data after the value")
	}
	return nil
}

func argumentTarget(name string, a *Args) any {
	var target any
	switch name {
	case "account_ids":
		target = &a.AccountIDs
	case "platforms":
		target = &a.Platforms
	case "date_range":
		target = &a.DateRange
	case "date_preset":
		target = &a.DatePreset
	case "dimensions":
		target = &a.Dimensions
	case "metrics":
		target = &a.Metrics
	case "time_granularity":
		target = &a.TimeGranularity
	case "filters":
		target = &a.Filters
	case "sort":
		target = &a.Sort
	case "limit":
		target = &a.Limit
	case "compare":
		target = &a.Compare
	case "token_budget":
		target = &a.TokenBudget
	case "attribution_window":
		target = &a.AttributionWindow
	}
	return target
}

// fieldOf names the argument path a JSON decoding error is about.
func fieldOf(name string, err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return name + "." + te.Field
	}
	return name
}

func jsonProblem(err error) string {
	if err == nil {
		return "null is not an object"
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("expected %s, got a JSON %s", goTypeName(te.Type.String()), te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("malformed JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func goTypeName(t string) string {
	switch strings.TrimLeft(t, "*") {
	case "string":
		return "a string"
	case "[]string":
		return "an array of strings"
	case "int":
		return "an integer"
	case "query.DateRange":
		return `an object {"start":"YYYY-MM-DD","end":"YYYY-MM-DD"}`
	case "[]query.FilterArg":
		return `an array of {"field","operator","value"} objects`
	case "[]query.SortArg":
		return `an array of {"field","direction"} objects`
	case "query.FilterArg":
		return `an object {"field","operator","value"}`
	case "query.SortArg":
		return `an object {"field","direction"}`
	case "query.CompareArg":
		return `"previous_period", "previous_year" or an object {"start":"YYYY-MM-DD","end":"YYYY-MM-DD"}`
	case "map[string]json.RawMessage":
		return "an object"
	}
	return t
}

func fixFor(name string) string {
	switch name {
	case "account_ids", "platforms", "dimensions", "metrics":
		return fmt.Sprintf(`give %s as an array of strings, e.g. ["%s"]`, name, exampleFor(name))
	case "date_range":
		return `give date_range as {"start":"2026-01-01","end":"2026-01-31"}`
	case "date_preset", "time_granularity":
		return "give " + name + " as one string from the valid values"
	case "filters":
		return `give filters as [{"field":"campaign_name","operator":"CONTAINS","value":"brand"}]`
	case "sort":
		return `give sort as [{"field":"spend","direction":"desc"}]`
	case "limit", "token_budget":
		return "give " + name + " as a whole number"
	case "compare":
		return compareFix
	case "attribution_window":
		return `give attribution_window as one string, e.g. "7d_click_1d_view"`
	}
	return ""
}

func exampleFor(name string) string {
	switch name {
	case "account_ids":
		return "act_1001"
	case "platforms":
		return catalog.MetaAds
	case "dimensions":
		return "campaign_name"
	}
	return "spend"
}

// foldName lowercases and keeps letters and digits only.
func foldName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}
