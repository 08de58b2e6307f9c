package importer

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Error is a file that cannot be imported: where (file, line, column) and why, and
// what to do about it. A file with an Error is not imported at all.
type Error struct {
	File   string
	Line   int    // 1-based physical line; 0 when the problem is the file as a whole
	Column int    // 1-based field number; 0 when the problem is the line as a whole
	Header string // the column's header, when known
	Value  string // the offending value, when there is one
	Reason string
	Fix    string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ", line %d", e.Line)
	}
	if e.Column > 0 {
		fmt.Fprintf(&b, ", column %d", e.Column)
		if e.Header != "" {
			fmt.Fprintf(&b, " (%s)", e.Header)
		}
	}
	b.WriteString(": ")
	if e.Value != "" {
		fmt.Fprintf(&b, "%q: ", clip(e.Value, 60))
	}
	b.WriteString(e.Reason)
	if e.Fix != "" {
		b.WriteString("; fix: ")
		b.WriteString(e.Fix)
	}
	return b.String()
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// Skip is one kind of line left out of an import, with how many and where.
type Skip struct {
	Reason string
	Count  int
	Lines  []int // the first few line numbers
}

// maxSkipLines is how many line numbers a Skip keeps.
const maxSkipLines = 5

// Report says what a file held and what became of it.
type Report struct {
	File        string
	SHA256      string
	Platform    string // meta_ads or google_ads
	Language    string // en or es: the headers' language
	NumberStyle string // "1,234.56" or "1.234,56"
	Delimiter   string // comma, semicolon or tab
	Encoding    string // UTF-8, UTF-16LE, UTF-16BE, Windows-1252
	ReportName  string // Google's first line, when there is one
	Level       string // account, campaign, adset or ad: the finest level of the rows
	// Breakdown is the breakdown set of the lines when it is not delivery
	// (age_gender, placement, age, gender): stored per campaign.
	Breakdown   string
	First, Last string // the dates covered (YYYY-MM-DD)

	DataLines    int // data lines read (after the header, blank lines excluded)
	RowsImported int // data lines that became facts
	Facts        int // fact rows (lines with the same keys are summed into one)
	ReachRows    int
	Accounts     []string
	Campaigns    int
	AdSets       int
	Ads          int
	Skipped      []Skip
	Notes        []string
}

func (r *Report) skip(reason string, line int) {
	for i := range r.Skipped {
		if r.Skipped[i].Reason == reason {
			r.Skipped[i].Count++
			if len(r.Skipped[i].Lines) < maxSkipLines {
				r.Skipped[i].Lines = append(r.Skipped[i].Lines, line)
			}
			return
		}
	}
	r.Skipped = append(r.Skipped, Skip{Reason: reason, Count: 1, Lines: []int{line}})
}

func (r *Report) note(format string, args ...any) {
	n := fmt.Sprintf(format, args...)
	if !slices.Contains(r.Notes, n) {
		r.Notes = append(r.Notes, n)
	}
}

// SkippedLines is the number of data lines left out.
func (r *Report) SkippedLines() int {
	n := 0
	for _, s := range r.Skipped {
		n += s.Count
	}
	return n
}

// String is the report as a few human-readable lines.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s export (%s headers, numbers like %s, %s, %s-separated)\n",
		r.File, r.Platform, r.Language, r.NumberStyle, r.Encoding, r.Delimiter)
	if r.ReportName != "" {
		fmt.Fprintf(&b, "  report: %s\n", r.ReportName)
	}
	fmt.Fprintf(&b, "  accounts: %s; %s to %s; rows at %s level", strings.Join(r.Accounts, ", "), r.First, r.Last, r.Level)
	if r.Breakdown != "" {
		fmt.Fprintf(&b, ", breakdown set %s (stored per campaign)", r.Breakdown)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "  %s: %d imported as %s (%s, %s, %s, %s), %d skipped\n",
		count(r.DataLines, "data line"), r.RowsImported, count(r.Facts, "fact"), count(r.Campaigns, "campaign"),
		count(r.AdSets, "ad set"), count(r.Ads, "ad"), count(r.ReachRows, "reach row"), r.SkippedLines())
	for _, s := range r.Skipped {
		fmt.Fprintf(&b, "  skipped %d: %s (line%s %s)\n", s.Count, s.Reason, plural(s.Count), joinLines(s.Lines, s.Count))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "  note: %s\n", n)
	}
	return b.String()
}

func count(n int, what string) string {
	return strconv.Itoa(n) + " " + what + plural(n)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func joinLines(lines []int, total int) string {
	s := make([]string, len(lines))
	for i, l := range lines {
		s[i] = strconv.Itoa(l)
	}
	out := strings.Join(s, ", ")
	if total > len(lines) {
		out += ", …"
	}
	return out
}
