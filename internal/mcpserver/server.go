// Package mcpserver is adsmcp's MCP server: the list_accounts, list_fields and
// query tools over the official Go SDK, with per-client token budgets, the
// per-call deadline and the server instructions. Transports (stdio here; HTTP
// elsewhere) only connect it.
//
// Every tool is read-only. Tool definitions and handlers are built by one
// constructor per tool (one file each) and registered from the explicit list in
// tools; handlers read the client's raw arguments, so normalization, forgiveness
// and error messages are exactly those of `adsmcp query`.
package mcpserver

import (
	"context"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/answer"
	"github.com/adsmcp/adsmcp/internal/budget"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/rowbudget"
	"github.com/adsmcp/adsmcp/internal/source"
)

// DefaultDeadline bounds every tool call: below the ~60 s after which Claude
// Desktop and the MCP TypeScript SDK give up on a request, and ChatGPT's ~90 s.
const DefaultDeadline = 55 * time.Second

// Grace is how long past its deadline a call may take at most: the timeout
// answer itself is built without the source, so it returns at once.
const Grace = time.Second

// Config is what the server needs.
type Config struct {
	// Source answers the queries (required).
	Source source.Source
	// MaxAccounts per query (query.DefaultMaxAccounts when 0).
	MaxAccounts int
	// Deadline of each tool call (DefaultDeadline when 0).
	Deadline time.Duration
	// BudgetOverrides are the configured token budgets by client name ("*":
	// every client) and client size limits.
	BudgetOverrides budget.Overrides
	// Now is the clock date presets are resolved against (time.Now when nil).
	Now func() time.Time
	// Counter counts tokens (fit's o200k counter when nil).
	Counter fit.TokenCounter
	// Logger receives one line per call at debug level and handler failures at
	// error level (discarded when nil). It must never write to stdout under stdio.
	Logger *slog.Logger
	// AccountsTTL is how old the source's account list gets before a call
	// refreshes it in the background, answering meanwhile from the list it
	// has (DefaultAccountsTTL when 0; negative: every call waits for a fresh
	// list). Package accountlist says when a call waits.
	AccountsTTL time.Duration
	// ProgressInterval is how often a running call that asked for progress is
	// reported (DefaultProgressInterval when 0).
	ProgressInterval time.Duration
	// Observer, when set, is told about every finished tool call (metrics).
	Observer Observer
	// Limiter, when set, admits each principal's tool calls (rate, calls at
	// once); calls without a principal (stdio) are not limited.
	Limiter Limiter
	// Version is the server version announced at initialize.
	Version string
	// Rows bounds the rows the calls in flight read from the source
	// (rowbudget's defaults when nil).
	Rows *rowbudget.Budget
}

// server holds what the tool handlers share.
type server struct {
	cfg      Config
	engine   *answer.Engine
	accounts *accountCache
	counter  fit.TokenCounter
	log      *slog.Logger
}

// tool is one tool: its definition and its handler.
type tool struct {
	def     *mcp.Tool
	handler mcp.ToolHandler
}

// tools is the explicit list of tools, in the order clients list them.
func (s *server) tools() []tool {
	return []tool{
		listAccountsTool(s),
		listFieldsTool(s),
		queryTool(s),
	}
}

// New returns the MCP server for cfg, with its tools and instructions. It
// refreshes the account list in the background for as long as the process
// runs; a caller that outlives the server uses Open.
func New(cfg Config) *mcp.Server {
	srv, _ := build(cfg)
	return srv
}

// Open is New, and the function that stops the server's background work —
// refreshing the account list — once its sessions have ended: it cancels a
// refresh in flight and waits for it until ctx ends. The source stays open
// (the caller owns it).
func Open(cfg Config) (srv *mcp.Server, stop func(ctx context.Context) error) {
	srv, s := build(cfg)
	return srv, s.accounts.stop
}

// build returns the SDK server and the state its handlers share.
func build(cfg Config) (*mcp.Server, *server) {
	s := newServer(cfg)
	version := cfg.Version
	if version == "" {
		version = "devel"
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "adsmcp", Title: "adsmcp — advertising data", Version: version},
		&mcp.ServerOptions{
			Instructions: Instructions,
			Logger:       s.log,
			Capabilities: &mcp.ServerCapabilities{
				Tools:     &mcp.ToolCapabilities{},
				Resources: &mcp.ResourceCapabilities{},
				Prompts:   &mcp.PromptCapabilities{},
				// Calls that time out or fail are logged to clients that set a
				// level (logging/setLevel); see clientLog.
				//lint:ignore SA1019 MCP logging stays for clients on protocol versions before 2026-07-28, which still use it
				Logging: &mcp.LoggingCapabilities{},
			},
		})
	srv.AddReceivingMiddleware(rpcErrors)
	for _, t := range s.tools() {
		srv.AddTool(t.def, t.handler)
	}
	for _, r := range s.resources() {
		srv.AddResource(r.def, r.handler)
	}
	for _, p := range prompts() {
		srv.AddPrompt(p.def, s.promptHandler(p))
	}
	return srv, s
}

func newServer(cfg Config) *server {
	if cfg.Rows == nil {
		cfg.Rows = rowbudget.New(0, 0)
	}
	if cfg.Deadline <= 0 {
		cfg.Deadline = DefaultDeadline
	}
	if cfg.MaxAccounts <= 0 {
		cfg.MaxAccounts = query.DefaultMaxAccounts
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	counter := cfg.Counter
	if counter == nil {
		counter = fit.NewO200k()
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	accounts := newAccountCache(cfg.Source, cfg.AccountsTTL, log)
	return &server{
		cfg: cfg,
		engine: &answer.Engine{
			Source:          accounts,
			MaxAccounts:     cfg.MaxAccounts,
			Now:             cfg.Now,
			Counter:         counter,
			BudgetOverrides: cfg.BudgetOverrides,
			Rows:            cfg.Rows,
			// One large result counted and summarized in the warehouse at
			// a time: they share its memory and CPU (docs/deployment.md).
			LargeWork: answer.NewGate(1),
			Demo:      source.DemoLabel(cfg.Source),
		},
		accounts: accounts,
		counter:  counter,
		log:      log,
	}
}

// clientOf is the calling client's clientInfo (name and version): from the
// request's own metadata (protocol 2026-07-28), else from the session's
// initialize, else — for stateless HTTP, where older clients' names are
// unknown — the product in their User-Agent when it is a client the budget
// table knows ("claude-code/2.1.0 (…)" → claude-code 2.1.0).
func clientOf(req *mcp.CallToolRequest) budget.Client {
	if req == nil {
		return budget.Client{}
	}
	if ci := req.ClientInfo(); ci != nil && ci.Name != "" {
		return budget.Client{Name: ci.Name, Version: ci.Version}
	}
	if req.Extra != nil && req.Extra.Header != nil {
		return budget.KnownClient(req.Extra.Header.Get("User-Agent"))
	}
	return budget.Client{}
}

// readOnly are the annotations every adsmcp tool carries: it reads a closed
// world (the configured sources) and never changes anything.
func readOnly(title string) *mcp.ToolAnnotations {
	f := false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &f}
}

// textResult is a tool result of text blocks, in order.
func textResult(isError bool, blocks ...string) *mcp.CallToolResult {
	content := make([]mcp.Content, len(blocks))
	for i, b := range blocks {
		content[i] = &mcp.TextContent{Text: b}
	}
	return &mcp.CallToolResult{Content: content, IsError: isError}
}
