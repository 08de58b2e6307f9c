package fit

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"
)

// WriteCSV writes the visible columns of t as RFC 4180 CSV with a header row.
// Numbers use a '.' decimal point in their shortest exact form; summed money is
// rounded to its currency's minor unit, ratios and non-additive metrics
// (frequency) to 4 decimals; empty values are
// empty fields.
func WriteCSV(w io.Writer, t *Table) error {
	cw := csv.NewWriter(w)
	var cols []*Column
	for _, c := range t.Columns {
		if !c.Hidden {
			cols = append(cols, c)
		}
	}
	rec := make([]string, len(cols))
	for i, c := range cols {
		rec[i] = c.Name
	}
	if err := cw.Write(rec); err != nil {
		return err
	}
	var buf []byte
	for r := 0; r < t.Len(); r++ {
		for i, c := range cols {
			if c.Role != RoleMetric {
				rec[i] = c.Strings[r]
				continue
			}
			if c.IsNull(r) {
				rec[i] = ""
				continue
			}
			buf = appendNumber(buf[:0], c.Numbers[r], decimalsFor(t, c, r))
			rec[i] = string(buf)
		}
		if len(rec) == 1 && rec[0] == "" {
			// A lone empty field would be a blank line, which CSV readers
			// skip: the row would vanish. Quote it.
			cw.Flush()
			if _, err := io.WriteString(w, "\"\"\n"); err != nil {
				return err
			}
			continue
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// decimalsFor is how many decimals row r of metric column c keeps: -1 for all.
func decimalsFor(t *Table, c *Column, r int) int {
	switch {
	case c.Aggregation == Ratio || c.Aggregation == NonAdditive:
		// Non-additive metrics are distinct counts (whole, so unchanged) or
		// derive from one (frequency = impressions / reach): ratio decimals.
		return 4
	case c.Money:
		cur := c.Currency
		if c.CurrencyColumn != "" {
			if cc := t.Column(c.CurrencyColumn); cc != nil {
				cur = cc.Strings[r]
			}
		}
		return currencyDecimals(cur)
	}
	return -1
}

// appendNumber appends v rounded to decimals places (-1: no rounding) in its
// shortest exact decimal form, never in exponent notation.
func appendNumber(dst []byte, v float64, decimals int) []byte {
	if decimals >= 0 {
		p := math.Pow10(decimals)
		if r := math.Round(v*p) / p; !math.IsInf(r, 0) && !math.IsNaN(r) {
			v = r
		}
	}
	if v == 0 {
		v = 0 // no "-0"
	}
	return strconv.AppendFloat(dst, v, 'f', -1, 64)
}

// currencyDecimals is the number of decimals of an ISO 4217 currency (2 when unknown).
func currencyDecimals(currency string) int {
	if d, ok := minorUnits[currency]; ok {
		return d
	}
	return 2
}

// minorUnits lists the ISO 4217 currencies whose minor unit is not 2.
var minorUnits = map[string]int{
	"BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0,
	"PYG": 0, "RWF": 0, "UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
	"BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
	"CLF": 4, "UYW": 4,
}
