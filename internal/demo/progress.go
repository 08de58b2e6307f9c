package demo

import (
	"fmt"
	"io"
	"strconv"
	"time"
)

// ProgressLine shows Generate's progress on one terminal line rewritten in
// place ("\rgenerating demo data: 1.2M/3.1M rows (38%)"), at most ten times a
// second, for every loader of the demo dataset.
type ProgressLine struct {
	out      io.Writer
	last     time.Time
	lastLen  int
	finished bool
}

// NewProgressLine writes to out; nil gives a line that shows nothing.
func NewProgressLine(out io.Writer) *ProgressLine { return &ProgressLine{out: out} }

// Update is Generate's progress callback.
func (p *ProgressLine) Update(done, total int64) {
	if p == nil || p.out == nil || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	p.Line(fmt.Sprintf("generating demo data: %s/%s rows (%d%%)", ShortCount(done), ShortCount(total), done*100/max(total, 1)))
}

// Line rewrites the line with s, blanking what is left of a longer previous one.
func (p *ProgressLine) Line(s string) {
	if p == nil || p.out == nil {
		return
	}
	pad := max(0, p.lastLen-len(s))
	fmt.Fprintf(p.out, "\r%s%*s", s, pad, "")
	p.lastLen = len(s)
}

// Finish ends the line, if anything was shown.
func (p *ProgressLine) Finish() {
	if p == nil || p.out == nil || p.lastLen == 0 || p.finished {
		return
	}
	p.finished = true
	fmt.Fprintln(p.out)
}

// On says whether the line has somewhere to go.
func (p *ProgressLine) On() bool { return p != nil && p.out != nil }

// ShortCount formats a row count for a progress line: 950, 12.3K, 1.2M.
func ShortCount(n int64) string {
	switch {
	case n >= 1_000_000:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + "M"
	case n >= 1_000:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + "K"
	}
	return strconv.FormatInt(n, 10)
}
