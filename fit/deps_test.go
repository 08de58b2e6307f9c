package fit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fit is for Go developers outside adsmcp: importing it must cost them the
// tokenizer and nothing else (its tests too: go.sum records what they
// import). These tests fail when a change makes fit import
// another adsmcp package, a heavy part of the standard library, or a module
// besides the tokenizer's two.

// tokenizerModules are the only modules besides adsmcp a program importing fit
// builds code from: the o200k_base encoder and the regexp engine it uses.
var tokenizerModules = []string{"github.com/tiktoken-go/tokenizer", "github.com/dlclark/regexp2/v2"}

// heavyStd are standard packages fit has no reason to link: the network, SQL,
// processes, crypto, the testing package.
var heavyStd = []string{"net", "database", "os/exec", "crypto", "testing", "plugin"}

func TestFitImportsNothingOfAdsmcpNorHeavierThanTheTokenizer(t *testing.T) {
	out := goCmd(t, ".", nil, "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}} {{with .Module}}{{.Path}}{{end}}", ".")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		pkg, std := f[0], f[1] == "true"
		switch {
		case std:
			for _, h := range heavyStd {
				if pkg == h || strings.HasPrefix(pkg, h+"/") {
					t.Errorf("fit imports %s (standard, but heavier than fit needs)", pkg)
				}
			}
		case pkg == "github.com/adsmcp/adsmcp/fit":
		case len(f) == 3 && slices.Contains(tokenizerModules, f[2]):
		default:
			t.Errorf("fit imports %s: only the standard library and the tokenizer (%v) may be linked", pkg, tokenizerModules)
		}
	}
}

// TestSeparateModuleResolvesOnlyTheTokenizer builds what an outside developer
// has: a module of its own that requires adsmcp (replaced by this checkout)
// and imports fit, tidied. Its go.mod then requires only the tokenizer's
// modules, and no other module's code is fetched or built. (go list -m all
// still lists adsmcp's requirements: Go reads their go.mod files to resolve
// versions, never their code.)
//
// It runs offline from the module cache, which building this repository
// fills. When the cache lacks a module it asks the module proxy; if that is
// unreachable too, it skips outside CI and fails in CI (CI=true).
func TestSeparateModuleResolvesOnlyTheTokenizer(t *testing.T) {
	root := strings.TrimSpace(goCmd(t, ".", nil, "list", "-m", "-f", "{{.Dir}}"))
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/consumer\n\ngo 1.26.0\n\nrequire github.com/adsmcp/adsmcp v0.0.0\n\nreplace github.com/adsmcp/adsmcp => "+root+"\n")
	write("main.go", "package main\n\nimport \"github.com/adsmcp/adsmcp/fit\"\n\nfunc main() { _ = fit.Fit }\n")
	// adsmcp's go.sum holds the checksums of every module its graph names:
	// tidy verifies against it without the checksum database, and drops what
	// the consumer does not need.
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write("go.sum", string(sum))

	offline := []string{"GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local"}
	if out, err := goTry(t.Context(), dir, offline, "mod", "tidy"); err != nil {
		t.Logf("offline from the module cache: %v\n%s", err, out)
		online := []string{"GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local"}
		if out, err := goTry(t.Context(), dir, online, "mod", "tidy"); err != nil {
			msg := "the module cache lacks a module of adsmcp's graph and the module proxy is unreachable; run `go mod download` in the repository with network access: " + err.Error() + "\n" + out
			if os.Getenv("CI") != "" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}

	// The consumer's requirements: adsmcp and the tokenizer's modules.
	var mf struct{ Require []struct{ Path string } }
	if err := json.Unmarshal([]byte(goCmd(t, dir, offline, "mod", "edit", "-json")), &mf); err != nil {
		t.Fatal(err)
	}
	var required []string
	for _, r := range mf.Require {
		required = append(required, r.Path)
		if r.Path != "github.com/adsmcp/adsmcp" && !slices.Contains(tokenizerModules, r.Path) {
			t.Errorf("a module importing fit requires %s", r.Path)
		}
	}
	if !slices.Contains(required, tokenizerModules[0]) {
		t.Errorf("a module importing fit requires %v, not the tokenizer: is the test module right?", required)
	}

	// The modules whose code is fetched (a zip checksum in go.sum, not only a
	// go.mod one) and built.
	sums, err := os.ReadFile(filepath.Join(dir, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		if f := strings.Fields(line); len(f) == 3 && !strings.HasSuffix(f[1], "/go.mod") && !slices.Contains(tokenizerModules, f[0]) {
			t.Errorf("a module importing fit fetches the code of %s", f[0])
		}
	}
	built := goCmd(t, dir, offline, "list", "-deps", "-f", "{{with .Module}}{{.Path}}{{end}}", ".")
	for _, m := range strings.Fields(built) {
		if m != "example.com/consumer" && m != "github.com/adsmcp/adsmcp" && !slices.Contains(tokenizerModules, m) {
			t.Errorf("a module importing fit builds packages of %s", m)
		}
	}
	// The whole graph resolves offline from go.mod files alone.
	goCmd(t, dir, offline, "list", "-m", "all")
}

// goCmd runs the go command in dir with env added, failing the test on error.
func goCmd(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	out, err := goTry(t.Context(), dir, env, args...)
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// goTry runs the go command in dir with env added; the output is stdout, or
// stdout and stderr on error.
func goTry(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String() + stderr.String(), err
	}
	return stdout.String(), nil
}
