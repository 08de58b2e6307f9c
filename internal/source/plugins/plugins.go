// Package plugins is the one list of the sources adsmcp can be configured to
// answer from. Adding a source is its package (its section, construction and
// --target scheme, see internal/source/registry) and a line here.
//
// An explicit list rather than each package registering itself in init: the
// order is the order the file's sections are checked and the connectors are
// asked, so messages and answers do not depend on package initialization; a
// source cannot be left out by a forgotten blank import; and the list reads in
// one place.
package plugins

import (
	"github.com/adsmcp/adsmcp/internal/source/clickhouse"
	"github.com/adsmcp/adsmcp/internal/source/googleads"
	"github.com/adsmcp/adsmcp/internal/source/meta"
	"github.com/adsmcp/adsmcp/internal/source/postgres"
	"github.com/adsmcp/adsmcp/internal/source/registry"
	"github.com/adsmcp/adsmcp/internal/source/tiktok"
)

// All are the sources, live ones first: their sections under sources: in the
// file, in this order. The embedded DuckDB warehouse answers when none is
// configured (the file's database: setting, not a section here).
var All = []registry.Plugin{
	meta.Plugin,
	googleads.Plugin,
	tiktok.Plugin,
	postgres.Plugin,
	clickhouse.Plugin,
}
