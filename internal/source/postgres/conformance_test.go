package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/postgres"
	"github.com/adsmcp/adsmcp/internal/source/postgres/pgtest"
	"github.com/adsmcp/adsmcp/internal/source/sourcetest"
)

func TestMain(m *testing.M) { os.Exit(duckdbtest.Main(m)) }

// openLoaded loads the duckdbtest demo dataset into a fresh schema of the test
// server, dropped when the test ends, and opens it as a source.
func openLoaded(t *testing.T) *postgres.Source {
	src := openFresh(t)
	start := time.Now()
	if err := postgres.LoadDemo(context.Background(), src.Pool(), duckdbtest.Config, nil); err != nil {
		t.Fatalf("load the demo dataset: %v", err)
	}
	t.Logf("loaded the test dataset in %.1fs", time.Since(start).Seconds())
	return src
}

// openFresh opens a fresh, empty schema of the test server as a source; the
// schema is dropped when the test ends.
func openFresh(t *testing.T) *postgres.Source {
	ctx := context.Background()
	schema := pgtest.FreshSchema(t, "adsmcp_test")
	src, err := postgres.Open(ctx, postgres.Options{DSN: schema})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

// The shared conformance suite: PostgreSQL answers every case exactly as the
// DuckDB warehouse does, on the same data.
func TestConformanceWithDuckDB(t *testing.T) {
	pg := openLoaded(t)
	sourcetest.Run(t, duckdbtest.Open(t), pg, duckdbtest.Now())
}

// The loader keeps the dataset's description, complete=true included.
func TestLoadKeepsDataset(t *testing.T) {
	pg := openLoaded(t)
	ctx := context.Background()
	want, err := duckdbtest.Open(t).Dataset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pg.Dataset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(want) != fmt.Sprint(got) || got["complete"] != "true" {
		t.Errorf("dataset:\nwant %v\ngot  %v", want, got)
	}
	if err := postgres.LoadDemo(ctx, pg.Pool(), duckdbtest.Config, nil); !errors.Is(err, postgres.ErrNotEmpty) {
		t.Errorf("loading twice: %v, want ErrNotEmpty", err)
	}
}

// Names in several scripts match, group and sort as in DuckDB (lower() under
// ICU, byte-order sorting).
func TestConformanceUnicode(t *testing.T) {
	sourcetest.RunUnicode(t, func(t *testing.T, produce func(context.Context, ads.Sink) error) source.Source {
		src := openFresh(t)
		if err := postgres.Load(context.Background(), src.Pool(), produce); err != nil {
			t.Fatal(err)
		}
		return src
	})
}
