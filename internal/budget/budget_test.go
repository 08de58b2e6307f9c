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
		{"claude-code", nil, 0, 25000, 21250, "client:claude-code"},        // version unknown: conservative
		{"claude-code/2.0.76", nil, 0, 25000, 21250, "client:claude-code"}, // before annotated results stayed inline
		{"claude-code/2.1.328", nil, 0, 80000, 68000, "client:claude-code"},
		{"claude-code/2.1.0-beta.1", nil, 0, 25000, 21250, "client:claude-code"},
		{"claude-code/garbage", nil, 0, 25000, 21250, "client:claude-code"},
		{"claude-code/2.1.96", nil, 0, 25000, 21250, "client:claude-code"},
		{"claude-code/2.1.97", nil, 0, 80000, 68000, "client:claude-code"},
		{"codex-mcp-client/0.46.0", nil, 0, 8000, 8000, "client:codex-mcp-client"},
		{"codex-mcp-client/0.171.0", nil, 0, 9000, 9000, "client:codex-mcp-client"},
		{"Codex", nil, 0, 8000, 8000, "client:Codex"},
		{"github-copilot-developer/1.0.3", nil, 0, 4000, 4000, "client:github-copilot-developer"},
		{"claude-ai", nil, 0, 30000, 25500, "client:claude-ai"},
		{"ChatGPT", nil, 0, 80000, 80000, "client:ChatGPT"},
		{"chatgpt", nil, 0, 80000, 80000, "client:ChatGPT"},
		{"openai-mcp", nil, 0, 80000, 80000, "client:openai-mcp"},
		{"cursor-vscode", nil, 0, 30000, 30000, "default"},
		{"", nil, 0, 30000, 30000, "default"},
		{"claude-code", map[string]int{"claude-code": 80000}, 0, 80000, 68000, "config:claude-code"},
		{"claude-code/2.1.328", map[string]int{"claude-code": 30000}, 0, 30000, 25500, "config:claude-code"},
		{"cursor-vscode", map[string]int{"*": 50000}, 0, 50000, 50000, "config:*"},
		{"ChatGPT", nil, 20000, 20000, 20000, "argument:token_budget"},
		{"claude-ai", nil, 90000, 30000, 25500, "client:claude-ai"}, // never raised
		{"claude-desktop-beta", nil, 0, 30000, 25500, "default"},    // unknown Claude: margin
	}
	for _, c := range cases {
		b := Resolve(ParseClient(c.client), Overrides{Tokens: c.overrides}, c.requested)
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
		if got := KnownClient(ua).Name; got != want {
			t.Errorf("%q: %q, want %q", ua, got, want)
		}
	}
}

// Size limits come from the client's profile whatever the token budget: they
// are what the client itself keeps.
func TestSizeLimitsFollowTheProfile(t *testing.T) {
	b := Resolve(Client{Name: "Codex", Version: "0.30.0"}, TokensFor(50000), 20000)
	if b.Tokens != 20000 || b.Bytes != 9500 || b.Lines != 250 || b.Form != JSONContent {
		t.Errorf("Codex with overrides: %+v; want 20000 tokens, 9500 bytes of JSON, 250 lines", b)
	}
	if b := Resolve(Client{Name: "claude-code", Version: "2.1.328"}, Overrides{}, 0); b.ErrorChars != 10000 || b.Bytes != 190000 {
		t.Errorf("claude-code 2.1.328: %+v; want 10,000 error characters and 190,000 bytes", b)
	}
	if b := Resolve(Client{Name: "cursor-vscode"}, Overrides{}, 0); b.Bytes != 0 || b.Lines != 0 || b.ErrorChars != 0 {
		t.Errorf("unknown client got size limits: %+v", b)
	}
}

func TestKnownClientVersion(t *testing.T) {
	if c := KnownClient("claude-code/2.1.328 (external, cli)"); c != (Client{Name: "claude-code", Version: "2.1.328"}) {
		t.Errorf("%+v", c)
	}
}

// A deployment's client_limits replace the profile's sizes for that client
// only, and survive a token budget given any other way.
func TestConfiguredSizes(t *testing.T) {
	o := Overrides{Tokens: map[string]int{"*": 20000}, Sizes: map[string]Sizes{"codex-mcp-client": {Bytes: 40000}, "my-agent": {Bytes: 5000, Lines: 100}}}
	if b := Resolve(Client{Name: "codex-mcp-client", Version: "0.46.0"}, o, 0); b.Bytes != 40000 || b.Lines != 0 || b.Tokens != 20000 {
		t.Errorf("codex with client_limits: %+v", b)
	}
	if b := Resolve(Client{Name: "My-Agent"}, o, 3000); b.Bytes != 5000 || b.Lines != 100 || b.Tokens != 3000 {
		t.Errorf("an unknown client with client_limits: %+v", b)
	}
	if b := Resolve(Client{Name: "github-copilot-developer"}, o, 0); b.Bytes != 9500 {
		t.Errorf("a client without client_limits keeps its profile's: %+v", b)
	}
}

// Gemini CLI cuts a one-part MCP result from 0.33.0 on, and an unknown or
// pre-release version may be that one: only a readable version before 0.33.0
// (which includes the "0.0.1" every version up to 0.25.0 sent) keeps the
// default budget without a size limit.
func TestGeminiCLIProfileByVersion(t *testing.T) {
	const limited, whole = "gemini-cli-mcp-client", "gemini-cli-mcp-client<0.33.0"
	for _, tc := range []struct {
		client        string
		tokens, bytes int
		profile       string
	}{
		{"gemini-cli-mcp-client/0.61.0", 16000, 39000, limited},
		{"gemini-cli-mcp-client/0.33.0", 16000, 39000, limited},
		{"gemini-cli-mcp-client/0.33.0-preview.0", 16000, 39000, limited},
		{"gemini-cli-mcp-client/0.60.0-nightly.20260905.g85aca163f", 16000, 39000, limited},
		{"gemini-cli-mcp-client/1.0.0", 16000, 39000, limited},
		{"gemini-cli-mcp-client", 16000, 39000, limited},
		{"gemini-cli-mcp-client/unknown", 16000, 39000, limited},
		{"Gemini-CLI-MCP-Client/0.61.0", 16000, 39000, limited},
		{"gemini-cli-mcp-client/0.32.1", 30000, 0, whole},
		{"gemini-cli-mcp-client/0.26.0", 30000, 0, whole},
		{"gemini-cli-mcp-client/0.0.1", 30000, 0, whole},
		{"gemini-cli-mcp-client-myserver/0.0.1", 30000, 0, ""}, // 0.8.x named the client after the server: no profile
	} {
		b := Resolve(ParseClient(tc.client), Overrides{}, 0)
		if b.Tokens != tc.tokens || b.Effective != tc.tokens || b.Bytes != tc.bytes || b.Lines != 0 || b.Profile != tc.profile {
			t.Errorf("%s: %d tokens (fitted to %d), %d bytes, %d lines, profile %q; want %d, %d bytes, profile %q",
				tc.client, b.Tokens, b.Effective, b.Bytes, b.Lines, b.Profile, tc.tokens, tc.bytes, tc.profile)
		}
	}
}
