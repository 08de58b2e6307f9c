-- The adsmcp warehouse schema for PostgreSQL (15 and later): the same tables
-- and columns as the embedded DuckDB warehouse. Facts are stored at the finest
-- level (ad × day × country × device × publisher platform); money as integer
-- micros of the account's currency, so sums are exact at every grain. Reach
-- counts distinct people and cannot be derived from facts: it is stored per
-- level (account, campaign), grain (daily, weekly, monthly) and period.
-- adsmcp serve only reads these tables; grant its role SELECT and nothing
-- else (adsmcp import --target also needs INSERT, UPDATE and DELETE).
CREATE TABLE IF NOT EXISTS dataset (
	key   text PRIMARY KEY,
	value text NOT NULL
);
CREATE TABLE IF NOT EXISTS accounts (
	account_id   text PRIMARY KEY,
	platform     text NOT NULL,
	account_name text NOT NULL,
	currency     text NOT NULL,
	timezone     text NOT NULL,
	status       text NOT NULL
);
CREATE TABLE IF NOT EXISTS campaigns (
	campaign_id        text NOT NULL,
	account_id         text NOT NULL,
	campaign_name      text,
	campaign_objective text,
	campaign_status    text,
	start_date         date,
	end_date           date
);
CREATE TABLE IF NOT EXISTS adsets (
	adset_id    text NOT NULL,
	campaign_id text NOT NULL,
	account_id  text NOT NULL,
	adset_name  text
);
CREATE TABLE IF NOT EXISTS ads (
	ad_id       text NOT NULL,
	adset_id    text NOT NULL,
	campaign_id text NOT NULL,
	account_id  text NOT NULL,
	ad_name     text
);
CREATE TABLE IF NOT EXISTS facts (
	date                    date             NOT NULL,
	account_id              text             NOT NULL,
	campaign_id             text,
	adset_id                text,
	ad_id                   text,
	country                 text,
	device                  text,
	publisher_platform      text,
	spend_micros            bigint           NOT NULL,
	impressions             bigint           NOT NULL,
	clicks                  bigint           NOT NULL,
	link_clicks             bigint,
	conversions             double precision NOT NULL,
	conversion_value_micros bigint           NOT NULL,
	video_views             bigint           NOT NULL
);
CREATE TABLE IF NOT EXISTS reach (
	level        text   NOT NULL,
	object_id    text   NOT NULL,
	account_id   text   NOT NULL,
	grain        text   NOT NULL,
	period_start date   NOT NULL,
	reach        bigint NOT NULL
);
-- Every query filters facts by account and date range; joins go by object id.
CREATE INDEX IF NOT EXISTS facts_account_date ON facts (account_id, date);
CREATE INDEX IF NOT EXISTS campaigns_id ON campaigns (campaign_id);
CREATE INDEX IF NOT EXISTS adsets_id ON adsets (adset_id);
CREATE INDEX IF NOT EXISTS ads_id ON ads (ad_id);
CREATE INDEX IF NOT EXISTS reach_lookup ON reach (level, grain, account_id, period_start);
