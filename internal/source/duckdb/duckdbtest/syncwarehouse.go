package duckdbtest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
	"github.com/adsmcp/adsmcp/internal/source/sourcetest"
)

// SyncWarehouse is DuckDB under the sync conformance suite
// (sourcetest.RunSync): each warehouse a new file, opened read-write
// (duckdb.OpenWritable) and synced on the source's own handle, as a server
// that syncs its warehouse does.
func SyncWarehouse() sourcetest.SyncWarehouse {
	return sourcetest.SyncWarehouse{Transactional: true, Fresh: func(t *testing.T) sourcetest.SyncTestTarget {
		return &syncFile{path: filepath.Join(t.TempDir(), "synced.duckdb")}
	}}
}

type syncFile struct {
	path string
	src  *duckdb.Source
}

func (f *syncFile) LoadDemo(ctx context.Context, cfg demo.Config) error {
	return importFile(f.path).LoadDemo(ctx, cfg)
}

func (f *syncFile) Open(t *testing.T) (sourcetest.SyncSource, func(importer.SyncOptions) importer.SyncTarget) {
	t.Helper()
	src, err := duckdb.OpenWritable(context.Background(), f.path, duckdb.Options{NoDemoFill: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	f.src = src
	return src, func(opt importer.SyncOptions) importer.SyncTarget {
		target, err := src.SyncTarget(opt)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { target.Close() })
		return target
	}
}

func (f *syncFile) Count(t *testing.T, query string) int64 {
	t.Helper()
	var n int64
	if err := f.src.DB().QueryRow(query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}
