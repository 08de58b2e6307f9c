package clickhouse

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/source/clickhouse/chtest"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/sourcetest"
)

// The import conformance suite: ClickHouse imports as DuckDB does, report for
// report and answer for answer, though it has no transactions.
func TestImportConformance(t *testing.T) {
	sourcetest.RunImport(t, sourcetest.ImportWarehouse{NamesPerFact: true, Fresh: func(t *testing.T) sourcetest.ImportTarget {
		return importDatabase(chtest.FreshDatabase(t))
	}}, duckdbtest.ImportWarehouse())
}

// importDatabase is a fresh database (its DSN) under the import suite.
type importDatabase string

func (d importDatabase) Name() string { return Redact(string(d)) }

func (d importDatabase) Import(ctx context.Context, exports []*importer.Export, opt importer.WriteOptions) (*importer.WriteResult, error) {
	return Import(ctx, string(d), exports, opt)
}

func (d importDatabase) LoadDemo(ctx context.Context, cfg demo.Config) error {
	return LoadDemo(ctx, string(d), cfg, nil)
}

func (d importDatabase) Open(t *testing.T) sourcetest.DatasetSource {
	t.Helper()
	src, err := Open(context.Background(), Options{DSN: string(d)})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func (d importDatabase) do(t *testing.T, query string) string {
	t.Helper()
	c, err := newHTTPClient(string(d))
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.do(context.Background(), query, nil)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return out
}

// Snapshot hashes every table's rows, sorted (MergeTree keeps no insertion
// order).
func (d importDatabase) Snapshot(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, table := range append(slices.Clone(tables), "imports") {
		sum := "none"
		if strings.TrimSpace(d.do(t, "SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = "+literal(table))) == "1" {
			lines := strings.Split(d.do(t, "SELECT * FROM "+table+" FORMAT TSV"), "\n")
			slices.Sort(lines)
			h := sha256.Sum256([]byte(strings.Join(lines, "\n")))
			sum = hex.EncodeToString(h[:8])
		}
		fmt.Fprintf(&b, "%s=%s ", table, sum)
	}
	return b.String()
}

func (d importDatabase) Count(t *testing.T, query string) int64 {
	t.Helper()
	out := strings.TrimSpace(d.do(t, query))
	n, err := strconv.ParseInt(out, 10, 64)
	if err != nil {
		t.Fatalf("%s: %q: %v", query, out, err)
	}
	return n
}
