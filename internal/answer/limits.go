package answer

import (
	"bytes"
	"encoding/json"
	"unicode/utf16"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/budget"
)

// Limits are every limit a client applies to one answer, in the terms the
// fitting loops use: Tokens (the budget less any tokenizer margin), and the
// client's bytes and lines, and for errors the characters it keeps (0: no
// such limit). An answer fits when Cost ≤ Tokens.
type Limits struct {
	fit.Limits
	ErrorChars int
	// JSONContent: bytes are those of the JSON of the result's content array,
	// which is what some clients (Codex) give the model.
	JSONContent bool
}

// LimitsOf are a resolved budget's limits.
func LimitsOf(b budget.Budget) Limits {
	return Limits{Limits: fit.Limits{Tokens: b.Effective, Bytes: b.Bytes, Lines: b.Lines}, ErrorChars: b.ErrorChars, JSONContent: b.JSONContent}
}

// Cost is the size of blocks of tokens tokens in token units of the limit
// (fit.Limits.Cost), counting for an error also its characters as a limit
// like bytes. Characters are UTF-16 units, as JavaScript clients count a
// string's length.
func (l Limits) Cost(tokens int, blocks []string, isError bool) int {
	c := tokens
	if l.Bytes > 0 || l.Lines > 0 {
		c = l.Limits.Cost(tokens, l.Measure(blocks))
	}
	if isError && l.ErrorChars > 0 {
		n := len(blocks) - 1 // separators
		for _, b := range blocks {
			for _, r := range b {
				n += utf16.RuneLen(r)
			}
		}
		c = max(c, fit.Limits{Tokens: l.Tokens, Bytes: l.ErrorChars}.Cost(0, fit.Extent{Bytes: n}))
	}
	return c
}

// Measure is the extent of blocks as the client counts it: the lines of their
// text, and the bytes of the text or, for JSONContent clients, of the content
// array's JSON ([{"type":"text","text":"…"},…]; quotes, backslashes and
// newlines escaped — more bytes than the text, never fewer).
func (l Limits) Measure(blocks []string) fit.Extent {
	e := fit.MeasureText(blocks)
	if !l.JSONContent {
		return e
	}
	type text struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	content := make([]text, len(blocks))
	for i, b := range blocks {
		content[i] = text{"text", b}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(content); err == nil {
		e.Bytes = max(e.Bytes, buf.Len()-1) // less Encode's newline
	}
	return e
}
