package sourcetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/importer"
)

// The sync conformance suite: the same chunks, with the same checks, written
// into every warehouse through its SyncTarget (RunSync) and read back
// through its Source and its tables. What the warehouse should hold is kept
// by a model here (syncModel), which applies a chunk by the rule the sync's
// design states — a chunk replaces its days' facts of every set and the
// reach of every period whose last day it holds — walking the calendar
// itself, with no code of the importer's.

// SyncWarehouse is a warehouse kind under the sync suite.
type SyncWarehouse struct {
	// Fresh makes a new, empty warehouse, removed when the test ends.
	Fresh func(t *testing.T) SyncTestTarget
	// Transactional: a chunk is one transaction, all tables at once. False
	// (ClickHouse): each table's rows are swapped atomically, one table
	// after the other, so a reader may see a chunk's facts with the reach
	// before it, and a Write cut short between the swaps leaves some
	// tables new (docs/warehouse.md).
	Transactional bool
}

// SyncTestTarget is one warehouse of the sync suite.
type SyncTestTarget interface {
	// LoadDemo fills the (empty) warehouse with the demo dataset; called
	// before Open.
	LoadDemo(ctx context.Context, cfg demo.Config) error
	// Open opens the warehouse for a source reading it and syncs writing it
	// at the same time (DuckDB: on one database handle); sync opens a sync
	// with the options. All are closed when the test ends. Open is called
	// once.
	Open(t *testing.T) (src SyncSource, sync func(importer.SyncOptions) importer.SyncTarget)
	// Count runs a query of one integer (SELECT count(*) …, with literal
	// values, in the SQL all three warehouses read alike) after Open.
	Count(t *testing.T, query string) int64
}

// SyncSource is a source that tells its sync states.
type SyncSource interface {
	DatasetSource
	SyncStates(ctx context.Context) ([]importer.SyncState, error)
}

// RunSync runs every sync case on w.
func RunSync(t *testing.T, w SyncWarehouse) {
	for _, c := range []struct {
		name string
		run  func(*testing.T, SyncWarehouse)
	}{
		{"chunks read back", syncReadBack},
		{"a lookback replaces its days and the reach it owns", syncLookback},
		{"a changed currency or time zone is refused", syncRefusesChangedAccount},
		{"demo data refused, or replaced", syncDemo},
		{"state round trip and failures", syncStates},
		{"an interrupted write changes nothing", syncInterrupted},
		{"a reader sees before or after", syncParallelReader},
	} {
		t.Run(c.name, func(t *testing.T) { c.run(t, w) })
	}
}

const syncAccount = "act_9001"

var syncMeta = ads.Account{AccountID: syncAccount, Platform: importer.Meta, AccountName: "Sync Co", Currency: "USD",
	Timezone: "America/New_York", Status: "ACTIVE"}

func jan(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }

// syncSets are the keys of the sets Meta stores.
func syncSets() []string {
	var out []string
	for _, s := range catalog.PlatformSets(importer.Meta) {
		out = append(out, s.Key)
	}
	return out
}

// dimValue is the value every row of a set gives each of its dimensions.
var dimValue = map[string]string{"country": "US", "device": "mobile", "publisher_platform": "facebook",
	"age": "25-34", "gender": "female", "placement": "feed", "conversion_action": "purchase"}

// syncChunk is a chunk of account a from first to last, its numbers
// depending on the day, the campaign, the set and version (so that two
// versions of a day differ in every sum).
func syncChunk(a ads.Account, first, last time.Time, version int64) *importer.Chunk {
	c := &importer.Chunk{Account: a, First: first, Last: last, Sets: syncSets()}
	for _, id := range []string{"c1", "c2"} {
		c.Campaigns = append(c.Campaigns, ads.Campaign{CampaignID: id, AccountID: a.AccountID, Name: "Campaign " + id, Status: "ACTIVE"})
		c.AdSets = append(c.AdSets, ads.AdSet{AdSetID: "s" + id, CampaignID: id, AccountID: a.AccountID, Name: "Ad set " + id})
		c.Ads = append(c.Ads, ads.Ad{AdID: "a" + id, AdSetID: "s" + id, CampaignID: id, AccountID: a.AccountID, Name: "Ad " + id})
	}
	for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
		for si, set := range catalog.PlatformSets(a.Platform) {
			for ci, id := range []string{"c1", "c2"} {
				f := ads.Fact{Date: d, AccountID: a.AccountID, CampaignID: id, Breakdown: set.Key}
				if set.Key == catalog.Delivery {
					f.Breakdown = ""
				}
				if set.Level == catalog.LevelAd {
					f.AdSetID, f.AdID = "s"+id, "a"+id
				}
				for _, dim := range set.Dimensions {
					v := dimValue[dim]
					switch dim {
					case "country":
						f.Country = v
					case "device":
						f.Device = v
					case "publisher_platform":
						f.PublisherPlatform = v
					case "age":
						f.Age = v
					case "gender":
						f.Gender = v
					case "placement":
						f.Placement = v
					case "conversion_action":
						f.ConversionAction = v
					}
				}
				n := float64(int64(d.YearDay())*7 + int64(ci)*3 + int64(si) + version*1000)
				f.Measures[catalog.Spend] = n * 10_000
				f.Measures[catalog.Impressions] = n * 10
				f.Measures[catalog.Clicks] = n
				f.Measures[catalog.LinkClicks] = n
				f.Measures[catalog.Conversions] = float64(ci + 1)
				f.Measures[catalog.ConversionValue] = n * 20_000
				f.Measures[catalog.VideoViews] = n
				f.Measures[catalog.VideoViewsP100] = ads.NotReported
				c.Facts = append(c.Facts, f)
			}
		}
	}
	for _, p := range ownedPeriods(first, last) {
		c.Reach = append(c.Reach, ads.Reach{Level: "account", ObjectID: a.AccountID, AccountID: a.AccountID, Grain: p.grain,
			PeriodStart: p.start, Reach: int64(p.start.YearDay())*100 + int64(len(p.grain)) + version*100_000})
	}
	c.State = importer.SyncState{AccountID: a.AccountID, Platform: a.Platform, SyncedFrom: first, SyncedThrough: last,
		BackfillFrom: jan(1), LastSuccess: time.Date(2026, 3, 1, 12, 0, int(version), 0, time.UTC),
		LastAttempt: time.Date(2026, 3, 1, 12, 0, int(version), 0, time.UTC)}
	return c
}

type period struct {
	grain string
	start time.Time
}

// ownedPeriods are the periods whose last day is in [first, last], found by
// walking the days: every day; the ISO week of every Sunday; the month of
// every day followed by the 1st.
func ownedPeriods(first, last time.Time) []period {
	var out []period
	for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
		out = append(out, period{"daily", d})
		if d.Weekday() == time.Sunday {
			out = append(out, period{"weekly", d.AddDate(0, 0, -6)})
		}
		if next := d.AddDate(0, 0, 1); next.Day() == 1 {
			out = append(out, period{"monthly", time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC)})
		}
	}
	return out
}

// syncModel is what the warehouse holds of one account after the chunks
// written so far.
type syncModel struct {
	facts map[string][]ads.Fact // by day (YYYY-MM-DD)
	reach map[period]int64
}

func newSyncModel() *syncModel {
	return &syncModel{facts: map[string][]ads.Fact{}, reach: map[period]int64{}}
}

func (m *syncModel) apply(c *importer.Chunk) {
	for d := c.First; !d.After(c.Last); d = d.AddDate(0, 0, 1) {
		delete(m.facts, d.Format(time.DateOnly))
	}
	for _, p := range ownedPeriods(c.First, c.Last) {
		delete(m.reach, p)
	}
	for _, f := range c.Facts {
		k := f.Date.Format(time.DateOnly)
		m.facts[k] = append(m.facts[k], f)
	}
	for _, r := range c.Reach {
		m.reach[period{r.Grain, r.PeriodStart}] = r.Reach
	}
}

// segment sums the model's facts of one set from first to last.
func (m *syncModel) segment(set string, first, last time.Time) factSums {
	var s factSums
	for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
		for _, f := range m.facts[d.Format(time.DateOnly)] {
			if f.BreakdownKey() != set {
				continue
			}
			s.facts++
			s.spend += int64(f.Measures[catalog.Spend])
			s.value += int64(f.Measures[catalog.ConversionValue])
			s.impressions += int64(f.Measures[catalog.Impressions])
			s.conversions += f.Measures[catalog.Conversions]
		}
	}
	return s
}

// segments are the spans the suite's chunks start and end on.
var segments = [][2]time.Time{{jan(1), jan(24)}, {jan(25), jan(31)}, {jan(32), jan(59)}}

// syncDump is what the warehouse holds of the account, from its tables
// (every set's sums over each segment, every reach row) and its source
// (accounts, dataset, states, totals): equal dumps, equal warehouses as the
// suite reads them.
func syncDump(t *testing.T, w SyncTestTarget, src SyncSource) string {
	t.Helper()
	var b strings.Builder
	for _, set := range syncSets() {
		for _, seg := range segments {
			fmt.Fprintf(&b, "%s %s…%s %+v\n", set, seg[0].Format(time.DateOnly), seg[1].Format(time.DateOnly),
				sumsBetween(t, w, set, seg[0], seg[1]))
		}
	}
	fmt.Fprintf(&b, "reach %s\n", reachDump(t, w))
	ctx := context.Background()
	accounts, err := src.Accounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	info, err := src.Dataset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	states, err := src.SyncStates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "accounts %v\ndataset %v\nstates %v\n", accounts, info, states)
	if slices.ContainsFunc(accounts, func(a ads.Account) bool { return a.AccountID == syncAccount }) {
		b.WriteString(answer(t, src, `{"account_ids":["`+syncAccount+`"],"metrics":["spend","impressions","conversions","reach"],"time_granularity":"monthly","date_range":{"start":"2026-01-01","end":"2026-02-28"}}`))
	}
	return b.String()
}

func sumsBetween(t *testing.T, w SyncTestTarget, set string, first, last time.Time) factSums {
	t.Helper()
	where := fmt.Sprintf(" FROM facts WHERE account_id = '%s' AND breakdown = '%s' AND date BETWEEN '%s' AND '%s'", syncAccount, set,
		first.Format(time.DateOnly), last.Format(time.DateOnly))
	return factSums{
		facts:       w.Count(t, "SELECT count(*)"+where),
		spend:       w.Count(t, "SELECT coalesce(sum(spend_micros), 0)"+where),
		value:       w.Count(t, "SELECT coalesce(sum(conversion_value_micros), 0)"+where),
		impressions: w.Count(t, "SELECT coalesce(sum(impressions), 0)"+where),
		conversions: float64(w.Count(t, "SELECT CAST(round(coalesce(sum(conversions), 0) * 100) AS BIGINT)"+where)) / 100,
	}
}

// reachDump lists the account's reach rows of the suite's months, as
// grain:start=reach, from one sum per row the model could hold.
func reachDump(t *testing.T, w SyncTestTarget) string {
	t.Helper()
	n := w.Count(t, "SELECT count(*) FROM reach WHERE account_id = '"+syncAccount+"'")
	var parts []string
	for _, p := range ownedPeriods(jan(1).AddDate(0, 0, -7), jan(59)) {
		r := w.Count(t, fmt.Sprintf("SELECT coalesce(sum(reach), 0) FROM reach WHERE account_id = '%s' AND grain = '%s' AND period_start = '%s'",
			syncAccount, p.grain, p.start.Format(time.DateOnly)))
		if r != 0 {
			parts = append(parts, fmt.Sprintf("%s:%s=%d", p.grain, p.start.Format(time.DateOnly), r))
		}
	}
	return fmt.Sprintf("%d rows %s", n, strings.Join(parts, " "))
}

// modelReach is reachDump of the model.
func (m *syncModel) reachDump() string {
	var parts []string
	for _, p := range ownedPeriods(jan(1).AddDate(0, 0, -7), jan(59)) {
		if r, ok := m.reach[p]; ok {
			parts = append(parts, fmt.Sprintf("%s:%s=%d", p.grain, p.start.Format(time.DateOnly), r))
		}
	}
	return fmt.Sprintf("%d rows %s", len(m.reach), strings.Join(parts, " "))
}

// checkModel compares the warehouse with the model: every set's sums over
// each segment, every reach row.
func checkModel(t *testing.T, what string, w SyncTestTarget, m *syncModel) {
	t.Helper()
	for _, set := range syncSets() {
		for _, seg := range segments {
			if got, want := sumsBetween(t, w, set, seg[0], seg[1]), m.segment(set, seg[0], seg[1]); got != want {
				t.Errorf("%s: set %s, %s…%s: %+v, want %+v", what, set, seg[0].Format(time.DateOnly), seg[1].Format(time.DateOnly), got, want)
			}
		}
	}
	if got, want := reachDump(t, w), m.reachDump(); got != want {
		t.Errorf("%s: reach\n%s\nwant\n%s", what, got, want)
	}
}

func mustWrite(t *testing.T, target importer.SyncTarget, c *importer.Chunk) importer.ChunkResult {
	t.Helper()
	res, err := target.Write(context.Background(), c)
	if err != nil {
		t.Fatalf("write %s…%s: %v", c.First.Format(time.DateOnly), c.Last.Format(time.DateOnly), err)
	}
	return res
}

// Two months written, then read back: the tables hold the chunks' rows of
// every set and reach, the source's totals are the chunks', the dataset says
// a synced warehouse.
func syncReadBack(t *testing.T, w SyncWarehouse) {
	wh := w.Fresh(t)
	src, openSync := wh.Open(t)
	target := openSync(importer.SyncOptions{})
	m := newSyncModel()
	jan1, feb := syncChunk(syncMeta, jan(1), jan(31), 1), syncChunk(syncMeta, jan(32), jan(59), 1)
	res := mustWrite(t, target, jan1)
	if !res.NewAccount || res.NewCampaigns != 2 || res.FactsAdded != int64(len(jan1.Facts)) || res.ReachAdded != int64(len(jan1.Reach)) ||
		res.FactsReplaced != 0 || res.ReachReplaced != 0 {
		t.Errorf("first chunk: %+v", res)
	}
	m.apply(jan1)
	mustWrite(t, target, feb)
	m.apply(feb)
	checkModel(t, "two months", wh, m)

	tab := queryTable(t, src, `{"account_ids":["`+syncAccount+`"],"metrics":["spend","impressions","reach"],"time_granularity":"monthly","date_range":{"start":"2026-01-01","end":"2026-02-28"}}`)
	for i, seg := range [][2]time.Time{{jan(1), jan(31)}, {jan(32), jan(59)}} {
		want := m.segment(catalog.Delivery, seg[0], seg[1])
		if i >= tab.Len() || tab.Column("spend").Numbers[i] != float64(want.spend)/1e6 || tab.Column("impressions").Numbers[i] != float64(want.impressions) ||
			tab.Column("reach").Numbers[i] != float64(m.reach[period{"monthly", seg[0]}]) {
			t.Errorf("month %d: %s, want spend %d micros, impressions %d, reach %d", i+1, Dump(t, tab), want.spend, want.impressions, m.reach[period{"monthly", seg[0]}])
		}
	}
	info, err := src.Dataset(context.Background())
	if err != nil || info["kind"] != importer.KindSync || info["label"] != importer.SyncLabel || info["complete"] != "true" ||
		info["first_date"] != "2026-01-01" || info["last_date"] != "2026-02-28" {
		t.Errorf("dataset %v, %v", info, err)
	}
}

// A lookback (the last week of January again, new numbers) replaces those
// days' facts of every set and the reach periods ending in them — the
// week ending on Sunday the 25th, January — and nothing else: the days
// before, February, the week ending on February 1st keep theirs.
func syncLookback(t *testing.T, w SyncWarehouse) {
	wh := w.Fresh(t)
	_, openSync := wh.Open(t)
	target := openSync(importer.SyncOptions{})
	m := newSyncModel()
	for _, c := range []*importer.Chunk{syncChunk(syncMeta, jan(1), jan(31), 1), syncChunk(syncMeta, jan(32), jan(59), 1)} {
		mustWrite(t, target, c)
		m.apply(c)
	}
	look := syncChunk(syncMeta, jan(25), jan(31), 2)
	// The lookback's sets: every set, though one has no rows these days.
	emptied := syncSets()[len(syncSets())-1]
	look.Facts = slices.DeleteFunc(look.Facts, func(f ads.Fact) bool { return f.BreakdownKey() == emptied })
	res := mustWrite(t, target, look)
	m.apply(look)
	if res.NewAccount || res.NewCampaigns != 0 || res.FactsReplaced != int64(7*2*len(syncSets())) || res.ReachReplaced != int64(len(ownedPeriods(jan(25), jan(31)))) {
		t.Errorf("lookback: %+v", res)
	}
	checkModel(t, "after the lookback", wh, m)
	if got := m.segment(emptied, jan(25), jan(31)); got.facts != 0 {
		t.Fatalf("the model kept %s rows", emptied)
	}
}

// A chunk whose account has another currency or time zone than the
// warehouse's is refused, changing nothing; another account goes on.
func syncRefusesChangedAccount(t *testing.T, w SyncWarehouse) {
	wh := w.Fresh(t)
	src, openSync := wh.Open(t)
	target := openSync(importer.SyncOptions{})
	mustWrite(t, target, syncChunk(syncMeta, jan(1), jan(31), 1))
	before := syncDump(t, wh, src)
	for field, change := range map[string]func(*ads.Account){
		"currency": func(a *ads.Account) { a.Currency = "EUR" },
		"timezone": func(a *ads.Account) { a.Timezone = "Europe/Paris" },
	} {
		a := syncMeta
		a.AccountID = strings.ToUpper(a.AccountID) // the same account, another spelling
		change(&a)
		_, err := target.Write(context.Background(), syncChunk(a, jan(25), jan(31), 2))
		var changed *importer.AccountChangedError
		if !errors.As(err, &changed) || changed.Field != field || changed.AccountID != syncAccount {
			t.Errorf("%s: %v", field, err)
		}
		if got := syncDump(t, wh, src); got != before {
			t.Errorf("%s: the refused chunk changed the warehouse:\n%s\nwas\n%s", field, got, before)
		}
	}
	other := syncMeta
	other.AccountID, other.Currency = "act_9002", "EUR"
	mustWrite(t, target, syncChunk(other, jan(1), jan(2), 1))
}

// A warehouse holding the demo dataset is refused (ErrDemoData), unchanged;
// with ReplaceDemo the demo data is deleted and the chunk written.
func syncDemo(t *testing.T, w SyncWarehouse) {
	wh := w.Fresh(t)
	if err := wh.LoadDemo(context.Background(), demo.Config{Anchor: jan(59), Seed: 1, Days: 10, Scale: 0.03}); err != nil {
		t.Fatal(err)
	}
	src, openSync := wh.Open(t)
	target := openSync(importer.SyncOptions{})
	before := syncDump(t, wh, src)
	demoFacts := wh.Count(t, "SELECT count(*) FROM facts")
	if _, err := target.Write(context.Background(), syncChunk(syncMeta, jan(1), jan(31), 1)); !errors.Is(err, importer.ErrDemoData) {
		t.Errorf("into demo data: %v", err)
	}
	if got := syncDump(t, wh, src); got != before || wh.Count(t, "SELECT count(*) FROM facts") != demoFacts {
		t.Errorf("the refused chunk changed the warehouse:\n%s\nwas\n%s", got, before)
	}
	replacing := openSync(importer.SyncOptions{ReplaceDemo: true})
	c := syncChunk(syncMeta, jan(1), jan(31), 1)
	mustWrite(t, replacing, c)
	m := newSyncModel()
	m.apply(c)
	checkModel(t, "after replacing the demo data", wh, m)
	if n := wh.Count(t, "SELECT count(*) FROM facts"); n != int64(len(c.Facts)) {
		t.Errorf("%d facts, want the chunk's %d alone", n, len(c.Facts))
	}
	if n := wh.Count(t, "SELECT count(*) FROM accounts"); n != 1 {
		t.Errorf("%d accounts, want the chunk's alone", n)
	}
}

// States round-trip, in the warehouse's spelling of the account; a failure
// is recorded without touching the data, and a later chunk's state replaces
// it.
func syncStates(t *testing.T, w SyncWarehouse) {
	wh := w.Fresh(t)
	src, openSync := wh.Open(t)
	target := openSync(importer.SyncOptions{})
	ctx := context.Background()
	if states, err := target.States(ctx); err != nil || len(states) != 0 {
		t.Fatalf("states of a new warehouse: %v, %v", states, err)
	}
	c := syncChunk(syncMeta, jan(1), jan(31), 1)
	mustWrite(t, target, c)
	got, err := target.States(ctx)
	if err != nil || len(got) != 1 || got[0] != c.State {
		t.Fatalf("states %+v, %v; want %+v", got, err, c.State)
	}
	before := syncDump(t, wh, src)
	failed := c.State
	failed.AccountID = "ACT_9001"
	failed.LastAttempt, failed.LastError = time.Date(2026, 3, 2, 8, 30, 0, 0, time.UTC), "the token was revoked; fix: adsmcp auth meta"
	if err := target.RecordFailure(ctx, failed); err != nil {
		t.Fatal(err)
	}
	failed.AccountID = syncAccount
	if got, err := src.SyncStates(ctx); err != nil || len(got) != 1 || got[0] != failed {
		t.Errorf("after the failure %+v, %v; want %+v", got, err, failed)
	}
	after := syncDump(t, wh, src)
	if cut := strings.Index(before, "states "); before[:cut] != after[:strings.Index(after, "states ")] {
		t.Errorf("recording a failure changed the data:\n%s\nwas\n%s", after, before)
	}
	next := syncChunk(syncMeta, jan(32), jan(40), 2)
	next.State.SyncedFrom = jan(1)
	mustWrite(t, target, next)
	if got, err := target.States(ctx); err != nil || len(got) != 1 || got[0] != next.State {
		t.Errorf("after the next chunk %+v, %v; want %+v", got, err, next.State)
	}
	// States come in account order.
	never := importer.SyncState{AccountID: "act_777", Platform: importer.Meta, LastAttempt: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC),
		LastError: "the account was deleted"}
	if err := target.RecordFailure(ctx, never); err != nil {
		t.Fatal(err)
	}
	if got, err := target.States(ctx); err != nil || len(got) != 2 || got[0] != never || got[1] != next.State {
		t.Errorf("a failure of an account never synced: %+v, %v", got, err)
	}
}

// cancelAfter is a context that is cancelled at its nth Done call: every
// database call of a Write asks for Done at least once, so a write cut at
// each n is cut at each of its steps in turn.
type cancelAfter struct {
	context.Context
	n, calls atomic.Int64
	once     sync.Once
	done     chan struct{}
}

func newCancelAfter(n int64) *cancelAfter {
	c := &cancelAfter{Context: context.Background(), done: make(chan struct{})}
	c.n.Store(n)
	return c
}

func (c *cancelAfter) Done() <-chan struct{} {
	if c.calls.Add(1) >= c.n.Load() {
		c.once.Do(func() { close(c.done) })
	}
	return c.done
}

func (c *cancelAfter) Err() error {
	select {
	case <-c.done:
		return context.Canceled
	default:
		return nil
	}
}

// A Write cut at each step in turn (its context cancelled at the nth
// database call, for every n until one completes): a transactional
// warehouse is left exactly as before, data and state; ClickHouse is left
// with each table before or after (and the state before, so the next run
// writes the chunk again). Then the chunk written whole gives the new
// warehouse.
func syncInterrupted(t *testing.T, w SyncWarehouse) {
	wh := w.Fresh(t)
	src, openSync := wh.Open(t)
	target := openSync(importer.SyncOptions{})
	m := newSyncModel()
	for _, c := range []*importer.Chunk{syncChunk(syncMeta, jan(1), jan(31), 1), syncChunk(syncMeta, jan(32), jan(59), 1)} {
		mustWrite(t, target, c)
		m.apply(c)
	}
	before := syncDump(t, wh, src)
	stateBefore, err := src.SyncStates(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	look := syncChunk(syncMeta, jan(25), jan(31), 2)
	after := newSyncModel()
	maps(after, m)
	after.apply(look)
	cuts := 0
	// Every call at first, then further apart (a write makes a hundred or
	// more).
	for n := int64(1); ; n += 1 + n/8 {
		ctx := newCancelAfter(n)
		_, err := target.Write(ctx, look)
		if err == nil {
			break
		}
		cuts++
		if n > 10_000 {
			t.Fatalf("still failing after %d cuts: %v", n, err)
		}
		if w.Transactional {
			if got := syncDump(t, wh, src); got != before {
				t.Fatalf("cut at call %d (%v): the warehouse changed:\n%s\nwas\n%s", n, err, got, before)
			}
			continue
		}
		if states, err := src.SyncStates(context.Background()); err != nil || !slices.Equal(states, stateBefore) {
			t.Fatalf("cut at call %d: states %+v, %v; want %+v", n, states, err, stateBefore)
		}
		for _, set := range syncSets() {
			got := sumsBetween(t, wh, set, jan(25), jan(31))
			if got != m.segment(set, jan(25), jan(31)) && got != after.segment(set, jan(25), jan(31)) {
				t.Fatalf("cut at call %d: set %s holds %+v, neither before nor after", n, set, got)
			}
		}
		if got := reachDump(t, wh); got != m.reachDump() && got != after.reachDump() {
			t.Fatalf("cut at call %d: reach %s, neither before nor after", n, got)
		}
	}
	if cuts == 0 {
		t.Fatal("no write was cut")
	}
	t.Logf("%d cuts", cuts)
	checkModel(t, "after the cuts and a whole write", wh, after)
}

func maps(dst, src *syncModel) {
	for k, v := range src.facts {
		dst.facts[k] = slices.Clone(v)
	}
	for k, v := range src.reach {
		dst.reach[k] = v
	}
}

// A reader querying while chunks are written sees each month's totals
// before a chunk or after it, never between: January is written again and
// again, two versions in turn, and after each write the writer waits for
// the reader to finish a read begun after it, so reads and writes overlap
// without a sleep. Spend, and (in a transactional warehouse) reach with it,
// come from one query.
func syncParallelReader(t *testing.T, w SyncWarehouse) {
	wh := w.Fresh(t)
	src, openSync := wh.Open(t)
	target := openSync(importer.SyncOptions{})
	versions := []*importer.Chunk{syncChunk(syncMeta, jan(1), jan(31), 1), syncChunk(syncMeta, jan(1), jan(31), 2)}
	mustWrite(t, target, versions[0])
	type totals struct{ spend, reach float64 }
	allowed := map[totals]bool{}
	spends := map[float64]bool{}
	for _, c := range versions {
		m := newSyncModel()
		m.apply(c)
		tt := totals{float64(m.segment(catalog.Delivery, jan(1), jan(31)).spend) / 1e6, float64(m.reach[period{"monthly", jan(1)}])}
		allowed[tt], spends[tt.spend] = true, true
	}
	raw := `{"account_ids":["` + syncAccount + `"],"metrics":["spend","reach"],"time_granularity":"monthly","date_range":{"start":"2026-01-01","end":"2026-01-31"}}`
	stop := make(chan struct{})
	asked := make(chan chan struct{})
	var reads, mixed atomic.Int64
	var readErr atomic.Pointer[string]
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var waiting []chan struct{}
		for {
			select {
			case <-stop:
				return
			case ch := <-asked:
				waiting = append(waiting, ch)
			default:
			}
			read, err := querySafely(src, raw)
			reads.Add(1)
			if err == nil {
				got := totals(read)
				if !allowed[got] {
					mixed.Add(1)
				}
				if !spends[got.spend] || w.Transactional && !allowed[got] {
					err = fmt.Errorf("a read saw spend %v and reach %v: neither before nor after a chunk (%v)", got.spend, got.reach, allowed)
				}
			}
			if err != nil {
				msg := err.Error()
				readErr.CompareAndSwap(nil, &msg)
			}
			for _, ch := range waiting {
				close(ch)
			}
			waiting = nil
		}
	}()
	for i := range 12 {
		mustWrite(t, target, versions[(i+1)%2])
		// A read that starts after this write, then the next write.
		ch := make(chan struct{})
		asked <- ch
		<-ch
	}
	close(stop)
	wg.Wait()
	if msg := readErr.Load(); msg != nil {
		t.Error(*msg)
	}
	// Measured, not asserted, where tables are swapped one after the other.
	t.Logf("%d reads beside 12 writes; %d saw one table's new rows with another's old", reads.Load(), mixed.Load())
}

// querySafely answers raw's one row (spend, reach), reporting errors
// rather than failing: it runs beside the test's goroutine.
func querySafely(src SyncSource, raw string) (struct{ spend, reach float64 }, error) {
	var out struct{ spend, reach float64 }
	tab, err := queryRaw(src, raw)
	if err != nil {
		return out, err
	}
	if tab.Len() != 1 {
		return out, fmt.Errorf("%d rows", tab.Len())
	}
	out.spend, out.reach = tab.Column("spend").Numbers[0], tab.Column("reach").Numbers[0]
	return out, nil
}
