package migration

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Result is what Migrate did.
type Result struct {
	// From is the state found.
	From State
	// Applied are the versions whose statements ran, in order (version 1
	// again for a warehouse recognised as version 1: its statements only
	// create what is missing).
	Applied []int
	// Added are the fact columns added by the final step.
	Added []string
}

// Changed: the migration wrote something.
func (r Result) Changed() bool { return len(r.Applied) > 0 || len(r.Added) > 0 }

// String says what was done, for `adsmcp migrate`.
func (r Result) String() string {
	if !r.Changed() {
		return fmt.Sprintf("schema version %d, up to date; nothing to do", Latest())
	}
	var b strings.Builder
	switch {
	case r.From.Empty():
		fmt.Fprintf(&b, "created the tables at schema version %d", Latest())
	case !r.From.Recorded && r.From.Version == Latest():
		fmt.Fprintf(&b, "schema version %d, recognised by its tables and now recorded", r.From.Version)
	default:
		fmt.Fprintf(&b, "schema version %d, now %d", r.From.Version, Latest())
	}
	for _, n := range r.Applied {
		if !r.From.Empty() && n > r.From.Version {
			fmt.Fprintf(&b, "; applied version %d: %s", n, Versions[n-1].Summary)
		}
	}
	if len(r.Added) > 0 {
		fmt.Fprintf(&b, "; added facts column%s %s", plural(len(r.Added)), strings.Join(r.Added, ", "))
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Migrate brings the warehouse to the latest layout: it applies every
// version after the warehouse's (all of them to an empty one), records each,
// then adds the declared fact columns facts lacks (NULL, or their Default,
// in the rows already there). A version with a data step (Version.Derived)
// runs it after adding those columns, before it is recorded. A warehouse without a recorded version gets
// version 1's statements again (they only create what is missing) and the
// version recorded. A warehouse at a newer version is refused (ErrNewer).
//
// Run it in a transaction where the engine has them (DuckDB, PostgreSQL): on
// any error the caller rolls back and the warehouse is as it was. On
// ClickHouse each version is recorded as soon as it is applied, so an
// interrupted migration resumes with the version it did not finish.
func Migrate(ctx context.Context, ex Executor, s Schema, declared []Column) (Result, error) {
	st, err := Inspect(ctx, ex, s, declared)
	if err != nil {
		return Result{}, err
	}
	res := Result{From: st}
	if st.Newer() {
		return res, st.Readable()
	}
	from := st.Version
	if !st.Recorded {
		from = 0
	}
	if from < Latest() {
		if err := ex.Exec(ctx, s.Dialect.CreateVersionTable); err != nil {
			return res, fmt.Errorf("%s: creating %s: %w", s.Dialect.Name, VersionTable, err)
		}
	}
	for _, v := range Versions[from:] {
		for _, statement := range s.Versions[v.Number] {
			if err := ex.Exec(ctx, statement); err != nil {
				return res, fmt.Errorf("%s: schema version %d (%s): %w", s.Dialect.Name, v.Number, v.Summary, err)
			}
		}
		if v.Derived != nil {
			// Before the version is recorded: on ClickHouse, a migration
			// stopped here derives again (its guard skips what it wrote).
			if err := derive(ctx, ex, s, v, declared, &res); err != nil {
				return res, err
			}
		}
		if err := ex.Exec(ctx, fmt.Sprintf("INSERT INTO %s (version) VALUES (%d)", VersionTable, v.Number)); err != nil {
			return res, fmt.Errorf("%s: recording schema version %d: %w", s.Dialect.Name, v.Number, err)
		}
		res.Applied = append(res.Applied, v.Number)
	}
	if from == Latest() { // nothing ran: Inspect's list is still true
		err = addColumns(ctx, ex, s.Dialect, st.Missing, &res)
	} else { // the versions may have added some of them
		err = addMissing(ctx, ex, s.Dialect, declared, &res)
	}
	if err != nil {
		return res, err
	}
	return res, nil
}

// addMissing adds the declared columns facts lacks (Migrate's final step).
func addMissing(ctx context.Context, ex Executor, d Dialect, declared []Column, res *Result) error {
	missing, err := missingColumns(ctx, ex, d, declared)
	if err != nil {
		return err
	}
	return addColumns(ctx, ex, d, missing, res)
}

// addColumns adds cols to facts, reporting them in res.Added.
func addColumns(ctx context.Context, ex Executor, d Dialect, cols []Column, res *Result) error {
	for _, c := range cols {
		statement, err := d.addColumn(c)
		if err != nil {
			return err
		}
		if err := ex.Exec(ctx, statement); err != nil {
			return fmt.Errorf("%s: adding facts column %s: %w", d.Name, c.Name, err)
		}
		res.Added = append(res.Added, c.Name)
	}
	return nil
}

// ErrNoWarehouse: Upgrade found no warehouse to migrate (no facts table).
var ErrNoWarehouse = errors.New("no warehouse there: nothing to migrate")

// Upgrade is Migrate for a warehouse that must exist already (`adsmcp
// migrate`): an empty one is refused with ErrNoWarehouse rather than given
// empty tables.
func Upgrade(ctx context.Context, ex Executor, s Schema, declared []Column) (Result, error) {
	st, err := Inspect(ctx, ex, s, declared)
	if err != nil {
		return Result{}, err
	}
	if st.Empty() {
		return Result{From: st}, ErrNoWarehouse
	}
	return Migrate(ctx, ex, s, declared)
}

// MigrateIfBehind is Migrate only for a warehouse that lacks a version or a
// declared column (State.Behind): an import into an existing, current
// warehouse then runs no DDL, so its user needs no right to alter tables (a
// missing version record alone is left for `adsmcp migrate`). A newer
// warehouse is refused (ErrNewer).
func MigrateIfBehind(ctx context.Context, ex Executor, s Schema, declared []Column) (Result, error) {
	st, err := Inspect(ctx, ex, s, declared)
	if err != nil {
		return Result{}, err
	}
	if st.Newer() {
		return Result{From: st}, st.Readable()
	}
	if !st.Behind() {
		return Result{From: st}, nil
	}
	return Migrate(ctx, ex, s, declared)
}
