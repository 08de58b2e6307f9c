package fit

import (
	"bytes"
	"context"
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
)

// tokScriptText is n random letters drawn from [lo, hi): text in a script the
// estimator prices for real words, or not at all (Yi, Cherokee), where o200k
// has few tokens and random letters cost up to a token a byte.
func tokScriptText(r *rand.Rand, lo, hi rune, n int) string {
	var b strings.Builder
	for range n {
		b.WriteRune(lo + rune(r.IntN(int(hi-lo))))
	}
	return b.String()
}

// tokScripts are the scripts where Estimate was once 0.23–0.5 ×
// Exact: Yi syllables, Cherokee and random Cyrillic.
var tokScripts = []struct {
	name   string
	lo, hi rune
}{
	{"yi", 0xa000, 0xa48d},
	{"cherokee", 0x13a0, 0x13f6},
	{"cyrillic", 0x430, 0x450},
}

// namesTable is a total-grain table of campaign names and clicks.
func namesTable(names []string) *Table {
	name := &Column{Name: "campaign_name", Role: RoleDimension}
	clicks := &Column{Name: "clicks", Role: RoleMetric, Aggregation: Sum}
	for i, n := range names {
		name.Strings = append(name.Strings, n)
		clicks.Numbers = append(clicks.Numbers, float64(i))
	}
	return &Table{Grain: Total, Columns: []*Column{name, clicks}}
}

// TestFitNeverOverBudgetWhereTheEstimateUndercounts fits tables of names in the
// scripts the estimator undercounts most, at every size from far below to far
// above the budget: whatever Fit returns counts at most the budget by Exact.
// Long names make the response nearly all such text, whose estimate (0.7 a
// letter, 3 tokens exact) can be under a quarter of the budget while the
// response is over it: before the byte bound it was sent on the estimate's word.
func TestFitNeverOverBudgetWhereTheEstimateUndercounts(t *testing.T) {
	const budget = 20_000
	c := NewO200k()
	for _, sc := range tokScripts {
		t.Run(sc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(13, 8))
			var names []string
			worst := 0.0
			for len(names) < 30 {
				names = append(names, tokScriptText(r, sc.lo, sc.hi, 300))
				resp, err := Fit(context.Background(), namesTable(names), Options{Budget: budget, Counter: c})
				if err != nil {
					t.Fatal(err)
				}
				n := 0
				for _, b := range resp.Blocks {
					n += c.Exact(b)
				}
				worst = max(worst, float64(n)/budget)
				if n > budget {
					t.Fatalf("%d names: a %s response of %d tokens (exact) under a budget of %d", len(names), resp.Kind, n, budget)
				}
			}
			t.Logf("largest response: %.2f × the budget", worst)
		})
	}
}

// buildLetterBlockKnown computes letterBlockKnown from the encoder.
func buildLetterBlockKnown(c *O200k) []byte {
	b := make([]byte, 0x10000>>letterBlockBits>>3)
	for r := rune(0x80); r < 0x10000; r++ {
		if !(unicode.IsLetter(r) || unicode.IsMark(r)) {
			continue
		}
		if k := int(r) >> letterBlockBits; cjkIndex(r) >= 0 || c.Exact(string(r)) == 1 {
			b[k>>3] |= 1 << (k & 7)
		}
	}
	return b
}

// TestLetterBlockKnownTable rebuilds letterBlockKnown from the encoder.
func TestLetterBlockKnownTable(t *testing.T) {
	want := buildLetterBlockKnown(NewO200k())
	if got := letterBlockKnown; !bytes.Equal(got, want) {
		t.Errorf("letterBlockKnownBase64 is out of date; it is %q", base64.StdEncoding.EncodeToString(want))
	}
}
