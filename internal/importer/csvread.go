package importer

import (
	"encoding/csv"
	"errors"
	"io"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// record is one CSV record and the physical line of each of its fields.
type record struct {
	fields []string
	lines  []int
}

func (r record) line() int {
	if len(r.lines) == 0 {
		return 0
	}
	return r.lines[0]
}

// decode turns the file's bytes into text: UTF-8 (a byte-order mark is dropped),
// UTF-16 with a byte-order mark (Excel's "Unicode text" and Google's Excel CSV),
// or Windows-1252 when the bytes are not UTF-8 (a Spanish Excel's "CSV").
func decode(data []byte) (text, encoding string) {
	switch {
	case len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF:
		data = data[3:]
	case len(data) >= 2 && data[0] == 0xFF && data[1] == 0xFE:
		return utf16Text(data[2:], false), "UTF-16LE"
	case len(data) >= 2 && data[0] == 0xFE && data[1] == 0xFF:
		return utf16Text(data[2:], true), "UTF-16BE"
	}
	if utf8.Valid(data) {
		return string(data), "UTF-8"
	}
	var b strings.Builder
	for _, c := range data {
		if c >= 0x80 && c < 0xA0 {
			b.WriteRune(cp1252[c-0x80])
		} else {
			b.WriteRune(rune(c))
		}
	}
	return b.String(), "Windows-1252"
}

func utf16Text(data []byte, bigEndian bool) string {
	u := make([]uint16, len(data)/2)
	for i := range u {
		if bigEndian {
			u[i] = uint16(data[2*i])<<8 | uint16(data[2*i+1])
		} else {
			u[i] = uint16(data[2*i+1])<<8 | uint16(data[2*i])
		}
	}
	return string(utf16.Decode(u))
}

// cp1252 is Windows-1252 from 0x80 to 0x9F (the rest is Latin-1).
var cp1252 = [32]rune{
	'€', '\u0081', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u008d', 'Ž', '\u008f',
	'\u0090', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u009d', 'ž', 'Ÿ',
}

// maxHeaderSearch is how many records may come before the header row.
const maxHeaderSearch = 30

// sniffDelimiter picks the delimiter that makes a header row of known columns
// appear: comma, semicolon (Excel in Spanish and other comma-decimal locales) or tab.
// A first line "sep=;" (Excel's hint) decides, and is removed (skip is then 1:
// the lines to add to the rest's line numbers).
func sniffDelimiter(text string) (delim rune, rest string, skip int) {
	first, after, _ := strings.Cut(text, "\n")
	f := strings.TrimSpace(strings.Trim(strings.TrimSpace(first), `"`))
	if s, found := strings.CutPrefix(f, "sep="); found && utf8.RuneCountInString(s) == 1 {
		return []rune(s)[0], after, 1
	}
	best, bestScore := ',', 0
	for _, d := range []rune{',', ';', '\t'} {
		r := csv.NewReader(strings.NewReader(text))
		r.Comma, r.FieldsPerRecord, r.LazyQuotes = d, -1, true
		for range maxHeaderSearch {
			rec, err := r.Read()
			if err != nil {
				break
			}
			if s := headerScore(rec); s >= 2 {
				if s > bestScore {
					best, bestScore = d, s
				}
				break
			}
		}
	}
	return best, text, 0
}

// headerScore counts the fields of rec that are known headers.
func headerScore(rec []string) int {
	n := 0
	for _, f := range rec {
		folded, _ := foldHeader(f)
		if k := lookupHeader(folded).kind; k != colUnknown && k != colDerived {
			n++
		}
	}
	return n
}

// readRecords reads every record of text, whose first line is line 1+skip.
func readRecords(text string, delim rune, skip int) ([]record, error) {
	r := csv.NewReader(strings.NewReader(text))
	r.Comma, r.FieldsPerRecord = delim, -1
	var out []record
	for {
		fields, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		lines := make([]int, len(fields))
		for i := range fields {
			lines[i], _ = r.FieldPos(i)
			lines[i] += skip
		}
		out = append(out, record{fields: fields, lines: lines})
	}
}
