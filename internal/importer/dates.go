package importer

import (
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// months maps English and Spanish month names and abbreviations (folded: lower
// case, no accents, no trailing dot) to their number.
var months = map[string]time.Month{}

// weekdays are the English and Spanish weekday names and abbreviations a date
// may start with ("Mon, Jan 5, 2026", "lun, 5 ene 2026"); they are ignored.
var weekdays = map[string]bool{}

// fillers are words inside Spanish long dates ("5 de enero de 2026").
var fillers = map[string]bool{"de": true, "del": true, "of": true}

func init() {
	en := []string{"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"}
	es := []string{"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"}
	for i := range en {
		m := time.Month(i + 1)
		months[en[i]], months[en[i][:3]] = m, m
		months[es[i]], months[es[i][:3]] = m, m
	}
	months["sept"], months["setiembre"], months["set"] = time.September, time.September, time.September
	for _, d := range []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
		"mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun",
		"lunes", "martes", "miercoles", "jueves", "viernes", "sabado", "domingo",
		"lun", "mie", "jue", "vie", "sab", "dom", "lu", "ma", "mi", "ju", "vi", "sa", "do"} {
		weekdays[d] = true
	}
}

var errDate = errors.New("not a date")

// parseDate reads a calendar date as the exports write it: 2026-01-05,
// 2026/01/05, 01/05/2026 (English: month first) or 05/01/2026 (Spanish: day
// first), "Jan 5, 2026", "Mon, Jan 5, 2026", "5 ene. 2026", "5 de enero de 2026".
// A time after an ISO date is ignored. The result is UTC midnight.
func parseDate(s string, lang string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if len(s) >= 10 && s[4] == '-' && s[7] == '-' && allDigits(s[:4]) && allDigits(s[5:7]) && allDigits(s[8:10]) &&
		(len(s) == 10 || s[10] == ' ' || s[10] == 'T') {
		return mkDate(atoi(s[:4]), atoi(s[5:7]), atoi(s[8:10]))
	}
	var nums []string
	var month time.Month
	for _, tok := range dateTokens(s) {
		if allDigits(tok) {
			nums = append(nums, tok)
			continue
		}
		w := fold(tok)
		switch m, isMonth := months[w]; {
		case isMonth:
			// The last month name wins: in "mar, 3 mar 2026" the first "mar" is martes.
			month = m
		case weekdays[w], fillers[w]:
		default:
			return time.Time{}, errDate
		}
	}
	if month != 0 {
		if len(nums) != 2 {
			return time.Time{}, errDate
		}
		day, year := nums[0], nums[1]
		if len(day) == 4 {
			day, year = year, day
		}
		return mkDate(fullYear(year), int(month), atoi(day))
	}
	if len(nums) != 3 {
		return time.Time{}, errDate
	}
	if len(nums[0]) == 4 {
		return mkDate(atoi(nums[0]), atoi(nums[1]), atoi(nums[2]))
	}
	a, b, y := atoi(nums[0]), atoi(nums[1]), fullYear(nums[2])
	if len(nums[2]) != 4 && len(nums[2]) != 2 {
		return time.Time{}, errDate
	}
	m, d := a, b // English: month first
	if lang == "es" {
		m, d = b, a
	}
	if m > 12 && d <= 12 {
		m, d = d, m
	}
	return mkDate(y, m, d)
}

// dateTokens splits s into runs of digits and runs of letters.
func dateTokens(s string) []string {
	var out []string
	start, kind := -1, 0
	flush := func(i int) {
		if start >= 0 {
			out = append(out, s[start:i])
		}
		start, kind = -1, 0
	}
	for i, r := range s {
		k := 0
		switch {
		case unicode.IsDigit(r):
			k = 1
		case unicode.IsLetter(r):
			k = 2
		}
		if k != kind {
			flush(i)
			if k != 0 {
				start, kind = i, k
			}
		}
	}
	flush(len(s))
	return out
}

func atoi(s string) int {
	if len(s) > 9 {
		return -1
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}

func fullYear(s string) int {
	y := atoi(s)
	if len(s) == 2 {
		y += 2000
	}
	return y
}

func mkDate(y, m, d int) (time.Time, error) {
	if y < 2000 || y > 2100 || m < 1 || m > 12 || d < 1 || d > 31 {
		return time.Time{}, errDate
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d {
		return time.Time{}, errDate // February 30
	}
	return t, nil
}

// parseRange reads a date-range line: "January 1, 2026 - March 31, 2026",
// "1 ene 2026 - 31 mar 2026", "2026-01-01 – 2026-03-31", "Date range: … to …".
func parseRange(s, lang string) (first, last time.Time, ok bool) {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, ':'); i >= 0 && i < 30 && !strings.ContainsAny(s[:i], "0123456789") {
		s = strings.TrimSpace(s[i+1:]) // "Date range: …", "Intervalo de fechas: …"
	}
	for _, sep := range []string{" - ", " – ", " — ", " to ", " al ", " hasta "} {
		a, b, found := strings.Cut(s, sep)
		if !found {
			continue
		}
		f, err1 := parseDate(a, lang)
		l, err2 := parseDate(b, lang)
		if err1 == nil && err2 == nil && !l.Before(f) {
			return f, l, true
		}
	}
	return time.Time{}, time.Time{}, false
}

// fold lower-cases s, removes accents and a trailing dot.
func fold(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	var b strings.Builder
	for _, r := range s {
		if a, ok := unaccent[r]; ok {
			r = a
		}
		b.WriteRune(r)
	}
	return strings.TrimSuffix(b.String(), ".")
}

var unaccent = map[rune]rune{
	'á': 'a', 'à': 'a', 'â': 'a', 'ä': 'a', 'ã': 'a',
	'é': 'e', 'è': 'e', 'ê': 'e', 'ë': 'e',
	'í': 'i', 'ì': 'i', 'î': 'i', 'ï': 'i',
	'ó': 'o', 'ò': 'o', 'ô': 'o', 'ö': 'o', 'õ': 'o',
	'ú': 'u', 'ù': 'u', 'û': 'u', 'ü': 'u',
	'ñ': 'n', 'ç': 'c',
}
