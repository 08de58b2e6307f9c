package postgres

import (
	"os"
	"strings"
	"testing"
)

// DSNForTest is the server .ci/setup-postgres starts; without it the tests that
// need one skip, unless ADSMCP_REQUIRE_DATABASES=1 (as in CI).
func DSNForTest(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("ADSMCP_TEST_PG_DSN")
	if dsn == "" {
		msg := "ADSMCP_TEST_PG_DSN is not set; start a server with: eval \"$(bash .ci/setup-postgres)\""
		if os.Getenv("ADSMCP_REQUIRE_DATABASES") == "1" {
			t.Fatal(msg + " (ADSMCP_REQUIRE_DATABASES=1)")
		}
		t.Skip(msg)
	}
	return dsn
}

// WithSearchPath is dsn with its tables looked up in schema.
func WithSearchPath(dsn, schema string) string {
	if strings.Contains(dsn, "://") {
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		return dsn + sep + "search_path=" + schema
	}
	return dsn + " search_path=" + schema
}
