-- The adsmcp warehouse schema for ClickHouse (18.16 and later). The tables hold
-- what the documented schema holds (internal/source/postgres/schema.sql), laid
-- out as ClickHouse prefers: one wide facts table carrying every descriptive
-- column of its account, campaign, ad set and ad (no joins at query time), and
-- a wide reach table likewise. Facts are at the finest level (ad × day ×
-- country × device × publisher platform); money is integer micros of the
-- account's currency, so sums are exact at every grain; NULL is "no value",
-- as in the other engines. Facts are partitioned by month and ordered by
-- account and date: every query filters on both. adsmcp only reads these
-- tables (its queries run with readonly=2); grant its user nothing more.
-- The campaigns table lists every campaign (with or without facts) for
-- imports' bookkeeping; queries read names from facts and reach.
-- Statements are separated by ";" on a line of its own.
CREATE TABLE IF NOT EXISTS dataset (
	key   String,
	value String
) ENGINE = MergeTree ORDER BY key
;
CREATE TABLE IF NOT EXISTS accounts (
	account_id   String,
	platform     String,
	account_name String,
	currency     String,
	timezone     String,
	status       String
) ENGINE = MergeTree ORDER BY account_id
;
CREATE TABLE IF NOT EXISTS campaigns (
	campaign_id        String,
	account_id         String,
	campaign_name      Nullable(String),
	campaign_objective Nullable(String),
	campaign_status    Nullable(String),
	start_date         Nullable(Date),
	end_date           Nullable(Date)
) ENGINE = MergeTree ORDER BY (account_id, campaign_id)
;
CREATE TABLE IF NOT EXISTS facts (
	date                    Date,
	account_id              String,
	platform                String,
	account_name            String,
	currency                String,
	campaign_id             Nullable(String),
	campaign_name           Nullable(String),
	campaign_objective      Nullable(String),
	campaign_status         Nullable(String),
	adset_id                Nullable(String),
	adset_name              Nullable(String),
	ad_id                   Nullable(String),
	ad_name                 Nullable(String),
	country                 Nullable(String),
	device                  Nullable(String),
	publisher_platform      Nullable(String),
	spend_micros            Int64,
	impressions             Int64,
	clicks                  Int64,
	link_clicks             Nullable(Int64),
	conversions             Float64,
	conversion_value_micros Int64,
	video_views             Int64
) ENGINE = MergeTree PARTITION BY toYYYYMM(date) ORDER BY (account_id, date)
;
CREATE TABLE IF NOT EXISTS reach (
	level              String,
	object_id          String,
	account_id         String,
	grain              String,
	period_start       Date,
	reach              Int64,
	platform           String,
	account_name       String,
	currency           String,
	campaign_id        Nullable(String),
	campaign_name      Nullable(String),
	campaign_objective Nullable(String),
	campaign_status    Nullable(String)
) ENGINE = MergeTree ORDER BY (level, grain, account_id, period_start)
