package importer

import (
	"cmp"
	"errors"
	"slices"
	"strings"
	"time"
)

// What the import engine (Write) and each warehouse's Import are told and
// report. They live here, with the parsed exports, so that every warehouse
// shares one contract and the CLI prints one report whatever the target.

// ErrDemoData is returned by a writer when the warehouse holds the demo dataset
// (or other data that was neither imported nor synced): synthetic and real numbers are never
// mixed in one warehouse.
var ErrDemoData = errors.New("refusing to mix real data with the demo dataset")

// Label is the dataset label of a warehouse filled by imports.
const Label = "imported report exports (adsmcp import)"

// WriteOptions configure a writer.
type WriteOptions struct {
	// ReplaceDemo deletes the demo dataset before importing, instead of refusing.
	ReplaceDemo bool
	// DryRun does everything, reports it, and rolls back: the warehouse is
	// unchanged (and a missing file is not created).
	DryRun bool
	// Now stamps the imports (zero: the current time).
	Now time.Time
}

// WrittenFile is what importing one file did.
type WrittenFile struct {
	File, SHA256 string
	// AlreadyImported: the same file was imported before (at ImportedAt, as
	// ImportedAs); nothing was written.
	AlreadyImported bool
	ImportedAt      time.Time
	ImportedAs      string
	FactsAdded      int64
	FactsReplaced   int64 // facts of the same accounts and dates deleted first
	ReachAdded      int64
	ReachReplaced   int64
	NewAccounts     []string
	NewCampaigns    int64
	// Dropped are campaigns that had facts on the replaced dates and are not in
	// the file (a filtered export replaces them too).
	Dropped []string
}

// WriteResult is what a writer did.
type WriteResult struct {
	// Target names the warehouse written: a DuckDB file's path, or a PostgreSQL
	// URL without its password (it is printed).
	Target       string
	Created      bool // the warehouse was new (or empty)
	DemoReplaced bool
	DryRun       bool
	Files        []WrittenFile
}

// DroppedCampaign is a campaign with facts on the dates a file replaces that
// the file does not have (a filtered export replaces it too).
type DroppedCampaign struct{ ID, Name string }

// DroppedNames are the campaigns' names for WrittenFile.Dropped, by name then
// ID in byte order, so that every warehouse reports them alike whatever its
// collation.
func DroppedNames(cs []DroppedCampaign) []string {
	slices.SortFunc(cs, func(a, b DroppedCampaign) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.ID, b.ID))
	})
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return names
}
