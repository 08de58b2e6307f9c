package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"time"

	"github.com/adsmcp/adsmcp/internal/config"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
	"github.com/adsmcp/adsmcp/internal/source/live"
	"github.com/adsmcp/adsmcp/internal/source/registry"
	"github.com/adsmcp/adsmcp/internal/source/synced"
	"github.com/adsmcp/adsmcp/internal/syncer"
)

// openSource opens what answers the one-shot commands (query, accounts):
// what serve answers from (openServed), without its background sync — the
// APIs alone are answered live (a running server may hold the synced file).
func (g *globals) openSource(ctx context.Context, stderr io.Writer) (source.Source, error) {
	s, err := g.openServed(ctx, stderr, time.Now, false)
	if err != nil {
		return nil, err
	}
	return s.Source, nil
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

// served is what `adsmcp serve` answers from, and the background sync that
// keeps it fresh (docs/sync.md).
type served struct {
	source.Source
	// Schedule is the background sync; nil when the server does not sync.
	Schedule *synced.Schedule
	// Sync are the options of each run (Since is set per run); tests add
	// Progress.
	Sync        syncer.Options
	closeTarget func() error
	stop        func()
}

// Start starts the background sync, if any, until Close.
func (s *served) Start(ctx context.Context) {
	if s.Schedule != nil && s.stop == nil {
		s.stop = s.Schedule.Start(ctx)
	}
}

// Close stops the sync (a run in progress is cancelled: its open chunk rolls
// back), then closes the sync's target and the sources.
func (s *served) Close() error {
	if s.stop != nil {
		s.stop()
	}
	var err error
	if s.closeTarget != nil {
		err = s.closeTarget()
	}
	return errors.Join(err, s.Source.Close())
}

// syncStater is a warehouse that knows its accounts' sync states.
type syncStater interface {
	SyncStates(ctx context.Context) ([]importer.SyncState, error)
}

// openServed opens what serve answers from (docs/configuration.md, sync:):
//   - a warehouse server (sources.postgres, sources.clickhouse): answered
//     from through synced.Source, with the configured APIs, if any, for
//     what its sync does not cover; synced in the background only when
//     sync.every is set (replicas sharing it sync it in one place);
//   - the APIs alone: synced (unless sync.every is off) into the embedded
//     synced file, which this process then holds read-write (DuckDB admits
//     one writer process: a separate `adsmcp sync` on it is told so), and
//     answered from it once an account's synced days cover a query, live
//     before;
//   - neither: the embedded warehouse, with its freshness when a sync
//     filled it.
//
// Not serving (the one-shot commands), nothing is synced.
func (g *globals) openServed(ctx context.Context, stderr io.Writer, now func() time.Time, serving bool) (_ *served, err error) {
	cfg, log := g.cfg, g.logger(stderr)
	every, syncs := cfg.SyncsEvery()
	syncs = syncs && serving
	var connectors []live.Connector
	var apis source.Source
	if cfg.Sources.Live() {
		if connectors, err = connectorsFor(cfg.Sources, log); err != nil {
			return nil, err
		}
		apis = live.New(log, connectors...)
	}
	var closers []io.Closer // closed when opening fails
	defer func() {
		if err != nil {
			for _, c := range slices.Backward(closers) {
				c.Close()
			}
		}
	}()
	if apis != nil {
		closers = append(closers, apis)
	}
	out := &served{}
	var wh source.Source
	var target importer.SyncTarget
	opt := importer.SyncOptions{Now: now}
	switch c, w, server := cfg.Sources.Warehouse(); {
	case server:
		// The sync's target first: it creates what a new warehouse lacks
		// (ClickHouse's database, the tables), which serving it needs.
		if syncs {
			if target, err = w.OpenSync(ctx, opt); err != nil {
				return nil, fmt.Errorf("sources.%s: opening it to sync (sync.every): %w", c.Name, err)
			}
			closers = append(closers, target)
		}
		if wh, err = w.Open(ctx, log); err != nil {
			return nil, fmt.Errorf("sources.%s: %w", c.Name, err)
		}
		closers = append(closers, wh)
		if apis == nil && !syncs && !hasStates(ctx, wh) {
			out.Source = wh // imported only: served as it always was
			return out, nil
		}
	case apis != nil && !syncs:
		out.Source = apis
		return out, nil
	case apis != nil:
		path := cmp.Or(cfg.Sync.Database, duckdb.DefaultSyncedPath())
		db, err := duckdb.OpenWritable(ctx, path, duckdb.Options{NoDemoFill: true, Logger: log, MemoryLimitMB: cfg.Limits.WarehouseMemoryMB})
		if err != nil {
			return nil, fmt.Errorf("sync.database %s: %w", path, err)
		}
		closers = append(closers, db)
		if target, err = db.SyncTarget(opt); err != nil {
			return nil, err
		}
		wh = db
	default:
		db, err := g.openWarehouse(ctx, stderr)
		if err != nil {
			return nil, err
		}
		closers = append(closers, db)
		// A file a sync filled says how fresh it is; one imported only is
		// served as it always was.
		if !hasStates(ctx, db) {
			out.Source = db
			return out, nil
		}
		wh = db
	}
	st, ok := wh.(syncStater)
	if !ok {
		return nil, fmt.Errorf("the warehouse keeps no sync state: run `adsmcp migrate` on it")
	}
	src := &synced.Source{Warehouse: wh, Live: apis, States: st.SyncStates}
	out.Source = src
	if target != nil {
		out.Sync = syncer.Options{Connectors: connectors, Target: target, Now: now, Log: log}
		out.Schedule = &synced.Schedule{Every: every, Log: log.With("sync", target.Name()), Run: func(ctx context.Context) (*syncer.Result, error) {
			o := out.Sync
			o.Since = cfg.Sync.Since.From(now())
			return syncer.Run(ctx, o)
		}}
		src.NextSync = out.Schedule.NextSync
		out.closeTarget = target.Close
	}
	return out, nil
}

// hasStates reports whether a sync ever wrote into the warehouse wh (a
// warehouse that cannot say is treated as imported only).
func hasStates(ctx context.Context, wh source.Source) bool {
	st, ok := wh.(syncStater)
	if !ok {
		return false
	}
	states, err := st.SyncStates(ctx)
	return err == nil && len(states) > 0
}
