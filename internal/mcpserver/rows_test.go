package mcpserver

import (
	"strings"
	"sync"
	"testing"

	"github.com/adsmcp/adsmcp/internal/rowbudget"
)

// big is a worst-case call: every ad × device × publisher platform of six
// accounts, daily (every platform reports them per ad).
const big = `{` + six + `,"dimensions":["ad_name","device","publisher_platform"],"metrics":["spend","clicks","impressions"],"time_granularity":"daily","date_preset":"last_90d"}`

// TestRowBoundIsServerWide: calls whose results exceed the per-call bound stop
// reading at it and answer too_many_rows with narrower queries; with several
// such calls at once the rows held stay under the server's bound, and another
// tenant's small calls are answered meanwhile.
func TestRowBoundIsServerWide(t *testing.T) {
	cfg := testConfig(t)
	rows := rowbudget.New(4000, 6000)
	rows.Floor = 1024 // one chunk of the reader: what a small call takes
	cfg.Rows = rows
	heavy := connect(t, cfg, "heavy-tenant")
	light := connect(t, cfg, "light-tenant")

	res := call(t, heavy, "query", big)
	e := errorOf(t, res, "too_many_rows")
	if e["max_rows"] != float64(4000) || e["scope"] != "call" || !strings.Contains(e["detail"].(string), "no data is returned") {
		t.Errorf("too_many_rows: %v", e)
	}
	if s, _ := e["suggestions"].([]any); len(s) == 0 {
		t.Error("no narrower queries")
	}

	var wg sync.WaitGroup
	const heavyCalls, lightCalls = 4, 8
	errs := make(chan string, heavyCalls+lightCalls)
	for range heavyCalls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := call(t, heavy, "query", big); !r.IsError || !strings.Contains(texts(t, r)[0], `"too_many_rows"`) {
				errs <- "a heavy call was not refused: " + texts(t, r)[0][:200]
			}
		}()
	}
	for range lightCalls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := call(t, light, "query", small); r.IsError {
				errs <- "a small call failed: " + texts(t, r)[0]
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if p, bound := rows.Peak(), rows.InFlight+(heavyCalls+lightCalls)*rows.Floor; p > bound {
		t.Errorf("peak %d rows in flight, bound %d", p, bound)
	}
	if rows.InUse() != 0 {
		t.Errorf("%d rows still held after every call answered", rows.InUse())
	}
}
