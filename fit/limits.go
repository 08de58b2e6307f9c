package fit

import (
	"strings"
)

// Extent is the size of a response in the units some clients cut tool output
// by, besides tokens: bytes and lines. A client that keeps "10 KiB or 256 lines"
// of a result and drops the middle (older Codex versions) loses rows without a
// word when a response fits its tokens but not its bytes, so the pipeline
// treats these limits like the token budget.
type Extent struct {
	Bytes int
	Lines int
}

// MeasureText is the default Options.Measure: the blocks as one text, joined by
// a newline — the UTF-8 bytes of that text and its lines. A client that shows
// the blocks with wider separators or escapes them (as JSON) needs its own
// measure.
func MeasureText(blocks []string) Extent {
	e := Extent{}
	for i, b := range blocks {
		if i > 0 {
			e.Bytes++ // the separator
		}
		e.Bytes += len(b)
		e.Lines += strings.Count(b, "\n")
	}
	if len(blocks) > 0 {
		e.Lines++ // the last line, ended or not
	}
	return e
}

// Limit names, as reported in _meta.binding_limit.
const (
	LimitTokens = "tokens"
	LimitBytes  = "bytes"
	LimitLines  = "lines"
)

// hasExtentLimits reports whether a byte or line limit applies.
func (p *pipeline) hasExtentLimits() bool { return p.opt.MaxBytes > 0 || p.opt.MaxLines > 0 }

// measure is the extent of blocks as the client counts them.
func (p *pipeline) measure(blocks []string) Extent {
	if p.opt.Measure != nil {
		return p.opt.Measure(blocks)
	}
	return MeasureText(blocks)
}

// Limits are a client's limits on one response: Tokens, and Bytes and Lines
// when it cuts by size (0: no such limit).
type Limits struct {
	Tokens, Bytes, Lines int
}

// Cost is a size in token units of l: the largest of the tokens and of the
// bytes and lines scaled to Tokens (bytes × Tokens / Bytes), so that
// Cost ≤ Tokens exactly when every limit holds. A loop that shrinks a response
// toward Tokens thereby shrinks it toward whichever limit binds. Costs of
// parts add up to at least the cost of the whole, which keeps sums of row
// costs conservative.
func (l Limits) Cost(tokens int, e Extent) int {
	c := tokens
	if l.Bytes > 0 {
		c = max(c, scaleUp(e.Bytes, l.Tokens, l.Bytes))
	}
	if l.Lines > 0 {
		c = max(c, scaleUp(e.Lines, l.Tokens, l.Lines))
	}
	return c
}

// cost is a size in token units of the pipeline's limits (Limits.Cost).
func (p *pipeline) cost(tokens int, e Extent) int {
	return Limits{Tokens: p.opt.Budget, Bytes: p.opt.MaxBytes, Lines: p.opt.MaxLines}.Cost(tokens, e)
}

// scaleUp is ⌈n × num / den⌉ without overflow for the sizes here.
func scaleUp(n, num, den int) int {
	v := int64(n) * int64(num)
	return int((v + int64(den) - 1) / int64(den))
}

// fits reports whether blocks of tokens tokens are within every limit.
func (p *pipeline) fits(blocks []string, tokens int) bool {
	if tokens > p.opt.Budget {
		return false
	}
	if !p.hasExtentLimits() {
		return true
	}
	return p.cost(tokens, p.measure(blocks)) <= p.opt.Budget
}

// exceeded names the limit a size is furthest over (tokens on a tie), or ""
// when it is within all of them.
func (p *pipeline) exceeded(tokens int, e Extent) string {
	name, worst := "", 1.0
	check := func(n, limit int, what string) {
		if limit <= 0 {
			return
		}
		if r := float64(n) / float64(limit); r > worst {
			name, worst = what, r
		}
	}
	check(tokens, p.opt.Budget, LimitTokens)
	check(e.Bytes, p.opt.MaxBytes, LimitBytes)
	check(e.Lines, p.opt.MaxLines, LimitLines)
	return name
}

// bind records, the first time an answer does not fit, which limit it was
// over: _meta.binding_limit then names it on whatever is returned instead.
func (p *pipeline) bind(limit string) {
	if p.meta.BindingLimit == "" && limit != "" {
		p.meta.BindingLimit = limit
	}
}
