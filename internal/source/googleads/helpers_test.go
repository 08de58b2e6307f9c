package googleads

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/googleads/googleadstest"
	"github.com/adsmcp/adsmcp/internal/source/live"
	"github.com/adsmcp/adsmcp/internal/source/sourcetest"
)

func TestMain(m *testing.M) { os.Exit(duckdbtest.Main(m)) }

// harness is a fake API with a connector to it.
type harness struct {
	fake *googleadstest.Server
	conn *Connector
	logs *sourcetest.SyncBuffer
}

// newHarness starts a fake and a connector with fast retries; mod adjusts the
// connector's options.
func newHarness(t *testing.T, cfg googleadstest.Config, mod ...func(*Options)) *harness {
	t.Helper()
	fake := googleadstest.Start(t, cfg)
	logs := &sourcetest.SyncBuffer{}
	opts := Options{
		BaseURL:        fake.URL,
		TokenURL:       fake.TokenURL,
		ClientID:       googleadstest.ClientID,
		ClientSecret:   googleadstest.ClientSecret,
		RefreshToken:   googleadstest.RefreshToken,
		RetryBaseDelay: 5 * time.Millisecond,
		// No rate limit unless a test sets one: scenarios time themselves.
		RequestsPerSecond: -1,
		Logger:            slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	for _, m := range mod {
		m(&opts)
	}
	conn, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return &harness{fake: fake, conn: conn, logs: logs}
}

// accounts lists the connector's accounts (failing the test on error).
func (h *harness) accounts(t *testing.T) []ads.Account {
	t.Helper()
	accts, err := h.conn.Accounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return accts
}

// normalize normalizes raw query arguments against accts, on the test data's clock.
func normalize(t *testing.T, accts []ads.Account, raw string) *query.Query {
	t.Helper()
	q, err := query.ParseAndNormalize([]byte(raw), query.Options{Accounts: accts, Now: duckdbtest.Now})
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return q
}

// compileQuery is the GAQL plan of q as a query's fetch makes it: the live
// source's plan (live.PlanFor), mapped onto GAQL.
func compileQuery(q *query.Query) (*plan, error) {
	lp, err := live.PlanFor(q, Platform)
	if err != nil {
		return nil, err
	}
	return compile(lp)
}

func csvOf(t *testing.T, tab *fit.Table) string {
	t.Helper()
	var b bytes.Buffer
	if err := fit.WriteCSV(&b, tab); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// firstDiff shows where two CSV texts part.
func firstDiff(a, b string) string {
	la, lb := bytes.Split([]byte(a), []byte("\n")), bytes.Split([]byte(b), []byte("\n"))
	for i := range min(len(la), len(lb)) {
		if !bytes.Equal(la[i], lb[i]) {
			return "line " + itoa(i+1) + ":\n  want " + string(la[i]) + "\n  got  " + string(lb[i])
		}
	}
	return "lengths " + itoa(len(la)) + " vs " + itoa(len(lb))
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	if n == 0 {
		return "0"
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
