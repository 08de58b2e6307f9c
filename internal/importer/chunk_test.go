package importer

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// The reach periods a chunk owns are those whose last day it holds: days in
// the range, ISO weeks by their Sunday, months by their last day (a leap
// February's is the 29th). The weeks are checked against a calendar walk,
// not the function's arithmetic.
func TestSyncReachPeriods(t *testing.T) {
	for _, c := range []struct {
		first, last string
		months      [][2]string // monthly From, To; nil: no month ends in the range
	}{
		{"2024-02-01", "2024-02-29", [][2]string{{"2024-02-01", "2024-02-01"}}},
		{"2024-02-01", "2024-02-28", nil},
		{"2023-02-01", "2023-02-28", [][2]string{{"2023-02-01", "2023-02-01"}}},
		{"2026-01-31", "2026-01-31", [][2]string{{"2026-01-01", "2026-01-01"}}},
		{"2026-01-30", "2026-03-30", [][2]string{{"2026-01-01", "2026-02-01"}}},
		{"2026-03-02", "2026-03-08", nil},
	} {
		first, last := day(c.first), day(c.last)
		got := SyncReachPeriods(first, last)
		// Weeks: every Sunday in the range ends the week starting the Monday before.
		var mondays []time.Time
		for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
			if d.Weekday() == time.Sunday {
				mondays = append(mondays, d.AddDate(0, 0, -6))
			}
		}
		if got[0] != (ReachPeriod{"daily", first, last}) {
			t.Errorf("%s…%s: daily %v", c.first, c.last, got[0])
		}
		w := got[1]
		for _, m := range mondays {
			if w.Grain != "weekly" || m.Before(w.From) || m.After(w.To) {
				t.Errorf("%s…%s: the week from %s ends in the range, weekly is %v", c.first, c.last, m.Format(time.DateOnly), w)
			}
		}
		// No other Monday-starting week in [From, To] ends outside the range.
		for d := w.From; !d.After(w.To); d = d.AddDate(0, 0, 1) {
			if d.Weekday() == time.Monday && !slices.Contains(mondays, d) {
				t.Errorf("%s…%s: weekly %v holds the week from %s, which ends outside the range", c.first, c.last, w, d.Format(time.DateOnly))
			}
		}
		var months [][2]string
		for _, p := range got[2:] {
			months = append(months, [2]string{p.From.Format(time.DateOnly), p.To.Format(time.DateOnly)})
		}
		if !slices.Equal(months, c.months) {
			t.Errorf("%s…%s: monthly %v, want %v", c.first, c.last, months, c.months)
		}
	}
}

// chunk is a one-campaign chunk of account on Jan first … last.
func chunk(account, currency, tz string, first, last int) *Chunk {
	c := &Chunk{Account: ads.Account{AccountID: account, Platform: Meta, AccountName: "Name " + account, Currency: currency, Timezone: tz, Status: "ACTIVE"},
		First: jan(first), Last: jan(last), Sets: []string{catalog.Delivery, ConversionActionSet}}
	c.Campaigns = []ads.Campaign{{CampaignID: "c1", AccountID: account, Name: "C1"}, {CampaignID: "c2", AccountID: account, Name: "C2"}}
	c.Facts = []ads.Fact{{Date: jan(first), AccountID: account, CampaignID: "c1"}}
	c.Reach = []ads.Reach{{Level: "account", ObjectID: account, AccountID: account, Grain: "daily", PeriodStart: jan(first), Reach: 5}}
	c.State = SyncState{AccountID: account, Platform: Meta, SyncedFrom: jan(first), SyncedThrough: jan(last), LastSuccess: jan(20), LastAttempt: jan(20)}
	return c
}

// A chunk is planned like an import: the warehouse's spelling of the
// account, the range of every set and the reach periods it owns, the new
// campaigns, no ledger row, the state in the warehouse's spelling, the
// dataset of a synced warehouse.
func TestWriteChunkPlansAgainstTheWarehouse(t *testing.T) {
	m := &memStore{transactional: true, state: State{Kind: KindSync, Label: SyncLabel},
		accounts:  []ads.Account{{AccountID: "act_1", Platform: Meta, AccountName: "Old", Currency: "USD", Timezone: "UTC", Status: "PAUSED"}},
		campaigns: []CampaignKey{{"act_1", "c1"}},
		replaced:  map[string]Replacement{"act_1": {Facts: 4, Reach: 2}},
	}
	res, err := WriteChunk(context.Background(), m, chunk("1", "USD", "UTC", 1, 31), SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res != (ChunkResult{FactsAdded: 1, FactsReplaced: 4, ReachAdded: 1, ReachReplaced: 2, NewCampaigns: 1}) {
		t.Errorf("result %+v", res)
	}
	if want := []string{"file ", "dataset", "state act_1"}; !slices.Equal(m.writes, want) {
		t.Errorf("writes %q, want %q", m.writes, want)
	}
	p := m.files[0]
	if p.Ledger.SHA256 != "" {
		t.Errorf("a chunk with a ledger entry %+v", p.Ledger)
	}
	a := p.Accounts[0]
	if a.AccountID != "act_1" || a.AccountName != "Name 1" || a.Status != "ACTIVE" || !a.Changed || a.New {
		t.Errorf("planned account %+v", a)
	}
	r := p.Ranges[0]
	if r.AccountID != "act_1" || !r.First.Equal(jan(1)) || !r.Last.Equal(jan(31)) ||
		!slices.Equal(r.Breakdowns, []string{catalog.Delivery, ConversionActionSet}) || !slices.Equal(r.Reach, SyncReachPeriods(jan(1), jan(31))) {
		t.Errorf("range %+v", r)
	}
	if !p.NewCampaigns[CampaignKey{"act_1", "c2"}] || len(p.NewCampaigns) != 1 {
		t.Errorf("new campaigns %v", p.NewCampaigns)
	}
	var sent recordSink
	if err := p.Send(&sent); err != nil || sent.facts[0].AccountID != "act_1" || sent.reach[0].ObjectID != "act_1" {
		t.Errorf("sent %+v, %v", sent, err)
	}
	if st := m.syncStates[0]; st.AccountID != "act_1" || !st.SyncedThrough.Equal(jan(31)) {
		t.Errorf("state %+v", st)
	}
	if got := m.dataset; got[0] != [2]string{"kind", KindSync} || got[1] != [2]string{"label", SyncLabel} || got[len(got)-1] != [2]string{"complete", "true"} {
		t.Errorf("dataset %v", got)
	}
}

// An account whose platform, currency or time zone differs is refused,
// writing nothing; the warehouse's other accounts are no matter.
func TestWriteChunkRefusesAChangedAccount(t *testing.T) {
	for _, c := range []struct {
		chunk      *Chunk
		field, now string
	}{
		{chunk("act_1", "EUR", "UTC", 1, 2), "currency", "EUR"},
		{chunk("act_1", "USD", "Europe/Paris", 1, 2), "timezone", "Europe/Paris"},
	} {
		m := &memStore{state: State{Kind: KindImport}, accounts: []ads.Account{{AccountID: "ACT_1", Platform: Meta, Currency: "USD", Timezone: "UTC"}}}
		_, err := WriteChunk(context.Background(), m, c.chunk, SyncOptions{})
		var changed *AccountChangedError
		if !errors.As(err, &changed) || changed.Field != c.field || changed.Now != c.now || changed.AccountID != "ACT_1" {
			t.Errorf("%s: %v", c.field, err)
		}
		if len(m.writes) != 0 {
			t.Errorf("%s: wrote %q", c.field, m.writes)
		}
	}
	m := &memStore{state: State{Kind: KindSync}, accounts: []ads.Account{{AccountID: "act_1", Platform: Google, Currency: "USD", Timezone: "UTC"}}}
	var changed *AccountChangedError
	if _, err := WriteChunk(context.Background(), m, chunk("act_1", "USD", "UTC", 1, 2), SyncOptions{}); !errors.As(err, &changed) || changed.Field != "platform" {
		t.Errorf("platform: %v", err)
	}
}

// Demo data is refused, or deleted first with ReplaceDemo; a warehouse of
// imports takes chunks and keeps its kind, saying it holds both.
func TestWriteChunkDatasetKinds(t *testing.T) {
	m := &memStore{state: State{Kind: "demo"}}
	if _, err := WriteChunk(context.Background(), m, chunk("1", "USD", "UTC", 1, 2), SyncOptions{}); !errors.Is(err, ErrDemoData) || len(m.writes) != 0 {
		t.Errorf("into demo data: %v, wrote %q", err, m.writes)
	}
	res, err := WriteChunk(context.Background(), m, chunk("1", "USD", "UTC", 1, 2), SyncOptions{ReplaceDemo: true})
	if err != nil || !res.NewAccount || m.writes[0] != "clear" || m.dataset[0][1] != KindSync {
		t.Errorf("replacing demo data: %+v, %v, wrote %q, dataset %v", res, err, m.writes, m.dataset)
	}
	for _, c := range []struct {
		st          State
		own         string
		kind, label string
	}{
		{State{Empty: true}, KindSync, KindSync, SyncLabel},
		{State{Empty: true}, KindImport, KindImport, Label},
		{State{Kind: KindImport, Label: Label}, KindSync, KindImport, MixedLabel},
		{State{Kind: KindSync, Label: SyncLabel}, KindImport, KindSync, MixedLabel},
		{State{Kind: KindImport, Label: MixedLabel}, KindImport, KindImport, MixedLabel},
		{State{Kind: KindSync, Label: SyncLabel}, KindSync, KindSync, SyncLabel},
	} {
		if kind, label := DatasetKind(c.st, c.own); kind != c.kind || label != c.label {
			t.Errorf("%+v then %s: %s %q, want %s %q", c.st, c.own, kind, label, c.kind, c.label)
		}
	}
}

// An import into a synced warehouse is an import into real data, not a
// refusal; the dataset then says it holds both.
func TestWriteIntoASyncedWarehouse(t *testing.T) {
	m := &memStore{transactional: true, state: State{Kind: KindSync, Label: SyncLabel}}
	if _, err := Write(context.Background(), m, []*Export{export("a.csv", "1", "USD", 1, 1, "c1")}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if m.dataset[0] != [2]string{"kind", KindSync} || m.dataset[1] != [2]string{"label", MixedLabel} {
		t.Errorf("dataset %v", m.dataset)
	}
}

type recordSink struct {
	ads.Sink
	facts []ads.Fact
	reach []ads.Reach
}

func (r *recordSink) Fact(f *ads.Fact) error  { r.facts = append(r.facts, *f); return nil }
func (r *recordSink) Reach(x ads.Reach) error { r.reach = append(r.reach, x); return nil }
