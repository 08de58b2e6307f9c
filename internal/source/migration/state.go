package migration

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ErrNewer: the warehouse was written by a newer adsmcp, whose layout this
// one cannot know; it refuses to read or write it.
var ErrNewer = errors.New("this warehouse was written by a newer adsmcp")

// ErrBehind: the warehouse's layout is older than this adsmcp reads, and
// the open may not write to migrate it.
var ErrBehind = errors.New("the warehouse's schema is older than this adsmcp reads")

// State is where a warehouse's layout stands.
type State struct {
	// Version is the recorded version, else the recognised one: 1 for a
	// warehouse with a facts table and no version (every warehouse written
	// before versions existed), 0 for none (no facts table).
	Version int
	// Recorded: Version is stored in the version table.
	Recorded bool
	// Missing are the declared fact columns that facts lacks.
	Missing []Column
	// Underived are the versions after Version whose data step
	// (Version.Derived) would write rows: the warehouse lacks rows the
	// reads need, until migrated.
	Underived []int
}

// Empty: no warehouse there yet (no facts table), or its tables were dropped.
func (st State) Empty() bool { return st.Version == 0 }

// Newer: written by a newer adsmcp.
func (st State) Newer() bool { return st.Version > Latest() }

// Current: nothing to migrate, nothing to record.
func (st State) Current() bool {
	return st.Recorded && st.Version == Latest() && len(st.Missing) == 0
}

// Behind: the layout lacks a version or a declared column (a missing
// record of the version alone does not count).
func (st State) Behind() bool {
	return !st.Empty() && (st.Version < Latest() || len(st.Missing) > 0)
}

// Readable says whether a read-only open may answer from the warehouse as it
// is: nil when the layout serves every query (it is current, empty, or
// older only by versions reads do not need), ErrNewer, or ErrBehind saying
// what is missing and that `adsmcp migrate` adds it.
func (st State) Readable() error {
	if st.Newer() {
		return fmt.Errorf("%w (schema %d); upgrade adsmcp (this one knows schema versions up to %d)", ErrNewer, st.Version, Latest())
	}
	if st.Empty() {
		return nil
	}
	var needs []string
	for _, v := range Versions {
		if v.Number > st.Version && (v.NeededByReads || slices.Contains(st.Underived, v.Number)) {
			needs = append(needs, fmt.Sprintf("version %d: %s", v.Number, v.Summary))
		}
	}
	if len(st.Missing) > 0 {
		names := make([]string, len(st.Missing))
		for i, c := range st.Missing {
			names[i] = c.Name
		}
		needs = append(needs, "facts columns "+strings.Join(names, ", "))
	}
	if len(needs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: it is at schema version %d and lacks %s; run `adsmcp migrate` (as a user that may alter its tables)",
		ErrBehind, st.Version, strings.Join(needs, "; "))
}

// Inspect reads where the warehouse's layout stands, writing nothing: it
// only needs the right to read the warehouse's tables.
func Inspect(ctx context.Context, ex Executor, s Schema, declared []Column) (State, error) {
	if err := s.check(); err != nil {
		return State{}, err
	}
	tables, err := ex.Strings(ctx, s.Dialect.Tables)
	if err != nil {
		return State{}, fmt.Errorf("%s: listing the warehouse's tables: %w", s.Dialect.Name, err)
	}
	if !slices.Contains(tables, factsTable) {
		return State{}, nil
	}
	st := State{Version: 1}
	if slices.Contains(tables, VersionTable) {
		recorded, err := ex.Strings(ctx, s.Dialect.RecordedVersions)
		if err != nil {
			return State{}, fmt.Errorf("%s: reading the schema version: %w", s.Dialect.Name, err)
		}
		for _, r := range recorded {
			n, err := strconv.Atoi(strings.TrimSpace(r))
			if err != nil {
				return State{}, fmt.Errorf("%s: %s holds version %q, not a number", s.Dialect.Name, VersionTable, r)
			}
			if !st.Recorded || n > st.Version {
				st.Version, st.Recorded = n, true
			}
		}
	}
	st.Missing, err = missingColumns(ctx, ex, s.Dialect, declared)
	if err != nil {
		return State{}, err
	}
	st.Underived, err = underived(ctx, ex, s.Dialect, st.Version)
	if err != nil {
		return State{}, err
	}
	return st, nil
}

// missingColumns are the declared columns facts lacks.
func missingColumns(ctx context.Context, ex Executor, d Dialect, declared []Column) ([]Column, error) {
	if len(declared) == 0 {
		return nil, nil
	}
	have, err := ex.Strings(ctx, d.FactColumns)
	if err != nil {
		return nil, fmt.Errorf("%s: listing the facts table's columns: %w", d.Name, err)
	}
	var missing []Column
	for _, c := range declared {
		if !slices.Contains(have, c.Name) {
			missing = append(missing, c)
		}
	}
	return missing, nil
}
