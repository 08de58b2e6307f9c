// Package enginebench holds BenchmarkEngines: the same queries on the same
// demo warehouse in DuckDB, PostgreSQL and ClickHouse, timed in one run as
// ratios against DuckDB (docs/scaling.md). It has no code of its own.
package enginebench
