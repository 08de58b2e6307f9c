package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/adsmcp/adsmcp/internal/config"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/clickhouse"
	"github.com/adsmcp/adsmcp/internal/source/googleads"
	"github.com/adsmcp/adsmcp/internal/source/live"
	"github.com/adsmcp/adsmcp/internal/source/meta"
	"github.com/adsmcp/adsmcp/internal/source/postgres"
)

// openSource opens what answers queries: the ad platforms' APIs configured
// under sources:, a PostgreSQL (sources.postgres) or ClickHouse
// (sources.clickhouse) warehouse, or else the embedded warehouse.
func (g *globals) openSource(ctx context.Context, stderr io.Writer) (source.Source, error) {
	if g.cfg != nil && g.cfg.Sources.ClickHouse != nil {
		c := g.cfg.Sources.ClickHouse
		src, err := clickhouse.Open(ctx, clickhouse.Options{DSN: c.DSN.Reveal(), MaxConns: c.MaxConns,
			StatementTimeout: time.Duration(c.StatementTimeout), Logger: g.logger(stderr).With("source", "clickhouse")})
		if err != nil {
			return nil, fmt.Errorf("sources.clickhouse: %w", err)
		}
		return src, nil
	}
	if g.cfg != nil && g.cfg.Sources.Postgres != nil {
		p := g.cfg.Sources.Postgres
		src, err := postgres.Open(ctx, postgres.Options{DSN: p.DSN.Reveal(), MaxConns: int32(p.MaxConns),
			StatementTimeout: time.Duration(p.StatementTimeout), Logger: g.logger(stderr).With("source", "postgres")})
		if err != nil {
			return nil, fmt.Errorf("sources.postgres: %w", err)
		}
		return src, nil
	}
	if g.cfg == nil || !g.cfg.Sources.Live() {
		return g.openWarehouse(ctx, stderr)
	}
	log := g.logger(stderr)
	connectors, err := connectorsFor(g.cfg.Sources, log)
	if err != nil {
		return nil, err
	}
	return live.New(log, connectors...), nil
}

// connectorsFor builds one connector per configured platform.
func connectorsFor(s config.Sources, log *slog.Logger) ([]live.Connector, error) {
	var out []live.Connector
	if m := s.Meta; m != nil {
		c, err := meta.New(meta.Options{
			BaseURL: m.BaseURL, APIVersion: m.APIVersion,
			AccessToken: m.AccessToken.Reveal(), AppSecret: m.AppSecret.Reveal(),
			ActionTypes: m.ActionTypes, DeviceBreakdown: m.DeviceBreakdown,
			Workers: m.Workers, RequestsPerSecond: m.RequestsPerSecond,
			MaxRetries: m.MaxRetries, MaxRetryWait: time.Duration(m.MaxRetryWait),
			Logger: log.With("source", "meta_ads"),
		})
		if err != nil {
			return nil, fmt.Errorf("sources.meta: %w", err)
		}
		out = append(out, c)
	}
	if ga := s.GoogleAds; ga != nil {
		c, err := googleads.New(googleads.Options{
			BaseURL: ga.BaseURL, APIVersion: ga.APIVersion, TokenURL: ga.TokenURL,
			ClientID: ga.ClientID, ClientSecret: ga.ClientSecret.Reveal(), RefreshToken: ga.RefreshToken.Reveal(),
			DeveloperToken: ga.DeveloperToken.Reveal(), LoginCustomerID: ga.LoginCustomerID, CustomerIDs: ga.CustomerIDs,
			Workers: ga.Workers, RequestsPerSecond: ga.RequestsPerSecond,
			MaxRetries: ga.MaxRetries, MaxRetryWait: time.Duration(ga.MaxRetryWait),
			Logger: log.With("source", "google_ads"),
		})
		if err != nil {
			return nil, fmt.Errorf("sources.google_ads: %w", err)
		}
		out = append(out, c)
	}
	return out, nil
}
