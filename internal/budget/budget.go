// Package budget decides how much of a response each client keeps: the
// per-client profiles of docs/contract.md §7 in one place (tokens, and for clients
// that cut tool output by size, bytes and lines; the characters of an error
// they keep), chosen by clientInfo.name and clientInfo.version, overridable by
// configuration and lowered (never raised) by the query's token_budget
// argument. The MCP layer, the config file and the CLI all go through Resolve.
// docs/clients.md cites the source of every limit.
package budget

import (
	"fmt"
	"strings"

	"golang.org/x/mod/semver"
)

// Default is the token budget for clients not in the table.
const Default = 30000

// ClaudeMargin is the share of the token budget kept free for Claude clients:
// their tokenizer counts somewhat more than o200k_base (the legacy Claude
// tokenizer ~3% more on CSV; current models' tokenizer is not public).
const ClaudeMargin = 0.15

// Client is who is calling: clientInfo's name and version from initialize.
type Client struct {
	Name    string
	Version string
}

// ParseClient reads "NAME" or "NAME/VERSION" (as the CLI's --client takes
// it, and as User-Agent products are written).
func ParseClient(s string) Client {
	name, version, _ := strings.Cut(strings.TrimSpace(s), "/")
	return Client{Name: strings.TrimSpace(name), Version: strings.TrimSpace(version)}
}

func (c Client) String() string {
	if c.Version == "" {
		return c.Name
	}
	return c.Name + "/" + c.Version
}

// Profile is what one kind of client keeps of a response.
type Profile struct {
	// Names are clientInfo.name values, compared case-insensitively.
	Names []string
	// MinVersion, when set, limits the profile to clientInfo.version at or
	// above it (dotted numbers; a pre-release of it is below). A client whose
	// version is missing or unreadable gets the next profile of its name — the
	// older, more conservative one.
	MinVersion string
	// Below, when set, limits the profile to a readable clientInfo.version
	// before Below and before its pre-releases too (a preview or nightly of
	// Below may already behave as Below). For a client whose newer versions
	// keep less: a missing or unreadable version gets the next profile of its
	// name — the newer, more conservative one.
	Below string
	// Tokens is the token budget.
	Tokens int
	// Bytes and Lines, when positive, are further limits: the client cuts a
	// tool result longer than that (the middle, the end) without telling the
	// model which rows are gone.
	Bytes, Lines int
	// ErrorChars, when positive, is how many characters of an isError result's
	// text the client keeps.
	ErrorChars int
	// Form is what Bytes counts: what the client makes of the text blocks
	// before it measures them.
	Form Form
	// Claude clients count tokens with Claude's tokenizer: a margin applies.
	Claude bool
	// Why is the reason, for docs and logs.
	Why string
}

// Form is what a client makes of a tool result's text blocks before it
// measures them against its size limits.
type Form int

const (
	// Text: the blocks' text joined by newlines.
	Text Form = iota
	// JSONContent: the JSON of the result's content array
	// ([{"type":"text","text":"…"},…]; quotes, backslashes and newlines
	// escaped), which Codex gives the model instead of the text.
	JSONContent
	// UntrustedContext: each block on its own, as Gemini CLI gives it to the
	// model from 0.51.0 ("<untrusted_context>\n" + the text, its closing tag
	// escaped as "&lt;/untrusted_context&gt;", + "\n</untrusted_context>";
	// wrapUntrusted in packages/core/src/tools/mcp-tool.ts), the blocks'
	// sizes added up: Gemini CLI measures a one-block result, and with its
	// experimental context management the sum of the blocks.
	UntrustedContext
)

// Profiles is the table of docs/contract.md §7 and docs/clients.md, most specific
// first: the first profile whose name and version match is the client's.
var Profiles = []Profile{
	{Names: []string{"claude-code"}, MinVersion: "2.1.97", Tokens: 80000, Bytes: 190000, ErrorChars: 10000, Claude: true,
		Why: "from 2.1.97 Claude Code keeps text results of tools declaring _meta[\"anthropic/maxResultSizeChars\"] (500,000 for adsmcp's tools) inline, without its MAX_MCP_OUTPUT_TOKENS check, so the seed's 80,000 applies; 190,000 characters stays under its 200,000-character per-turn cap; error text is cut above 10,000 characters"},
	{Names: []string{"claude-code"}, Tokens: 25000, Bytes: 49000, ErrorChars: 10000, Claude: true,
		Why: "before 2.1.97 (or an unreadable version) Claude Code checks every MCP result against MAX_MCP_OUTPUT_TOKENS (default 25,000: rejected up to 2.0.42, cut after, saved to a file from 2.0.71) and saves results over 50,000 characters to a file the model only previews"},
	{Names: []string{"claude-ai"}, Tokens: 30000, Bytes: 140000, Claude: true,
		Why: "Claude.ai and Claude Desktop; connectors keep about 150,000 characters"},
	{Names: []string{"ChatGPT", "openai-mcp"}, Tokens: 80000, Why: "ChatGPT"},
	{Names: []string{"codex-mcp-client", "Codex"}, MinVersion: "0.171.0", Tokens: 9000, Bytes: 36000, Form: JSONContent,
		Why: "Codex 0.171 keeps 10,000 tokens of a tool output (the JSON of its content array) and cuts the middle; 36,000 bytes covers a 4-bytes-per-token count"},
	{Names: []string{"codex-mcp-client", "Codex"}, Tokens: 8000, Bytes: 9500, Lines: 250, Form: JSONContent,
		Why: "older Codex versions keep 10 KiB or 256 lines of a tool output (the JSON of its content array) and drop the middle (openai/codex#6544, #5913)"},
	{Names: []string{"github-copilot-developer"}, Tokens: 4000, Bytes: 9500,
		Why: "GitHub Copilot CLI cut MCP output at 10 KB (github/copilot-cli#1732)"},
	{Names: []string{"gemini-cli-mcp-client"}, Below: "0.33.0", Tokens: Default,
		Why: "before 0.33.0 Gemini CLI cut only its shell tool's output (DEFAULT_TRUNCATE_TOOL_OUTPUT_THRESHOLD: 4,000,000 characters to 0.28.2, 40,000 from 0.29.0) and kept MCP results whole; up to 0.25.0 it sent version \"0.0.1\""},
	{Names: []string{"gemini-cli-mcp-client"}, Tokens: 16000, Bytes: 39000, Form: UntrustedContext,
		Why: "from 0.33.0 Gemini CLI (truncateOutputIfNeeded) saves a one-block MCP result longer than min(40,000, 4 × the tokens left in its context) characters to a file and shows the model the first 20% and last 80% of 40,000 (formatTruncatedToolOutput); its experimental context management cuts every block once their sum is over 40,000. 39,000 leaves a margin; 16,000 tokens is what 39,000 bytes of CSV holds (~2.4 bytes per token)"},
}

// Sizes are a client's size limits as a deployment configures them
// (client_limits in the config file), replacing its profile's: for a client
// adsmcp has no profile for, or one configured to keep more or less than its
// default (Codex's output_token_limit). 0: no such limit.
type Sizes struct {
	Bytes      int `yaml:"bytes"`
	Lines      int `yaml:"lines"`
	ErrorChars int `yaml:"error_chars"`
}

// Overrides are a deployment's budgets: token budgets by client name ("*":
// every client without its own), and size limits by client name.
type Overrides struct {
	Tokens map[string]int
	Sizes  map[string]Sizes
}

// TokensFor is Overrides that set the token budget of every client to n.
func TokensFor(n int) Overrides { return Overrides{Tokens: map[string]int{"*": n}} }

// Budget is a resolved budget.
type Budget struct {
	// Tokens is the budget announced in _meta.token_budget.
	Tokens int
	// Effective is what responses are fitted to: Tokens less the Claude margin.
	Effective int
	// Bytes and Lines are the client's size limits (0: none); exact, no margin.
	Bytes, Lines int
	// ErrorChars is what the client keeps of an error's text (0: no limit
	// besides the others).
	ErrorChars int
	// Form is what Bytes counts (Profile.Form).
	Form Form
	// Source says where Tokens came from: "client:claude-ai", "config:claude-code",
	// "default", "argument" (token_budget), "flag".
	Source string
	// Profile is the client profile applied ("claude-code>=2.1.0"); empty for
	// the default.
	Profile string
}

// Resolve picks the budget for a client: config overrides of the token budget
// (by client name, or "*" for every client) win over the table; requested (the
// token_budget argument, 0 if absent) may only lower it. Size limits come from
// the client's profile — they are what the client itself keeps, whatever token
// budget was configured — unless the deployment configured the client's own.
func Resolve(c Client, o Overrides, requested int) Budget {
	overrides := o.Tokens
	b := Budget{Tokens: Default, Source: "default"}
	claude := false
	if p, name, ok := profileOf(c); ok {
		b.Tokens, b.Source, claude = p.Tokens, "client:"+name, p.Claude
		b.Bytes, b.Lines, b.ErrorChars, b.Form = p.Bytes, p.Lines, p.ErrorChars, p.Form
		b.Profile = name
		if p.MinVersion != "" {
			b.Profile += ">=" + p.MinVersion
		}
		if p.Below != "" {
			b.Profile += "<" + p.Below
		}
	}
	if !claude && strings.HasPrefix(strings.ToLower(c.Name), "claude") {
		claude = true // unknown Claude clients count like Claude
	}
	if v, ok := lookupFold(overrides, c.Name); ok && v > 0 {
		b.Tokens, b.Source = v, "config:"+c.Name
	} else if v, ok := overrides["*"]; ok && v > 0 {
		b.Tokens, b.Source = v, "config:*"
	}
	if requested > 0 && requested < b.Tokens {
		b.Tokens, b.Source = requested, "argument:token_budget"
	}
	for name, s := range o.Sizes {
		if c.Name != "" && strings.EqualFold(name, c.Name) {
			b.Bytes, b.Lines, b.ErrorChars = s.Bytes, s.Lines, s.ErrorChars
			b.Profile += " (sizes: config)"
		}
	}
	b.Effective = b.Tokens
	if claude {
		b.Effective = int(float64(b.Tokens) * (1 - ClaudeMargin))
	}
	return b
}

// profileOf is the first profile for the client's name and version, with the
// name as the table spells it.
func profileOf(c Client) (Profile, string, bool) {
	for _, p := range Profiles {
		for _, n := range p.Names {
			if strings.EqualFold(n, c.Name) && (p.MinVersion == "" || AtLeast(c.Version, p.MinVersion)) &&
				(p.Below == "" || before(c.Version, p.Below)) {
				return p, n, true
			}
		}
	}
	return Profile{}, "", false
}

// AtLeast reports whether version is min or later. An empty or unreadable
// version is not: the caller falls back to the conservative profile.
func AtLeast(version, min string) bool {
	v := "v" + strings.TrimPrefix(strings.TrimSpace(version), "v")
	if !semver.IsValid(v) {
		return false
	}
	return semver.Compare(v, "v"+min) >= 0
}

// before reports whether version is readable and earlier than every release
// and pre-release of v (below "v-0", the lowest pre-release semver orders).
func before(version, v string) bool {
	s := "v" + strings.TrimPrefix(strings.TrimSpace(version), "v")
	return semver.IsValid(s) && semver.Compare(s, "v"+v+"-0") < 0
}

func lookupFold(m map[string]int, key string) (int, bool) {
	if key == "" {
		return 0, false
	}
	for k, v := range m {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return 0, false
}

// String describes a budget for logs and the CLI.
func (b Budget) String() string {
	s := fmt.Sprintf("%d tokens (%s; fitted to %d)", b.Tokens, b.Source, b.Effective)
	if b.Bytes > 0 {
		s += fmt.Sprintf(", %d bytes", b.Bytes)
	}
	if b.Lines > 0 {
		s += fmt.Sprintf(", %d lines", b.Lines)
	}
	return s
}

// KnownClient is the client named by a User-Agent header when it is one in the
// table ("claude-code/2.1.0 (cli)" → claude-code 2.1.0, "openai-mcp/1.0" →
// openai-mcp); the zero Client otherwise. Stateless HTTP serves older clients
// without their clientInfo, and a User-Agent is better than the default budget
// only when it names a known client.
func KnownClient(userAgent string) Client {
	product, _, _ := strings.Cut(strings.TrimSpace(userAgent), " ")
	c := ParseClient(product)
	for _, p := range Profiles {
		for _, n := range p.Names {
			if strings.EqualFold(n, c.Name) {
				return Client{Name: n, Version: c.Version}
			}
		}
	}
	return Client{}
}
