// Package migration keeps a warehouse's tables at the layout this adsmcp
// reads and writes, for every engine alike: a schema version stored in the
// warehouse (table adsmcp_schema), an ordered list of versions whose
// statements each warehouse gives in its own dialect, and a final step that
// adds every fact measure column the code declares and the facts table lacks.
//
// The rules live here once; a warehouse supplies its SQL (a Schema) and a
// way to run it (an Executor). See docs/warehouse.md, "Schema versions".
package migration

// Version is one step of the warehouse layout. Its statements, once
// released, never change: a warehouse at version N was made by exactly the
// statements of versions 1…N, whatever the code does later.
type Version struct {
	// Number counts from 1, without gaps.
	Number int
	// Summary says what the version changes, for `adsmcp migrate`'s report.
	Summary string
	// NeededByReads: a warehouse one version older cannot answer queries
	// until migrated (a column or table the reads use). False for changes that
	// only writes need (an index, an importer's bookkeeping): a read-only open
	// of the older layout then answers as before.
	NeededByReads bool
	// Derived is the version's data step, if any: rows derived from those
	// the warehouse holds, run after the final step added the declared
	// columns. A warehouse older than the version then cannot answer
	// until migrated only when the step would write rows (State.Underived).
	Derived *Derived
}

// Versions are the layouts in order; the last is the one this adsmcp creates.
// Adding one: append it here, give its statements in every warehouse's
// Schema.Versions (none for a version that only derives rows), and a test
// from the previous layout.
var Versions = []Version{
	{Number: 1, Summary: "the first layout: dataset, accounts, campaigns, ad sets, ads, facts and reach", NeededByReads: true},
	{Number: 2, Summary: "breakdown sets: facts.breakdown (delivery, age_gender, placement, conversion_action…) with columns age, gender, placement and conversion_action; accounts.attribution_window and accounts.conversion_actions", NeededByReads: true},
	{Number: 3, Summary: "sync state: table sync_state (per account, the days synced and how the last sync went), written by adsmcp sync", NeededByReads: false},
	{Number: 4, Summary: "Meta's device × publisher_platform rows (facts.breakdown device_platform), derived from Meta's delivery rows summed over country for the accounts' days that have none",
		Derived: &metaDevicePlatform},
}

// Latest is the version this adsmcp creates and reads.
func Latest() int { return Versions[len(Versions)-1].Number }
