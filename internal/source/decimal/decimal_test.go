package decimal

import (
	"math/big"
	"testing"
)

func TestParseMicros(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "12": 12_000000, "123.45": 123_450000, "-0.5": -500000, "+7.000001": 7_000001,
		"0.0000005": 1, "0.00000049": 0, "-1.0000005": -1_000001, ".5": 500000, "5.": 5_000000,
		"999999999999.999999": 999999999999_999999,
	} {
		if got, err := ParseMicros(in); err != nil || got != want {
			t.Errorf("ParseMicros(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-", ".", "1e3", "12,5", "1.2.3", "abc", "1000000000000"} {
		if got, err := ParseMicros(bad); err == nil {
			t.Errorf("ParseMicros(%q) = %d, want an error", bad, got)
		}
	}
}

// FuzzParseMicros: whatever parses is the exact value rounded half away from
// zero to six decimals (checked with math/big, no shared code), and formats
// back to a string that parses to the same micros.
func FuzzParseMicros(f *testing.F) {
	for _, s := range []string{"123.45", "-0.5", "0.0000005", "1e3", "", "."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseMicros(s)
		if err != nil {
			return
		}
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			t.Fatalf("%q parsed to %d, but is not a number", s, got)
		}
		r.Mul(r, big.NewRat(1_000000, 1))
		neg := r.Sign() < 0
		r.Abs(r)
		r.Add(r, big.NewRat(1, 2))
		want := new(big.Int).Quo(r.Num(), r.Denom())
		if neg {
			want.Neg(want)
		}
		if want.Int64() != got {
			t.Fatalf("%q: %d, want %s", s, got, want)
		}
		if back, err := ParseMicros(FormatMicros(got)); err != nil || back != got {
			t.Fatalf("%q → %d → %q → %d, %v", s, got, FormatMicros(got), back, err)
		}
	})
}
