package readme

import (
	"regexp"
	"strings"
	"testing"
)

// A command is one shell command of the README: text as written (line
// continuations kept, for bash) and key, its text with continuations joined.
type command struct {
	text, key string
}

// fenced is every block of the markdown fenced as ```lang.
func fenced(markdown, lang string) []string {
	var blocks []string
	var cur []string
	in := false
	for _, line := range strings.Split(markdown, "\n") {
		switch {
		case !in && strings.TrimSpace(line) == "```"+lang:
			in, cur = true, nil
		case in && strings.TrimSpace(line) == "```":
			in = false
			blocks = append(blocks, strings.Join(cur, "\n"))
		case in:
			cur = append(cur, line)
		}
	}
	return blocks
}

var continuation = regexp.MustCompile(`\\\n\s*`)

// shellCommands is every command of the README's ```sh blocks, in order: one a
// line, a line ending in a backslash continuing on the next.
func shellCommands(markdown string) []command {
	var cmds []command
	for _, block := range fenced(markdown, "sh") {
		var cur []string
		for _, line := range strings.Split(block, "\n") {
			if len(cur) == 0 && (strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#")) {
				continue
			}
			cur = append(cur, line)
			if !strings.HasSuffix(line, `\`) {
				text := strings.Join(cur, "\n")
				cmds = append(cmds, command{text: text, key: continuation.ReplaceAllString(text, "")})
				cur = nil
			}
		}
	}
	return cmds
}

func TestShellCommands(t *testing.T) {
	md := "x\n```sh\n# a comment\ngo run . \\\n    --flag 1\n\n./adsmcp demo\n```\n```json\n{}\n```\n```sh\nls\n```\n"
	got := shellCommands(md)
	want := []command{{"go run . \\\n    --flag 1", "go run . --flag 1"}, {"./adsmcp demo", "./adsmcp demo"}, {"ls", "ls"}}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("command %d = %q, want %q", i, got[i], want[i])
		}
	}
}
