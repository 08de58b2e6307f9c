package mcpserver

import (
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/source"
)

// plainSource hides whether its source holds demo data.
type plainSource struct{ source.Source }

// TestEveryDemoAnswerSaysSo: from the demo warehouse, every answer — data,
// the account list, a refusal — carries the demo label in its _meta; from a
// source with real data, none does.
func TestEveryDemoAnswerSaysSo(t *testing.T) {
	calls := []struct {
		tool string
		args string
	}{
		{"query", small},
		{"list_accounts", `{}`},
		{"list_fields", `{}`},
		{"query", `{"metrics":["no_such_metric"],"date_preset":"last_7d"}`},
	}
	cfg := testConfig(t)
	cs := connect(t, cfg, "claude-code")
	for _, c := range calls {
		res := call(t, cs, c.tool, c.args)
		if got := res.Meta[DemoMetaKey]; got != demo.Label {
			t.Errorf("%s %s from the demo dataset: _meta[%q] = %v, want %q", c.tool, c.args, DemoMetaKey, got, demo.Label)
		}
		// A data answer says it in the _meta the model reads, too: clients
		// need not show the result's own _meta to the model.
		if c.tool == "query" && !res.IsError {
			if w := entryOf(metaOf(t, texts(t, res)[0]), "warnings", "demo_data"); w == nil || !strings.Contains(w["detail"].(string), demo.Label) {
				t.Errorf("query from the demo dataset: no demo_data warning in the text _meta: %v", w)
			}
		}
	}
	cfg.Source = plainSource{cfg.Source}
	cs = connect(t, cfg, "claude-code")
	for _, c := range calls {
		res := call(t, cs, c.tool, c.args)
		if res.Meta[DemoMetaKey] != nil {
			t.Errorf("%s from a real source says demo data: %v", c.tool, res.Meta)
		}
		if c.tool == "query" && !res.IsError && entryOf(metaOf(t, texts(t, res)[0]), "warnings", "demo_data") != nil {
			t.Errorf("query from a real source warns demo_data")
		}
	}
}
