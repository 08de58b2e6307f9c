package main

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/source/clickhouse"
	"github.com/adsmcp/adsmcp/internal/source/clickhouse/chtest"
	"github.com/adsmcp/adsmcp/internal/source/postgres"
	"github.com/adsmcp/adsmcp/internal/source/postgres/pgtest"
)

// testDBConfig is the demo dataset testDB holds.
var testDBConfig = demo.Config{Anchor: time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC), Seed: 7, Scale: 0.03}

// elapsed matches what timing decides in an answer: the elapsed time, and
// the token estimate, which counts the _meta with it (an answer taking
// 1,000 ms instead of 999 has a digit more).
var elapsed = regexp.MustCompile(`,"(elapsed_ms|token_estimate)":\d+`)

// warehouseQueries are CLI queries whose answers must not depend on the engine.
var warehouseQueries = [][]string{
	{"accounts"},
	{"query", "--raw", "--today", "2026-03-15", "--platform", "meta", "-m", "spend,clicks,ctr,reach,frequency", "-d", "account_name", "-g", "weekly", "--preset", "last_30d"},
	{"query", "--today", "2026-03-15", "--platform", "google", "-m", "spend,cpc,conversions", "-d", "campaign_name", "-g", "daily", "--preset", "last_90d"},
	{"query", "--raw", "--today", "2026-03-15", "--platform", "tiktok", "-m", "spend,ctr", "-d", "ad_name", "--preset", "last_7d", "--sort", "-spend", "--limit", "5"},
	// Comparisons (docs/query.md "Comparing periods"): reach and frequency
	// week by week against the weeks before; ratios by campaign against the
	// same months a year earlier, with campaigns new and stopped; an explicit
	// window ranked by the change and cut to a top 5 per currency; budgets
	// small enough that both windows are coarsened together (Meta's reach asked
	// again at monthly grain, TikTok's daily rows rolled up); both windows'
	// raw rows.
	{"query", "--today", "2026-03-15", "--platform", "meta", "-m", "spend,reach,frequency", "-d", "account_name", "-g", "weekly", "--preset", "last_30d", "--compare", "previous_period"},
	{"query", "--today", "2026-03-15", "--platform", "meta", "-m", "spend,ctr,cpa", "-d", "campaign_name", "-g", "monthly", "--start", "2025-12-01", "--end", "2026-02-28", "--compare", "previous_year"},
	{"query", "--today", "2026-03-15", "--platform", "google,tiktok", "-m", "spend,clicks,cpc,conversions", "-d", "ad_name", "--start", "2026-02-01", "--end", "2026-02-28", "--compare", "2026-01-04..2026-01-31", "--sort", "spend_change:asc", "--limit", "5"},
	{"query", "--today", "2026-03-15", "--platform", "meta", "-m", "spend,reach,frequency", "-d", "campaign_name", "-g", "weekly", "--preset", "last_90d", "--compare", "previous_period", "--budget", "4000"},
	{"query", "--today", "2026-03-15", "--platform", "tiktok", "-m", "spend,clicks,ctr", "-d", "ad_name", "-g", "daily", "--preset", "last_30d", "--compare", "previous_period", "--budget", "3000"},
	{"query", "--raw", "--today", "2026-03-15", "--platform", "meta", "-m", "spend,reach,ctr", "-d", "account_name", "-g", "weekly", "--preset", "last_14d", "--compare", "previous_period"},
}

// comparedAnswer reports why the answer to a query with --compare is not a
// comparison, or "" when it is (or the query has none).
func comparedAnswer(args []string, out string) string {
	if !slices.Contains(args, "--compare") {
		return ""
	}
	if slices.Contains(args, "--raw") {
		if !strings.HasPrefix(out, "window,") || !strings.Contains(out, "\ncurrent,") || !strings.Contains(out, "\ncompare,") {
			return "the raw rows of both windows, labelled by a window column"
		}
		return ""
	}
	if !strings.Contains(out, "compare_status") || !strings.Contains(out, `"comparison":{`) {
		return "a comparison (compare_status and _meta.comparison)"
	}
	if slices.Contains(args, "--budget") && !strings.Contains(out, `"type":"granularity_change"`) {
		return "coarsened to fit --budget (granularity_change)"
	}
	return ""
}

// A warehouse in ClickHouse or PostgreSQL, configured under sources:, answers
// the CLI exactly as the embedded one holding the same data.
func TestQueryFromWarehouseEngines(t *testing.T) {
	db := testDB(t)
	engines := map[string]func(t *testing.T) string{
		"clickhouse": func(t *testing.T) string {
			dsn := chtest.FreshDatabase(t)
			if err := clickhouse.LoadDemo(context.Background(), dsn, testDBConfig, nil); err != nil {
				t.Fatal(err)
			}
			return "sources:\n  clickhouse:\n    dsn: " + dsn + "\n"
		},
		"postgres": func(t *testing.T) string {
			dsn := pgtest.FreshSchema(t, "adsmcp_cli")
			ctx := context.Background()
			pool, err := pgxpool.New(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			if err := postgres.LoadDemo(ctx, pool, testDBConfig, nil); err != nil {
				t.Fatal(err)
			}
			return "sources:\n  postgres:\n    dsn: \"" + dsn + "\"\n"
		},
	}
	for name, load := range engines {
		t.Run(name, func(t *testing.T) {
			cfg := writeConfig(t, load(t))
			for _, args := range warehouseQueries {
				want, _, err := runCLI(append(args, "--db", db)...)
				if err != nil {
					t.Fatalf("%v on the embedded warehouse: %v", args, err)
				}
				got, stderr, err := runCLI(append(args, "--config", cfg)...)
				if err != nil {
					t.Fatalf("%v on %s: %v\n%s", args, name, err, stderr)
				}
				got, want = elapsed.ReplaceAllString(got, ""), elapsed.ReplaceAllString(want, "")
				if got != want {
					t.Errorf("%v: %s answers\n%s\nthe embedded warehouse\n%s", args, name, got, want)
				}
				if len(strings.TrimSpace(got)) == 0 {
					t.Errorf("%v: empty answer", args)
				}
				if want := comparedAnswer(args, got); want != "" {
					t.Errorf("%v: the answer is not %s:\n%.1500s", args, want, got)
				}
			}
		})
	}
}
