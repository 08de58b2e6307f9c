package clickhouse

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/skipreport"
)

// DSNForTest is the server .ci/setup-clickhouse starts; without it the tests
// that need one skip, unless ADSMCP_REQUIRE_DATABASES=1 (as in CI).
func DSNForTest(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("ADSMCP_TEST_CH_DSN")
	if dsn == "" {
		msg := "ADSMCP_TEST_CH_DSN is not set; start a server with: eval \"$(bash .ci/setup-clickhouse)\""
		if os.Getenv("ADSMCP_REQUIRE_DATABASES") == "1" {
			t.Fatal(msg + " (ADSMCP_REQUIRE_DATABASES=1)")
		}
		skipreport.Skip(t, msg)
	}
	return dsn
}

var testDatabases atomic.Int64

// FreshDatabaseForTest creates an empty database on the test server, dropped
// when the test ends, and returns the DSN pointing at it.
func FreshDatabaseForTest(t testing.TB) string {
	t.Helper()
	dsn := DSNForTest(t)
	name := fmt.Sprintf("adsmcp_test_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9, testDatabases.Add(1))
	c, err := newHTTPClient(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.do(context.Background(), "CREATE DATABASE "+name, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.do(context.Background(), "DROP DATABASE IF EXISTS "+name, nil) }) //nolint:errcheck
	return WithDatabase(dsn, name)
}

// WithDatabase is dsn pointing at database name.
func WithDatabase(dsn, name string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn
	}
	u.Path = "/" + name
	return u.String()
}
