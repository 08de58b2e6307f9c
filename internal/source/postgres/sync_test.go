package postgres_test

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/source/migration/migrationtest"
	"github.com/adsmcp/adsmcp/internal/source/postgres"
	"github.com/adsmcp/adsmcp/internal/source/sourcetest"
)

// The sync conformance suite on PostgreSQL: a reader on its own
// connections, a sync in one transaction per chunk.
func TestSyncConformance(t *testing.T) {
	sourcetest.RunSync(t, sourcetest.SyncWarehouse{Transactional: true, Fresh: func(t *testing.T) sourcetest.SyncTestTarget {
		return syncSchema{freshSchema(t)}
	}})
}

type syncSchema struct{ pool *pgxpool.Pool }

func (s syncSchema) LoadDemo(ctx context.Context, cfg demo.Config) error {
	return postgres.LoadDemo(ctx, s.pool, cfg, nil)
}

func (s syncSchema) Open(t *testing.T) (sourcetest.SyncSource, func(importer.SyncOptions) importer.SyncTarget) {
	t.Helper()
	ctx := context.Background()
	// The tables first: the source reads a warehouse, empty or not.
	if err := s.create(ctx); err != nil {
		t.Fatal(err)
	}
	src, err := postgres.Open(ctx, postgres.Options{DSN: s.pool.Config().ConnString()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src, func(opt importer.SyncOptions) importer.SyncTarget {
		target, err := postgres.OpenSync(ctx, s.pool, opt)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { target.Close() })
		return target
	}
}

// create makes the warehouse's tables as a sync's first write does: the
// state of a failure recorded before any chunk, written in an empty schema.
func (s syncSchema) create(ctx context.Context) error {
	target, err := postgres.OpenSync(ctx, s.pool, importer.SyncOptions{})
	if err != nil {
		return err
	}
	defer target.Close()
	if err := target.RecordFailure(ctx, importer.SyncState{AccountID: "none", Platform: "none"}); err != nil {
		return err
	}
	_, err = s.pool.Exec(ctx, `DELETE FROM sync_state`)
	return err
}

func (s syncSchema) Count(t *testing.T, query string) int64 { return count(t, s.pool, query) }

// Version 3 (sync_state) is not needed by reads: the server opens a version
// 2 warehouse (with Meta's device rows: nothing for version 4 to derive) as
// it is, with no sync states; adsmcp migrate then applies version 3 and
// version 4, which writes nothing: every row kept.
func TestMigrateAppliesVersion3(t *testing.T) {
	ctx := context.Background()
	pool := openLoaded(t).Pool()
	// Only version 3 is under test.
	migrationtest.Declare(t)
	if _, err := pool.Exec(ctx, `DROP TABLE sync_state; DELETE FROM adsmcp_schema WHERE version > 2`); err != nil {
		t.Fatal(err)
	}
	cols := columnsOf(t, pool)
	sum := checksumOf(t, pool, cols)
	src, err := openSource(t, pool.Config().ConnString())
	if err != nil {
		t.Fatalf("open the version 2 layout: %v", err)
	}
	if states, err := src.SyncStates(ctx); err != nil || len(states) != 0 {
		t.Errorf("sync states without sync_state: %v, %v", states, err)
	}
	if got := recorded(t, pool); !slices.Equal(got, []string{"1", "2"}) {
		t.Fatalf("opening recorded %v", got)
	}
	res, err := postgres.Migrate(ctx, pool)
	if err != nil || !slices.Equal(res.Applied, migrationtest.After(2)) || res.String() != migrationtest.MigratedFrom(2) {
		t.Fatalf("migrate: applied %v, %q, %v; want %v and %q", res.Applied, res, err, migrationtest.After(2), migrationtest.MigratedFrom(2))
	}
	if got := recorded(t, pool); !slices.Equal(got, migrationtest.Recorded()) {
		t.Errorf("recorded %v, want %v", got, migrationtest.Recorded())
	}
	if got := checksumOf(t, pool, cols); got != sum {
		t.Errorf("the migration changed the data:\n%s\nwant\n%s", got, sum)
	}
	if states, err := src.SyncStates(ctx); err != nil || len(states) != 0 {
		t.Errorf("sync states after the migration: %v, %v", states, err)
	}
}
