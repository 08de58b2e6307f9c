package clickhouse

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/importer"
)

func (s *importStore) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return s.db.QueryContext(ctx, q, bindArgs(args)...)
}

func (s *importStore) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	return s.db.QueryRowContext(ctx, q, bindArgs(args)...)
}

// mutate starts a mutation (ALTER … DELETE); waitMutations waits for it.
func (s *importStore) mutate(ctx context.Context, q string, args ...any) error {
	_, err := s.db.ExecContext(ctx, q, bindArgs(args)...)
	return err
}

// waitMutations waits until the database's mutations are done: ClickHouse
// applies them in the background, and rows written before they finish would
// be deleted by them.
func (s *importStore) waitMutations(ctx context.Context) error {
	for {
		var pending uint64
		if err := s.db.QueryRowContext(ctx, `SELECT count() FROM system.mutations WHERE database = currentDatabase() AND is_done = 0`).Scan(&pending); err != nil {
			return fmt.Errorf("clickhouse: waiting for deletes: %w", err)
		}
		if pending == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (s *importStore) Target() importer.Target {
	return importer.Target{Name: s.target, Elsewhere: "--target another database"}
}

func (s *importStore) State(ctx context.Context) (importer.State, error) {
	if s.fresh {
		return importer.State{Empty: true}, nil
	}
	var kind, label string
	err := s.db.QueryRowContext(ctx, `SELECT anyIf(value, key = 'kind'), anyIf(value, key = 'label') FROM dataset`).Scan(&kind, &label)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return importer.State{}, fmt.Errorf("clickhouse: reading the dataset description: %w", err)
	}
	var rows uint64
	if err := s.db.QueryRowContext(ctx, `SELECT (SELECT count() FROM accounts) + (SELECT count() FROM facts) + (SELECT count() FROM dataset)`).Scan(&rows); err != nil {
		return importer.State{}, fmt.Errorf("clickhouse: reading the warehouse: %w", err)
	}
	return importer.State{Empty: rows == 0, Kind: kind, Label: label}, nil
}

func (s *importStore) Accounts(ctx context.Context) ([]ads.Account, error) {
	if s.fresh {
		return nil, nil
	}
	rows, err := s.query(ctx, `SELECT account_id, platform, account_name, currency, timezone, status,
		ifNull(attribution_window, ''), ifNull(conversion_actions, '') FROM accounts`)
	if err != nil {
		return nil, fmt.Errorf("clickhouse: reading the accounts: %w", err)
	}
	defer rows.Close()
	return importer.ScanAccounts(rows)
}

func (s *importStore) Imported(ctx context.Context, sha256 string) (importer.LedgerEntry, bool, error) {
	e := importer.LedgerEntry{SHA256: sha256}
	if s.fresh || !s.ledger {
		return e, false, nil
	}
	err := s.queryRow(ctx, `SELECT imported_at, file_name FROM imports WHERE sha256 = ? LIMIT 1`, sha256).Scan(&e.ImportedAt, &e.FileName)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return e, false, nil
	case err != nil:
		return e, false, fmt.Errorf("clickhouse: reading the imports ledger: %w", err)
	}
	return e, true, nil
}

func (s *importStore) Campaigns(ctx context.Context, accountIDs []string) ([]importer.CampaignKey, error) {
	if s.fresh {
		return nil, nil
	}
	rows, err := s.query(ctx, `SELECT DISTINCT account_id, campaign_id FROM campaigns WHERE has(?, account_id)`, accountIDs)
	if err != nil {
		return nil, fmt.Errorf("clickhouse: reading the known campaigns: %w", err)
	}
	defer rows.Close()
	return importer.ScanCampaignKeys(rows)
}

// reachWhere selects the reach rows of r.
func reachWhere(r importer.Range) (string, []any) {
	return r.ReachWhere(func(_ int, date bool) string {
		if date {
			return "toDate(?)"
		}
		return "?"
	})
}

// factWhere selects the facts of r: its account, dates and breakdown sets.
func factWhere(r importer.Range) (string, []any) {
	return r.FactWhere("", func(_ int, date bool) string {
		if date {
			return "toDate(?)"
		}
		return "?"
	})
}

// Replaced reads the replaced campaigns' names from their facts (the
// warehouse is denormalized).
func (s *importStore) Replaced(ctx context.Context, r importer.Range) (importer.Replacement, error) {
	var rep importer.Replacement
	if s.fresh {
		return rep, nil
	}
	var facts, reach uint64
	fwhere, fargs := factWhere(r)
	if err := s.queryRow(ctx, `SELECT count() FROM facts WHERE `+fwhere, fargs...).Scan(&facts); err != nil {
		return rep, fmt.Errorf("clickhouse: counting the facts to replace: %w", err)
	}
	if r.HasReach() {
		where, args := reachWhere(r)
		if err := s.queryRow(ctx, `SELECT count() FROM reach WHERE `+where, args...).Scan(&reach); err != nil {
			return rep, fmt.Errorf("clickhouse: counting the reach to replace: %w", err)
		}
	}
	rep.Facts, rep.Reach = int64(facts), int64(reach)
	rows, err := s.query(ctx, `SELECT assumeNotNull(campaign_id), ifNull(any(campaign_name), assumeNotNull(campaign_id)) FROM facts
		WHERE `+fwhere+` AND campaign_id IS NOT NULL
		GROUP BY campaign_id`, fargs...)
	if err != nil {
		return rep, fmt.Errorf("clickhouse: reading the replaced campaigns: %w", err)
	}
	defer rows.Close()
	rep.Campaigns, err = importer.ScanCampaigns(rows)
	return rep, err
}

func (s *importStore) FactDates(ctx context.Context) (first, last time.Time, ok bool, err error) {
	var n uint64
	if err := s.db.QueryRowContext(ctx, `SELECT count(), min(date), max(date) FROM facts`).Scan(&n, &first, &last); err != nil {
		return first, last, false, fmt.Errorf("clickhouse: reading the imported dates: %w", err)
	}
	return first, last, n > 0, nil
}

// ClearDemo drops the tables and creates them again.
func (s *importStore) ClearDemo(ctx context.Context) error {
	if err := dropTables(ctx, s.c); err != nil {
		return err
	}
	s.complete = false
	return s.ensureTables(ctx)
}

// WriteFile replaces the file's accounts' facts and reach on its dates,
// writes its rows, and records it in the ledger, last.
func (s *importStore) WriteFile(ctx context.Context, p *importer.FilePlan) error {
	if err := s.writeFile(ctx, p); err != nil {
		return fmt.Errorf("%s: %w (importing it again completes it)", p.Export.File, err)
	}
	return nil
}

func (s *importStore) writeFile(ctx context.Context, p *importer.FilePlan) error {
	if err := s.ensureTables(ctx); err != nil {
		return err
	}
	if s.sync {
		return s.replaceChunk(ctx, p)
	}
	for _, r := range p.Ranges {
		where, args := factWhere(r)
		if err := s.mutate(ctx, `ALTER TABLE facts DELETE WHERE `+where, args...); err != nil {
			return fmt.Errorf("clickhouse: replacing facts: %w", err)
		}
		if !r.HasReach() {
			continue
		}
		where, args = reachWhere(r)
		if err := s.mutate(ctx, `ALTER TABLE reach DELETE WHERE `+where, args...); err != nil {
			return fmt.Errorf("clickhouse: replacing reach: %w", err)
		}
	}
	ids := p.Ledger.Accounts
	if err := s.mutate(ctx, `ALTER TABLE accounts DELETE WHERE has(?, account_id)`, ids); err != nil {
		return fmt.Errorf("clickhouse: updating accounts: %w", err)
	}
	if err := s.waitMutations(ctx); err != nil {
		return err
	}
	if err := s.sendRows(ctx, p, "facts", "reach"); err != nil {
		return err
	}
	var accounts [][]string
	for _, a := range p.Accounts {
		accounts = append(accounts, []string{a.AccountID, a.Platform, a.AccountName, a.Currency, a.Timezone, a.Status,
			null(a.AttributionWindow), null(a.ConversionActions)})
	}
	if err := insertCSV(ctx, s.c, "accounts", accounts); err != nil {
		return err
	}
	e := p.Ledger
	if e.SHA256 == "" {
		return nil // no ledger row (a sync chunk's plan)
	}
	return insertCSV(ctx, s.c, "imports", [][]string{{e.SHA256, e.FileName, e.Platform, strings.Join(e.Accounts, ","),
		e.First.Format(time.DateOnly), e.Last.Format(time.DateOnly), fmt.Sprint(e.Facts), fmt.Sprint(e.ReachRows),
		fmt.Sprint(e.SkippedLines), e.ImportedAt.Format(time.DateTime)}})
}

// sendRows writes the plan's facts and reach into the tables facts and
// reach (a sync's staging tables, or the warehouse's), and its new campaigns
// into campaigns, through the loader that writes the demo data, which puts
// each fact's names on it.
func (s *importStore) sendRows(ctx context.Context, p *importer.FilePlan, facts, reach string) error {
	l := newLoader(ctx, s.c)
	l.into.facts, l.into.reach = facts, reach
	for _, a := range p.Accounts {
		l.Account(a.Account) //nolint:errcheck // never fails
	}
	for _, c := range p.Campaigns() {
		l.Campaign(c) //nolint:errcheck // never fails
	}
	l.newCampaigns = slices.DeleteFunc(l.newCampaigns, func(c ads.Campaign) bool {
		return !p.NewCampaigns[importer.CampaignKey{AccountID: c.AccountID, CampaignID: c.CampaignID}]
	})
	for _, st := range p.AdSets() {
		l.AdSet(st) //nolint:errcheck // never fails
	}
	for _, a := range p.Ads() {
		l.Ad(a) //nolint:errcheck // never fails
	}
	if err := p.Send(l); err != nil {
		l.abort(err)
		return err
	}
	return l.finishRows()
}

// WriteDataset replaces the dataset rows; complete=true, the last, is
// written last, on its own.
func (s *importStore) WriteDataset(ctx context.Context, rows [][2]string) error {
	if err := s.ensureTables(ctx); err != nil {
		return err
	}
	if s.sync {
		return s.replaceDataset(ctx, rows)
	}
	if err := s.mutate(ctx, `ALTER TABLE dataset DELETE WHERE 1`); err != nil {
		return fmt.Errorf("clickhouse: updating the dataset description: %w", err)
	}
	if err := s.waitMutations(ctx); err != nil {
		return err
	}
	out := make([][]string, len(rows))
	for i, kv := range rows {
		out[i] = []string{kv[0], kv[1]}
	}
	n := len(out) - 1
	if err := insertCSV(ctx, s.c, "dataset", out[:n]); err != nil {
		return err
	}
	return insertCSV(ctx, s.c, "dataset", out[n:])
}
