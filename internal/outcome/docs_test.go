package outcome

import (
	"flag"
	"os"
	"strings"
	"testing"
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
	raw, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	before, rest, ok1 := strings.Cut(doc, tableBegin+"\n")
	current, after, ok2 := strings.Cut(rest, tableEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s has no table of codes between %q and %q", docsPath, tableBegin, tableEnd)
	}
	want := table()
	if current == want {
		return
	}
	if *update {
		if err := os.WriteFile(docsPath, []byte(before+tableBegin+"\n"+want+tableEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's table of codes is out of date: run go test ./internal/outcome -update. Want:\n%s", docsPath, want)
}
