package answer

import (
	"bytes"
	"encoding/json"
	"strings"
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
	// Form is what the client measures its bytes of (budget.Form).
	Form budget.Form
}

// LimitsOf are a resolved budget's limits.
func LimitsOf(b budget.Budget) Limits {
	return Limits{Limits: fit.Limits{Tokens: b.Effective, Bytes: b.Bytes, Lines: b.Lines}, ErrorChars: b.ErrorChars, Form: b.Form}
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
// text, and the bytes of what the client measures (budget.Form) — the text;
// the content array's JSON; each block wrapped in <untrusted_context>. Bytes
// of UTF-8 are never fewer than a JavaScript client's string length (UTF-16
// units), so a byte limit also holds that client's character limit.
func (l Limits) Measure(blocks []string) fit.Extent {
	e := fit.MeasureText(blocks)
	switch l.Form {
	case budget.JSONContent:
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
	case budget.UntrustedContext:
		n := 0
		for _, b := range blocks {
			n += len(untrustedOpen) + len(b) + len(untrustedClose) +
				strings.Count(b, untrustedTag)*(len(untrustedEscaped)-len(untrustedTag))
		}
		e.Bytes = max(e.Bytes, n)
	}
	return e
}

// Gemini CLI's wrapping of each text block of an MCP result (wrapUntrusted in
// packages/core/src/tools/mcp-tool.ts, from @google/gemini-cli 0.51.0):
// untrustedOpen + the text + untrustedClose, every untrustedTag in the text
// replaced by untrustedEscaped.
const (
	untrustedOpen    = "<untrusted_context>\n"
	untrustedClose   = "\n" + untrustedTag
	untrustedTag     = "</untrusted_context>"
	untrustedEscaped = "&lt;/untrusted_context&gt;"
)
