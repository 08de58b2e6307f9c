package meta

import (
	"bytes"
	"context"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/live"
	"github.com/adsmcp/adsmcp/internal/source/meta/metatest"
	"github.com/adsmcp/adsmcp/internal/source/sourcetest"
)

func TestMain(m *testing.M) { os.Exit(duckdbtest.Main(m)) }

// fixture is a fake API and a connector to it, with the connector's log.
type fixture struct {
	srv  *metatest.Server
	conn *Connector
	log  *sourcetest.SyncBuffer
}

// newFixture starts a fake and a connector with fast test timings; mod may
// change the options.
func newFixture(t *testing.T, mod func(*Options)) *fixture {
	t.Helper()
	srv := metatest.New(t)
	f := &fixture{srv: srv, log: &sourcetest.SyncBuffer{}}
	opts := Options{
		BaseURL: srv.URL, AccessToken: srv.Token(), RequestsPerSecond: 2000,
		RetryBaseDelay: 5 * time.Millisecond, PollInterval: 2 * time.Millisecond,
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
		if strings.Contains(f.log.String(), srv.Token()) {
			t.Errorf("the access token appears in the connector's log")
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

// paths are the distinct request paths, in order of first use.
func requestsTo(reqs []metatest.Request, suffix, method string) []metatest.Request {
	var out []metatest.Request
	for _, r := range reqs {
		if strings.HasSuffix(r.Path, suffix) && (method == "" || r.Method == method) {
			out = append(out, r)
		}
	}
	return out
}

// redactedParams are request parameters fit for a test failure message.
func redactedParams(p url.Values) url.Values {
	c := url.Values{}
	for k, v := range p {
		c[k] = v
	}
	if c.Has("access_token") {
		c.Set("access_token", "[redacted]")
	}
	return c
}

// compileQuery is the Insights requests' shape of q, as a query's fetch
// compiles it (live.PlanFor, then the connector's compile).
func compileQuery(c *Connector, q *query.Query) (*fetchPlan, error) {
	lp, err := live.PlanFor(q, c.Platform())
	if err != nil {
		return nil, err
	}
	return c.compile(lp)
}
