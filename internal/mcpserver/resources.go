package mcpserver

import (
	"context"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/internal/budget"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// resource is one readable resource: its definition and its handler.
type resource struct {
	def     *mcp.Resource
	handler mcp.ResourceHandler
}

// resources is the explicit list of resources. They repeat what the tools
// say, for clients that let the user attach context (Claude Desktop's "+"
// menu, the Inspector): the guide, the field catalog, the accounts.
func (s *server) resources() []resource {
	return []resource{
		{&mcp.Resource{URI: "adsmcp://guide", Name: "guide", Title: "How to use adsmcp",
			Description: "Everything the model is told: the server instructions and each tool's description (how the tools relate, that time is time_granularity, never a dimension, and how to read _meta, data_too_large and errors).",
			MIMEType:    "text/markdown"}, s.readGuide},
		{&mcp.Resource{URI: "adsmcp://fields", Name: "fields", Title: "Dimensions and metrics",
			Description: "Every dimension and metric the query tool accepts, as CSV: kind, type, aggregation, unit, platforms, description, synonyms.",
			MIMEType:    "text/csv"}, s.readFields},
		{&mcp.Resource{URI: "adsmcp://accounts", Name: "accounts", Title: "Ad accounts",
			Description: "The ad accounts you can query, as CSV: platform, account_id, account_name, currency, timezone, status.",
			MIMEType:    "text/csv"}, s.readAccounts},
	}
}

// Cache hints of resources/read (ttlMs, cacheScope). The SDK sends
// cacheScope "public" when a handler leaves it unset, which lets any client or
// intermediary serve the content to anyone; so every handler sets it.
var (
	// sharedCache is for content that is the same for every caller: it is
	// built into the binary and changes only with a new server, which a client
	// meets in a new session, and so with an empty cache.
	sharedCache = mcp.Cacheable{TTLMs: int(time.Hour / time.Millisecond), CacheScope: "public"}
	// callerCache is for content that depends on the caller (its accounts, its
	// client's budget): only the caller's own client may keep it, and it is
	// stale at once, because the server already reuses the account list for
	// AccountsTTL and a second cache would only add to that.
	callerCache = mcp.Cacheable{TTLMs: 0, CacheScope: "private"}
)

func textResource(uri, mime, text string, cache mcp.Cacheable) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{Cacheable: cache, Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: text}}}
}

func (s *server) readGuide(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return textResource(req.Params.URI, "text/markdown", s.guide(), sharedCache), nil
}

// readFields is the whole catalog, not fitted to a budget: the same for every
// caller.
func (s *server) readFields(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return textResource(req.Params.URI, "text/csv", fieldsCSV(catalog.Fields()), sharedCache), nil
}

// readAccounts is list_accounts' answer, fitted to the session client's budget
// the same way (the rows that fit, the rest counted in the first line): the
// caller's own, so never cacheable by anyone else.
func (s *server) readAccounts(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Deadline)
	defer cancel()
	accounts, err := s.accountsFor(ctx, principalOf(req.Extra))
	if err != nil {
		return nil, err
	}
	fresh, err := s.freshness(ctx)
	if err != nil {
		return nil, err
	}
	// A resource is not a tool result: no result-size annotation applies, so
	// the client's profile for any version (the conservative one) is used.
	var client budget.Client
	if req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil {
			client.Name = p.ClientInfo.Name
		}
	}
	res := s.accountsResult(accounts, fresh, "", budget.Resolve(client, s.cfg.BudgetOverrides, 0), time.Now())
	var parts []string
	for _, c := range res.result.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	// The _meta line only matters when rows were left out: it says how many.
	text := parts[len(parts)-1]
	if strings.Contains(parts[0], `"omitted_rows"`) {
		text = parts[0] + "\n" + text
	}
	return textResource(req.Params.URI, "text/csv", text, callerCache), nil
}
