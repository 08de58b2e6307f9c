package answer

import (
	"fmt"
	"unicode/utf8"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/query"
)

// The query echo (_meta.query) repeats the arguments, IN lists included: a list
// of 1,000 campaign names costs as much as the data. When the answer does not
// fit with it, the echo is abbreviated — each long list written as its first
// values and a count — and then left out, before anything else is given up
// (fit.Options.Dialect.Echoes).
const (
	// echoListValues is how many values of a long IN/NOT_IN list the abbreviated
	// echo shows.
	echoListValues = 3
	// echoValueRunes is how much of a long value the abbreviated echo shows.
	echoValueRunes = 60
)

// EchoNote is what _meta says of an abbreviated echo.
var EchoNote = fmt.Sprintf(`_meta.query is abbreviated so the response fits the client's budget: each IN/NOT_IN list of more than %d values is written {"first":[its first %d values],"count":N} (long values cut with …), so this echo is not ready to run; the query ran with every value sent (with the changes listed here). To re-run or narrow it, start from the arguments you sent.`,
	echoListValues, echoListValues)

// AbbreviatedList is how the abbreviated echo writes a long IN/NOT_IN list. It
// is not a valid filter value, so the echo cannot be re-run by mistake.
type AbbreviatedList struct {
	First []any `json:"first"`
	Count int   `json:"count"`
}

// Echoes are the shorter forms of a query's echo (a *query.Query, or the
// *query.Args of a suggestion): the abbreviated one, when it is shorter.
func Echoes(q any) []fit.Echo {
	if a, ok := Abbreviate(q); ok {
		return []fit.Echo{{Query: a, Note: EchoNote}}
	}
	return nil
}

// Abbreviate writes a query's arguments with each IN/NOT_IN list of more than
// echoListValues values as an AbbreviatedList; false when nothing is shortened.
func Abbreviate(q any) (*query.Args, bool) {
	var a query.Args
	switch v := q.(type) {
	case *query.Query:
		a = v.Args()
	case query.Query:
		a = v.Args()
	case *query.Args:
		a = *v
	case query.Args:
		a = v
	default:
		return nil, false
	}
	changed := false
	filters := make([]query.FilterArg, len(a.Filters))
	for i, f := range a.Filters {
		filters[i] = f
		vals, ok := f.Value.([]any)
		if !ok || len(vals) <= echoListValues {
			continue
		}
		first := make([]any, echoListValues)
		for j, v := range vals[:echoListValues] {
			if s, ok := v.(string); ok {
				v = cut(s, echoValueRunes)
			}
			first[j] = v
		}
		filters[i].Value = AbbreviatedList{First: first, Count: len(vals)}
		changed = true
	}
	if !changed {
		return nil, false
	}
	a.Filters = filters
	return &a, true
}

// cut shortens s to n runes, marking the cut with "…".
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
