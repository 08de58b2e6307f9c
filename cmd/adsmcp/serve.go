package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/adsmcp/adsmcp/internal/budget"
	"github.com/adsmcp/adsmcp/internal/config"
	"github.com/adsmcp/adsmcp/internal/mcpserver"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/rowbudget"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/live"
	"github.com/adsmcp/adsmcp/internal/source/synced"
)

type serveFlags struct {
	deadline    time.Duration
	maxAccounts int
	budgets     []string
	listen      string
	today       string
	stateless   bool
	insecure    bool
}

func newServeCommand(g *globals) *cobra.Command {
	f := &serveFlags{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the MCP tools (list_accounts, list_fields, query) over stdio or streamable HTTP",
		Long: `Runs adsmcp as an MCP server. By default over stdio: JSON-RPC on stdin and stdout,
logs on stderr only; MCP clients start it themselves. For Claude Code:

  claude mcp add adsmcp -- /path/to/adsmcp serve

With --http ADDR (or http.listen in the config file) it serves streamable HTTP
at http://ADDR/mcp for remote clients, with /healthz; SIGINT or SIGTERM lets
calls in progress finish before it exits.

With an ad platform's API under sources:, the server syncs it into the
embedded synced file in the background (at start, then hourly: sync.every)
and answers each query from it once every account's synced days cover the
query's range, live before; sync: {every: off} answers everything live
(docs/sync.md).

Every answer fits the client's token budget, chosen by its name (clientInfo.name):
claude-code 25,000, claude-ai 30,000, ChatGPT 80,000, others 30,000.
--budget-for (or budgets: in the config file) replaces it per client ("*" for
every client). Each tool call is cancelled at --deadline and answers a timeout
with narrower queries. Flags override the config file.`,
		Example: `  adsmcp serve
  adsmcp serve --http 127.0.0.1:8080
  adsmcp serve --config adsmcp.yaml
  adsmcp serve --db ~/ads.duckdb --deadline 40s --budget-for claude-code=80000`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.serverConfig(cmd, g)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			stderr := stderrOf(cmd)
			logger := g.logger(stderr)
			g.tenantServer = f.listen != "" && g.cfg != nil && (g.cfg.Auth.Enabled() || len(g.cfg.Tenants) > 0)
			src, err := g.openServed(ctx, stderr, cfg.Now, true)
			if err != nil {
				return err
			}
			defer src.Close()
			// The first run starts at once: a server with fresh credentials
			// answers live until each account's backfill is written.
			src.Start(ctx)
			cfg.Source, cfg.Logger, cfg.Version = src.Source, logger, versionString()
			cfg.AccountsTTL = accountsRefresh(g.cfg, src.Source)
			if f.listen == "" {
				return serveStdio(cmd, cfg)
			}
			return serveHTTP(ctx, cmd, g, cfg, f, src)
		},
	}
	f.register(cmd)
	return cmd
}

func (f *serveFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.DurationVar(&f.deadline, "deadline", mcpserver.DefaultDeadline, "cancel each tool call after this long and answer a timeout with narrower queries")
	fl.IntVar(&f.maxAccounts, "max-accounts", query.DefaultMaxAccounts, "most accounts one query may span (more answers too_many_accounts)")
	fl.StringArrayVar(&f.budgets, "budget-for", nil, `token budget for a client, as name=tokens (e.g. claude-code=80000; "*" for every client); repeatable`)
	fl.StringVar(&f.listen, "http", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:8080) instead of stdio")
	fl.BoolVar(&f.stateless, "stateless", false, "HTTP: serve every request without a session, so replicas need no sticky sessions (see docs/deployment.md)")
	fl.BoolVar(&f.insecure, "allow-unauthenticated", false, "HTTP: allow a non-loopback address without auth: configured (only behind a proxy that authenticates)")
	fl.StringVar(&f.today, "today", "", "resolve date presets as if today were this date (YYYY-MM-DD; for demos and tests on a fixed warehouse)")
}

// accountsRefresh is how old the account list gets before a call refreshes
// it: accounts_refresh when set, else the hour the ad platforms' listings
// call for, or a warehouse's minute.
func accountsRefresh(file *config.File, src source.Source) time.Duration {
	if file != nil && file.AccountsRefresh > 0 {
		return time.Duration(file.AccountsRefresh)
	}
	switch s := src.(type) {
	case *live.Source:
		return mcpserver.DefaultAccountsTTL
	case *synced.Source:
		if s.Live != nil {
			return mcpserver.DefaultAccountsTTL
		}
	}
	return mcpserver.WarehouseAccountsTTL
}

// serverConfig merges the config file and the flags (flags win).
func (f *serveFlags) serverConfig(cmd *cobra.Command, g *globals) (mcpserver.Config, error) {
	file := g.cfg
	changed := cmd.Flags().Changed
	if !changed("deadline") && file.Deadline > 0 {
		f.deadline = time.Duration(file.Deadline)
	}
	if !changed("max-accounts") && file.MaxAccounts > 0 {
		f.maxAccounts = file.MaxAccounts
	}
	if !changed("http") {
		f.listen = file.HTTP.Listen
	}
	if f.listen != "" {
		name := "http.listen"
		if changed("http") {
			name = "--http"
		}
		if err := checkListen(name, f.listen); err != nil {
			return mcpserver.Config{}, err
		}
	}
	if f.deadline <= 0 {
		return mcpserver.Config{}, fmt.Errorf("--deadline %s: want a positive duration such as 55s", f.deadline)
	}
	if f.maxAccounts <= 0 {
		return mcpserver.Config{}, fmt.Errorf("--max-accounts %d: want a positive number", f.maxAccounts)
	}
	overrides, err := parseBudgetFlags(f.budgets)
	if err != nil {
		return mcpserver.Config{}, err
	}
	now, err := clockFor(f.today)
	if err != nil {
		return mcpserver.Config{}, err
	}
	budgets := maps.Clone(file.Budgets)
	if budgets == nil && overrides != nil {
		budgets = map[string]int{}
	}
	maps.Copy(budgets, overrides)
	return mcpserver.Config{MaxAccounts: f.maxAccounts, Deadline: f.deadline, BudgetOverrides: budget.Overrides{Tokens: budgets, Sizes: file.ClientLimits}, Now: now,
		Rows: rowbudget.New(file.Limits.MaxRowsPerCall, file.Limits.MaxRowsInFlight)}, nil
}

func serveStdio(cmd *cobra.Command, cfg mcpserver.Config) error {
	ctx := cmd.Context()
	if stdinIsTerminal(cmd.InOrStdin()) {
		// Typed at a prompt, serve would look hung: it waits for JSON-RPC.
		fmt.Fprintf(stderrOf(cmd), "adsmcp: waiting for an MCP client on stdin (JSON-RPC); clients start this themselves, "+
			"e.g. claude mcp add adsmcp -- %s (docs/mcp.md); to ask from a shell: adsmcp query --help. Ctrl-C quits.\n",
			strings.Join(append([]string{executable()}, os.Args[1:]...), " "))
	}
	cfg.Logger.Info("serving MCP over stdio", "deadline", cfg.Deadline, "max_accounts", cfg.MaxAccounts, "budgets", cfg.BudgetOverrides)
	srv, stopServer := mcpserver.Open(cfg)
	defer func() {
		// A listing in flight ends with its HTTP requests, cancelled here.
		sctx, cancel := context.WithTimeout(context.Background(), mcpserver.Grace)
		defer cancel()
		stopServer(sctx)
	}()
	session, err := srv.Connect(ctx, mcpserver.NewStdioTransport(cmd.InOrStdin(), cmd.OutOrStdout()), nil)
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { session.Close() }) // SIGINT or SIGTERM: a normal end
	defer stop()
	err = session.Wait()
	if ctx.Err() != nil {
		cfg.Logger.Info("stopped by signal")
		return nil
	}
	return err
}

// stdinIsTerminal reports whether r is a terminal (not a pipe, a file or
// /dev/null, which are also character devices).
func stdinIsTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// executable is this binary's path, for a command line to copy; under go run
// (a temporary build) or when unknown, a placeholder.
func executable() string {
	p, err := os.Executable()
	if err != nil || strings.Contains(p, string(os.PathSeparator)+"go-build") {
		return "/path/to/adsmcp"
	}
	return p
}

func serveHTTP(ctx context.Context, cmd *cobra.Command, g *globals, cfg mcpserver.Config, f *serveFlags, src source.Source) error {
	addr := f.listen
	if exposedWithoutAuth(addr, g.cfg) && !f.insecure {
		return fmt.Errorf("--http %s: anyone who can reach this address could read the ad data, and no auth: is configured; "+
			"configure API keys or OAuth (docs/auth.md), bind 127.0.0.1, or pass --allow-unauthenticated behind a proxy that authenticates", addr)
	}
	stateless := f.stateless || g.cfg.HTTP.Stateless
	rem, err := newRemote(ctx, g.cfg, &cfg, cfg.Logger, stateless)
	if err != nil {
		return err
	}
	srv, err := mcpserver.NewHTTPServer(cfg, rem.opts)
	if err != nil {
		return err
	}
	if rem.metrics != nil {
		rem.metrics.SetSessionsFunc(srv.Sessions)
	}
	rem.ready = srv.Ready
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--http %s: %w", addr, err)
	}
	// One line on stderr whatever the log level: where to connect (the port is
	// the real one when addr asked for :0).
	fmt.Fprintf(stderrOf(cmd), "adsmcp: serving MCP at http://%s%s (health: /healthz)\n", ln.Addr(), mcpserver.MCPPath)
	cfg.Logger.Info("serving MCP over HTTP", "addr", ln.Addr().String(), "deadline", cfg.Deadline,
		"max_accounts", cfg.MaxAccounts, "budgets", cfg.BudgetOverrides, "stateless", stateless,
		"auth", g.cfg.Auth.Enabled(), "tenants", len(g.cfg.Tenants))
	return srv.Serve(ctx, ln)
}

// checkListen refuses an address net.Listen would misread or refuse, before
// anything is opened: a bare port or host, a URL, a service name instead of
// a port number. (Only a well-formed address reaches the check that nobody
// could read the data without auth.)
func checkListen(name, addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		if n, perr := strconv.Atoi(port); perr == nil && n >= 0 && n <= 65535 {
			return nil
		}
	}
	if isDigits(addr) {
		return fmt.Errorf("%s %s: want HOST:PORT, e.g. 127.0.0.1:%s (this machine only) or 0.0.0.0:%s (every interface, with auth: configured)", name, addr, addr, addr)
	}
	hint := ""
	if strings.Contains(addr, "://") {
		hint = " (no scheme or path: the server answers at http://HOST:PORT" + mcpserver.MCPPath + ")"
	}
	return fmt.Errorf("%s %s: want HOST:PORT, e.g. 127.0.0.1:8080%s", name, addr, hint)
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// parseBudgetFlags reads --budget-for values: client=tokens.
func parseBudgetFlags(vals []string) (map[string]int, error) {
	if len(vals) == 0 {
		return nil, nil
	}
	out := make(map[string]int, len(vals))
	for _, v := range vals {
		i := strings.LastIndex(v, "=")
		if i <= 0 {
			return nil, fmt.Errorf("--budget-for %q: want client=tokens, e.g. claude-code=80000", v)
		}
		name := strings.TrimSpace(v[:i])
		n, err := strconv.Atoi(strings.TrimSpace(strings.ReplaceAll(v[i+1:], "_", "")))
		if err != nil || n < query.MinTokenBudget || n > query.MaxTokenBudget {
			return nil, fmt.Errorf("--budget-for %q: tokens must be a whole number from %d to %d", v, query.MinTokenBudget, query.MaxTokenBudget)
		}
		out[name] = n
	}
	return out, nil
}
