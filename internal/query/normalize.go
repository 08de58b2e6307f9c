package query

import (
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// Limits of a single query.
const (
	// DefaultMaxAccounts is the account guardrail: queries over dozens of accounts
	// time out before returning anything useful.
	DefaultMaxAccounts = 10
	// DefaultMaxSpanDays is the longest date range: 37 months, how long Meta keeps
	// insights, and about what a daily query can aggregate within the deadline.
	DefaultMaxSpanDays = 1127
	// MaxLimit bounds an explicit top-N.
	MaxLimit = 100000
	// MaxFilterValues bounds IN / NOT_IN lists.
	MaxFilterValues = 1000
	// MaxValueLength bounds one text filter value.
	MaxValueLength = 500
	// MinTokenBudget and MaxTokenBudget bound the token_budget argument: below the
	// minimum not even a summary of the data fits.
	MinTokenBudget = 1000
	MaxTokenBudget = 1000000
)

// Options are what normalization needs beyond the arguments.
type Options struct {
	// Accounts the caller may query; account_ids must name some of them.
	Accounts []ads.Account
	// Now is the clock date presets are resolved against (time.Now when nil).
	Now func() time.Time
	// MaxAccounts per query (DefaultMaxAccounts when 0).
	MaxAccounts int
	// MaxSpanDays of a date range (DefaultMaxSpanDays when 0).
	MaxSpanDays int
}

// ParseAndNormalize parses raw JSON arguments and normalizes them.
func ParseAndNormalize(raw []byte, opt Options) (*Query, error) {
	a, changes, err := Parse(raw)
	if err != nil {
		return nil, err
	}
	q, err := Normalize(a, opt)
	if q != nil {
		q.Changes = append(changes, q.Changes...)
	}
	return q, err
}

// Normalize validates a against the catalog and the caller's accounts and returns
// the query to run. It returns *Error listing every problem, or
// *TooManyAccountsError when the query is valid but spans too many accounts.
func Normalize(a Args, opt Options) (*Query, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.MaxAccounts <= 0 {
		opt.MaxAccounts = DefaultMaxAccounts
	}
	if opt.MaxSpanDays <= 0 {
		opt.MaxSpanDays = DefaultMaxSpanDays
	}
	n := &normalizer{opt: opt, q: &Query{}}
	n.platforms(a.Platforms)
	tooMany := n.accounts(a.AccountIDs)
	n.dates(a.DateRange, a.DatePreset)
	inferred := n.fields(a.Dimensions, a.Metrics)
	n.granularity(a.TimeGranularity, inferred)
	n.compare(a.Compare)
	n.filters(a.Filters)
	if n.placements != nil {
		n.q.Filters = append(n.q.Filters, *n.placements)
	}
	n.currency()
	n.attribution(a.AttributionWindow)
	n.breakdowns()
	n.sort(a.Sort, a.Limit)
	n.perCurrency()
	n.budget(a.TokenBudget)
	if len(n.problems) > 0 {
		return nil, &Error{Problems: n.problems}
	}
	if tooMany != nil {
		return nil, tooMany
	}
	return n.q, nil
}

type normalizer struct {
	opt      Options
	q        *Query
	problems []Problem
	// placements is the publisher_platform filter that placements named in
	// platforms stand for.
	placements *Filter
	// comparing is true when compare was given (even if it is wrong): sort
	// keys and filters may then name derived columns such as spend_change.
	comparing bool
}

func (n *normalizer) problem(p Problem) { n.problems = append(n.problems, p) }

func (n *normalizer) change(c Change) { n.q.Changes = append(n.q.Changes, c) }

// addColumn adds the dimension c.To, saying so with c: the one way the
// normalization adds a column. Only a describing dimension (catalog
// Field.Describes: currency, attribution_window) may be added — a column
// that says how the numbers are measured, never a breakdown that would
// judge which rows are attributed or take places in a top N.
func (n *normalizer) addColumn(c Change) {
	if !catalog.MustLookup(c.To).Describes {
		panic("query: the normalization adds only describing dimensions, not " + c.To)
	}
	n.q.Dimensions = append(n.q.Dimensions, c.To)
	n.change(c)
}
