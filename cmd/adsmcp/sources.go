package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/adsmcp/adsmcp/internal/config"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/live"
	"github.com/adsmcp/adsmcp/internal/source/registry"
)

// openSource opens what answers queries: the warehouse server configured
// under sources:, else the ad platforms' APIs configured there, else the
// embedded warehouse. Which sources exist is internal/source/plugins.
func (g *globals) openSource(ctx context.Context, stderr io.Writer) (source.Source, error) {
	if g.cfg != nil {
		if c, w, ok := g.cfg.Sources.Warehouse(); ok {
			src, err := w.Open(ctx, g.logger(stderr))
			if err != nil {
				return nil, fmt.Errorf("sources.%s: %w", c.Name, err)
			}
			return src, nil
		}
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

// connectorsFor builds one connector per configured live source.
func connectorsFor(s config.Sources, log *slog.Logger) ([]live.Connector, error) {
	var out []live.Connector
	for _, c := range s.All() {
		l, ok := c.Section.(registry.Live)
		if !ok {
			continue
		}
		conn, err := l.Connector(log)
		if err != nil {
			return nil, fmt.Errorf("sources.%s: %w", c.Name, err)
		}
		out = append(out, conn)
	}
	return out, nil
}
