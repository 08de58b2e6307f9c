package clickhouse

import (
	"context"
	"slices"
	"strings"
	"testing"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/source/clickhouse/chtest"
	"github.com/adsmcp/adsmcp/internal/source/migration/migrationtest"
	"github.com/adsmcp/adsmcp/internal/source/sourcetest"
)

// The sync conformance suite on ClickHouse, which has no transactions: each
// table's rows are swapped atomically, one table after the other (sync.go).
func TestSyncConformance(t *testing.T) {
	sourcetest.RunSync(t, sourcetest.SyncWarehouse{Fresh: func(t *testing.T) sourcetest.SyncTestTarget {
		return syncDatabase{importDatabase(chtest.FreshDatabase(t))}
	}})
}

type syncDatabase struct{ importDatabase }

func (d syncDatabase) LoadDemo(ctx context.Context, cfg demo.Config) error {
	return LoadDemo(ctx, string(d.importDatabase), cfg, nil)
}

func (d syncDatabase) Open(t *testing.T) (sourcetest.SyncSource, func(importer.SyncOptions) importer.SyncTarget) {
	t.Helper()
	ctx := context.Background()
	open := func(opt importer.SyncOptions) importer.SyncTarget {
		target, err := OpenSync(ctx, string(d.importDatabase), opt)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { target.Close() })
		return target
	}
	open(importer.SyncOptions{}) // the tables, for the source
	src, err := Open(ctx, Options{DSN: string(d.importDatabase)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src, open
}

// Version 3 (sync_state) is not needed by reads: the server opens a version
// 2 warehouse (with Meta's device rows: nothing for version 4 to derive) as
// it is, with no sync states; adsmcp migrate then applies version 3 and
// version 4, which writes nothing: every row kept.
func TestMigrateAppliesVersion3(t *testing.T) {
	ctx := context.Background()
	dsn, c := loadedForTest(t)
	migrationtest.Declare(t)
	mustDo(t, c, "DROP TABLE sync_state")
	mustDo(t, c, "ALTER TABLE adsmcp_schema DELETE WHERE version > 2")
	// The delete is a mutation, applied in the background: wait for it.
	s := &importStore{c: c, db: ch.OpenDB(c.e.native)}
	defer s.db.Close()
	if err := s.waitMutations(ctx); err != nil {
		t.Fatal(err)
	}
	cols := columnsOf(t, c)
	sum := checksumOf(t, c, cols)
	src, err := openForTest(t, dsn)
	if err != nil {
		t.Fatalf("open the version 2 layout: %v", err)
	}
	if states, err := src.SyncStates(ctx); err != nil || len(states) != 0 {
		t.Errorf("sync states without sync_state: %v, %v", states, err)
	}
	if got := recordedVersions(t, c); !slices.Equal(got, []string{"1", "2"}) {
		t.Fatalf("recorded %v before the migration", got)
	}
	res, err := Migrate(ctx, dsn)
	if err != nil || !slices.Equal(res.Applied, migrationtest.After(2)) || res.String() != migrationtest.MigratedFrom(2) {
		t.Fatalf("migrate: applied %v, %q, %v; want %v and %q", res.Applied, res, err, migrationtest.After(2), migrationtest.MigratedFrom(2))
	}
	if got := recordedVersions(t, c); !slices.Equal(got, migrationtest.Recorded()) {
		t.Errorf("recorded %v, want %v", got, migrationtest.Recorded())
	}
	if got := checksumOf(t, c, cols); got != sum {
		t.Errorf("the migration changed the data:\n%s\nwant\n%s", got, sum)
	}
	if n := strings.TrimSpace(mustDo(t, c, "SELECT count() FROM sync_state")); n != "0" {
		t.Errorf("%s sync states after the migration", n)
	}
}
