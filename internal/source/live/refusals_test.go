package live_test

import (
	"context"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/answer"
)

// A query a platform's API cannot report is refused before any request,
// every time with the same problems. (Meta's country with device and
// Google's country per ad are not connectors' refusals but the query
// layer's, for every source: catalog.Platform.Delivery and the sets' levels.)
func TestEveryPlatformsRefusalAtOnce(t *testing.T) {
	f := startFakes(t)
	args := `{"account_ids":["617-204-8851"],"date_range":{"start":"2026-01-01","end":"2026-01-31"},` +
		`"dimensions":["country","ad_name"],"metrics":["spend"]}`
	var first string
	for i := range 5 {
		f.meta.ClearRequests()
		before := len(f.google.Requests())
		res, err := f.engine.Query(context.Background(), answer.Request{Args: []byte(args), Client: "claude-ai"})
		if err != nil {
			t.Fatal(err)
		}
		block := res.Blocks[0]
		for _, want := range []string{`"type":"invalid_query"`, "kept per ad set (ad group), not per ad"} {
			if !strings.Contains(block, want) {
				t.Fatalf("call %d lacks %q: %.600s", i, want, block)
			}
		}
		n := 0
		for _, r := range f.meta.Requests() {
			if strings.HasSuffix(r.Path, "/insights") {
				n++
			}
		}
		for _, r := range f.google.Requests()[before:] {
			if strings.Contains(r.Query, "metrics.") {
				n++
			}
		}
		if n != 0 {
			t.Errorf("call %d made %d report requests before refusing", i, n)
		}
		problems := block[:max(0, strings.Index(block, `"_meta"`))]
		if i == 0 {
			first = problems
		} else if problems != first {
			t.Errorf("call %d's problems differ from the first's:\n%s\n%s", i, problems, first)
		}
	}
}
