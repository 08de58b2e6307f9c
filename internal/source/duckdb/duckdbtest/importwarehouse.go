package duckdbtest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
	"github.com/adsmcp/adsmcp/internal/source/sourcetest"
)

// ImportWarehouse is DuckDB under the import conformance suite
// (sourcetest.RunImport): each warehouse a new file of the test's temporary
// directory. It is also the suite's reference for the other warehouses.
func ImportWarehouse() sourcetest.ImportWarehouse {
	return sourcetest.ImportWarehouse{Fresh: func(t *testing.T) sourcetest.ImportTarget {
		return importFile(filepath.Join(t.TempDir(), "imported.duckdb"))
	}}
}

// importFile is a DuckDB warehouse file under the import suite.
type importFile string

func (f importFile) Name() string { return string(f) }

func (f importFile) Import(ctx context.Context, exports []*importer.Export, opt importer.WriteOptions) (*importer.WriteResult, error) {
	return duckdb.Import(ctx, string(f), exports, opt)
}

func (f importFile) LoadDemo(ctx context.Context, cfg demo.Config) error {
	db, err := sql.Open("duckdb", string(f))
	if err != nil {
		return err
	}
	defer db.Close()
	return duckdb.Load(ctx, db, cfg, nil)
}

func (f importFile) Open(t *testing.T) sourcetest.DatasetSource {
	t.Helper()
	src, err := duckdb.Open(context.Background(), string(f), duckdb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// readOnly opens the file read-only (nil when it does not exist), closed
// when the test ends.
func (f importFile) readOnly(t *testing.T) *sql.DB {
	t.Helper()
	if _, err := os.Stat(string(f)); err != nil {
		return nil
	}
	db, err := sql.Open("duckdb", string(f)+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func (f importFile) Snapshot(t *testing.T) string {
	t.Helper()
	db := f.readOnly(t)
	if db == nil {
		return "no file"
	}
	defer db.Close()
	var b strings.Builder
	for _, table := range []string{"dataset", "accounts", "campaigns", "adsets", "ads", "facts", "reach", "imports"} {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM duckdb_tables() WHERE table_name = ? AND schema_name = 'main'`, table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		sum := "none"
		if n > 0 {
			q := `SELECT md5(coalesce(string_agg(t::VARCHAR, chr(10) ORDER BY t::VARCHAR), '')) FROM ` + table + ` t`
			if err := db.QueryRow(q).Scan(&sum); err != nil {
				t.Fatal(err)
			}
		}
		fmt.Fprintf(&b, "%s=%s ", table, sum)
	}
	return b.String()
}

func (f importFile) Count(t *testing.T, query string) int64 {
	t.Helper()
	db := f.readOnly(t)
	if db == nil {
		t.Fatalf("%s: no warehouse file", query)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRow(query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}
