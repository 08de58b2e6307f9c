package synced

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
)

// named is a source that answers an empty table and counts its queries.
type named struct {
	name    string
	queries int
}

func (n *named) Accounts(context.Context) ([]ads.Account, error) { return nil, nil }
func (n *named) Close() error                                    { return nil }
func (n *named) Query(context.Context, *query.Query) (*fit.Table, error) {
	n.queries++
	return &fit.Table{}, nil
}

func day(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }

func TestAnswersFromTheWarehouseOnlyWhatTheSyncCovers(t *testing.T) {
	states := []importer.SyncState{
		{AccountID: "act_1", SyncedFrom: day("2026-01-01"), SyncedThrough: day("2026-03-10"), LastAttempt: day("2026-03-10").Add(9 * time.Hour)},
		{AccountID: "act_2", SyncedFrom: day("2026-02-01"), SyncedThrough: day("2026-03-09")},
	}
	q := func(start, end string, ids ...string) *query.Query {
		out := &query.Query{Start: day(start), End: day(end)}
		for _, id := range ids {
			out.Accounts = append(out.Accounts, ads.Account{AccountID: id})
		}
		return out
	}
	cases := []struct {
		name     string
		q        *query.Query
		live     bool
		wantFrom string
		notice   bool
	}{
		{"covered", q("2026-02-01", "2026-03-09", "act_1", "act_2"), true, source.FromSynced, false},
		{"one account short at the end", q("2026-02-01", "2026-03-10", "act_1", "act_2"), true, source.FromLive, false},
		{"one account short at the start", q("2026-01-15", "2026-01-31", "act_1", "2"), true, source.FromLive, false},
		{"never synced", q("2026-02-01", "2026-02-02", "act_3"), true, source.FromLive, false},
		{"short, no live source", q("2026-02-01", "2026-03-10", "act_1", "act_2"), false, source.FromSynced, true},
		// An account no sync wrote, in a warehouse without a live source,
		// was imported: no sync claim to be short of.
		{"imported, no live source", q("2025-01-01", "2025-01-31", "act_3"), false, source.FromSynced, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wh, lv := &named{name: "warehouse"}, &named{name: "live"}
			s := &Source{Warehouse: wh, States: func(context.Context) ([]importer.SyncState, error) { return states, nil }}
			if c.live {
				s.Live = lv
			}
			var notes source.ProvenanceNotes
			tab, err := s.Query(source.WithProvenance(context.Background(), &notes), c.q)
			if err != nil {
				t.Fatal(err)
			}
			got := notes.Notes()
			if len(got) != 1 || got[0].From != c.wantFrom {
				t.Fatalf("provenance %+v, want from %s", got, c.wantFrom)
			}
			if (wh.queries == 1) != (c.wantFrom == source.FromSynced) || wh.queries+lv.queries != 1 {
				t.Errorf("warehouse queried %d times, live %d", wh.queries, lv.queries)
			}
			hasNotice := len(tab.Notices) == 1 && tab.Notices[0].Type == "beyond_synced"
			if hasNotice != c.notice {
				t.Errorf("notices %+v, want beyond_synced: %v", tab.Notices, c.notice)
			}
			if hasNotice && !strings.Contains(tab.Notices[0].Detail, "act_2 holds 2026-02-01 … 2026-03-09") {
				t.Errorf("the notice does not say where act_2 ends: %s", tab.Notices[0].Detail)
			}
			if c.wantFrom == source.FromSynced && c.name != "imported, no live source" && (len(got[0].Accounts) != 2 || got[0].Accounts[1].Through != "2026-03-09") {
				t.Errorf("no freshness per account (they differ): %+v", got[0])
			}
		})
	}
}
