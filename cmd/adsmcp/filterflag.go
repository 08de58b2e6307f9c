package main

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/adsmcp/adsmcp/internal/query"
)

// symbolOperators are the comparison symbols a --filter may use, longest first.
var symbolOperators = []string{">=", "<=", "!=", "<>", "==", "=", ">", "<"}

// parseFilterFlag reads a --filter value: "spend>100", "spend >= 100",
// "campaign_name CONTAINS brand", "country IN US,CA". The operator and field
// are checked later by query normalization, exactly as for the MCP tool.
func parseFilterFlag(s string) (query.FilterArg, error) {
	bad := func(why string) (query.FilterArg, error) {
		return query.FilterArg{}, fmt.Errorf(`--filter %q: %s; write "field OPERATOR value", e.g. "spend > 100" or "campaign_name CONTAINS brand"`, s, why)
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return bad("empty")
	}
	// Symbol form: the first symbol operator splits field and value.
	if i := strings.IndexAny(s, "<>=!"); i > 0 {
		for _, op := range symbolOperators {
			if strings.HasPrefix(s[i:], op) {
				field := strings.TrimSpace(s[:i])
				value := strings.TrimSpace(s[i+len(op):])
				if value == "" {
					return bad("no value after " + op)
				}
				if !strings.ContainsFunc(field, unicode.IsSpace) {
					return query.FilterArg{Field: field, Operator: op, Value: value}, nil
				}
			}
		}
	}
	field, rest, ok := strings.Cut(s, " ")
	if !ok {
		return bad("no operator")
	}
	op, value, ok := strings.Cut(strings.TrimSpace(rest), " ")
	value = strings.TrimSpace(value)
	if !ok || value == "" {
		return bad("no value")
	}
	switch strings.ToUpper(strings.ReplaceAll(op, "-", "_")) {
	case "IN", "NOT_IN", "BETWEEN":
		var vs []any
		for _, v := range strings.Split(value, ",") {
			vs = append(vs, strings.TrimSpace(v))
		}
		return query.FilterArg{Field: field, Operator: op, Value: vs}, nil
	}
	return query.FilterArg{Field: field, Operator: op, Value: value}, nil
}
