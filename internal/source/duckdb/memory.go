package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"log/slog"

	"github.com/adsmcp/adsmcp/internal/ads"
)

// OpenMemory returns a warehouse held in memory, filled by produce through the
// same bulk loader as the demo data, and answering queries with the same SQL as
// the warehouse file. The ad-platform connectors stage what a query needs in one,
// so an API's rows get exactly the warehouse's semantics: grains, ratios from
// summed parts, metric filters, reach only where it is exact, deterministic
// order. Close it when done.
func OpenMemory(ctx context.Context, produce func(context.Context, ads.Sink) error) (*Source, error) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, fmt.Errorf("open in-memory warehouse: %w", err)
	}
	// One connection: an in-memory database lives as long as the sql.DB, and the
	// loader's temporary staging tables belong to the connection that made them.
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open in-memory warehouse: %w", err)
	}
	l := &loader{ctx: ctx}
	err = conn.Raw(func(dc any) error {
		c, ok := dc.(driver.Conn)
		if !ok {
			return fmt.Errorf("duckdb: unexpected driver connection %T", dc)
		}
		l.conn = c
		return l.load(produce)
	})
	conn.Close()
	if err != nil {
		db.Close()
		return nil, err
	}
	return newSource(&Source{db: db, path: ":memory:", logger: slog.New(slog.DiscardHandler)}, false, ""), nil
}
