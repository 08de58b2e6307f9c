// Package budget decides how many tokens a response may use: the per-client table
// of PRODUCT.md §7 in one place, overridable by configuration and lowered (never
// raised) by the query's token_budget argument. The MCP layer, the config file and
// the CLI all go through Resolve.
package budget

import (
	"fmt"
	"strings"
)

// Default is the budget for clients not in the table.
const Default = 30000

// ClaudeMargin is the share of the budget kept free for Claude clients: their
// tokenizer counts somewhat more than o200k_base (the legacy Claude tokenizer ~3%
// more on CSV; current models' tokenizer is not public), and the limit they enforce
// (Claude Code's MAX_MCP_OUTPUT_TOKENS) rejects the whole result when exceeded.
const ClaudeMargin = 0.15

// Profile is the budget of one kind of client.
type Profile struct {
	// Names are clientInfo.name values, compared case-insensitively.
	Names  []string
	Budget int
	// Claude clients count tokens with Claude's tokenizer: a margin applies.
	Claude bool
	Why    string
}

// Profiles is the table of PRODUCT.md §7.
var Profiles = []Profile{
	{Names: []string{"claude-code"}, Budget: 25000, Claude: true,
		Why: "Claude Code rejects MCP results above MAX_MCP_OUTPUT_TOKENS (default 25,000); raise both together"},
	{Names: []string{"claude-ai"}, Budget: 30000, Claude: true, Why: "Claude.ai and Claude Desktop"},
	{Names: []string{"ChatGPT", "openai-mcp"}, Budget: 80000, Why: "ChatGPT"},
}

// Budget is a resolved budget.
type Budget struct {
	// Tokens is the budget announced in _meta.token_budget.
	Tokens int
	// Effective is what responses are fitted to: Tokens less the Claude margin.
	Effective int
	// Source says where Tokens came from: "client:claude-ai", "config:claude-code",
	// "default", "argument" (token_budget), "flag".
	Source string
}

// Resolve picks the budget for a client: config overrides (by client name, or "*"
// for every client) win over the table; requested (the token_budget argument, 0 if
// absent) may only lower it.
func Resolve(client string, overrides map[string]int, requested int) Budget {
	b := Budget{Tokens: Default, Source: "default"}
	claude := false
	for _, p := range Profiles {
		for _, n := range p.Names {
			if strings.EqualFold(n, client) {
				b.Tokens, b.Source, claude = p.Budget, "client:"+n, p.Claude
			}
		}
	}
	if !claude && strings.HasPrefix(strings.ToLower(client), "claude") {
		claude = true // unknown Claude clients count like Claude
	}
	if v, ok := lookupFold(overrides, client); ok && v > 0 {
		b.Tokens, b.Source = v, "config:"+client
	} else if v, ok := overrides["*"]; ok && v > 0 {
		b.Tokens, b.Source = v, "config:*"
	}
	if requested > 0 && requested < b.Tokens {
		b.Tokens, b.Source = requested, "argument:token_budget"
	}
	b.Effective = b.Tokens
	if claude {
		b.Effective = int(float64(b.Tokens) * (1 - ClaudeMargin))
	}
	return b
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
	return fmt.Sprintf("%d tokens (%s; fitted to %d)", b.Tokens, b.Source, b.Effective)
}

// KnownClient is the client named by a User-Agent header when it is one in the
// table ("claude-code/2.1.0 (cli)" → "claude-code", "openai-mcp/1.0" →
// "openai-mcp"); empty otherwise. Stateless HTTP serves older clients without
// their clientInfo, and a User-Agent is better than the default budget only
// when it names a known client.
func KnownClient(userAgent string) string {
	product, _, _ := strings.Cut(strings.TrimSpace(userAgent), " ")
	product, _, _ = strings.Cut(product, "/")
	for _, p := range Profiles {
		for _, n := range p.Names {
			if strings.EqualFold(n, product) {
				return n
			}
		}
	}
	return ""
}
