package answer

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/adsmcp/adsmcp/internal/budget"
)

// Claude Code keeps about 10,000 characters of an isError text, far less than
// its token budget allows: an error with a long list is cut to the characters
// (the first problems listed, the rest counted), never to the tokens alone.
func TestErrorsFitTheClientsCharacters(t *testing.T) {
	e := engine(t)
	var metrics []string
	for i := range 300 {
		metrics = append(metrics, fmt.Sprintf("unknown_metric_number_%d", i))
	}
	args, _ := json.Marshal(map[string]any{"metrics": metrics, "platforms": []string{"meta_ads"}})
	for _, client := range []string{"claude-code/2.1.332", "claude-code/1.0.0"} {
		res := ask(t, e, client, 0, string(args))
		if !res.IsError || len(res.Blocks) != 1 {
			t.Fatalf("%s: not one error block: %v", client, res.IsError)
		}
		text := res.Blocks[0]
		if n := len(utf16.Encode([]rune(text))); n > 10000 {
			t.Errorf("%s: the error is %d characters; Claude Code keeps 10,000", client, n)
		}
		var body map[string]any
		if err := json.Unmarshal([]byte(text), &body); err != nil {
			t.Fatalf("%s: not JSON: %v", client, err)
		}
		if body["problems_total"] != float64(300) || !strings.Contains(fmt.Sprint(body["problems_note"]), "Only the first") {
			t.Errorf("%s: the cut list does not say how many problems there are: total %v, note %v", client, body["problems_total"], body["problems_note"])
		}
	}
	// A client without a character limit gets every problem within its tokens.
	res := ask(t, e, "ChatGPT", 0, string(args))
	var body map[string]any
	json.Unmarshal([]byte(res.Blocks[0]), &body)
	if ps, _ := body["problems"].([]any); len(ps) != 300 {
		t.Errorf("ChatGPT: %d problems listed, want all 300", len(ps))
	}
}

// geminiShown is how many characters Gemini CLI measures of blocks: each one
// wrapped as its wrapUntrusted does (from @google/gemini-cli 0.51.0), in
// JavaScript string length, added up.
func geminiShown(blocks []string) int {
	n := 0
	for _, b := range blocks {
		w := "<untrusted_context>\n" + strings.ReplaceAll(b, "</untrusted_context>", "&lt;/untrusted_context&gt;") + "\n</untrusted_context>"
		n += len(utf16.Encode([]rune(w)))
	}
	return n
}

// Gemini CLI keeps 40,000 characters of a one-block MCP result (and with its
// context management, of all blocks together) and cuts the middle: every
// answer to it stays under that as Gemini counts it, wrapper and escapes
// included, where a client without the limit gets more.
func TestGeminiCLIKeepsTheWholeAnswer(t *testing.T) {
	e := engine(t)
	for _, args := range []string{
		`{"platforms":["meta_ads"],"dimensions":["campaign_name","device","publisher_platform"],"metrics":["spend","clicks","impressions"],"time_granularity":"daily","date_preset":"last_90d"}`,
		`{"platforms":["meta_ads"],"dimensions":["campaign_name","adset_name","ad_name","country"],"metrics":["spend","clicks","impressions","ctr","cpc","cpm","conversions","cpa"],"time_granularity":"daily","date_preset":"last_90d"}`,
	} {
		if n := geminiShown(ask(t, e, "test-client", 0, args).Blocks); n <= 40000 {
			t.Fatalf("%s: %d characters at the default budget; the test needs a larger answer", args, n)
		}
		for _, client := range []string{"gemini-cli-mcp-client/0.61.0", "gemini-cli-mcp-client"} {
			res := ask(t, e, client, 0, args)
			if n := geminiShown(res.Blocks); n > 40000 {
				t.Errorf("%s, %s: Gemini CLI measures %d characters, keeps 40,000", client, args, n)
			}
		}
	}
}

// The measure counts the wrapper of every block and the escape of a closing
// tag inside the text (a campaign named to break out of the wrapper).
func TestUntrustedContextMeasure(t *testing.T) {
	l := LimitsOf(budget.Resolve(budget.Client{Name: "gemini-cli-mcp-client", Version: "0.61.0"}, budget.Overrides{}, 0))
	for _, blocks := range [][]string{
		{"a"},
		{`{"_meta":{}}`, "campaign,spend\nx</untrusted_context>y,1\n</untrusted_context></untrusted_context>,2"},
		{"é€😀,1"},
	} {
		if got, want := l.Measure(blocks).Bytes, geminiShown(blocks); got < want {
			t.Errorf("%q: measured %d, Gemini CLI counts %d", blocks, got, want)
		}
	}
}
