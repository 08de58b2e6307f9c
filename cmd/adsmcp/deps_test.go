package main

import (
	"os/exec"
	"path"
	"strings"
	"testing"
)

// testOnly says whether a package exists for tests and so has no place in the
// production binary: `testing` registers its flags and pulls in its runtime,
// httptest and the fakes (sourcetest, duckdbtest, metatest, pgtest, …) are
// helpers that every user would download and run for nothing.
func testOnly(pkg string) bool {
	switch {
	case pkg == "testing", strings.HasPrefix(pkg, "testing/"), pkg == "net/http/httptest":
		return true
	case strings.HasPrefix(pkg, "github.com/adsmcp/adsmcp/"):
		name := path.Base(pkg)
		return strings.HasSuffix(name, "test") || strings.HasPrefix(pkg, "github.com/adsmcp/adsmcp/test/")
	}
	return false
}

// testOnlyDeps is every test-only package that go list says pkg links.
func testOnlyDeps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	var found []string
	for dep := range strings.FieldsSeq(string(out)) {
		if testOnly(dep) {
			found = append(found, dep)
		}
	}
	return found
}

// The adsmcp binary links no test helpers.
func TestBinaryLinksNoTestCode(t *testing.T) {
	if found := testOnlyDeps(t, "."); len(found) > 0 {
		t.Errorf("the adsmcp binary links test-only packages %v; move test helpers to a *test package, test/ or a _test.go file", found)
	}
}

// The check sees a test helper where there is one: a test-only package links
// `testing` and itself.
func TestTestOnlyDepsSeesTestHelpers(t *testing.T) {
	found := strings.Join(testOnlyDeps(t, "github.com/adsmcp/adsmcp/internal/source/postgres/pgtest"), " ")
	for _, want := range []string{"testing", "github.com/adsmcp/adsmcp/test/skipreport", "github.com/adsmcp/adsmcp/internal/source/postgres/pgtest"} {
		if !strings.Contains(" "+found+" ", " "+want+" ") {
			t.Errorf("test-only dependencies of pgtest: %q, want %s among them", found, want)
		}
	}
	for _, pkg := range []string{"net/http/httptest", "testing/synctest", "github.com/adsmcp/adsmcp/internal/source/meta/metatest"} {
		if !testOnly(pkg) {
			t.Errorf("testOnly(%q) = false, want true", pkg)
		}
	}
	for _, pkg := range []string{"internal/synctest", "github.com/adsmcp/adsmcp/internal/source/postgres", "net/http"} {
		if testOnly(pkg) {
			t.Errorf("testOnly(%q) = true, want false", pkg)
		}
	}
}
