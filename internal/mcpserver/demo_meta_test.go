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
		{"query", `{"metrics":["spend"],"date_preset":"last_7d"}`}, // too_many_accounts: lists the demo accounts
	}
	// inText: the answers whose text names the demo data's figures or
	// accounts, which say so in the _meta the model reads too (clients need
	// not show it the result's own _meta).
	inText := func(tool string) bool { return tool == "query" || tool == "list_accounts" }
	cfg := testConfig(t)
	cs := connect(t, cfg, "claude-code")
	for _, c := range calls {
		res := call(t, cs, c.tool, c.args)
		if got := res.Meta[DemoMetaKey]; got != demo.Label {
			t.Errorf("%s %s from the demo dataset: _meta[%q] = %v, want %q", c.tool, c.args, DemoMetaKey, got, demo.Label)
		}
		if inText(c.tool) {
			if w := entryOf(metaOf(t, texts(t, res)[0]), "warnings", "demo_data"); w == nil || !strings.Contains(w["detail"].(string), demo.Label) {
				t.Errorf("%s %s from the demo dataset: no demo_data warning in the text _meta: %v", c.tool, c.args, w)
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
		if inText(c.tool) && entryOf(metaOf(t, texts(t, res)[0]), "warnings", "demo_data") != nil {
			t.Errorf("%s %s from a real source warns demo_data", c.tool, c.args)
		}
	}
}
