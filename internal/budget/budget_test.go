package budget

import "testing"

func TestResolve(t *testing.T) {
	cases := []struct {
		client    string
		overrides map[string]int
		requested int
		tokens    int
		effective int
		source    string
	}{
		{"claude-code", nil, 0, 25000, 21250, "client:claude-code"},
		{"claude-ai", nil, 0, 30000, 25500, "client:claude-ai"},
		{"ChatGPT", nil, 0, 80000, 80000, "client:ChatGPT"},
		{"chatgpt", nil, 0, 80000, 80000, "client:ChatGPT"},
		{"openai-mcp", nil, 0, 80000, 80000, "client:openai-mcp"},
		{"cursor-vscode", nil, 0, 30000, 30000, "default"},
		{"", nil, 0, 30000, 30000, "default"},
		{"claude-code", map[string]int{"claude-code": 80000}, 0, 80000, 68000, "config:claude-code"},
		{"cursor-vscode", map[string]int{"*": 50000}, 0, 50000, 50000, "config:*"},
		{"ChatGPT", nil, 20000, 20000, 20000, "argument:token_budget"},
		{"claude-ai", nil, 90000, 30000, 25500, "client:claude-ai"}, // never raised
		{"claude-desktop-beta", nil, 0, 30000, 25500, "default"},    // unknown Claude: margin
	}
	for _, c := range cases {
		b := Resolve(c.client, c.overrides, c.requested)
		if b.Tokens != c.tokens || b.Effective != c.effective || b.Source != c.source {
			t.Errorf("Resolve(%q, %v, %d) = %+v; want %d/%d/%s", c.client, c.overrides, c.requested, b, c.tokens, c.effective, c.source)
		}
	}
}

func TestKnownClient(t *testing.T) {
	for ua, want := range map[string]string{
		"claude-code/2.1.0 (cli)": "claude-code",
		"Claude-AI/1.0":           "claude-ai",
		"openai-mcp/1.0.0":        "openai-mcp",
		"ChatGPT":                 "ChatGPT",
		"node":                    "",
		"Mozilla/5.0 claude-code": "",
		"":                        "",
	} {
		if got := KnownClient(ua); got != want {
			t.Errorf("%q: %q, want %q", ua, got, want)
		}
	}
}
