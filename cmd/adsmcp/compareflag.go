package main

import (
	"fmt"
	"strings"

	"github.com/adsmcp/adsmcp/internal/query"
)

// compareSeparators split a --compare window into its dates: START..END, the
// ISO 8601 interval START/END, or START,END.
var compareSeparators = []string{"..", "/", ","}

// parseCompareFlag reads a --compare value as the query tool's compare
// argument: a window written START..END becomes {start, end}; anything else
// is a mode, whose spelling query normalization forgives or rejects exactly
// as for the MCP tool.
func parseCompareFlag(s string) (*query.CompareArg, error) {
	s = strings.TrimSpace(s)
	for _, sep := range compareSeparators {
		start, end, ok := strings.Cut(s, sep)
		if !ok {
			continue
		}
		start, end = strings.TrimSpace(start), strings.TrimSpace(end)
		if start == "" || end == "" {
			return nil, fmt.Errorf("--compare %q: a window needs both dates; write START..END, e.g. 2025-01-01..2025-01-31 (inclusive)", s)
		}
		return &query.CompareArg{Window: &query.DateRange{Start: start, End: end}}, nil
	}
	return &query.CompareArg{Mode: s}, nil
}
