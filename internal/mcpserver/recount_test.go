package mcpserver

import (
	"testing"

	"github.com/adsmcp/adsmcp/internal/source"
)

// recountingSource stands for a live source: it recounts conversions under
// an asked attribution window.
type recountingSource struct{ source.Source }

func (recountingSource) RecountsWindows() bool { return true }

// The server's wrappers (the account cache, a principal's view) pass on
// whether their source recounts windows: a live source behind them must not
// have its calls refused as a warehouse's would, nor a warehouse's pass.
func TestWrappersPassOnWindowRecounting(t *testing.T) {
	for _, c := range []struct {
		name string
		src  source.Source
		want bool
	}{{"live", recountingSource{}, false}, {"warehouse", plainSource{}, true}} {
		cache := &accountCache{src: c.src}
		if got := source.StoresOneWindow(cache); got != c.want {
			t.Errorf("%s behind the account cache: StoresOneWindow = %v, want %v", c.name, got, c.want)
		}
		if got := source.StoresOneWindow(scoped{Source: cache}); got != c.want {
			t.Errorf("%s behind a principal's view: StoresOneWindow = %v, want %v", c.name, got, c.want)
		}
	}
}
