package fit

import (
	"bytes"
	"encoding/csv"
	"math"
	"strconv"
	"testing"
)

// FuzzWriteCSV: any text and any number encode without a panic, and the CSV reads
// back to the same text and the same number (rounded as documented).
func FuzzWriteCSV(f *testing.F) {
	for _, s := range []string{"", "plain", `quote "inside"`, "comma, here", "new\nline", "\r\n", "ünïcødé 🚀", "=cmd|' /C calc'!A0"} {
		f.Add(s, 1234.5678, "USD")
	}
	f.Add("x", 1e300, "JPY")
	f.Add("y", math.Copysign(0, -1), "KWD") // negative zero
	f.Fuzz(func(t *testing.T, s string, v float64, currency string) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		tab := &Table{Grain: Total, Columns: []*Column{
			{Name: "name", Role: RoleDimension, Strings: []string{s}},
			{Name: "currency", Role: RoleDimension, Strings: []string{currency}},
			{Name: "spend", Role: RoleMetric, Money: true, CurrencyColumn: "currency", Numbers: []float64{v}},
			{Name: "count", Role: RoleMetric, Numbers: []float64{v}},
		}}
		var buf bytes.Buffer
		if err := WriteCSV(&buf, tab); err != nil {
			return // encoding/csv rejects nothing we write; an error is allowed, a panic is not
		}
		recs, err := csv.NewReader(&buf).ReadAll()
		if err != nil {
			t.Fatalf("our CSV does not parse: %v\n%q", err, buf.String())
		}
		if len(recs) != 2 || len(recs[1]) != 4 {
			t.Fatalf("records: %q", recs)
		}
		// encoding/csv turns \r\n inside quoted fields into \n on reading.
		if want := normalizeNewlines(s); recs[1][0] != want {
			t.Errorf("text %q read back as %q", s, recs[1][0])
		}
		got, err := strconv.ParseFloat(recs[1][3], 64)
		if err != nil || got != v && !(got == 0 && v == 0) {
			t.Errorf("number %v written as %q", v, recs[1][3])
		}
		money, err := strconv.ParseFloat(recs[1][2], 64)
		if err != nil || math.Abs(money-v) > math.Pow10(-currencyDecimals(currency))/2*1.0000001+math.Abs(v)*1e-15 {
			t.Errorf("money %v (%s) written as %q", v, currency, recs[1][2])
		}
	})
}

func normalizeNewlines(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}
