package postgres

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/adsmcp/adsmcp/internal/source/postgres/pgtest"
	"github.com/adsmcp/adsmcp/internal/source/sqlgen"
)

func openTest(t *testing.T) *Source {
	t.Helper()
	s, err := Open(context.Background(), Options{DSN: pgtest.DSN(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Queries run read-only: even a statement that would write is refused.
func TestReadIsReadOnly(t *testing.T) {
	s := openTest(t)
	err := s.read(context.Background(), func(tx pgx.Tx) error {
		_, err := tx.Exec(context.Background(), "CREATE TEMP TABLE t (x int)")
		return err
	})
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "25006" { // read_only_sql_transaction
		t.Fatalf("a write in a query transaction: %v, want SQLSTATE 25006", err)
	}
}

// The server itself stops a statement when the call's deadline passes, so a
// slow query does not outlive the call that asked for it.
func TestStatementTimeoutFollowsDeadline(t *testing.T) {
	s := openTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var setting string
	start := time.Now()
	err := s.read(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, "SHOW statement_timeout").Scan(&setting); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "SELECT pg_sleep(5)")
		return err
	})
	if err == nil {
		t.Fatal("pg_sleep(5) finished within a 300 ms deadline")
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("took %v", el)
	}
	if setting == "" || setting == "0" {
		t.Errorf("statement_timeout = %q, want about 300ms", setting)
	}
	// Without a deadline the configured default applies.
	s.timeout = 1234 * time.Millisecond
	err = s.read(context.Background(), func(tx pgx.Tx) error {
		return tx.QueryRow(context.Background(), "SHOW statement_timeout").Scan(&setting)
	})
	if err != nil || setting != "1234ms" {
		t.Errorf("default timeout: %q, %v", setting, err)
	}
}

// Case-insensitive matching lowers all of Unicode, as DuckDB does, even on a
// server whose locale is C.
func TestLowerIsUnicode(t *testing.T) {
	s := openTest(t)
	var got string
	err := s.read(context.Background(), func(tx pgx.Tx) error {
		return tx.QueryRow(context.Background(), "SELECT "+(sqlgen.Postgres{}).Lower("$1::text"), "ÉCOLE Ñandú ÀÖ").Scan(&got)
	})
	if err != nil || got != "école ñandú àö" {
		t.Errorf("lower: %q, %v", got, err)
	}
}
