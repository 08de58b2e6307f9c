package clickhouse

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/source/clickhouse/chtest"
)

func openEmpty(t *testing.T) *Source {
	t.Helper()
	dsn := chtest.FreshDatabase(t)
	s, err := Open(context.Background(), Options{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// adsmcp's reads cannot write, whatever the user may do.
func TestReadsAreReadOnly(t *testing.T) {
	s := openEmpty(t)
	_, err := s.db.ExecContext(s.settings(context.Background()), "CREATE TABLE adsmcp_write_probe (a Int8) ENGINE = Memory")
	if err == nil || !strings.Contains(err.Error(), "readonly") {
		t.Fatalf("a write under the source's settings: %v, want a readonly refusal", err)
	}
}

// A query runs no longer than the call's deadline: the context cancels it.
func TestDeadlineStopsAQuery(t *testing.T) {
	s := openEmpty(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	rows, err := s.db.QueryContext(s.settings(ctx), "SELECT count() FROM numbers(100000000000)")
	if err == nil {
		for rows.Next() {
		}
		err = rows.Err()
		rows.Close()
	}
	if err == nil {
		t.Fatal("a 100-billion-row count finished within 300 ms")
	}
	if d := time.Since(start); d > 1300*time.Millisecond {
		t.Errorf("the query ran %v past a 300 ms deadline", d)
	}
}

func TestTimeoutSeconds(t *testing.T) {
	now := time.Now()
	ctx, cancel := context.WithDeadline(context.Background(), now.Add(2100*time.Millisecond))
	defer cancel()
	if got := timeoutSeconds(ctx, time.Minute, now); got != 3 {
		t.Errorf("2.1 s left: %d, want 3 (rounded up; the context cancels sooner)", got)
	}
	past, cancel2 := context.WithDeadline(context.Background(), now.Add(-time.Second))
	defer cancel2()
	if got := timeoutSeconds(past, 0, now); got != 1 {
		t.Errorf("past deadline: %d, want 1 (0 would mean no limit)", got)
	}
	if got := timeoutSeconds(context.Background(), 1500*time.Millisecond, now); got != 2 {
		t.Errorf("default 1.5 s: %d, want 2", got)
	}
	if got := timeoutSeconds(context.Background(), 0, now); got != 0 {
		t.Errorf("no deadline, no default: %d, want 0", got)
	}
}

// Case-insensitive filters lower all of Latin, Greek and Cyrillic, as DuckDB
// does, not only ASCII.
func TestLowerIsUnicode(t *testing.T) {
	s := openEmpty(t)
	var got string
	err := s.db.QueryRowContext(s.settings(context.Background()), "SELECT lowerUTF8(?)", "ÉCOLE Ñandú ÀÖ ΣΟΦΙΑ ЖУРНАЛ").Scan(&got)
	if err != nil {
		t.Fatal(err)
	}
	if want := "école ñandú àö σοφια журнал"; got != want {
		t.Errorf("lowerUTF8: %q, want %q", got, want)
	}
}

func TestParseDSN(t *testing.T) {
	e, err := parseDSN("clickhouse://ads:s3cret@db.internal:9440/warehouse?http_port=8443&http_scheme=https&dial_timeout=5s")
	if err != nil {
		t.Fatal(err)
	}
	if e.httpURL != "https://db.internal:8443/" || e.user != "ads" || e.password != "s3cret" || e.database != "warehouse" {
		t.Errorf("endpoints: %+v", e)
	}
	if _, ok := e.native.Settings["http_port"]; ok {
		t.Error("http_port was passed to the server as a setting")
	}
	if e.native.DialTimeout != 5*time.Second {
		t.Errorf("dial_timeout: %v", e.native.DialTimeout)
	}
	e, err = parseDSN("clickhouse://db:9000")
	if err != nil || e.httpURL != "http://db:8123/" || e.user != "default" || e.database != "default" {
		t.Errorf("defaults: %+v, %v", e, err)
	}
	for _, bad := range []string{"postgres://u:pw@h/db", "clickhouse:///nohost", "clickhouse://h:9000/db?http_scheme=ftp", "::"} {
		_, err := parseDSN(bad)
		if err == nil {
			t.Errorf("%q: no error", bad)
			continue
		}
		if strings.Contains(err.Error(), "pw") {
			t.Errorf("%q: the error shows the password: %v", bad, err)
		}
	}
	if got := Redact("clickhouse://u:topsecret@h:9000/db"); strings.Contains(got, "topsecret") {
		t.Errorf("Redact: %s", got)
	}
}

// A failed load leaves no table behind: whether it fails before any fact or
// in the middle of streaming them.
func TestFailedLoadLeavesNothing(t *testing.T) {
	ctx := context.Background()
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	broke := errors.New("the producer broke")
	for name, produce := range map[string]func(context.Context, ads.Sink) error{
		"unknown account": func(ctx context.Context, sink ads.Sink) error {
			return sink.Fact(&ads.Fact{AccountID: "act_unknown", Date: day})
		},
		"mid-stream": func(ctx context.Context, sink ads.Sink) error {
			if err := sink.Account(ads.Account{AccountID: "act_1", Platform: "meta_ads", AccountName: "A", Currency: "USD"}); err != nil {
				return err
			}
			for i := range 50000 {
				if err := sink.Fact(&ads.Fact{AccountID: "act_1", Date: day.AddDate(0, 0, i%300), Measures: [catalog.NumMeasures]float64{catalog.Spend: 1}}); err != nil {
					return err
				}
			}
			return broke
		},
	} {
		t.Run(name, func(t *testing.T) {
			dsn := chtest.FreshDatabase(t)
			err := Load(ctx, dsn, produce)
			if err == nil || !(errors.Is(err, broke) || strings.Contains(err.Error(), "act_unknown")) {
				t.Fatalf("load: %v", err)
			}
			c, _ := newHTTPClient(dsn)
			out, err := c.do(ctx, "SELECT count() FROM system.tables WHERE database = currentDatabase()", nil)
			if err != nil {
				t.Fatal(err)
			}
			if strings.TrimSpace(out) != "0" {
				t.Errorf("%s tables left after a failed load", strings.TrimSpace(out))
			}
		})
	}
}
