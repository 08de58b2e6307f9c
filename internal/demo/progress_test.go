package demo

import (
	"bytes"
	"strings"
	"testing"
)

// The line is rewritten in place, a shorter text blanks what is left of the
// longer one, Finish ends it once, and without a writer nothing happens.
func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	p := NewProgressLine(&b)
	p.Update(1_234_567, 3_100_000)
	p.Update(2_000_000, 3_100_000) // within 100 ms: skipped
	p.Line("done")
	p.Finish()
	p.Finish()
	want := "\rgenerating demo data: 1.2M/3.1M rows (39%)" + "\rdone" + strings.Repeat(" ", len("generating demo data: 1.2M/3.1M rows (39%)")-4) + "\n"
	if b.String() != want {
		t.Errorf("wrote %q\nwant  %q", b.String(), want)
	}
	var none *ProgressLine
	none.Update(1, 2)
	none.Finish()
	NewProgressLine(nil).Update(1, 2)
	if NewProgressLine(nil).On() || !p.On() {
		t.Error("On")
	}
	for n, want := range map[int64]string{950: "950", 12_300: "12.3K", 1_250_000: "1.2M"} {
		if got := ShortCount(n); got != want {
			t.Errorf("ShortCount(%d) = %s, want %s", n, got, want)
		}
	}
}
