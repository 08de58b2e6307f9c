package googleadstest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/adsmcp/adsmcp/internal/catalog"
)

// The fake understands an explicit subset of the Google Ads Query Language,
// enough for every query the connector sends, and rejects anything else with a
// Google-style INVALID_ARGUMENT error:
//
//	SELECT field (, field)* FROM resource [WHERE cond (AND cond)*]
//	cond: field (= | != | > | >= | < | <=) value
//	    | field [NOT] IN (value (, value)*)
//	    | field [NOT] LIKE 'pattern'            (case-insensitive; %, _ and [c])
//	    | field BETWEEN 'value' AND 'value'
//	value: 'string' | "string" | number | TRUE | FALSE | ENUM_LITERAL
//
// Resources: customer, campaign, ad_group, ad_group_ad, user_location_view,
// age_range_view, gender_view (with metrics), customer_client,
// geo_target_constant and conversion_action (without). Fields are the ones
// listed in resourceFields, segmentFields and metricFields; metrics cannot be
// filtered on; a segment other than segments.date in WHERE must be selected
// too; a date segment in SELECT needs a segments.date range in WHERE;
// segments.conversion_action_name allows only metrics.conversions and
// metrics.conversions_value (PROHIBITED_SEGMENT_WITH_METRIC_IN_SELECT_OR_WHERE_CLAUSE)
// — the API's own rules. ORDER BY, LIMIT, PARAMETERS and functions such as
// LAST_30_DAYS are not part of the subset.
//
// The demo data has age, gender and conversion-action rows per campaign
// only, so the fake refuses (NOT_SUPPORTED_BY_FAKE) what it could not answer
// truthfully though Google would: segments.conversion_action_name below
// campaign level or in the views, and segments.device or
// segments.ad_network_type in age_range_view and gender_view.

// resourceFields are the attribute fields of each resource the fake knows.
var resourceFields = map[string][]string{
	"customer": {"customer.id", "customer.descriptive_name", "customer.currency_code", "customer.time_zone",
		"customer.status", "customer.manager"},
	"campaign":           {"campaign.id", "campaign.name", "campaign.advertising_channel_type", "campaign.status"},
	"ad_group":           {"ad_group.id", "ad_group.name"},
	"ad_group_ad":        {"ad_group_ad.ad.id", "ad_group_ad.ad.name"},
	"user_location_view": {"user_location_view.country_criterion_id", "user_location_view.targeting_location"},
	"customer_client": {"customer_client.id", "customer_client.descriptive_name", "customer_client.currency_code",
		"customer_client.time_zone", "customer_client.status", "customer_client.manager", "customer_client.level"},
	"geo_target_constant": {"geo_target_constant.id", "geo_target_constant.country_code"},
	"age_range_view":      {"age_range_view.resource_name"},
	"gender_view":         {"gender_view.resource_name"},
	"ad_group_criterion": {"ad_group_criterion.criterion_id", "ad_group_criterion.age_range.type",
		"ad_group_criterion.gender.type"},
	"conversion_action": {"conversion_action.id", "conversion_action.name", "conversion_action.status",
		"conversion_action.include_in_conversions_metric"},
}

// compatible lists, for each resource in FROM, the resources whose fields may
// be selected with it.
var compatible = map[string][]string{
	"customer":            {"customer"},
	"campaign":            {"customer", "campaign"},
	"ad_group":            {"customer", "campaign", "ad_group"},
	"ad_group_ad":         {"customer", "campaign", "ad_group", "ad_group_ad"},
	"user_location_view":  {"customer", "campaign", "ad_group", "user_location_view"},
	"customer_client":     {"customer_client"},
	"geo_target_constant": {"geo_target_constant"},
	"age_range_view":      {"customer", "campaign", "ad_group", "ad_group_criterion", "age_range_view"},
	"gender_view":         {"customer", "campaign", "ad_group", "ad_group_criterion", "gender_view"},
	"conversion_action":   {"customer", "conversion_action"},
}

// withMetrics are the resources that have metrics and segments.
var withMetrics = []string{"customer", "campaign", "ad_group", "ad_group_ad", "user_location_view", "age_range_view", "gender_view"}

var segmentFields = []string{"segments.date", "segments.week", "segments.month", "segments.device", "segments.ad_network_type",
	"segments.conversion_action_name"}

// conversionSegmentMetrics are the only metrics (of the fake's) Google allows
// with segments.conversion_action_name: conversion metrics.
var conversionSegmentMetrics = []string{"metrics.conversions", "metrics.conversions_value"}

// metricFields are the GAQL metrics the fake knows, in catalog order.
var metricFields = func() []string {
	var out []string
	for _, f := range catalog.Measures() {
		for field, m := range gaqlMetrics {
			if m.name == f.Name {
				out = append(out, field)
			}
		}
	}
	return out
}()

// Query is a parsed GAQL query of the subset.
type Query struct {
	Fields   []string
	Resource string
	Where    []Condition
}

// Condition is one WHERE condition.
type Condition struct {
	Field    string
	Operator string // =, !=, >, >=, <, <=, IN, NOT IN, LIKE, NOT LIKE, BETWEEN
	Values   []string
}

// queryError is a rejected query: the QueryError code and a message.
type queryError struct {
	code, msg string
}

func (e *queryError) Error() string { return e.code + ": " + e.msg }

func qerr(code, format string, args ...any) *queryError {
	return &queryError{code: code, msg: fmt.Sprintf(format, args...)}
}

// ParseQuery parses and validates a query of the subset.
func ParseQuery(text string) (*Query, error) {
	toks, err := tokenize(text)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	q, err := p.query()
	if err != nil {
		return nil, err
	}
	return q, q.validate()
}

type token struct {
	kind string // ident, string, number, punct
	text string
}

func tokenize(s string) ([]token, error) {
	var out []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '\'' || c == '"':
			var b strings.Builder
			j := i + 1
			for ; j < len(s) && s[j] != c; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
				}
				b.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, qerr("UNEXPECTED_END_OF_QUERY", "unterminated string starting at offset %d", i)
			}
			out = append(out, token{"string", b.String()})
			i = j + 1
		case c == '-' || (c >= '0' && c <= '9'):
			j := i + 1
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
				j++
			}
			out = append(out, token{"number", s[i:j]})
			i = j
		case c == '_' || unicode.IsLetter(rune(c)):
			j := i + 1
			for j < len(s) && (s[j] == '_' || s[j] == '.' || s[j] >= '0' && s[j] <= '9' || unicode.IsLetter(rune(s[j]))) {
				j++
			}
			out = append(out, token{"ident", s[i:j]})
			i = j
		case strings.ContainsRune("(),", rune(c)):
			out = append(out, token{"punct", string(c)})
			i++
		case c == '=' || c == '<' || c == '>' || c == '!':
			j := i + 1
			if j < len(s) && s[j] == '=' {
				j++
			}
			op := s[i:j]
			if op == "!" {
				return nil, qerr("UNEXPECTED_INPUT", "unexpected '!' at offset %d", i)
			}
			out = append(out, token{"punct", op})
			i = j
		default:
			return nil, qerr("UNEXPECTED_INPUT", "unexpected character %q at offset %d", c, i)
		}
	}
	return out, nil
}

type parser struct {
	toks []token
	i    int
}

func (p *parser) peek() token {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return token{}
}

func (p *parser) next() token { t := p.peek(); p.i++; return t }

func (p *parser) keyword(k string) bool {
	if t := p.peek(); t.kind == "ident" && strings.EqualFold(t.text, k) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expect(k string) error {
	if !p.keyword(k) {
		return qerr("EXPECTED_"+k, "expected %s, got %q", k, p.peek().text)
	}
	return nil
}

func (p *parser) query() (*Query, error) {
	q := &Query{}
	if err := p.expect("SELECT"); err != nil {
		return nil, err
	}
	for {
		t := p.next()
		if t.kind != "ident" {
			return nil, qerr("EXPECTED_FIELD_NAME", "expected a field name, got %q", t.text)
		}
		q.Fields = append(q.Fields, t.text)
		if p.peek().text != "," {
			break
		}
		p.next()
	}
	if err := p.expect("FROM"); err != nil {
		return nil, err
	}
	t := p.next()
	if t.kind != "ident" {
		return nil, qerr("EXPECTED_FROM_RESOURCE", "expected a resource name after FROM")
	}
	q.Resource = t.text
	if p.keyword("WHERE") {
		for {
			c, err := p.condition()
			if err != nil {
				return nil, err
			}
			q.Where = append(q.Where, c)
			if !p.keyword("AND") {
				break
			}
		}
	}
	if p.i < len(p.toks) {
		return nil, qerr("UNEXPECTED_INPUT", "unexpected %q (ORDER BY, LIMIT and PARAMETERS are not supported by this fake)", p.peek().text)
	}
	return q, nil
}

func (p *parser) condition() (Condition, error) {
	t := p.next()
	if t.kind != "ident" {
		return Condition{}, qerr("EXPECTED_FIELD_NAME", "expected a field name in WHERE, got %q", t.text)
	}
	c := Condition{Field: t.text}
	switch op := p.next(); {
	case op.kind == "punct" && slices.Contains([]string{"=", "!=", ">", ">=", "<", "<="}, op.text):
		c.Operator = op.text
		v, err := p.value()
		if err != nil {
			return c, err
		}
		c.Values = []string{v}
	case op.kind == "ident" && strings.EqualFold(op.text, "NOT"):
		switch {
		case p.keyword("IN"):
			c.Operator = "NOT IN"
		case p.keyword("LIKE"):
			c.Operator = "NOT LIKE"
		default:
			return c, qerr("UNEXPECTED_INPUT", "expected IN or LIKE after NOT")
		}
	case op.kind == "ident" && strings.EqualFold(op.text, "IN"):
		c.Operator = "IN"
	case op.kind == "ident" && strings.EqualFold(op.text, "LIKE"):
		c.Operator = "LIKE"
	case op.kind == "ident" && strings.EqualFold(op.text, "BETWEEN"):
		c.Operator = "BETWEEN"
		a, err := p.value()
		if err != nil {
			return c, err
		}
		if err := p.expect("AND"); err != nil {
			return c, err
		}
		b, err := p.value()
		if err != nil {
			return c, err
		}
		c.Values = []string{a, b}
	default:
		return c, qerr("INVALID_OPERATOR", "unsupported operator %q", op.text)
	}
	switch c.Operator {
	case "IN", "NOT IN":
		if p.next().text != "(" {
			return c, qerr("EXPECTED_LIST", "expected a parenthesized list after %s", c.Operator)
		}
		for {
			v, err := p.value()
			if err != nil {
				return c, err
			}
			c.Values = append(c.Values, v)
			t := p.next()
			if t.text == ")" {
				break
			}
			if t.text != "," {
				return c, qerr("UNEXPECTED_INPUT", "expected , or ) in a list, got %q", t.text)
			}
		}
	case "LIKE", "NOT LIKE":
		t := p.next()
		if t.kind != "string" {
			return c, qerr("INVALID_VALUE_WITH_LIKE_OPERATOR", "LIKE needs a string pattern")
		}
		c.Values = []string{t.text}
	}
	return c, nil
}

func (p *parser) value() (string, error) {
	t := p.next()
	switch t.kind {
	case "string", "number":
		return t.text, nil
	case "ident":
		if strings.Contains(t.text, ".") {
			return "", qerr("INVALID_LITERAL", "expected a value, got field %q", t.text)
		}
		if strings.EqualFold(t.text, "true") || strings.EqualFold(t.text, "false") {
			return strings.ToLower(t.text), nil
		}
		return t.text, nil // an enum literal
	}
	return "", qerr("UNEXPECTED_END_OF_QUERY", "expected a value")
}

// validate applies the API's rules to the subset.
func (q *Query) validate() error {
	allowed, ok := compatible[q.Resource]
	if !ok {
		return qerr("BAD_RESOURCE_TYPE_IN_FROM_CLAUSE", "resource %q is not supported (the fake knows customer, campaign, ad_group, ad_group_ad, user_location_view, age_range_view, gender_view, customer_client, geo_target_constant, conversion_action)", q.Resource)
	}
	metrics := slices.Contains(withMetrics, q.Resource)
	check := func(f, clause string) error {
		switch {
		case slices.Contains(metricFields, f), slices.Contains(segmentFields, f):
			if !metrics {
				return qerr("PROHIBITED_FIELD_IN_SELECT_CLAUSE", "%s cannot be used with resource %s", f, q.Resource)
			}
			return nil
		}
		for _, r := range allowed {
			if slices.Contains(resourceFields[r], f) {
				return nil
			}
		}
		return qerr("UNRECOGNIZED_FIELD", "unrecognized field %q in the %s clause for resource %s", f, clause, q.Resource)
	}
	seen := map[string]bool{}
	for _, f := range q.Fields {
		if seen[f] {
			return qerr("DUPLICATE_FIELD_IN_SELECT_CLAUSE", "field %q is selected twice", f)
		}
		seen[f] = true
		if err := check(f, "SELECT"); err != nil {
			return err
		}
	}
	dateRange := false
	for _, c := range q.Where {
		if err := check(c.Field, "WHERE"); err != nil {
			return err
		}
		if slices.Contains(metricFields, c.Field) {
			return qerr("PROHIBITED_METRIC_IN_WHERE_CLAUSE", "this fake does not filter on metrics (%s)", c.Field)
		}
		if c.Field == "segments.date" {
			dateRange = dateRange || c.Operator == "BETWEEN"
			if c.Operator != "BETWEEN" && c.Operator != ">=" && c.Operator != "<=" && c.Operator != "=" {
				return qerr("INVALID_OPERATOR", "segments.date supports =, >=, <= and BETWEEN here")
			}
			for _, v := range c.Values {
				if !isDate(v) {
					return qerr("INVALID_DATE", "invalid date %q: dates are 'YYYY-MM-DD'", v)
				}
			}
			continue
		}
		if strings.HasPrefix(c.Field, "segments.") && !seen[c.Field] {
			return qerr("PROHIBITED_SEGMENT_IN_WHERE_CLAUSE", "%s is filtered on but not selected", c.Field)
		}
	}
	for _, f := range []string{"segments.date", "segments.week", "segments.month"} {
		if seen[f] && !dateRange {
			return qerr("MISSING_DATE_RANGE", "%s is selected: the WHERE clause needs a finite segments.date range (BETWEEN)", f)
		}
	}
	return q.validateSegments(seen)
}

// validateSegments applies the rules of segments.conversion_action_name and
// refuses what the fake's data cannot answer.
func (q *Query) validateSegments(selected map[string]bool) error {
	used := maps.Clone(selected)
	for _, c := range q.Where {
		used[c.Field] = true
	}
	view := q.Resource == "age_range_view" || q.Resource == "gender_view"
	if used["segments.conversion_action_name"] {
		var bad []string
		for _, f := range q.Fields {
			if strings.HasPrefix(f, "metrics.") && !slices.Contains(conversionSegmentMetrics, f) {
				bad = append(bad, "'"+strings.TrimPrefix(f, "metrics.")+"'")
			}
		}
		if len(bad) > 0 {
			// Google's own message for query error 53.
			return qerr("PROHIBITED_SEGMENT_WITH_METRIC_IN_SELECT_OR_WHERE_CLAUSE",
				"Cannot select the following segments because at least one unsupported metric is found in SELECT or WHERE clause: 'segments.conversion_action_name'(unsupported metrics: %s).",
				strings.Join(bad, ", "))
		}
		if q.Resource != "campaign" && q.Resource != "customer" {
			return qerr("NOT_SUPPORTED_BY_FAKE", "the fake has conversion actions per campaign only, not with resource %s", q.Resource)
		}
	}
	if view {
		for _, f := range []string{"segments.device", "segments.ad_network_type"} {
			if used[f] {
				return qerr("NOT_SUPPORTED_BY_FAKE", "the fake has no %s in %s", f, q.Resource)
			}
		}
	}
	return nil
}

func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for i, c := range s {
		if i != 4 && i != 7 && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// match reports whether value v satisfies condition c.
func (c *Condition) match(v string) bool {
	switch c.Operator {
	case "=":
		return v == c.Values[0]
	case "!=":
		return v != c.Values[0]
	case ">":
		return v > c.Values[0]
	case ">=":
		return v >= c.Values[0]
	case "<":
		return v < c.Values[0]
	case "<=":
		return v <= c.Values[0]
	case "IN":
		return slices.Contains(c.Values, v)
	case "NOT IN":
		return !slices.Contains(c.Values, v)
	case "LIKE":
		return like(v, c.Values[0])
	case "NOT LIKE":
		return !like(v, c.Values[0])
	case "BETWEEN":
		return v >= c.Values[0] && v <= c.Values[1]
	}
	return false
}

// like matches s against a GAQL LIKE pattern, case-insensitively: % is any
// run of characters, _ any one character, [c] the character c itself.
func like(s, pattern string) bool {
	type elem struct {
		r   rune
		any bool // _
		run bool // %
	}
	var pat []elem
	pr := []rune(pattern)
	for i := 0; i < len(pr); i++ {
		switch {
		case pr[i] == '%':
			pat = append(pat, elem{run: true})
		case pr[i] == '_':
			pat = append(pat, elem{any: true})
		case pr[i] == '[' && i+2 < len(pr) && pr[i+2] == ']':
			pat = append(pat, elem{r: unicode.ToLower(pr[i+1])})
			i += 2
		default:
			pat = append(pat, elem{r: unicode.ToLower(pr[i])})
		}
	}
	sr := []rune(strings.ToLower(s))
	// Classic wildcard matching with backtracking on the last %.
	si, pi, star, mark := 0, 0, -1, 0
	for si < len(sr) {
		switch {
		case pi < len(pat) && !pat[pi].run && (pat[pi].any || pat[pi].r == sr[si]):
			si++
			pi++
		case pi < len(pat) && pat[pi].run:
			star, mark = pi, si
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(pat) && pat[pi].run {
		pi++
	}
	return pi == len(pat)
}
