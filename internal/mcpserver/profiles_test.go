package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/budget"
)

// Through the server, each client profile is chosen by clientInfo's name and
// version, and no answer — data, summary or error — is over any of its limits
// as that client measures it (Codex: the JSON of the content array; Gemini
// CLI: each block wrapped in <untrusted_context>, in UTF-16 units).
func TestClientProfilesThroughTheServer(t *testing.T) {
	counter := fit.NewO200k()
	cfg := testConfig(t)
	queries := map[string]string{
		"daily":    `{"platforms":["meta_ads"],"dimensions":["campaign_name"],"metrics":["spend","clicks","ctr"],"time_granularity":"daily","date_preset":"last_90d"}`,
		"accounts": `{"metrics":["spend"],"dimensions":["account_name"],"date_preset":"last_30d"}`, // too_many_accounts
		"invalid":  `{"metrics":["spnd","clcks","imprs","cts","cpcc","rooas"],"dimensions":["campain","adsett","contry"]}`,
	}
	for _, tc := range []struct {
		client                       string
		tokens, bytes, lines, errors int
		jsonContent, untrusted       bool
	}{
		{"claude-code/2.1.332", 80000, 190000, 0, 10000, false, false},
		{"claude-code/2.1.96", 25000, 49000, 0, 10000, false, false},
		{"claude-code", 25000, 49000, 0, 10000, false, false},
		{"codex-mcp-client/0.46.0", 8000, 9500, 250, 0, true, false},
		{"codex-mcp-client/0.171.0", 9000, 36000, 0, 0, true, false},
		{"github-copilot-developer/1.0.3", 4000, 9500, 0, 0, false, false},
		{"claude-ai/1.0", 30000, 140000, 0, 0, false, false},
		{"gemini-cli-mcp-client/0.61.0", 16000, 39000, 0, 0, false, true},
		{"gemini-cli-mcp-client", 16000, 39000, 0, 0, false, true},
		{"gemini-cli-mcp-client/0.32.1", 30000, 0, 0, 0, false, false},
	} {
		cs := connect(t, cfg, tc.client)
		for what, args := range queries {
			res := call(t, cs, "query", args)
			if res.StructuredContent != nil {
				// Claude Code and Codex would show the model only this JSON,
				// which no limit here counts.
				t.Fatalf("%s, %s: the result has structuredContent", tc.client, what)
			}
			blocks := texts(t, res)
			text := strings.Join(blocks, "\n")
			tokens := 0
			for _, b := range blocks {
				tokens += counter.Exact(b)
			}
			bytes := len(text)
			if tc.jsonContent {
				b, _ := json.Marshal(res.Content) // as Codex shows the model the result
				bytes = max(bytes, len(b))
			}
			if tc.untrusted {
				// Gemini CLI's wrapUntrusted (packages/core/src/tools/mcp-tool.ts),
				// measured as JavaScript string length, summed over the blocks.
				bytes = 0
				for _, b := range blocks {
					w := "<untrusted_context>\n" + strings.ReplaceAll(b, "</untrusted_context>", "&lt;/untrusted_context&gt;") + "\n</untrusted_context>"
					bytes += len(utf16.Encode([]rune(w)))
				}
			}
			lines := strings.Count(text, "\n") + 1
			chars := len(utf16.Encode([]rune(text)))
			switch {
			case tokens > tc.tokens:
				t.Errorf("%s, %s: %d tokens, limit %d", tc.client, what, tokens, tc.tokens)
			case tc.bytes > 0 && bytes > tc.bytes:
				t.Errorf("%s, %s: %d bytes, limit %d", tc.client, what, bytes, tc.bytes)
			case tc.lines > 0 && lines > tc.lines:
				t.Errorf("%s, %s: %d lines, limit %d", tc.client, what, lines, tc.lines)
			case res.IsError && tc.errors > 0 && chars > tc.errors:
				t.Errorf("%s, %s: an error of %d characters, limit %d", tc.client, what, chars, tc.errors)
			}
			if what == "daily" {
				m := metaOf(t, blocks[0])
				if int(m["token_budget"].(float64)) != tc.tokens {
					t.Errorf("%s: token_budget %v, want %d", tc.client, m["token_budget"], tc.tokens)
				}
				if got, _ := m["byte_budget"].(float64); int(got) != tc.bytes {
					t.Errorf("%s: byte_budget %v, want %d", tc.client, m["byte_budget"], tc.bytes)
				}
				t.Logf("%s: daily answered at %v, binding_limit %v, %d tokens, %d bytes, %d lines", tc.client,
					m["time_granularity"], m["binding_limit"], tokens, bytes, lines)
			}
		}
	}
}

// A deployment's client_limits bind like a profile's.
func TestConfiguredClientLimits(t *testing.T) {
	cfg := testConfig(t)
	cfg.BudgetOverrides = budget.Overrides{Sizes: map[string]budget.Sizes{"my-agent": {Bytes: 4000, Lines: 60}}}
	cs := connect(t, cfg, "my-agent/1.0")
	blocks := texts(t, call(t, cs, "query", `{"platforms":["meta_ads"],"dimensions":["campaign_name"],"metrics":["spend"],"time_granularity":"weekly","date_preset":"last_90d"}`))
	text := strings.Join(blocks, "\n")
	if len(text) > 4000 || strings.Count(text, "\n")+1 > 60 {
		t.Errorf("%d bytes, %d lines; configured 4000 and 60", len(text), strings.Count(text, "\n")+1)
	}
	m := metaOf(t, blocks[0])
	if m["byte_budget"] != float64(4000) || m["line_budget"] != float64(60) {
		t.Errorf("_meta byte_budget %v line_budget %v", m["byte_budget"], m["line_budget"])
	}
}
