// Package registry is what a source package declares to plug into adsmcp: the
// section of the configuration file under sources: that configures it, how
// that section becomes a connector or a warehouse, and, for a warehouse
// server, the --target URL scheme `adsmcp import` and `adsmcp demo` write it
// with. The config package reads and checks every section through it and the
// command opens whatever is configured through it, so neither names a
// platform or an engine (the list itself is internal/source/plugins).
//
// What may be configured together follows from the kinds, not from pairs:
// live sources (an ad platform's API, [Live]) combine, each answering its own
// accounts; one warehouse server ([Warehouse]) answers in place of the
// embedded DuckDB warehouse, with the APIs, if any, answering what no sync put
// in it (docs/sync.md).
package registry

import (
	"context"
	"log/slog"

	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/live"
)

// Plugin is one source adsmcp can be configured to answer from.
type Plugin struct {
	// Name is its key under sources: in the file ("meta", "google_ads",
	// "postgres"); messages about its settings say sources.<Name>.
	Name string
	// NewSection returns an empty section for the decoder to fill: a pointer
	// to the plug-in's YAML struct, which implements Live or Warehouse. The
	// struct's yaml tags are the settings; unknown keys under it are errors.
	NewSection func() Section
	// Target, when set, lets `adsmcp import` and `adsmcp demo` write the
	// warehouse named by a --target URL.
	Target *Target
	// Platform is the catalog platform a live source answers (catalog.MetaAds,
	// …); empty for a warehouse.
	Platform string
	// MetricField, for a live source, says how its API gives a stored
	// catalog metric, as docs/fields.md writes it ("`metrics.cost_micros`"),
	// "" where the platform does not report it. The connector's own table
	// is the one place of the mapping; the docs are generated from it.
	MetricField func(metric string) string
}

// Section is one plug-in's settings as read from the file.
type Section interface {
	// Check reports each problem with bad, naming the setting (as
	// sources.<name>.<key>) and what to write instead.
	Check(bad func(format string, args ...any))
}

// Live is the section of an ad platform's API. Any number of live sources
// combine: each answers the accounts of its platform.
type Live interface {
	Section
	// Connector builds the platform's connector from the section; log is the
	// server's logger, which the connector tags with its platform.
	Connector(log *slog.Logger) (live.Connector, error)
}

// Warehouse is the section of a warehouse server that answers in place of
// the embedded warehouse: at most one may be configured. With live sources,
// it answers what a sync put in it and the APIs the rest (docs/sync.md).
type Warehouse interface {
	Section
	// Open connects to the warehouse and checks that it answers; log is the
	// server's logger, which the source tags with its engine.
	Open(ctx context.Context, log *slog.Logger) (source.Source, error)
	// OpenSync opens the warehouse for a server's background sync (the
	// section's Target.OpenSync, on its DSN).
	OpenSync(ctx context.Context, opt importer.SyncOptions) (importer.SyncTarget, error)
}

// IsLive reports whether p's sections are live sources.
func (p Plugin) IsLive() bool {
	_, ok := p.NewSection().(Live)
	return ok
}
