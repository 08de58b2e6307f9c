package fit

import (
	"bytes"
	"encoding/csv"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// rowCosts estimates the tokens of the CSV header and of each row's line, so the
// size of any subset of rows can be added up without encoding it again.
//
// Encoding and estimating a million lines one by one is slow, so a line's cost is
// the sum of its fields' costs (a text field's cost is computed once per distinct
// value) plus the cost of its separators and quoting, measured on the table's
// first rows.
func rowCosts(t *Table, c TokenCounter) (header int, rows []int) {
	var cols []*Column
	for _, col := range t.Columns {
		if !col.Hidden {
			cols = append(cols, col)
		}
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	rec := make([]string, len(cols))
	for i, col := range cols {
		rec[i] = col.Name
	}
	w.Write(rec)
	w.Flush()
	header = c.Estimate(buf.String())

	textCost := make([]map[string]float64, len(cols))
	for i := range cols {
		textCost[i] = map[string]float64{}
	}
	var num []byte
	fields := func(r int) float64 {
		sum := 0.0
		for i, col := range cols {
			switch {
			case col.Role != RoleMetric:
				s := col.Strings[r]
				v, ok := textCost[i][s]
				if !ok {
					v = float64(c.Estimate(s))
					textCost[i][s] = v
				}
				sum += v
				rec[i] = s
			case col.IsNull(r):
				rec[i] = ""
			default:
				num = appendNumber(num[:0], col.Numbers[r], decimalsFor(t, col, r))
				sum += float64(c.Estimate(string(num)))
				rec[i] = string(num)
			}
		}
		return sum
	}
	// Separators: the whole line's estimate less its fields', on a sample.
	sample := min(t.Len(), 256)
	sep := 0.0
	for r := range sample {
		f := fields(r)
		buf.Reset()
		w.Write(rec)
		w.Flush()
		sep += float64(c.Estimate(buf.String())) - f
	}
	if sample > 0 {
		sep /= float64(sample)
	}
	rows = make([]int, t.Len())
	for r := range t.Len() {
		rows[r] = int(math.Ceil(fields(r) + sep))
	}
	return header, rows
}

// sampledTokens estimates the CSV tokens of a whole table from a sample of its
// rows spread evenly over it.
func sampledTokens(t *Table, c TokenCounter, sample int) int {
	n := t.Len()
	if n <= sample {
		h, rows := rowCosts(t, c)
		for _, r := range rows {
			h += r
		}
		return h
	}
	idx := make([]int, sample)
	for i := range idx {
		idx[i] = i * n / sample
	}
	h, rows := rowCosts(t.Select(idx), c)
	sum := 0
	for _, r := range rows {
		sum += r
	}
	return h + sum*n/sample
}

// rowBytes is the bytes of the CSV header line and of each row's line, as
// WriteCSV writes them, for clients that limit bytes. A text field's length
// is computed once per distinct value.
func rowBytes(t *Table) (header int, rows []int) {
	var cols []*Column
	for _, col := range t.Columns {
		if !col.Hidden {
			cols = append(cols, col)
		}
	}
	for _, col := range cols {
		header += csvFieldLen(col.Name) + 1 // a comma, or the newline
	}
	textLen := make([]map[string]int, len(cols))
	for i := range cols {
		textLen[i] = map[string]int{}
	}
	rows = make([]int, t.Len())
	var num []byte
	for r := range t.Len() {
		n := 0
		lone := len(cols) == 1
		for i, col := range cols {
			switch {
			case col.Role != RoleMetric:
				s := col.Strings[r]
				v, ok := textLen[i][s]
				if !ok {
					v = csvFieldLen(s)
					textLen[i][s] = v
				}
				lone = lone && s == ""
				n += v + 1
			case col.IsNull(r):
				n++
			default:
				lone = false
				num = appendNumber(num[:0], col.Numbers[r], decimalsFor(t, col, r))
				n += len(num) + 1
			}
		}
		if lone {
			n = len("\"\"\n") // WriteCSV quotes a lone empty field
		}
		rows[r] = n
	}
	return header, rows
}

// csvFieldLen is the length of a field as encoding/csv writes it: quoted, its
// quotes doubled, when it holds a quote, a comma, a line break or starts with
// a space (encoding/csv's fieldNeedsQuotes).
func csvFieldLen(s string) int {
	if s == "" {
		return 0
	}
	r, _ := utf8.DecodeRuneInString(s)
	if s == `\.` || strings.ContainsAny(s, "\",\r\n") || unicode.IsSpace(r) {
		return len(s) + 2 + strings.Count(s, `"`)
	}
	return len(s)
}
