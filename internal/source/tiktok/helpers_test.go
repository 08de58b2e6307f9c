package tiktok

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/live"
	"github.com/adsmcp/adsmcp/internal/source/sourcetest"
	"github.com/adsmcp/adsmcp/internal/source/tiktok/tiktoktest"
)

func TestMain(m *testing.M) { os.Exit(duckdbtest.Main(m)) }

// fixture is a fake API and a connector to it, with the connector's log.
type fixture struct {
	srv  *tiktoktest.Server
	conn *Connector
	log  *sourcetest.SyncBuffer
}

// newFixture starts a fake and a connector (listing advertisers with the
// app's credentials) with fast test timings; mod may change the options.
func newFixture(t *testing.T, mod func(*Options)) *fixture {
	t.Helper()
	srv := tiktoktest.New(t)
	f := &fixture{srv: srv, log: &sourcetest.SyncBuffer{}}
	opts := Options{
		BaseURL: srv.URL, AccessToken: srv.Token(), AppID: srv.AppID(), AppSecret: srv.AppSecret(),
		RequestsPerSecond: 5000, RetryBaseDelay: 2 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(f.log, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if mod != nil {
		mod(&opts)
	}
	conn, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	f.conn = conn
	t.Cleanup(func() {
		for _, secret := range []string{srv.Token(), srv.AppSecret()} {
			if strings.Contains(f.log.String(), secret) {
				t.Errorf("a secret appears in the connector's log")
			}
		}
	})
	return f
}

func (f *fixture) accounts(t *testing.T) []ads.Account {
	t.Helper()
	accts, err := f.conn.Accounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return accts
}

func normalize(t *testing.T, accounts []ads.Account, raw string) *query.Query {
	t.Helper()
	q, err := query.ParseAndNormalize([]byte(raw), query.Options{Accounts: accounts, Now: duckdbtest.Now, MaxAccounts: 20})
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return q
}

func csvOf(t *testing.T, tab *fit.Table) string {
	t.Helper()
	var b bytes.Buffer
	if err := fit.WriteCSV(&b, tab); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// warehouseCSV is the test warehouse's answer to q.
func warehouseCSV(t *testing.T, q *query.Query) string {
	t.Helper()
	want, err := duckdbtest.Open(t).Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return csvOf(t, want)
}

// run answers q through the live source over the connector, counting calls.
func (f *fixture) run(ctx context.Context, t *testing.T, q *query.Query) (string, int, error) {
	t.Helper()
	calls := &source.Calls{}
	tab, err := live.New(nil, f.conn).Query(source.WithCalls(ctx, calls), q)
	if err != nil {
		return "", calls.N(), err
	}
	return csvOf(t, tab), calls.N(), nil
}

// reports are the report requests received.
func reports(reqs []tiktoktest.Request) []tiktoktest.Request {
	var out []tiktoktest.Request
	for _, r := range reqs {
		if strings.HasSuffix(r.Path, "/report/integrated/get/") {
			out = append(out, r)
		}
	}
	return out
}

// failedAccounts unwraps the per-account failures of a query.
func failedAccounts(t *testing.T, err error) *source.AccountsError {
	t.Helper()
	var ae *source.AccountsError
	if !errors.As(err, &ae) {
		t.Fatalf("want a *source.AccountsError, got %T: %v", err, err)
	}
	return ae
}
