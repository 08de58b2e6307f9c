package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/adsmcp/adsmcp/internal/mcpserver"
	"github.com/adsmcp/adsmcp/internal/query"
)

func newServeCommand(g *globals) *cobra.Command {
	var (
		deadline    time.Duration
		maxAccounts int
		budgets     []string
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the MCP tools (list_accounts, list_fields, query) over stdio",
		Long: `Runs adsmcp as an MCP server over stdio: JSON-RPC on stdin and stdout, logs on
stderr only. MCP clients start it themselves; for Claude Code:

  claude mcp add adsmcp -- /path/to/adsmcp serve

Every answer fits the client's token budget, chosen by its name (clientInfo.name):
claude-code 25,000, claude-ai 30,000, ChatGPT 80,000, others 30,000.
--budget-for replaces it per client ("*" for every client). Each tool call
is cancelled at --deadline and answers a timeout with narrower queries.`,
		Example: `  adsmcp serve
  adsmcp serve --db ~/ads.duckdb --deadline 40s --budget-for claude-code=80000`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			overrides, err := parseBudgetFlags(budgets)
			if err != nil {
				return err
			}
			if deadline <= 0 {
				return fmt.Errorf("--deadline %s: want a positive duration such as 55s", deadline)
			}
			if maxAccounts <= 0 {
				return fmt.Errorf("--max-accounts %d: want a positive number", maxAccounts)
			}
			ctx := cmd.Context()
			stderr := stderrOf(cmd)
			logger := g.logger(stderr)
			src, err := g.openWarehouse(ctx, stderr)
			if err != nil {
				return err
			}
			defer src.Close()
			srv := mcpserver.New(mcpserver.Config{
				Source:          src,
				MaxAccounts:     maxAccounts,
				Deadline:        deadline,
				BudgetOverrides: overrides,
				Logger:          logger,
				Version:         versionString(),
			})
			logger.Info("serving MCP over stdio", "deadline", deadline, "max_accounts", maxAccounts, "budgets", overrides)
			session, err := srv.Connect(ctx, mcpserver.NewStdioTransport(cmd.InOrStdin(), cmd.OutOrStdout()), nil)
			if err != nil {
				return err
			}
			stop := context.AfterFunc(ctx, func() { session.Close() }) // SIGINT or SIGTERM: a normal end
			defer stop()
			err = session.Wait()
			if ctx.Err() != nil {
				logger.Info("stopped by signal")
				return nil
			}
			return err
		},
	}
	fl := cmd.Flags()
	fl.DurationVar(&deadline, "deadline", mcpserver.DefaultDeadline, "cancel each tool call after this long and answer a timeout with narrower queries")
	fl.IntVar(&maxAccounts, "max-accounts", query.DefaultMaxAccounts, "most accounts one query may span (more answers too_many_accounts)")
	fl.StringArrayVar(&budgets, "budget-for", nil, `token budget for a client, as name=tokens (e.g. claude-code=80000; "*" for every client); repeatable`)
	return cmd
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
