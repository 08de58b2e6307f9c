package answer

import (
	"strings"
	"testing"
)

// A comparison refused for its budget also names an attribution window the
// warehouse cannot answer: every problem of the call at once, not the
// window's on the next call (the oracle's seed 5 found the second step).
func TestCompareBudgetRefusalNamesTheWindowToo(t *testing.T) {
	e := engine(t)
	res := ask(t, e, "", 0, `{"account_ids":["act_2284619037465520"],"metrics":["spend","conversions"],"date_range":{"start":"2025-03-17","end":"2025-03-19"},"compare":"previous_period","attribution_window":"1d_click","token_budget":1007}`)
	if !res.IsError || len(res.Blocks) != 1 {
		t.Fatalf("not a refusal: %.600s", strings.Join(res.Blocks, "\n"))
	}
	for _, want := range []string{`"field":"token_budget"`, `"field":"attribution_window"`} {
		if !strings.Contains(res.Blocks[0], want) {
			t.Errorf("refusal lacks %s: %.800s", want, res.Blocks[0])
		}
	}
}
