package query

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agnivade/levenshtein"
)

// Problem is one thing wrong with a query, said so that an AI client can fix it:
// where (Field, an argument path such as "filters[1].operator"), what, the valid
// values, the closest valid values and how to fix it.
type Problem struct {
	Field   string   `json:"field"`
	Value   any      `json:"value,omitempty"`
	Problem string   `json:"problem"`
	Valid   []string `json:"valid,omitempty"`
	Closest []string `json:"closest,omitempty"`
	Fix     string   `json:"fix,omitempty"`
}

func (p Problem) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", p.Field, p.Problem)
	if p.Value != nil {
		fmt.Fprintf(&b, " (got %v)", p.Value)
	}
	if len(p.Closest) > 0 {
		fmt.Fprintf(&b, "; did you mean %s?", strings.Join(p.Closest, " or "))
	}
	if p.Fix != "" {
		fmt.Fprintf(&b, "; %s", p.Fix)
	}
	if len(p.Valid) > 0 && len(p.Valid) <= 40 {
		fmt.Fprintf(&b, " (valid: %s)", strings.Join(p.Valid, ", "))
	}
	return b.String()
}

// Error is an invalid query: every problem found, not just the first.
type Error struct {
	Problems []Problem `json:"problems"`
}

func (e *Error) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return "invalid query: " + strings.Join(parts, "; ")
}

// TooManyAccountsError is the account guardrail: a query may span at most Max
// accounts, because multi-account queries over dozens of accounts time out before
// returning anything useful.
type TooManyAccountsError struct {
	Max       int
	Requested int
	// Explicit is false when the accounts were not named but implied ("all accounts").
	Explicit bool
}

func (e *TooManyAccountsError) Error() string {
	how := "named"
	if !e.Explicit {
		how = "implied by omitting account_ids"
	}
	return fmt.Sprintf("too many accounts: %d %s, at most %d per query; pass account_ids with up to %d accounts (list_accounts shows them), or narrow platforms",
		e.Requested, how, e.Max, e.Max)
}

// Change is a correction normalization made to what the client sent, reported in
// _meta.optimizations_applied so the model knows what actually ran.
type Change struct {
	Type   string `json:"type"`
	Field  string `json:"field,omitempty"`
	From   string `json:"from,omitempty"`
	To     string `json:"to,omitempty"`
	Detail string `json:"detail"`
}

// Change types.
const (
	ChangeArgumentRenamed     = "argument_renamed"
	ChangeFieldRenamed        = "field_renamed"
	ChangeFieldMoved          = "field_moved"
	ChangeDuplicateRemoved    = "duplicate_removed"
	ChangeDimensionSanitized  = "dimension_sanitized"
	ChangeGranularityInferred = "granularity_inferred"
	ChangeValueNormalized     = "value_normalized"
	ChangeDatePresetIgnored   = "date_preset_ignored"
	ChangeDateRangeClamped    = "date_range_clamped"
	ChangeCurrencyColumnAdded = "currency_column_added"
	// Warnings of normalization (Query.Warnings): what the user must hear.
	// A sort on money over several currencies ranks within each currency; a
	// money filter over several currencies compares each row in its own.
	WarningSortPerCurrency      = "sort_per_currency"
	WarningThresholdPerCurrency = "threshold_per_currency"
	// ChangePublisherPlatformFilter: a placement (Instagram, YouTube) named as a
	// platform became a publisher_platform filter inside its platform.
	ChangePublisherPlatformFilter = "publisher_platform_filter"
)

// closestStrings returns up to n of valid closest to s by edit distance over folded
// forms, best first; only plausible matches (distance at most half the length).
func closestStrings(s string, valid []string, n int) []string {
	k := foldName(s)
	if k == "" {
		return nil // nothing to compare: every short name would look close
	}
	type cand struct {
		v string
		d int
	}
	var cs []cand
	for _, v := range valid {
		fv := foldName(v)
		d := levenshtein.ComputeDistance(k, fv)
		if len(k) >= 3 && (strings.Contains(fv, k) || strings.Contains(k, fv)) {
			d = min(d, 2)
		}
		if d <= max(1, len(k)/2) {
			cs = append(cs, cand{v, d})
		}
	}
	sort.SliceStable(cs, func(a, b int) bool { return cs[a].d < cs[b].d })
	var out []string
	for _, c := range cs {
		if len(out) == n {
			break
		}
		out = append(out, c.v)
	}
	return out
}
