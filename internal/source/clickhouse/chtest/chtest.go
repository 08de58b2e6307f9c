// Package chtest gives tests a ClickHouse server to run against: the one
// .ci/setup-clickhouse starts, named by ADSMCP_TEST_CH_DSN. It lives apart
// from package clickhouse so that the production binary does not link
// `testing`, and it does not import that package so that clickhouse's own
// in-package tests can use it.
package chtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"sync/atomic"
	"testing"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/adsmcp/adsmcp/test/skipreport"
)

// DSN is the server .ci/setup-clickhouse starts; without it the tests that
// need one skip, unless ADSMCP_REQUIRE_DATABASES=1 (as in CI).
func DSN(t testing.TB) string {
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

var databases atomic.Int64

// FreshDatabase creates an empty database on the test server, dropped when
// the test ends, and returns the DSN pointing at it: tests running at once
// never see each other's tables.
func FreshDatabase(t testing.TB) string {
	t.Helper()
	dsn := DSN(t)
	name := fmt.Sprintf("adsmcp_test_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9, databases.Add(1))
	if err := exec(context.Background(), dsn, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { exec(context.Background(), dsn, "DROP DATABASE IF EXISTS "+name) }) //nolint:errcheck
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

// exec runs one statement over clickhouse-go's native protocol. The DSN's
// http_port and http_scheme are adsmcp's own parameters (for its HTTP
// loader), which clickhouse-go would send to the server as settings.
func exec(ctx context.Context, dsn, statement string) error {
	u, err := url.Parse(dsn)
	if err != nil {
		return fmt.Errorf("chtest: dsn: %w", err)
	}
	q := u.Query()
	q.Del("http_port")
	q.Del("http_scheme")
	u.RawQuery = q.Encode()
	opt, err := ch.ParseDSN(u.String())
	if err != nil {
		return fmt.Errorf("chtest: dsn: %w", err)
	}
	conn, err := ch.Open(opt)
	if err != nil {
		return fmt.Errorf("chtest: connect: %w", err)
	}
	defer conn.Close()
	if err := conn.Exec(ctx, statement); err != nil {
		return fmt.Errorf("chtest: %s: %w", statement, err)
	}
	return nil
}
