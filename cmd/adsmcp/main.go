// Command adsmcp is an MCP server and command line for questions over advertising
// data whose every answer fits the AI client's context window.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newRootCommand().ExecuteContext(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "adsmcp:", err)
		os.Exit(1)
	}
}
