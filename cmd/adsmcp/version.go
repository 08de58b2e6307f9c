package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = ""

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the adsmcp version and the commit it was built from",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			printVersion(cmd.OutOrStdout(), readBuild())
		},
	}
}

// build is what the binary knows about itself: the module version (or the
// -X main.version stamp) and what go build recorded of the checkout.
type build struct {
	version   string // "(devel)" when built from a checkout without a tag
	revision  string // vcs.revision; "" when go build recorded no VCS state
	committed string // vcs.time, the commit's time (Go records no build time)
	modified  bool   // vcs.modified: the tree had uncommitted changes
	goVersion string
}

func readBuild() build {
	bi, _ := debug.ReadBuildInfo()
	return buildFrom(bi)
}

func buildFrom(bi *debug.BuildInfo) build {
	b := build{version: version, goVersion: runtime.Version()}
	if bi == nil {
		return b
	}
	if b.version == "" {
		b.version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.revision = s.Value
		case "vcs.time":
			b.committed = s.Value
		case "vcs.modified":
			b.modified = s.Value == "true"
		}
	}
	return b
}

// printVersion says which code this is. Without a VCS stamp (go run, go test,
// -buildvcs=false, a build outside a checkout or in a linked worktree, whose
// .git file Go does not recognize) it says so rather than guess.
func printVersion(w io.Writer, b build) {
	v := b.version
	if v == "" {
		v = "(devel)"
	}
	fmt.Fprintln(w, "adsmcp", v)
	switch {
	case b.revision == "":
		fmt.Fprintln(w, "commit unknown: built without version control information "+
			"(by go run or go test, with -buildvcs=false, outside a git checkout, or in a linked git worktree: golang/go#58218)")
	case b.modified:
		fmt.Fprintf(w, "commit %s of %s, with uncommitted changes\n", b.revision, b.committed)
	default:
		fmt.Fprintf(w, "commit %s of %s\n", b.revision, b.committed)
	}
	fmt.Fprintf(w, "built with %s for %s/%s\n", b.goVersion, runtime.GOOS, runtime.GOARCH)
}

// versionString is the version an MCP server reports in serverInfo: the
// release, or "devel" with the commit when there is one.
func versionString() string {
	b := readBuild()
	if b.version != "" && b.version != "(devel)" {
		return b.version
	}
	if b.revision == "" {
		return "devel"
	}
	s := "devel+" + b.revision[:min(12, len(b.revision))]
	if b.modified {
		s += "-dirty"
	}
	return s
}
