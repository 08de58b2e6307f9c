package duckdb

import "github.com/adsmcp/adsmcp/internal/source/migration"

// warehouseSchema is the warehouse's layout, version by version
// (internal/source/migration). A brand-new warehouse gets every version in
// order, so there is no separate "latest" DDL to drift from them.
var warehouseSchema = migration.Schema{Dialect: migration.DuckDB, Versions: map[int][]string{
	1: {version1},
	2: {version2},
	3: {version3},
}}

// version3 is the sync state (importer.SyncState), one row per account a
// sync has written or tried: the span of days synced, the --since target,
// and the last success, attempt and error (docs/warehouse.md, "sync_state").
// Reads do not need it: a warehouse without it has no freshness to state.
const version3 = `
CREATE TABLE IF NOT EXISTS sync_state (
	account_id     VARCHAR PRIMARY KEY,
	platform       VARCHAR NOT NULL,
	synced_from    DATE,
	synced_through DATE,
	backfill_from  DATE,
	last_success   TIMESTAMP,
	last_attempt   TIMESTAMP NOT NULL,
	last_error     VARCHAR NOT NULL
);
`

// version2 adds breakdown sets (catalog.BreakdownSet): every existing fact row
// is a delivery row; the other sets' rows carry their own dimensions. And the
// accounts' attribution window and counted actions (NULL: not said).
const version2 = `
ALTER TABLE facts ADD COLUMN IF NOT EXISTS breakdown VARCHAR DEFAULT 'delivery';
ALTER TABLE facts ADD COLUMN IF NOT EXISTS age VARCHAR;
ALTER TABLE facts ADD COLUMN IF NOT EXISTS gender VARCHAR;
ALTER TABLE facts ADD COLUMN IF NOT EXISTS placement VARCHAR;
ALTER TABLE facts ADD COLUMN IF NOT EXISTS conversion_action VARCHAR;
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS attribution_window VARCHAR;
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS conversion_actions VARCHAR;
`

// version1 is schema version 1, the layout of every warehouse written before
// versions existed. Frozen: never edit it — a change is a new version. Facts are stored at the finest level (ad × day ×
// country × device × publisher platform); money is stored as integer micros of the
// account's currency so that sums are exact at every grain and in every order.
// Reach counts distinct people, so it cannot be derived from facts: it is stored
// per level (account, campaign), grain (daily, weekly, monthly) and period.
const version1 = `
CREATE TABLE IF NOT EXISTS dataset (
	key   VARCHAR PRIMARY KEY,
	value VARCHAR NOT NULL
);
CREATE TABLE IF NOT EXISTS accounts (
	account_id   VARCHAR PRIMARY KEY,
	platform     VARCHAR NOT NULL,
	account_name VARCHAR NOT NULL,
	currency     VARCHAR NOT NULL,
	timezone     VARCHAR NOT NULL,
	status       VARCHAR NOT NULL
);
CREATE TABLE IF NOT EXISTS campaigns (
	campaign_id        VARCHAR NOT NULL,
	account_id         VARCHAR NOT NULL,
	campaign_name      VARCHAR,
	campaign_objective VARCHAR,
	campaign_status    VARCHAR,
	start_date         DATE,
	end_date           DATE
);
CREATE TABLE IF NOT EXISTS adsets (
	adset_id    VARCHAR NOT NULL,
	campaign_id VARCHAR NOT NULL,
	account_id  VARCHAR NOT NULL,
	adset_name  VARCHAR
);
CREATE TABLE IF NOT EXISTS ads (
	ad_id       VARCHAR NOT NULL,
	adset_id    VARCHAR NOT NULL,
	campaign_id VARCHAR NOT NULL,
	account_id  VARCHAR NOT NULL,
	ad_name     VARCHAR
);
CREATE TABLE IF NOT EXISTS facts (
	date                    DATE    NOT NULL,
	account_id              VARCHAR NOT NULL,
	campaign_id             VARCHAR,
	adset_id                VARCHAR,
	ad_id                   VARCHAR,
	country                 VARCHAR,
	device                  VARCHAR,
	publisher_platform      VARCHAR,
	spend_micros            BIGINT  NOT NULL,
	impressions             BIGINT  NOT NULL,
	clicks                  BIGINT  NOT NULL,
	link_clicks             BIGINT,
	conversions             DOUBLE  NOT NULL,
	conversion_value_micros BIGINT  NOT NULL,
	video_views             BIGINT  NOT NULL
);
CREATE TABLE IF NOT EXISTS reach (
	level        VARCHAR NOT NULL,
	object_id    VARCHAR NOT NULL,
	account_id   VARCHAR NOT NULL,
	grain        VARCHAR NOT NULL,
	period_start DATE    NOT NULL,
	reach        BIGINT  NOT NULL
);
`
