package answer

import (
	"unicode/utf16"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/budget"
)

// Limits are every limit a client applies to one answer, in the terms the
// fitting loops use: Tokens (the budget less any tokenizer margin), and the
// client's bytes and lines, and for errors the characters it keeps (0: no
// such limit). An answer fits when Cost ≤ Tokens.
type Limits struct {
	Tokens, Bytes, Lines, ErrorChars int
}

// LimitsOf are a resolved budget's limits.
func LimitsOf(b budget.Budget) Limits {
	return Limits{Tokens: b.Effective, Bytes: b.Bytes, Lines: b.Lines, ErrorChars: b.ErrorChars}
}

// Cost is the size of blocks of tokens tokens in token units of the limit:
// the largest of the tokens and of the bytes, lines and (for an error) the
// characters scaled to Tokens, so shrinking loops that aim at Tokens aim at
// whichever limit binds. Characters are UTF-16 units, as JavaScript clients
// count a string's length.
func (l Limits) Cost(tokens int, blocks []string, isError bool) int {
	c := tokens
	if l.Bytes > 0 || l.Lines > 0 {
		e := fit.MeasureText(blocks)
		c = max(c, scaled(e.Bytes, l.Tokens, l.Bytes), scaled(e.Lines, l.Tokens, l.Lines))
	}
	if isError && l.ErrorChars > 0 {
		n := len(blocks) - 1 // separators
		for _, b := range blocks {
			for _, r := range b {
				n += utf16.RuneLen(r)
			}
		}
		c = max(c, scaled(n, l.Tokens, l.ErrorChars))
	}
	return c
}

// scaled is ⌈n × tokens / limit⌉, or 0 when there is no such limit.
func scaled(n, tokens, limit int) int {
	if limit <= 0 {
		return 0
	}
	return int((int64(n)*int64(tokens) + int64(limit) - 1) / int64(limit))
}
