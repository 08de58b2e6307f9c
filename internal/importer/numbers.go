package importer

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// NumberStyle is how a file writes numbers: which character separates the
// decimals and which groups the thousands. Spaces (also no-break and narrow
// no-break spaces) and apostrophes group thousands in either style.
type NumberStyle struct {
	Decimal, Thousands byte
}

var (
	// English is 1,234.56.
	English = NumberStyle{Decimal: '.', Thousands: ','}
	// Spanish (and most of continental Europe and Latin America) is 1.234,56.
	Spanish = NumberStyle{Decimal: ',', Thousands: '.'}
)

func (s NumberStyle) String() string {
	if s == Spanish {
		return "1.234,56"
	}
	return "1,234.56"
}

// decimal is a parsed non-negative number: its digits without separators, with
// frac digits after the decimal point.
type decimal struct {
	whole, frac string
}

var (
	errNegative  = errors.New("negative numbers are not valid here")
	errNotNumber = errors.New("not a number")
)

// isEmptyValue reports whether a cell means "no value": empty, or a dash as the
// platforms write it ("--", "-", "—").
func isEmptyValue(s string) bool {
	s = strings.TrimSpace(s)
	switch s {
	case "", "--", "-", "—", "–", "n/a", "N/A":
		return true
	}
	return false
}

// trimCurrency removes a currency symbol or code around a number: "$1,234.56",
// "US$ 12", "12,50 €", "1.234 ARS". Other text is left, so that the number is
// refused: "12.3O" (a letter O typed for a zero) is not 12.3.
func trimCurrency(s string) string {
	isSym := func(r rune) bool {
		return unicode.Is(unicode.Sc, r) || unicode.IsLetter(r) || unicode.IsSpace(r) || r == '\u00a0'
	}
	if t := strings.TrimLeftFunc(s, isSym); isCurrencyAffix(s[:len(s)-len(t)]) {
		s = t
	}
	if t := strings.TrimRightFunc(s, isSym); isCurrencyAffix(s[len(t):]) {
		s = t
	}
	return s
}

// isCurrencyAffix: text around a number that names a currency: a symbol with at
// most three letters ("$", "US$", "R$", "€"), or a three-letter code ("ARS").
func isCurrencyAffix(s string) bool {
	letters, symbols := 0, 0
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Sc, r):
			symbols++
		case unicode.IsLetter(r):
			letters++
		}
	}
	return letters == 0 || symbols > 0 && letters <= 3 || symbols == 0 && letters == 3
}

// parseDecimal parses s in style st. Thousands separators must group by three.
func parseDecimal(s string, st NumberStyle) (decimal, error) {
	var d decimal
	s = strings.TrimSpace(s)
	neg := false
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") { // accounting negative
		s, neg = s[1:len(s)-1], true
	}
	s = trimCurrency(s)
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		s, neg = trimCurrency(rest), true
	} else if rest, ok := strings.CutPrefix(s, "−"); ok {
		s, neg = trimCurrency(rest), true
	}
	s = strings.TrimPrefix(s, "+")
	whole, frac, hasDec := strings.Cut(s, string(st.Decimal))
	if hasDec && frac == "" || !allDigits(frac) {
		return d, errNotNumber
	}
	if !allDigits(whole) {
		// Thousands separators: each a single one between digits, groups by three.
		groups := strings.FieldsFunc(whole, func(r rune) bool {
			return r == rune(st.Thousands) || r == ' ' || r == '\'' || r == '\u00a0' || r == '\u202f'
		})
		if !singleSeps(whole) {
			return d, errNotNumber
		}
		for j, g := range groups {
			if !allDigits(g) || j == 0 && len(g) > 3 || j > 0 && len(g) != 3 {
				return d, errNotNumber
			}
		}
		whole = strings.Join(groups, "")
	}
	if whole == "" && frac == "" {
		return d, errNotNumber
	}
	d.whole, d.frac = strings.TrimLeft(whole, "0"), frac
	if neg && strings.Trim(d.whole+d.frac, "0") != "" {
		return d, errNegative
	}
	return d, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// singleSeps reports whether s starts and ends with a digit and has no two
// non-digits in a row.
func singleSeps(s string) bool {
	prevDigit := false
	for _, r := range s {
		if r >= '0' && r <= '9' {
			prevDigit = true
			continue
		}
		if !prevDigit {
			return false
		}
		prevDigit = false
	}
	return prevDigit
}

// micros returns d in millionths, rounding half away from zero past the sixth
// decimal; exact, with no floating point.
func (d decimal) micros() (int64, error) {
	frac := d.frac
	roundUp := false
	if len(frac) > 6 {
		roundUp = frac[6] >= '5'
		frac = frac[:6]
	}
	frac += strings.Repeat("0", 6-len(frac))
	digits := strings.TrimLeft(d.whole+frac, "0")
	if digits == "" {
		digits = "0"
	}
	v, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, errors.New("too large")
	}
	if roundUp {
		if v == math.MaxInt64 {
			return 0, errors.New("too large")
		}
		v++
	}
	return v, nil
}

// integer returns d as a whole number; a fraction is an error.
func (d decimal) integer() (int64, error) {
	if strings.Trim(d.frac, "0") != "" {
		return 0, errors.New("a whole number is expected")
	}
	if d.whole == "" {
		return 0, nil
	}
	v, err := strconv.ParseInt(d.whole, 10, 64)
	if err != nil {
		return 0, errors.New("too large")
	}
	return v, nil
}

// float returns d as a float64 (conversions: Google's are fractional).
func (d decimal) float() (float64, error) {
	s := d.whole
	if s == "" {
		s = "0"
	}
	if d.frac != "" {
		s += "." + d.frac
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, errors.New("too large")
	}
	return v, nil
}

// styleEvidence is what one cell says about the file's number style: English,
// Spanish, or nothing (0).
func styleEvidence(s string, integer bool) int {
	s = trimCurrency(strings.TrimSpace(s))
	dots, commas := strings.Count(s, "."), strings.Count(s, ",")
	switch {
	case dots > 0 && commas > 0:
		if strings.LastIndexByte(s, '.') > strings.LastIndexByte(s, ',') {
			return styleEN
		}
		return styleES
	case commas > 1:
		return styleEN
	case dots > 1:
		return styleES
	case commas == 1:
		return singleSep(s, ',', integer, styleES, styleEN)
	case dots == 1:
		return singleSep(s, '.', integer, styleEN, styleES)
	}
	return 0
}

const (
	styleEN = 1
	styleES = 2
)

// singleSep judges a number with one separator sep: asDecimal if it must be the
// decimal separator, asThousands if it must group thousands, 0 if it could be either.
func singleSep(s string, sep byte, integer bool, asDecimal, asThousands int) int {
	i := strings.IndexByte(s, sep)
	before, after := strings.TrimLeft(s[:i], "-+( "), s[i+1:]
	after = strings.TrimRight(after, ") ")
	if len(after) != 3 || before == "0" || before == "" || len(before) > 3 {
		return asDecimal
	}
	if integer {
		return asThousands
	}
	return 0
}
