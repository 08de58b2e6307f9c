package fit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/test/skipreport"
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
// The consumer has a module cache of its own, empty at first, so that what
// lands in it is exactly what its commands fetched. It is fed from this
// machine's module cache (a file:// proxy, offline) and, for what that lacks
// (a fresh machine has built fit, not read every go.mod of adsmcp's graph),
// from the configured module proxy. If that is unreachable too, the test
// skips outside CI and fails in CI (CI=true).
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

	modcache := t.TempDir()
	goenv := strings.Fields(goCmd(t, ".", nil, "env", "GOMODCACHE", "GOPROXY"))
	// A comma lets the go command fall through to the next proxy when one
	// answers "not found", as the file proxy does for what the cache lacks
	// (https://go.dev/ref/mod#goproxy-protocol).
	proxy := "file://" + filepath.ToSlash(filepath.Join(goenv[0], "cache", "download")) + "," + goenv[1]
	// -modcacherw: the go command makes the module cache read-only, and
	// t.TempDir must be able to remove it.
	env := []string{"GOMODCACHE=" + modcache, "GOPROXY=" + proxy, "GOFLAGS=-mod=mod -modcacherw", "GOWORK=off", "GOTOOLCHAIN=local"}
	consumer := func(args ...string) string {
		t.Helper()
		out, err := goTry(t.Context(), dir, env, args...)
		if err != nil {
			msg := fmt.Sprintf("go %s: %v\n%s", strings.Join(args, " "), err, out)
			if os.Getenv("CI") != "" {
				t.Fatal(msg)
			}
			skipreport.Skip(t, "this machine's module cache lacks a module of adsmcp's graph and the module proxy is unreachable (CI fails here): "+msg)
		}
		return out
	}
	consumer("mod", "tidy")

	// The consumer's requirements: adsmcp and the tokenizer's modules.
	var mf struct{ Require []struct{ Path string } }
	if err := json.Unmarshal([]byte(consumer("mod", "edit", "-json")), &mf); err != nil {
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

	// The modules whose code a checkout of the consumer fetches: a zip
	// checksum in go.sum, not only a go.mod one.
	sums, err := os.ReadFile(filepath.Join(dir, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		if f := strings.Fields(line); len(f) == 3 && !strings.HasSuffix(f[1], "/go.mod") && !slices.Contains(tokenizerModules, f[0]) {
			t.Errorf("a module importing fit fetches the code of %s", f[0])
		}
	}
	// The modules whose packages it builds.
	built := consumer("list", "-deps", "-f", "{{with .Module}}{{.Path}}{{end}}", ".")
	for _, m := range strings.Fields(built) {
		if m != "example.com/consumer" && m != "github.com/adsmcp/adsmcp" && !slices.Contains(tokenizerModules, m) {
			t.Errorf("a module importing fit builds packages of %s", m)
		}
	}
	// The whole graph resolves, and from go.mod files alone: after all of the
	// above, the consumer's own module cache holds the code (a .zip) of the
	// tokenizer's modules and of no other.
	consumer("list", "-m", "all")
	download := filepath.Join(modcache, "cache", "download")
	var fetched []string
	err = filepath.WalkDir(download, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".zip" {
			return err
		}
		// cache/download/<module path>/@v/<version>.zip; the path has its
		// capitals escaped (https://go.dev/ref/mod#module-cache), which the
		// tokenizer's paths have none of.
		rel, err := filepath.Rel(download, filepath.Dir(filepath.Dir(path)))
		if err != nil {
			return err
		}
		m := filepath.ToSlash(rel)
		fetched = append(fetched, m)
		if !slices.Contains(tokenizerModules, m) {
			t.Errorf("resolving a module importing fit fetched the code of %s (%s)", m, filepath.Base(path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Building needs the tokenizer's code: not finding it would mean this
	// walk looks in the wrong place and checks nothing.
	if !slices.Contains(fetched, tokenizerModules[0]) {
		t.Errorf("the consumer's module cache holds the code of %v, not the tokenizer's: is the walk right?", fetched)
	}
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
