package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/fit"
)

// TestInstructions: the instructions fit what Claude Code keeps (2,048
// characters, anthropics/claude-code#87650), and their first 512 characters,
// cut there, still hold the rules a model needs before its first call.
func TestInstructions(t *testing.T) {
	cs := connect(t, testConfig(t), "claude-ai")
	got := cs.InitializeResult().Instructions
	if got != Instructions {
		t.Fatalf("initialize sent other instructions:\n%s", got)
	}
	// Bytes: no larger than characters, so the limits hold however a client counts.
	if n := len(Instructions); n > 2048 {
		t.Errorf("instructions are %d bytes; Claude Code keeps only the first 2,048 characters", n)
	}
	c := fit.NewO200k()
	t.Logf("instructions: %d characters, %d o200k tokens", utf8.RuneCountInString(Instructions), c.Exact(Instructions))
	first, _, _ := strings.Cut(Instructions, "\n\n")
	if n := len(first); n > 512 {
		t.Errorf("first paragraph is %d bytes; the first 512 characters must stand alone", n)
	}
	head := Instructions[:min(512, len(Instructions))]
	for _, want := range []string{
		"list_accounts", "list_fields", "then query", // the order of the tools
		"never a dimension", "time_granularity",
		"read _meta first",
		"complete or says in _meta what was changed",
		"the query tool's description", "adsmcp://guide", // where the rest is
	} {
		if !strings.Contains(head, want) {
			t.Errorf("the first 512 characters lack %q:\n%s", want, head)
		}
	}
	if got, want := cs.InitializeResult().ServerInfo.Name, "adsmcp"; got != want {
		t.Errorf("server name %q", got)
	}
}

// modelRules are the rules a model must follow to answer truthfully, each as
// the phrases that state it. Each must be stated whole in one text every
// client gives the model (the instructions or a tool description), not only in
// the guide, which a client shows only when asked.
var modelRules = []struct {
	rule    string
	phrases []string
}{
	{"tool order", []string{"list_accounts", "list_fields", "then query"}},
	{"time is not a dimension", []string{"Time is never a dimension", "time_granularity"}},
	{"_meta first", []string{"read _meta first"}},
	{"complete or says what changed", []string{"complete or says in _meta what was changed"}},
	{"ratios recomputed", []string{"Ratios (ctr, cpc, cpm, cpa, roas, conversion_rate) are recomputed from their parts"}},
	{"reach never summed", []string{"reach is never summed"}},
	{"money per currency", []string{"never summed, ranked or compared across currencies", "a sort or top-N on money is per currency"}},
	{"limit only for top-N", []string{"limit only for an explicit top-N, with sort"}},
	{"dates", []string{"Dates are inclusive, in each account's timezone"}},
	{"default period", []string{"the default period is last_30d"}},
	{"granularity_change", []string{"granularity_change", "coarser in time than asked", "say so"}},
	{"validation_filter", []string{"validation_filter", "removed_totals"}},
	{"all_zero_metrics", []string{"all_zero_metrics", "reporting scopes", "tell the user"}},
	{"no_rows", []string{"no_rows", "say there is no data, not zeros"}},
	{"partial_period", []string{"partial_period", "cut by the date range"}},
	{"metric_unavailable_at_grain", []string{"metric_unavailable_at_grain", "left out"}},
	{"other warnings", []string{"warnings", "pass them on"}},
	{"data_too_large", []string{"data_too_large", "summary", "requery_instructions.suggestions", "as is"}},
	{"invalid_query", []string{"invalid_query", "fix and retry"}},
	{"too_many_accounts", []string{"too_many_accounts", "pick account_ids"}},
	{"timeout", []string{"timeout", "narrower suggestions"}},
	{"failed accounts", []string{"source_error", "permission_denied", "which accounts failed, why and the fix", "covers only the others"}},
}

// TestEveryRuleIsRead: every rule the instructions carried before they were cut
// to 2 KB is still stated in full where the model reads it, and the guide
// resource carries all of it.
func TestEveryRuleIsRead(t *testing.T) {
	s := newServer(Config{Source: warehouse(t)})
	texts := map[string]string{"instructions": Instructions}
	for _, tl := range s.tools() {
		texts[tl.def.Name+" description"] = tl.def.Description
	}
	for _, r := range modelRules {
		var where []string
		for name, text := range texts {
			if containsAll(text, r.phrases) {
				where = append(where, name)
			}
		}
		if len(where) == 0 {
			t.Errorf("rule %q (%q) is stated in neither the instructions nor a tool description", r.rule, r.phrases)
		}
	}

	cs := connect(t, testConfig(t), "claude-code")
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "adsmcp://guide"})
	if err != nil {
		t.Fatal(err)
	}
	g := res.Contents[0].Text
	for name, text := range texts {
		if !strings.Contains(g, text) {
			t.Errorf("adsmcp://guide lacks the %s:\n%s", name, g)
		}
	}
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// TestQueryDescriptionLength: Claude Code cuts tool descriptions at 2 KB too;
// the query tool's carries the detail the instructions leave out.
func TestQueryDescriptionLength(t *testing.T) {
	d := newServer(Config{Source: warehouse(t)}).tools()[2].def.Description
	c := fit.NewO200k()
	t.Logf("query description: %d characters, %d o200k tokens", utf8.RuneCountInString(d), c.Exact(d))
	if len(d) > 2048 {
		t.Errorf("query description is %d bytes; Claude Code keeps 2,048", len(d))
	}
}

// TestDocsShowTheInstructions keeps docs/mcp.md in step with the instructions.
func TestDocsShowTheInstructions(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "mcp.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), Instructions) {
		t.Error("docs/mcp.md does not show the current Instructions verbatim")
	}
}
