package query

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/fit"
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
	n.filters(a.Filters)
	n.currency()
	n.sort(a.Sort, a.Limit)
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
}

func (n *normalizer) problem(p Problem) { n.problems = append(n.problems, p) }

func (n *normalizer) change(c Change) { n.q.Changes = append(n.q.Changes, c) }

// platformAliases maps folded names people use for platforms to canonical ones.
var platformAliases = map[string]string{
	"meta": catalog.MetaAds, "metaads": catalog.MetaAds, "facebook": catalog.MetaAds, "fb": catalog.MetaAds,
	"facebookads": catalog.MetaAds, "instagram": catalog.MetaAds, "metamarketing": catalog.MetaAds,
	"google": catalog.GoogleAds, "googleads": catalog.GoogleAds, "adwords": catalog.GoogleAds,
	"tiktok": catalog.TikTokAds, "tiktokads": catalog.TikTokAds,
}

// canonicalPlatform maps a platform name as written to its canonical name.
func canonicalPlatform(s string) (string, bool) {
	p, ok := platformAliases[foldName(s)]
	return p, ok
}

// closestPlatforms suggests canonical platforms for a misspelling of any of their
// names ("facebok" → meta_ads).
func closestPlatforms(s string) []string {
	cands := slices.Clone(catalog.AllPlatforms)
	for alias := range platformAliases {
		cands = append(cands, alias)
	}
	slices.Sort(cands[len(catalog.AllPlatforms):])
	var out []string
	for _, c := range closestStrings(s, cands, len(cands)) {
		p := c
		if q, ok := platformAliases[c]; ok {
			p = q
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func (n *normalizer) platforms(given []string) {
	if given == nil {
		return
	}
	if len(given) == 0 {
		n.problem(Problem{Field: "platforms", Problem: "is an empty array", Valid: catalog.AllPlatforms,
			Fix: "omit platforms for all platforms, or name at least one"})
		return
	}
	for i, s := range given {
		p, ok := canonicalPlatform(s)
		if !ok {
			n.problem(Problem{Field: fmt.Sprintf("platforms[%d]", i), Value: s, Problem: "unknown platform",
				Valid: catalog.AllPlatforms, Closest: closestPlatforms(s)})
			continue
		}
		if p != s {
			n.change(Change{Type: ChangeValueNormalized, Field: "platforms", From: s, To: p,
				Detail: fmt.Sprintf("Platform %q read as %q", s, p)})
		}
		if !slices.Contains(n.q.Platforms, p) {
			n.q.Platforms = append(n.q.Platforms, p)
		}
	}
}

// accounts resolves account_ids against the caller's accounts, or takes all of
// them (on the chosen platforms) when omitted; it applies the account guardrail.
func (n *normalizer) accounts(given []string) *TooManyAccountsError {
	visible := n.opt.Accounts
	onPlatforms := func(a ads.Account) bool {
		return len(n.q.Platforms) == 0 || slices.Contains(n.q.Platforms, a.Platform)
	}
	if given == nil {
		for _, a := range visible {
			if onPlatforms(a) {
				n.q.Accounts = append(n.q.Accounts, a)
			}
		}
		switch {
		case len(n.q.Accounts) > 0:
		case len(visible) == 0:
			n.problem(Problem{Field: "account_ids", Problem: "no account is available to you",
				Fix: "connect an ad account (or check the credentials), then call list_accounts"})
		case len(n.q.Platforms) == 0:
			// Every platform given was unknown; that problem is already reported.
		default:
			n.problem(Problem{Field: "platforms", Value: strings.Join(n.q.Platforms, ","), Problem: "no account you may query is on these platforms",
				Valid: platformsOf(visible), Fix: "call list_accounts to see the accounts and their platforms"})
		}
		if len(n.q.Accounts) > n.opt.MaxAccounts {
			return &TooManyAccountsError{Max: n.opt.MaxAccounts, Requested: len(n.q.Accounts)}
		}
		return nil
	}
	if len(given) == 0 {
		n.problem(Problem{Field: "account_ids", Problem: "is an empty array",
			Fix: fmt.Sprintf("omit account_ids for every account, or name 1 to %d accounts from list_accounts", n.opt.MaxAccounts)})
		return nil
	}
	seen := map[string]bool{}
	for i, s := range given {
		field := fmt.Sprintf("account_ids[%d]", i)
		a, how, ok := findAccount(visible, s)
		if !ok {
			if same := accountsNamed(visible, s); len(same) > 1 {
				n.problem(Problem{Field: field, Value: s, Problem: fmt.Sprintf("%d accounts have this name", len(same)),
					Valid: same, Fix: "use the account_id of the one you mean"})
				continue
			}
			n.problem(Problem{Field: field, Value: s, Problem: "no account with this ID is available to you",
				Closest: closestAccounts(s, visible, 3), Fix: "use an account_id from list_accounts"})
			continue
		}
		if how != "" {
			n.change(Change{Type: ChangeValueNormalized, Field: "account_ids", From: s, To: a.AccountID,
				Detail: fmt.Sprintf("Account %q read as %q (%s)", s, a.AccountID, how)})
		}
		if !onPlatforms(a) {
			n.problem(Problem{Field: field, Value: s, Problem: fmt.Sprintf("account is on %s, which platforms excludes", a.Platform),
				Fix: "remove the account or add its platform to platforms"})
			continue
		}
		if seen[a.AccountID] {
			n.change(Change{Type: ChangeDuplicateRemoved, Field: "account_ids", From: s,
				Detail: fmt.Sprintf("Account %q given twice; queried once", a.AccountID)})
			continue
		}
		seen[a.AccountID] = true
		n.q.Accounts = append(n.q.Accounts, a)
	}
	if len(n.q.Accounts) > n.opt.MaxAccounts {
		return &TooManyAccountsError{Max: n.opt.MaxAccounts, Requested: len(n.q.Accounts), Explicit: true}
	}
	return nil
}

// findAccount finds an account by exact ID, by folded ID ("act_" prefix, dashes,
// case) or by exact name (case-insensitive); how says which forgiveness applied.
func findAccount(visible []ads.Account, s string) (ads.Account, string, bool) {
	for _, a := range visible {
		if a.AccountID == s {
			return a, "", true
		}
	}
	f := ads.FoldID(s)
	for _, a := range visible {
		if f != "" && ads.FoldID(a.AccountID) == f {
			return a, "same ID written differently", true
		}
	}
	if same := accountsNamed(visible, s); len(same) == 1 {
		for _, a := range visible {
			if a.AccountID == same[0] {
				return a, "matched the account name", true
			}
		}
	}
	return ads.Account{}, "", false
}

// accountsNamed returns the IDs of the accounts whose name is s (case-insensitive).
func accountsNamed(visible []ads.Account, s string) []string {
	var ids []string
	s = strings.TrimSpace(s)
	for _, a := range visible {
		if s != "" && strings.EqualFold(s, strings.TrimSpace(a.AccountName)) {
			ids = append(ids, a.AccountID)
		}
	}
	return ids
}

// closestAccounts returns up to n account IDs whose ID or name is closest to s.
func closestAccounts(s string, visible []ads.Account, n int) []string {
	var cands []string
	idOf := map[string]string{}
	for _, a := range visible {
		for _, c := range []string{a.AccountID, a.AccountName} {
			if _, seen := idOf[c]; !seen && c != "" {
				idOf[c] = a.AccountID
				cands = append(cands, c)
			}
		}
	}
	var out []string
	for _, c := range closestStrings(s, cands, len(cands)) {
		if id := idOf[c]; !slices.Contains(out, id) && len(out) < n {
			out = append(out, id)
		}
	}
	return out
}

func platformsOf(accts []ads.Account) []string {
	var out []string
	for _, a := range accts {
		if !slices.Contains(out, a.Platform) {
			out = append(out, a.Platform)
		}
	}
	return out
}

// location is the timezone presets resolve in: the accounts' shared timezone, or
// UTC when they differ (each account's data is still by its own local dates).
func (n *normalizer) location() *time.Location {
	tz := ""
	for i, a := range n.q.Accounts {
		if i > 0 && a.Timezone != tz {
			return time.UTC
		}
		tz = a.Timezone
	}
	if loc, err := time.LoadLocation(tz); err == nil && tz != "" {
		return loc
	}
	return time.UTC
}

func (n *normalizer) dates(dr *DateRange, preset string) {
	loc := n.location()
	n.q.Location = loc.String()
	today := civil(n.opt.Now().In(loc))
	if dr != nil {
		if preset != "" {
			n.change(Change{Type: ChangeDatePresetIgnored, Field: "date_preset", From: preset,
				Detail: fmt.Sprintf("Both date_range and date_preset were given; date_range was used and date_preset %q ignored", preset)})
		}
		start, err1 := ParseDate(strings.TrimSpace(dr.Start))
		if err1 != nil {
			n.problem(Problem{Field: "date_range.start", Value: dr.Start, Problem: "is not a date in YYYY-MM-DD form",
				Fix: "write dates like " + today.AddDate(0, 0, -30).Format(time.DateOnly)})
		}
		end, err2 := ParseDate(strings.TrimSpace(dr.End))
		if err2 != nil {
			n.problem(Problem{Field: "date_range.end", Value: dr.End, Problem: "is not a date in YYYY-MM-DD form",
				Fix: "write dates like " + today.AddDate(0, 0, -1).Format(time.DateOnly)})
		}
		if err1 != nil || err2 != nil {
			return
		}
		n.setRange(start, end, today)
		return
	}
	if preset == "" {
		preset = DefaultPreset
	}
	p := strings.ToLower(strings.TrimSpace(preset))
	p = strings.NewReplacer(" ", "_", "-", "_").Replace(p)
	if alias, ok := presetAliases[p]; ok {
		p = alias
	}
	start, end, err := ResolvePreset(p, today)
	if err != nil {
		n.problem(Problem{Field: "date_preset", Value: preset, Problem: "unknown date preset",
			Valid: Presets, Closest: closestStrings(preset, Presets, 3),
			Fix: `use one of the valid presets, or date_range {"start":"YYYY-MM-DD","end":"YYYY-MM-DD"}`})
		return
	}
	if p != preset {
		n.change(Change{Type: ChangeValueNormalized, Field: "date_preset", From: preset, To: p,
			Detail: fmt.Sprintf("Date preset %q read as %q", preset, p)})
	}
	n.q.Preset = p
	n.q.Start, n.q.End = start, end
}

// presetAliases forgive the spellings of the platforms' own presets.
var presetAliases = map[string]string{
	"last_7_days": "last_7d", "last_14_days": "last_14d", "last_30_days": "last_30d", "last_90_days": "last_90d",
	"last7days": "last_7d", "last14days": "last_14d", "last30days": "last_30d", "last90days": "last_90d",
	"last_week_mon_sun": "last_week", "this_week_mon_today": "this_week",
}

func (n *normalizer) setRange(start, end, today time.Time) {
	if start.After(end) {
		n.problem(Problem{Field: "date_range", Value: start.Format(time.DateOnly) + " to " + end.Format(time.DateOnly),
			Problem: "start is after end", Fix: "swap start and end; both dates are inclusive"})
		return
	}
	if start.After(today) {
		n.problem(Problem{Field: "date_range.start", Value: start.Format(time.DateOnly),
			Problem: fmt.Sprintf("is in the future (today is %s in %s)", today.Format(time.DateOnly), n.q.Location),
			Fix:     "ask for dates up to today"})
		return
	}
	if end.After(today) {
		n.change(Change{Type: ChangeDateRangeClamped, Field: "date_range.end", From: end.Format(time.DateOnly),
			To: today.Format(time.DateOnly), Detail: "The end date was in the future; the range ends today"})
		end = today
	}
	if days := int(end.Sub(start).Hours()/24) + 1; days > n.opt.MaxSpanDays {
		n.problem(Problem{Field: "date_range", Value: fmt.Sprintf("%d days", days),
			Problem: fmt.Sprintf("spans more than %d days (37 months: how long Meta keeps insights, and about what one query can aggregate within the deadline)", n.opt.MaxSpanDays),
			Fix:     "split the range into several queries or use a shorter one"})
		return
	}
	n.q.Start, n.q.End = start, end
}

// timeWords are what AI clients put in dimensions when they mean a time grain,
// folded, with the grain each implies ("" when it implies none adsmcp has).
var timeWords = map[string]fit.Grain{
	"date": fit.Daily, "dates": fit.Daily, "day": fit.Daily, "days": fit.Daily, "daily": fit.Daily,
	"datestart": fit.Daily, "datestop": fit.Daily, "dateend": fit.Daily, "segmentsdate": fit.Daily,
	"reportingstarts": fit.Daily, "reportingends": fit.Daily, "stattimeday": fit.Daily,
	"datetime": fit.Daily, "timestamp": fit.Daily, "time": fit.Daily, "dt": fit.Daily,
	"week": fit.Weekly, "weeks": fit.Weekly, "weekly": fit.Weekly, "isoweek": fit.Weekly,
	"segmentsweek": fit.Weekly, "weekstart": fit.Weekly,
	"month": fit.Monthly, "months": fit.Monthly, "monthly": fit.Monthly, "segmentsmonth": fit.Monthly,
	"yearmonth": fit.Monthly,
	"year":      "", "years": "", "yearly": "", "segmentsyear": "", "quarter": "", "segmentsquarter": "",
	"hour": "", "hourofday": "", "stattimehour": "", "dayofweek": "", "segmentsdayofweek": "",
	"timeperiod": "", "period": "", "timeincrement": "",
}

// IsTimeWord reports whether name, used as a field, means time rather than a field.
func IsTimeWord(name string) bool {
	_, ok := timeWord(name)
	return ok
}

// timeWord looks name up among timeWords, folded, also without the API resource
// prefixes of the platforms' query languages ("insights.date_start").
func timeWord(name string) (fit.Grain, bool) {
	k := foldName(name)
	if g, ok := timeWords[k]; ok {
		return g, true
	}
	for _, prefix := range []string{"segments", "metrics", "insights"} {
		if rest, ok := strings.CutPrefix(k, prefix); ok && rest != "" {
			g, ok := timeWords[rest]
			return g, ok
		}
	}
	return "", false
}

// fields resolves dimensions and metrics; it returns the finest grain implied by
// time words found among them ("" when none).
func (n *normalizer) fields(dims, metrics []string) fit.Grain {
	var inferred fit.Grain
	take := func(arg string, i int, s string) {
		field := fmt.Sprintf("%s[%d]", arg, i)
		if g, ok := timeWord(s); ok {
			detail := fmt.Sprintf("Removed %q from %s: time is set by time_granularity, never a field", s, arg)
			if g != "" {
				detail += fmt.Sprintf(" (it implies %s)", g)
				if inferred == "" || finer(g, inferred) {
					inferred = g
				}
			}
			n.change(Change{Type: ChangeDimensionSanitized, Field: arg, From: s, Detail: detail})
			return
		}
		f, exact, ok := catalog.Resolve(s)
		if !ok {
			valid := catalog.Names(catalog.Metric)
			kind := catalog.Metric
			if arg == "dimensions" {
				valid, kind = catalog.Names(catalog.Dimension), catalog.Dimension
			}
			n.problem(Problem{Field: field, Value: s, Problem: "unknown " + string(kind),
				Valid: valid, Closest: catalog.Closest(s, 3), Fix: "use a name from list_fields"})
			return
		}
		if !exact {
			n.change(Change{Type: ChangeFieldRenamed, Field: arg, From: s, To: f.Name,
				Detail: fmt.Sprintf("Field %q read as %q", s, f.Name)})
		}
		dest := &n.q.Metrics
		if f.Kind == catalog.Dimension {
			dest = &n.q.Dimensions
		}
		if (arg == "metrics") != f.IsMetric() {
			to := "dimensions"
			if f.IsMetric() {
				to = "metrics"
			}
			n.change(Change{Type: ChangeFieldMoved, Field: f.Name, From: arg, To: to,
				Detail: fmt.Sprintf("%q is a %s; moved from %s to %s", f.Name, f.Kind, arg, to)})
		}
		if slices.Contains(*dest, f.Name) {
			n.change(Change{Type: ChangeDuplicateRemoved, Field: arg, From: s,
				Detail: fmt.Sprintf("%q given more than once; kept once", f.Name)})
			return
		}
		*dest = append(*dest, f.Name)
	}
	for i, s := range dims {
		take("dimensions", i, s)
	}
	for i, s := range metrics {
		take("metrics", i, s)
	}
	// A metric given among the dimensions was moved and counts: only a query that
	// measures nothing at all is rejected.
	if len(n.q.Metrics) == 0 && !n.hasProblemIn("metrics") {
		p := Problem{Field: "metrics", Problem: "names no metric", Valid: catalog.Names(catalog.Metric),
			Fix: `name at least one metric, e.g. ["spend","clicks"]`}
		switch {
		case metrics == nil:
			p.Problem = "is required"
		case len(metrics) == 0:
			p.Problem = "is an empty array"
		}
		n.problem(p)
	}
	return inferred
}

func (n *normalizer) hasProblemIn(arg string) bool {
	for _, p := range n.problems {
		if strings.HasPrefix(p.Field, arg) {
			return true
		}
	}
	return false
}

func finer(a, b fit.Grain) bool { return slices.Index(fit.Grains, a) < slices.Index(fit.Grains, b) }

// grainAliases forgive the usual names of grains.
var grainAliases = map[string]fit.Grain{
	"daily": fit.Daily, "day": fit.Daily, "days": fit.Daily, "date": fit.Daily, "1": fit.Daily,
	"weekly": fit.Weekly, "week": fit.Weekly, "weeks": fit.Weekly, "7": fit.Weekly, "isoweek": fit.Weekly,
	"monthly": fit.Monthly, "month": fit.Monthly, "months": fit.Monthly,
	"total": fit.Total, "all": fit.Total, "alldays": fit.Total, "none": fit.Total, "summary": fit.Total,
	"aggregate": fit.Total, "overall": fit.Total,
}

var grainNames = []string{"daily", "weekly", "monthly", "total"}

func (n *normalizer) granularity(given string, inferred fit.Grain) {
	if given == "" {
		n.q.Grain = fit.Total
		if inferred != "" {
			n.q.Grain = inferred
			n.change(Change{Type: ChangeGranularityInferred, Field: "time_granularity", To: string(inferred),
				Detail: fmt.Sprintf("time_granularity was not given; %s inferred from the time field removed from dimensions", inferred)})
		}
		return
	}
	g, ok := grainAliases[foldName(given)]
	if !ok {
		n.problem(Problem{Field: "time_granularity", Value: given, Problem: "unknown granularity",
			Valid: grainNames, Closest: closestStrings(given, grainNames, 2)})
		return
	}
	if string(g) != given {
		n.change(Change{Type: ChangeValueNormalized, Field: "time_granularity", From: given, To: string(g),
			Detail: fmt.Sprintf("time_granularity %q read as %q", given, g)})
	}
	n.q.Grain = g
}

// currency adds the currency dimension when money metrics would otherwise mix
// currencies in one column, so no total ever sums across currencies. A money
// metric used only in a filter counts too: "spend > 100" must not compare a sum
// of dollars and pesos.
func (n *normalizer) currency() {
	if slices.Contains(n.q.Dimensions, "currency") {
		return
	}
	money := false
	for _, m := range n.q.Metrics {
		if involvesMoney(catalog.MustLookup(m)) {
			money = true
		}
	}
	for _, f := range n.q.Filters {
		if f.Metric && involvesMoney(catalog.MustLookup(f.Field)) {
			money = true
		}
	}
	var curs []string
	for _, a := range n.q.Accounts {
		if !slices.Contains(curs, a.Currency) {
			curs = append(curs, a.Currency)
		}
	}
	if money && len(curs) > 1 {
		n.q.Dimensions = append(n.q.Dimensions, "currency")
		n.change(Change{Type: ChangeCurrencyColumnAdded, Field: "dimensions", To: "currency",
			Detail: fmt.Sprintf("The accounts use %d currencies (%s); a currency column was added so money is never summed across currencies",
				len(curs), strings.Join(curs, ", "))})
	}
}

// involvesMoney reports whether a metric is money or is computed from money: ROAS
// (conversion_value / spend) is unitless, but summing its parts across currencies
// before dividing would mix currencies all the same.
func involvesMoney(f catalog.Field) bool {
	if f.Unit == catalog.Money {
		return true
	}
	for _, part := range []string{f.Numerator, f.Denominator} {
		if p, ok := catalog.Lookup(part); ok && p.Unit == catalog.Money {
			return true
		}
	}
	return false
}

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
		n.q.Filters = append(n.q.Filters, Filter{Field: f.Name, Operator: op, Values: vals, Metric: f.IsMetric()})
	}
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

// canonicalValue writes a filter value the way the data stores it, for the
// dimensions whose values adsmcp itself names: platforms ("Facebook" → meta_ads)
// and, for exact matches, account IDs ("1015" → act_1015), which would otherwise
// silently match nothing.
func (n *normalizer) canonicalValue(f catalog.Field, op Operator, s string) string {
	switch f.Name {
	case "platform":
		if p, ok := canonicalPlatform(s); ok {
			return p
		}
	case "account_id":
		if op == Equals || op == NotEquals || op == In || op == NotIn {
			if a, _, ok := findAccount(n.opt.Accounts, s); ok {
				return a.AccountID
			}
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

func (n *normalizer) sort(given []SortArg, limit *int) {
	returned := append(slices.Clone(n.q.Dimensions), n.q.Metrics...)
	if tc := n.q.Grain.TimeColumn(); tc != "" {
		returned = append(returned, tc)
	}
	for i, sa := range given {
		at := fmt.Sprintf("sort[%d]", i)
		name := sa.Field
		if tc := n.q.Grain.TimeColumn(); tc != "" && IsTimeWord(name) {
			name = tc
		} else if f, _, ok := catalog.Resolve(name); ok {
			name = f.Name
		}
		if !slices.Contains(returned, name) && IsTimeWord(name) {
			n.problem(Problem{Field: at + ".field", Value: sa.Field, Problem: "the result has no time column at total granularity",
				Valid: returned, Fix: "set time_granularity to daily, weekly or monthly, or sort by a returned column"})
			continue
		}
		if !slices.Contains(returned, name) {
			n.problem(Problem{Field: at + ".field", Value: sa.Field, Problem: "is not a column of the result",
				Valid: returned, Closest: closestStrings(sa.Field, returned, 2),
				Fix: "sort by a requested dimension or metric, or add the field to metrics"})
			continue
		}
		if name != sa.Field {
			n.change(Change{Type: ChangeFieldRenamed, Field: at + ".field", From: sa.Field, To: name,
				Detail: fmt.Sprintf("Sort field %q read as %q", sa.Field, name)})
		}
		var desc bool
		switch strings.ToLower(strings.TrimSpace(sa.Direction)) {
		case "desc", "descending", "dsc", "down":
			desc = true
		case "asc", "ascending", "up":
		case "":
			f, ok := catalog.Lookup(name)
			desc = ok && f.IsMetric() // biggest first for metrics, A→Z and oldest first otherwise
		default:
			n.problem(Problem{Field: at + ".direction", Value: sa.Direction, Problem: "unknown direction",
				Valid: []string{"asc", "desc"}})
			continue
		}
		n.q.Sort = append(n.q.Sort, SortKey{Field: name, Desc: desc})
	}
	if limit == nil {
		return
	}
	switch {
	case len(given) == 0:
		n.problem(Problem{Field: "limit", Value: *limit, Problem: "needs sort: a top-N without an order would cut rows arbitrarily",
			Fix: `add sort, e.g. "sort":[{"field":"spend","direction":"desc"}], or remove limit`})
	case *limit < 1 || *limit > MaxLimit:
		n.problem(Problem{Field: "limit", Value: *limit, Problem: fmt.Sprintf("must be between 1 and %d", MaxLimit),
			Fix: "remove limit to get every row"})
	default:
		n.q.Limit = *limit
	}
}

func (n *normalizer) budget(b *int) {
	if b == nil {
		return
	}
	if *b < MinTokenBudget || *b > MaxTokenBudget {
		n.problem(Problem{Field: "token_budget", Value: *b,
			Problem: fmt.Sprintf("must be between %d and %d tokens (below %d not even a summary fits)", MinTokenBudget, MaxTokenBudget, MinTokenBudget),
			Fix:     "omit token_budget to use the client's budget"})
		return
	}
	n.q.TokenBudget = *b
}

// CanonicalPlatform maps a platform name as people write it ("Facebook", "google")
// to its canonical name, or explains the valid names.
func CanonicalPlatform(s string) (string, error) {
	if p, ok := canonicalPlatform(s); ok {
		return p, nil
	}
	return "", fmt.Errorf("unknown platform %q; valid: %s", s, strings.Join(catalog.AllPlatforms, ", "))
}
