package duckdb

import (
	"os"
	"strings"
	"testing"
)

var testDir string

// TestMain removes the package's shared test warehouse after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if testSource != nil {
		testSource.Close()
	}
	if testDir != "" {
		os.RemoveAll(testDir)
	}
	os.Exit(code)
}

// tempDirForPackage is a directory shared by the package's tests (t.TempDir is per
// test; the warehouse is built once).
func tempDirForPackage() (string, error) {
	var err error
	testDir, err = os.MkdirTemp("", "adsmcp-duckdb-test-")
	return testDir, err
}

func toLower(s string) string { return strings.ToLower(s) }

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}
