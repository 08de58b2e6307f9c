// Package docstest keeps a generated block of a doc file — a table made from
// the code, between two marker lines — equal to what the code makes now, so
// that the docs users read cannot fall behind the code they describe.
package docstest

import (
	"os"
	"strings"
	"testing"
)

// Block checks that the text between the lines begin and end of the file at
// path is want; with update, it writes want there instead. regenerate is
// the command that updates it, for the failure message.
func Block(t testing.TB, path, begin, end, want string, update bool, regenerate string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(raw), begin+"\n")
	current, after, ok2 := strings.Cut(rest, end)
	if !ok1 || !ok2 {
		t.Fatalf("%s has no generated block between %q and %q", path, begin, end)
	}
	if current == want {
		return
	}
	if update {
		if err := os.WriteFile(path, []byte(before+begin+"\n"+want+end+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s is out of date: run %s. Want:\n%s", path, regenerate, want)
}
