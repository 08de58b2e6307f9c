package migration

// VersionTable holds one row per version applied (or recognised) in the
// warehouse; the highest is the warehouse's version.
const VersionTable = "adsmcp_schema"

// factsTable is the table the final step adds columns to; a warehouse
// without it holds no warehouse yet (or had its tables dropped).
const factsTable = "facts"

// Dialect is the SQL the runner needs from one engine: how to look at the
// warehouse (which tables, which fact columns, which versions) and how to
// write the version table and a new column. Every query returns one text
// column.
type Dialect struct {
	// Name picks a Column's type ("duckdb", "postgres", "clickhouse").
	Name string
	// Tables lists the tables where the warehouse's unqualified names resolve.
	Tables string
	// FactColumns lists the columns of table facts.
	FactColumns string
	// CreateVersionTable creates VersionTable if it is missing.
	CreateVersionTable string
	// RecordedVersions lists VersionTable's versions, as text.
	RecordedVersions string
	// Nullable is the type t able to hold NULL; nil when every type can
	// unless declared NOT NULL.
	Nullable func(t string) string
	// AddsNotNull: ALTER TABLE … ADD COLUMN may declare NOT NULL (DuckDB
	// cannot add a column with a constraint; ClickHouse's types without
	// Nullable never hold NULL anyway).
	AddsNotNull bool
	// CorrelatedSubqueries: a subquery may refer to the outer query's row
	// (NOT EXISTS … WHERE x.id = f.id); ClickHouse's may not, so its data
	// steps use NOT IN over a tuple.
	CorrelatedSubqueries bool
}

// DuckDB is the embedded warehouse's dialect.
var DuckDB = Dialect{
	Name:   "duckdb",
	Tables: `SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main'`,
	FactColumns: `SELECT column_name FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = 'main'
		AND table_name = 'facts'`,
	CreateVersionTable: `CREATE TABLE IF NOT EXISTS adsmcp_schema (
	version    INTEGER     NOT NULL,
	applied_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
)`,
	RecordedVersions:     `SELECT CAST(version AS VARCHAR) FROM adsmcp_schema`,
	CorrelatedSubqueries: true,
}

// Postgres is PostgreSQL's dialect: the tables of current_schema(), the
// first schema of search_path that exists, where the warehouse's tables are
// created.
var Postgres = Dialect{
	Name:        "postgres",
	Tables:      `SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema()`,
	FactColumns: `SELECT column_name::text FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'facts'`,
	CreateVersionTable: `CREATE TABLE IF NOT EXISTS adsmcp_schema (
	version    integer     NOT NULL,
	applied_at timestamptz NOT NULL DEFAULT now()
)`,
	RecordedVersions:     `SELECT version::text FROM adsmcp_schema`,
	AddsNotNull:          true,
	CorrelatedSubqueries: true,
}

// ClickHouse is ClickHouse's dialect (18.16 and later: system tables, no
// information_schema, no transactions).
var ClickHouse = Dialect{
	Name:        "clickhouse",
	Tables:      `SELECT name FROM system.tables WHERE database = currentDatabase()`,
	FactColumns: `SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'facts'`,
	CreateVersionTable: `CREATE TABLE IF NOT EXISTS adsmcp_schema (
	version    UInt32,
	applied_at DateTime DEFAULT now()
) ENGINE = MergeTree ORDER BY version`,
	RecordedVersions: `SELECT toString(version) FROM adsmcp_schema`,
	Nullable:         func(t string) string { return "Nullable(" + t + ")" },
}
