package answer

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
)

func TestPeriodsIn(t *testing.T) {
	d := func(s string) time.Time { v, _ := time.Parse(time.DateOnly, s); return v }
	for _, c := range []struct {
		g          fit.Grain
		start, end string
		want       int
	}{
		{fit.Daily, "2026-01-01", "2026-01-31", 31},
		{fit.Weekly, "2026-01-01", "2026-01-31", 5}, // Thu 1st: weeks of Dec 29, Jan 5, 12, 19, 26
		{fit.Weekly, "2026-01-05", "2026-01-11", 1},
		{fit.Monthly, "2025-12-15", "2026-02-01", 3},
		{fit.Quarterly, "2025-12-31", "2026-04-01", 3},
		{fit.Total, "2024-01-01", "2026-01-01", 1},
	} {
		if got := periodsIn(c.g, d(c.start), d(c.end)); got != c.want {
			t.Errorf("%s %s…%s: %d periods, want %d", c.g, c.start, c.end, got, c.want)
		}
	}
}

// rowsOnly is a source without its Sizer: the answer engine reads every row.
type rowsOnly struct{ source.Source }

// grainsAsked records the grains a source was asked for rows at.
type grainsAsked struct {
	source.Source
	sizer source.Sizer
	asked []fit.Grain
}

func (g *grainsAsked) Query(ctx context.Context, q *query.Query) (*fit.Table, error) {
	g.asked = append(g.asked, q.Grain)
	return g.Source.Query(ctx, q)
}

func (g *grainsAsked) Sized() source.Sizer { return g.sizer }

func (g *grainsAsked) Coverage(ctx context.Context, ids []string) (map[string]source.Coverage, error) {
	return g.Source.(source.CoverageSource).Coverage(ctx, ids)
}

// A query whose rows cannot fit gets the same answer when they are counted
// and summarized in the warehouse as when they are all read: the same rows at
// the same grain, or the same summary of the requested grain — and its rows
// at that grain are never read.
func TestLargeAnswersAsReadingEveryRow(t *testing.T) {
	src := duckdbtest.Open(t)
	cases := []struct {
		name   string
		args   string
		budget int
		want   fit.Kind
	}{
		{"summarized", `{"platforms":["meta_ads","tiktok_ads"],"date_range":{"start":"2025-06-01","end":"2026-03-14"},"dimensions":["ad_name","device","publisher_platform"],"metrics":["spend","clicks","ctr"],"time_granularity":"daily"}`, 2000, fit.KindTooLarge},
		{"answered monthly", `{"platforms":["meta_ads","tiktok_ads"],"date_range":{"start":"2025-06-01","end":"2026-03-14"},"dimensions":["account_name"],"metrics":["spend","clicks","cpc"],"time_granularity":"daily"}`, 2000, fit.KindData},
		{"reach, re-asked", `{"platforms":["meta_ads","tiktok_ads"],"date_range":{"start":"2025-12-01","end":"2026-02-28"},"dimensions":["campaign_name"],"metrics":["spend","reach"],"time_granularity":"daily"}`, 1500, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			asked := &grainsAsked{Source: src, sizer: src}
			large := &Engine{Source: asked, Now: duckdbtest.Now, SizeFirstAbove: 1}
			plain := &Engine{Source: rowsOnly{src}, Now: duckdbtest.Now}
			req := Request{Args: []byte(c.args), Budget: c.budget}
			got, err := large.Query(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			want, err := plain.Query(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if got.Response == nil || want.Response == nil {
				t.Fatalf("no data answer: %.300s / %.300s", got.Blocks[0], want.Blocks[0])
			}
			if c.want != "" && want.Response.Kind != c.want {
				t.Fatalf("the case proves little: reading every row answers %s, want %s", want.Response.Kind, c.want)
			}
			if got.Response.Kind != want.Response.Kind {
				t.Fatalf("%s, reading every row %s", got.Response.Kind, want.Response.Kind)
			}
			for _, g := range asked.asked {
				if g == fit.Daily {
					t.Errorf("the source was asked for its daily rows (asked %v)", asked.asked)
				}
			}
			gm, wm := got.Response.Meta, want.Response.Meta
			if gm.OriginalRows != wm.OriginalRows || gm.ReturnedRows != wm.ReturnedRows || gm.TimeGranularity.Returned != wm.TimeGranularity.Returned {
				t.Errorf("%d → %d rows at %s, reading every row %d → %d at %s", gm.OriginalRows, gm.ReturnedRows, gm.TimeGranularity.Returned,
					wm.OriginalRows, wm.ReturnedRows, wm.TimeGranularity.Returned)
			}
			if got.Response.Kind == fit.KindData {
				if got.Blocks[1] != want.Blocks[1] {
					t.Errorf("the rows differ:\n%.500s\n---\n%.500s", got.Blocks[1], want.Blocks[1])
				}
				return
			}
			gs, ws := *got.Response.TooLarge.Summary, *want.Response.TooLarge.Summary
			gs.TokenEstimate, ws.TokenEstimate = 0, 0
			a, _ := json.Marshal(gs)
			b, _ := json.Marshal(ws)
			if string(a) != string(b) {
				t.Errorf("summaries differ:\n%s\n---\n%s", a, b)
			}
		})
	}
}

// busySizer counts the large aggregations running at once.
type busySizer struct {
	source.Sizer
	active, most atomic.Int32
}

func (b *busySizer) Aggregates(ctx context.Context, q *query.Query) (*fit.Aggregates, error) {
	n := b.active.Add(1)
	defer b.active.Add(-1)
	for {
		m := b.most.Load()
		if n <= m || b.most.CompareAndSwap(m, n) {
			break
		}
	}
	return b.Sizer.Aggregates(ctx, q)
}

// Large aggregations pass one at a time through the engine's gate, and every
// call waiting its turn is answered: together they would share (and could
// exhaust) the warehouse's memory.
func TestLargeWorkOneAtATime(t *testing.T) {
	src := duckdbtest.Open(t)
	busy := &busySizer{Sizer: src}
	e := &Engine{Source: &grainsAsked{Source: src, sizer: busy}, Now: duckdbtest.Now, SizeFirstAbove: 1, LargeWork: NewGate(1)}
	args := `{"platforms":["meta_ads","tiktok_ads"],"date_range":{"start":"2025-06-01","end":"2026-03-14"},"dimensions":["ad_name","device","publisher_platform"],"metrics":["spend","clicks"],"time_granularity":"daily"}`
	var wg sync.WaitGroup
	results := make([]*Result, 4)
	for i := range results {
		wg.Go(func() {
			res, err := e.Query(context.Background(), Request{Args: []byte(args), Budget: 2000})
			if err != nil {
				t.Error(err)
			}
			results[i] = res
		})
	}
	wg.Wait()
	for i, res := range results {
		if res == nil || res.IsError || res.Response == nil || res.Response.Kind != fit.KindTooLarge {
			t.Fatalf("call %d: %+v", i, res)
		}
	}
	if m := busy.most.Load(); m != 1 {
		t.Errorf("%d large aggregations at once, want 1", m)
	}
}
