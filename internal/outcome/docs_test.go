package outcome

import (
	"flag"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/docstest"
)

var update = flag.Bool("update", false, "rewrite the table of codes in docs/mcp.md")

const (
	docsPath   = "../../docs/mcp.md"
	tableBegin = "<!-- codes: generated from internal/outcome by `go test ./internal/outcome -update`; edit docs.go, not this table -->"
	tableEnd   = "<!-- end of codes -->"
)

// table is the markdown table of every code, from All.
func table() string {
	var b strings.Builder
	b.WriteString("| code | where | what it means | what to do |\n|---|---|---|---|\n")
	for _, d := range All() {
		var uses []string
		for _, u := range []struct {
			use  Use
			name string
		}{{AnswerType, "answer type"}, {AccountKind, "account kind"}, {CallOutcome, "outcome"}} {
			if d.Uses&u.use != 0 {
				uses = append(uses, u.name)
			}
		}
		b.WriteString("| `" + string(d.Code) + "` | " + strings.Join(uses, ", ") + " | " + d.Meaning + " | " + d.Action + " |\n")
	}
	return b.String()
}

// TestDocsListEveryCode: docs/mcp.md's table of codes is the one generated
// from All, so every code is documented for users in the words of its Doc.
func TestDocsListEveryCode(t *testing.T) {
	docstest.Block(t, docsPath, tableBegin, tableEnd, table(), *update, "go test ./internal/outcome -update")
}
