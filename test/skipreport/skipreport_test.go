package skipreport

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

const roleEnv = "ADSMCP_SKIPREPORT_ROLE"

// TestChildSkips is what TestSkipReachesTheParentsStderr runs in two more
// processes: as "parent" it stands for the go command, running the test binary
// again as "child" with the child's own output discarded (as go test discards a
// passing package's); as "child" it skips.
func TestChildSkips(t *testing.T) {
	switch os.Getenv(roleEnv) {
	case "parent":
		child := exec.Command(os.Args[0], "-test.run=^TestChildSkips$")
		child.Env = append(os.Environ(), roleEnv+"=child")
		if err := child.Run(); err != nil { // Stdout and Stderr nil: /dev/null
			t.Fatal(err)
		}
	case "child":
		Skip(t, "the reason, for the parent")
	}
}

// TestSkipReachesTheParentsStderr: the note reaches the stderr of the test
// binary's parent, here a pipe.
func TestSkipReachesTheParentsStderr(t *testing.T) {
	if _, err := os.Stat("/proc/self/fdinfo"); err != nil {
		Skip(t, "no /proc: notes are written only on Linux")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildSkips$")
	cmd.Env = append(os.Environ(), roleEnv+"=parent")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	want := "SKIP ./test/skipreport TestChildSkips: the reason, for the parent\n"
	if stderr.String() != want {
		t.Errorf("the parent's stderr = %q, want %q", stderr.String(), want)
	}
}

// TestAppendOnly: notes go to a regular file only when it is opened for
// appending, where they cannot overwrite the go command's output.
func TestAppendOnly(t *testing.T) {
	for fdinfo, want := range map[string]bool{
		"pos:\t164\nflags:\t0100001\nmnt_id:\t27\n": false, // O_WRONLY|O_LARGEFILE: `>`
		"pos:\t164\nflags:\t0102001\nmnt_id:\t27\n": true,  // and O_APPEND: `>>`
		"pos:\t0\n":           false,
		"flags:\tnot-octal\n": false,
	} {
		if got := appendOnly(fdinfo); got != want {
			t.Errorf("appendOnly(%q) = %v", strings.TrimSpace(fdinfo), got)
		}
	}
}
