// Package decimal reads and writes the decimal amounts ad-platform APIs send
// as strings ("123.45") as exact integer millionths, the warehouse's micros:
// one parser for every connector, so an amount is never rounded through a
// float64 on its way in.
package decimal

import "fmt"

// maxIntDigits bounds the integer part so that micros fit an int64 with room
// to spare (a trillion of any currency is not a plausible amount).
const maxIntDigits = 12

// ParseMicros parses a decimal string ("123.45", "-0.5", "12") into millionths
// exactly. Digits past the sixth decimal are rounded half away from zero.
func ParseMicros(s string) (int64, error) {
	orig := s
	bad := func(why string) (int64, error) {
		return 0, fmt.Errorf("%q is not a decimal number (%s)", short(orig), why)
	}
	if s == "" {
		return bad("empty")
	}
	neg := false
	switch s[0] {
	case '-':
		neg, s = true, s[1:]
	case '+':
		s = s[1:]
	}
	intPart, frac := s, ""
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			intPart, frac = s[:i], s[i+1:]
			break
		}
	}
	if intPart == "" && frac == "" {
		return bad("no digits")
	}
	var v int64
	digits := 0
	for i := 0; i < len(intPart); i++ {
		c := intPart[i]
		if c < '0' || c > '9' {
			return bad("unexpected character")
		}
		if v > 0 || c != '0' {
			digits++
		}
		if digits > maxIntDigits {
			return bad("too large")
		}
		v = v*10 + int64(c-'0')
	}
	v *= 1e6
	scale := int64(1e5)
	for i := 0; i < len(frac); i++ {
		c := frac[i]
		if c < '0' || c > '9' {
			return bad("unexpected character")
		}
		switch {
		case i < 6:
			v += int64(c-'0') * scale
			scale /= 10
		case i == 6 && c >= '5':
			v++
		}
	}
	if neg {
		v = -v
	}
	return v, nil
}

// FormatMicros writes micros as the shortest exact decimal ("12.5", "3").
func FormatMicros(m int64) string {
	neg := m < 0
	if neg {
		m = -m
	}
	s := fmt.Sprintf("%d.%06d", m/1e6, m%1e6)
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	s = trimSuffixDot(s)
	if neg {
		s = "-" + s
	}
	return s
}

// short is s cut to 40 bytes for a message.
func short(s string) string {
	if len(s) <= 40 {
		return s
	}
	return s[:40] + "…"
}

func trimSuffixDot(s string) string {
	if s[len(s)-1] == '.' {
		return s[:len(s)-1]
	}
	return s
}
