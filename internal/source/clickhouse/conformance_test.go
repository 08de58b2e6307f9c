package clickhouse_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/clickhouse"
	"github.com/adsmcp/adsmcp/internal/source/clickhouse/chtest"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/sourcetest"
)

func TestMain(m *testing.M) { os.Exit(duckdbtest.Main(m)) }

// openLoaded loads the duckdbtest demo dataset into a fresh database of the
// test server, dropped when the test ends, and opens it as a source.
func openLoaded(t *testing.T) (*clickhouse.Source, string) {
	dsn := chtest.FreshDatabase(t)
	ctx := context.Background()
	start := time.Now()
	if err := clickhouse.LoadDemo(ctx, dsn, duckdbtest.Config, nil); err != nil {
		t.Fatalf("load the demo dataset: %v", err)
	}
	t.Logf("loaded the test dataset in %.1fs", time.Since(start).Seconds())
	src, err := clickhouse.Open(ctx, clickhouse.Options{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src, dsn
}

// The shared conformance suite: ClickHouse answers every case exactly as the
// DuckDB warehouse does, on the same data.
func TestConformanceWithDuckDB(t *testing.T) {
	ch, _ := openLoaded(t)
	sourcetest.Run(t, duckdbtest.Open(t), ch, duckdbtest.Now())
}

// The loader keeps the dataset's description, complete=true included, and
// refuses to load twice.
func TestLoadKeepsDataset(t *testing.T) {
	ch, dsn := openLoaded(t)
	ctx := context.Background()
	want, err := duckdbtest.Open(t).Dataset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ch.Dataset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(want) != fmt.Sprint(got) || got["complete"] != "true" {
		t.Errorf("dataset:\nwant %v\ngot  %v", want, got)
	}
	if err := clickhouse.LoadDemo(ctx, dsn, duckdbtest.Config, nil); !errors.Is(err, clickhouse.ErrNotEmpty) {
		t.Errorf("loading twice: %v, want ErrNotEmpty", err)
	}
}

// Names in several scripts match, group and sort as in DuckDB.
func TestConformanceUnicode(t *testing.T) {
	sourcetest.RunUnicode(t, func(t *testing.T, produce func(context.Context, ads.Sink) error) source.Source {
		dsn := chtest.FreshDatabase(t)
		if err := clickhouse.Load(context.Background(), dsn, produce); err != nil {
			t.Fatal(err)
		}
		src, err := clickhouse.Open(context.Background(), clickhouse.Options{DSN: dsn})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { src.Close() })
		return src
	})
}
