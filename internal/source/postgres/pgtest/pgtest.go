// Package pgtest gives tests a PostgreSQL server to run against: the one
// .ci/setup-postgres starts, named by ADSMCP_TEST_PG_DSN. It lives apart from
// package postgres so that the production binary does not link `testing`.
package pgtest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/adsmcp/adsmcp/test/skipreport"
)

// DSN is the server .ci/setup-postgres starts; without it the tests that
// need one skip, unless ADSMCP_REQUIRE_DATABASES=1 (as in CI).
func DSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("ADSMCP_TEST_PG_DSN")
	if dsn == "" {
		msg := "ADSMCP_TEST_PG_DSN is not set; start a server with: eval \"$(bash .ci/setup-postgres)\""
		if os.Getenv("ADSMCP_REQUIRE_DATABASES") == "1" {
			t.Fatal(msg + " (ADSMCP_REQUIRE_DATABASES=1)")
		}
		skipreport.Skip(t, msg)
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

var schemas atomic.Int64

// FreshSchema creates an empty schema named prefix_PID_N on the test server,
// dropped (with everything in it) when the test ends, and returns the DSN
// whose search_path is it: tests running at once never see each other's
// tables.
func FreshSchema(t testing.TB, prefix string) string {
	t.Helper()
	dsn := DSN(t)
	ctx := context.Background()
	admin, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	schema := fmt.Sprintf("%s_%d_%d_%d", prefix, os.Getpid(), time.Now().UnixNano()%1e9, schemas.Add(1))
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p, err := pgxpool.New(context.Background(), dsn); err == nil {
			p.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE") //nolint:errcheck
			p.Close()
		}
	})
	return WithSearchPath(dsn, schema)
}
