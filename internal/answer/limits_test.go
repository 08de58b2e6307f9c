package answer

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"
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
