package clickhouse

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/adsmcp/adsmcp/internal/importer"
)

// Syncs (`adsmcp sync`, docs/sync.md) write chunks into a ClickHouse
// warehouse through the import engine's rules (importer.WriteChunk).
// ClickHouse has no transactions, and its deletes (mutations) are applied
// in the background, so an import's delete-then-insert would show a reader
// the chunk's days empty, or counted twice, for as long as they take.
// A sync replaces whole partitions instead, each in one statement that
// ClickHouse applies atomically (ALTER TABLE … REPLACE PARTITION … FROM,
// https://clickhouse.com/docs/en/sql-reference/statements/alter/partition):
//
//  1. Staging tables (adsmcp_sync_facts, …, made AS the warehouse's) get
//     the rows a chunk keeps — the other accounts', the other days', the
//     other sets' of the partitions it touches — and the chunk's rows.
//  2. Then, in this order, each partition is swapped in: the facts'
//     months (facts are PARTITION BY toYYYYMM(date); a chunk within one
//     calendar month swaps one), reach, accounts, the dataset rows; and the
//     account's sync_state row is inserted last (a reader takes the highest
//     revision).
//
// A chunk interrupted before step 2 leaves the warehouse and the state as
// they were (the staging tables are not read, and the next write drops
// them). Step 2 is several statements: between the facts' swap and the
// reach's, a reader may see the new facts with the old reach (a window of
// one statement, measured in docs/warehouse.md), and a chunk cut short
// there is re-written whole by the next run (its state still says the days
// are not synced). Reach, accounts and the dataset are not partitioned:
// each chunk copies them whole (reach is small next to facts). One writer
// at a time: an import into the same database during a sync could be lost
// by the copy.

// OpenSync opens the warehouse at dsn for a sync, creating its tables when
// missing (the database must exist).
func OpenSync(ctx context.Context, dsn string, opt importer.SyncOptions) (importer.SyncTarget, error) {
	c, err := newHTTPClient(dsn)
	if err != nil {
		return nil, err
	}
	s := &importStore{c: c, target: Redact(dsn), sync: true}
	if err := s.createTables(ctx); err != nil {
		return nil, err
	}
	s.complete, s.ledger, s.upgraded = true, true, true
	s.db = ch.OpenDB(c.e.native)
	return &importer.StoreTarget{Warehouse: s.target, Options: opt,
		Run: func(ctx context.Context, write func(importer.Store) error) error {
			if err := write(s); err != nil {
				return err
			}
			return s.dropStaging(context.WithoutCancel(ctx))
		},
		ReadStates: s.SyncStates,
		Release:    s.db.Close,
	}, nil
}

// syncTables are the tables a chunk swaps partitions of, through a staging
// table each.
var syncTables = []string{"facts", "reach", "accounts", "dataset"}

func staging(table string) string { return "adsmcp_sync_" + table }

// stage makes the staging table of table, empty.
func (s *importStore) stage(ctx context.Context, table string) error {
	for _, q := range []string{"DROP TABLE IF EXISTS " + staging(table), "CREATE TABLE " + staging(table) + " AS " + table} {
		if _, err := s.c.do(ctx, q, nil); err != nil {
			return fmt.Errorf("clickhouse: staging %s: %w", table, err)
		}
	}
	return nil
}

func (s *importStore) dropStaging(ctx context.Context) error {
	for _, t := range syncTables {
		if _, err := s.c.do(ctx, "DROP TABLE IF EXISTS "+staging(t), nil); err != nil {
			return fmt.Errorf("clickhouse: dropping the staging tables: %w", err)
		}
	}
	return nil
}

// inline writes args into where's placeholders (Range.FactWhere's and
// ReachWhere's "?") as literals, for statements the HTTP interface runs.
func inline(where string, args []any) string {
	var b strings.Builder
	parts := strings.Split(where, "?")
	for i, p := range parts {
		b.WriteString(p)
		if i < len(args) && i < len(parts)-1 {
			switch v := args[i].(type) {
			case time.Time:
				b.WriteString(literal(v.Format(time.DateOnly)))
			default:
				b.WriteString(literal(fmt.Sprint(v)))
			}
		}
	}
	return b.String()
}

// months are the facts partitions (toYYYYMM) from first to last.
func months(first, last time.Time) []int {
	var out []int
	for m := time.Date(first.Year(), first.Month(), 1, 0, 0, 0, 0, time.UTC); !m.After(last); m = m.AddDate(0, 1, 0) {
		out = append(out, m.Year()*100+int(m.Month()))
	}
	return out
}

// replaceChunk writes a chunk's plan by swapping partitions (see above).
func (s *importStore) replaceChunk(ctx context.Context, p *importer.FilePlan) error {
	for _, t := range syncTables[:3] {
		if err := s.stage(ctx, t); err != nil {
			return err
		}
	}
	var parts []int
	for _, r := range p.Ranges {
		fwhere, fargs := factWhere(r)
		rwhere, rargs := reachWhere(r)
		ms := months(r.First, r.Last)
		parts = append(parts, ms...)
		for _, m := range ms {
			if _, err := s.c.do(ctx, "INSERT INTO "+staging("facts")+" SELECT * FROM facts WHERE toYYYYMM(date) = "+strconv.Itoa(m)+
				" AND NOT ("+inline(fwhere, fargs)+")", nil); err != nil {
				return fmt.Errorf("clickhouse: staging the facts kept: %w", err)
			}
		}
		if _, err := s.c.do(ctx, "INSERT INTO "+staging("reach")+" SELECT * FROM reach WHERE NOT ("+inline(rwhere, rargs)+")", nil); err != nil {
			return fmt.Errorf("clickhouse: staging the reach kept: %w", err)
		}
	}
	ids := make([]string, len(p.Accounts))
	for i, a := range p.Accounts {
		ids[i] = literal(a.AccountID)
	}
	if _, err := s.c.do(ctx, "INSERT INTO "+staging("accounts")+" SELECT * FROM accounts WHERE account_id NOT IN ("+strings.Join(ids, ", ")+")", nil); err != nil {
		return fmt.Errorf("clickhouse: staging the accounts kept: %w", err)
	}
	if err := s.stageRows(ctx, p); err != nil {
		return err
	}
	for _, m := range parts {
		if err := s.swap(ctx, "facts", strconv.Itoa(m)); err != nil {
			return err
		}
	}
	if err := s.swap(ctx, "reach", "tuple()"); err != nil {
		return err
	}
	return s.swap(ctx, "accounts", "tuple()")
}

// stageRows writes the chunk's accounts, facts and reach into the staging
// tables, and its new campaigns into campaigns (a list no query reads).
func (s *importStore) stageRows(ctx context.Context, p *importer.FilePlan) error {
	if err := s.sendRows(ctx, p, staging("facts"), staging("reach")); err != nil {
		return err
	}
	var accounts [][]string
	for _, a := range p.Accounts {
		accounts = append(accounts, []string{a.AccountID, a.Platform, a.AccountName, a.Currency, a.Timezone, a.Status,
			null(a.AttributionWindow), null(a.ConversionActions)})
	}
	return insertCSV(ctx, s.c, staging("accounts"), accounts)
}

// swap replaces table's partition with the staging table's, atomically.
func (s *importStore) swap(ctx context.Context, table, partition string) error {
	if _, err := s.c.do(ctx, "ALTER TABLE "+table+" REPLACE PARTITION "+partition+" FROM "+staging(table), nil); err != nil {
		return fmt.Errorf("clickhouse: replacing %s's partition %s: %w", table, partition, err)
	}
	return nil
}

// replaceDataset swaps the dataset rows whole.
func (s *importStore) replaceDataset(ctx context.Context, rows [][2]string) error {
	if err := s.stage(ctx, "dataset"); err != nil {
		return err
	}
	out := make([][]string, len(rows))
	for i, kv := range rows {
		out[i] = []string{kv[0], kv[1]}
	}
	if err := insertCSV(ctx, s.c, staging("dataset"), out); err != nil {
		return err
	}
	return s.swap(ctx, "dataset", "tuple()")
}

func (s *importStore) SyncStates(ctx context.Context) ([]importer.SyncState, error) {
	return readSyncStates(ctx, s.db)
}

// WriteSyncState inserts the account's state at a revision above every
// earlier one this store wrote (and above the clock's nanoseconds, for a
// later run).
func (s *importStore) WriteSyncState(ctx context.Context, st importer.SyncState) error {
	rev := uint64(time.Now().UnixNano())
	if rev <= s.revision {
		rev = s.revision + 1
	}
	s.revision = rev
	date := func(t time.Time) string {
		if t.IsZero() {
			return `\N`
		}
		return t.Format(time.DateOnly)
	}
	at := func(t time.Time) string {
		if t.IsZero() {
			return `\N`
		}
		return t.UTC().Format(time.DateTime)
	}
	return insertCSV(ctx, s.c, "sync_state", [][]string{{st.AccountID, st.Platform, date(st.SyncedFrom), date(st.SyncedThrough),
		date(st.BackfillFrom), at(st.LastSuccess), at(st.LastAttempt), st.LastError, strconv.FormatUint(rev, 10)}})
}

// readSyncStates reads each account's row of the highest revision, none
// when the warehouse has no sync_state (a layout before version 3).
func readSyncStates(ctx context.Context, db *sql.DB) ([]importer.SyncState, error) {
	var n uint64
	if err := db.QueryRowContext(ctx, `SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'sync_state'`).Scan(&n); err != nil || n == 0 {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT `+importer.SyncStateColumns+` FROM sync_state
		ORDER BY account_id, revision DESC LIMIT 1 BY account_id`)
	if err != nil {
		return nil, fmt.Errorf("clickhouse: reading the sync state: %w", err)
	}
	defer rows.Close()
	return importer.ScanSyncStates(rows)
}

// SyncStates are the accounts' sync states (table sync_state), none when
// the warehouse was never synced or predates the table (schema version 3).
func (s *Source) SyncStates(ctx context.Context) ([]importer.SyncState, error) {
	return readSyncStates(s.settings(ctx), s.db)
}
