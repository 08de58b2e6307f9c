package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionNamesTheCommit: what go build records of the checkout —
// revision, commit time, uncommitted changes — is printed.
func TestVersionNamesTheCommit(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "4e96eaa1b2c3d4e5f60718293a4b5c6d7e8f9012"},
		{Key: "vcs.time", Value: "2026-12-01T12:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	var out bytes.Buffer
	printVersion(&out, buildFrom(bi))
	for _, want := range []string{"adsmcp v0.3.0\n", "commit 4e96eaa1b2c3d4e5f60718293a4b5c6d7e8f9012 of 2026-12-01T12:00:00Z, with uncommitted changes\n", "built with go"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("version:\n%s\nwant %q", out.String(), want)
		}
	}
	bi.Settings[2].Value = "false"
	out.Reset()
	printVersion(&out, buildFrom(bi))
	if strings.Contains(out.String(), "uncommitted") {
		t.Errorf("a clean tree printed as modified:\n%s", out.String())
	}
}

// TestVersionWithoutVCSIsHonest: a build with no VCS stamp (go run, go test)
// says so instead of printing a commit.
func TestVersionWithoutVCSIsHonest(t *testing.T) {
	out, _, err := runCLI("version")
	if err != nil || !regexp.MustCompile(`(?m)^adsmcp \(devel\)\ncommit unknown: built without version control information`).MatchString(out) {
		t.Errorf("version under go test: %v\n%s", err, out)
	}
}

// TestVersionOfABuiltBinary: go build in a primary git checkout stamps the
// commit, and the binary prints it. (A linked worktree gets no stamp,
// golang/go#58218, so the test needs the primary checkout.)
func TestVersionOfABuiltBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	gitDir, err1 := exec.Command("git", "rev-parse", "--absolute-git-dir").Output()
	common, err2 := exec.Command("git", "rev-parse", "--path-format=absolute", "--git-common-dir").Output()
	if err1 != nil || err2 != nil || string(gitDir) != string(common) {
		t.Skip("not a primary git checkout: go build records no commit here")
	}
	bin := filepath.Join(t.TempDir(), "adsmcp")
	if out, err := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	head, _ := exec.Command("git", "rev-parse", "HEAD").Output()
	out, err := exec.Command(bin, "version").Output()
	if err != nil || !strings.Contains(string(out), "commit "+strings.TrimSpace(string(head))) {
		t.Errorf("version: %v\n%s\nwant the commit %s", err, out, head)
	}
}
