// Package skipreport makes a plain `go test ./...` say which tests it skipped
// and why. Without -v, go test throws away everything a passing package's test
// binary writes (t.Log, t.Skip's reason, TestMain's output alike) and prints only
// "ok"; a test that skips for want of a database or a Node install then looks
// exactly like one that ran. Skip writes its note to the go command's own
// stderr instead, which go test does not capture.
//
// Every test that skips calls Skip instead of t.Skip, so there is one place that
// decides how a skip is reported.
package skipreport

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Skip reports reason as the reason t skips (see the package comment), then
// skips t.
func Skip(t testing.TB, reason string) {
	t.Helper()
	if !testing.Verbose() { // with -v (and -json) t.Skip already shows the reason
		note(fmt.Sprintf("SKIP %s %s: %s\n", packageDir(), t.Name(), reason))
	}
	t.Skip(reason)
}

// Skipf is Skip with a format.
func Skipf(t testing.TB, format string, args ...any) {
	t.Helper()
	Skip(t, fmt.Sprintf(format, args...))
}

var (
	mu     sync.Mutex
	once   sync.Once
	parent io.Writer
)

// note writes line, whole, where the person running go test sees it.
func note(line string) {
	once.Do(func() { parent = parentStderr() })
	if parent == nil {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	parent.Write([]byte(line)) //nolint:errcheck // a lost note must not fail the test
}

// parentStderr is the stderr of the process that started the test binary (the
// go command), or nil where it cannot be written safely: off Linux, or when it
// is a regular file opened without O_APPEND, where our writes and the go
// command's would overwrite each other (each file description has its own
// offset). A terminal, a pipe or an appended log file are safe: a note is one
// write of one short line.
func parentStderr() io.Writer {
	pid := os.Getppid()
	fd := fmt.Sprintf("/proc/%d/fd/2", pid)
	info, err := os.Stat(fd)
	if err != nil {
		return nil
	}
	if info.Mode().IsRegular() {
		fdinfo, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/2", pid))
		if err != nil || !appendOnly(string(fdinfo)) {
			return nil
		}
	}
	f, err := os.OpenFile(fd, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil
	}
	return f
}

// oAppend is Linux's O_APPEND as /proc/PID/fdinfo prints it (octal).
const oAppend = 0o2000

// appendOnly reports whether a /proc/PID/fdinfo text has O_APPEND in its flags.
func appendOnly(fdinfo string) bool {
	for _, line := range strings.Split(fdinfo, "\n") {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			var flags int
			if _, err := fmt.Sscanf(strings.TrimSpace(v), "%o", &flags); err != nil {
				return false
			}
			return flags&oAppend != 0
		}
	}
	return false
}

// packageDir is the tested package's folder relative to the module root (go
// test runs each test binary in its package's folder).
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "?"
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil {
				return wd
			}
			return "./" + filepath.ToSlash(rel)
		}
		if filepath.Dir(dir) == dir {
			return wd
		}
	}
}
