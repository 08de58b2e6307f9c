package sourcetest

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/importer"
)

var importCases = []importCase{
	{"into a new warehouse, then query", importNewThenQuery},
	{"answers like the reference", importAnswersLikeReference},
	{"idempotent", importIdempotent},
	{"an overlap replaces its days", importOverlap},
	{"demo data refused or replaced", importRefusesDemo},
	{"a bad file or a cancelled import changes nothing", importChangesNothingOnError},
	{"dry run", importDryRun},
	{"objects merge by ID", importMergesObjects},
	{"files share a campaign", importFilesShareACampaign},
	{"TikTok exports, then query", importTikTok},
	{"a breakdown export replaces its own set only", importBreakdownSets},
}

// overlapping covers the last day of meta_en_campaigns_daily.csv and one more.
var overlapping = []byte(`"Account ID","Campaign name","Day","Impressions","Amount spent (USD)","Reach"
1015823746512093,Winter Sale | Prospecting,2026-01-03,100,10.00,50
1015823746512093,Winter Sale | Prospecting,2026-01-04,100,20.00,60
`)

func importNewThenQuery(t *testing.T, w, _ ImportWarehouse) {
	wh := w.Fresh(t)
	res := mustImport(t, wh, importer.WriteOptions{}, parse(t, "meta_en_campaigns_daily.csv", nil, importer.Options{}))
	if !res.Created || res.DemoReplaced || len(res.Files) != 1 || res.Target != wh.Name() {
		t.Fatalf("result %+v", res)
	}
	f := res.Files[0]
	if f.AlreadyImported || f.FactsAdded != 6 || f.FactsReplaced != 0 || f.ReachAdded != 6 || f.NewCampaigns != 3 ||
		len(f.NewAccounts) != 1 || f.NewAccounts[0] != metaAccount {
		t.Errorf("file result %+v", f)
	}
	want := factSums{facts: 6, spend: 4_321_090_000, value: 7_450_250_000, impressions: 123_456, conversions: 36}
	if got := sumsOf(t, wh, metaAccount); got != want {
		t.Errorf("sums %+v, want %+v", got, want)
	}

	src := wh.Open(t)
	defer src.Close()
	ctx := context.Background()
	info, err := src.Dataset(ctx)
	if err != nil || info["kind"] != "import" || info["label"] != importer.Label || info["complete"] != "true" ||
		info["first_date"] != "2026-01-01" || info["last_date"] != "2026-01-03" {
		t.Errorf("dataset %v %v", info, err)
	}
	accounts, err := src.Accounts(ctx)
	if err != nil || len(accounts) != 1 || accounts[0].AccountName != "Lumen Outdoor US" || accounts[0].Currency != "USD" {
		t.Fatalf("accounts %+v %v", accounts, err)
	}
	// The query path: totals, and daily reach per campaign straight from the export.
	tab := queryTable(t, src, `{"account_ids":["act_1015823746512093"],"metrics":["spend","impressions","link_clicks","conversions","ctr"],
		"date_range":{"start":"2026-01-01","end":"2026-01-03"}}`)
	if tab.Len() != 1 || tab.Column("spend").Numbers[0] != 4321.09 || tab.Column("impressions").Numbers[0] != 123456 ||
		tab.Column("link_clicks").Numbers[0] != 2345 || tab.Column("conversions").Numbers[0] != 36 {
		t.Errorf("totals row: %+v", tab)
	}
	tab = queryTable(t, src, `{"account_ids":["act_1015823746512093"],"metrics":["reach","spend"],"dimensions":["campaign_name"],
		"time_granularity":"daily","date_range":{"start":"2026-01-01","end":"2026-01-03"},"sort":[{"field":"reach","direction":"desc"}]}`)
	if tab.Len() != 6 || tab.Column("reach").Numbers[0] != 16100 || tab.Column("campaign_name").Strings[0] != `Brand Awareness — Ñandú "Q1"` {
		t.Errorf("daily reach: %d rows, %+v", tab.Len(), tab.Column("reach"))
	}
}

// The sample exports give the same reports, accounts, dataset description and
// answers as in the reference warehouse.
func importAnswersLikeReference(t *testing.T, w, ref ImportWarehouse) {
	wh, rw := w.Fresh(t), ref.Fresh(t)
	res := mustImport(t, wh, importer.WriteOptions{Now: importNow}, sampleExports(t)...)
	refRes := mustImport(t, rw, importer.WriteOptions{Now: importNow}, sampleExports(t)...)
	if !res.Created || res.Target != wh.Name() || strings.Contains(res.Target, "@@") {
		t.Errorf("result %+v", res)
	}
	sameReports(t, "sample exports", refRes.Files, res.Files)
	want := answers(t, rw, importQueries...)
	if got := answers(t, wh, importQueries...); got != want {
		t.Errorf("answers differ\n--- reference\n%s\n--- got\n%s", want, got)
	}
	if !strings.Contains(want, "kind:import") || !strings.Contains(want, "first_date:2026-01-01") ||
		!strings.Contains(want, "last_date:2026-02-02") || strings.Count(want, "\n") < 20 {
		t.Errorf("the imported warehouse answers little:\n%s", want)
	}
}

// Importing the same file again adds nothing; a re-export of the same period
// (other bytes) replaces the same facts: the totals never change. After each
// step, the reports and answers are the reference's.
func importIdempotent(t *testing.T, w, ref ImportWarehouse) {
	wh, rw := w.Fresh(t), ref.Fresh(t)
	data := importTestdata(t, "meta_en_campaigns_daily.csv")
	step := func(name string, data []byte) importer.WrittenFile {
		t.Helper()
		res := mustImport(t, wh, importer.WriteOptions{}, parse(t, name, data, importer.Options{}))
		refRes := mustImport(t, rw, importer.WriteOptions{}, parse(t, name, data, importer.Options{}))
		sameReports(t, name, refRes.Files, res.Files)
		if want, got := answers(t, rw, importQueries[:2]...), answers(t, wh, importQueries[:2]...); got != want {
			t.Errorf("%s: answers differ\n--- reference\n%s\n--- got\n%s", name, want, got)
		}
		return res.Files[0]
	}
	if f := step("q1.csv", data); f.FactsAdded != 6 || f.NewCampaigns != 3 {
		t.Errorf("first import %+v", f)
	}
	before := wh.Snapshot(t)

	f := step("q1.csv", data)
	if !f.AlreadyImported || f.ImportedAs != "q1.csv" || f.FactsAdded != 0 ||
		time.Since(f.ImportedAt) > time.Hour || f.ImportedAt.Location() != time.UTC {
		t.Errorf("second import %+v", f)
	}
	if after := wh.Snapshot(t); after != before {
		t.Errorf("re-importing the same file changed the warehouse:\n%s\n%s", before, after)
	}

	// The same rows, other bytes (a re-export): replaced, not added.
	f = step("q1 (1).csv", append(data, "\n"...))
	if f.AlreadyImported || f.FactsAdded != 6 || f.FactsReplaced != 6 || f.ReachReplaced != 6 || f.NewCampaigns != 0 || len(f.Dropped) != 0 {
		t.Errorf("re-export %+v", f)
	}
	if got := sumsOf(t, wh, metaAccount); got.facts != 6 || got.spend != 4_321_090_000 {
		t.Errorf("after the re-export: %+v", got)
	}
	if n := wh.Count(t, `SELECT count(*) FROM campaigns`); n != 3 {
		t.Errorf("%d campaigns", n)
	}
	if n := wh.Count(t, `SELECT count(*) FROM imports`); n != 2 {
		t.Errorf("%d imports", n)
	}
	if n := wh.Count(t, `SELECT count(*) FROM accounts`); n != 1 {
		t.Errorf("%d accounts", n)
	}
}

// An export that overlaps an earlier one replaces the overlapping days only,
// and says which campaigns it dropped there.
func importOverlap(t *testing.T, w, ref ImportWarehouse) {
	wh, rw := w.Fresh(t), ref.Fresh(t)
	for _, x := range []ImportTarget{wh, rw} {
		mustImport(t, x, importer.WriteOptions{}, parse(t, "meta_en_campaigns_daily.csv", nil, importer.Options{}))
	}
	res := mustImport(t, wh, importer.WriteOptions{}, parse(t, "later.csv", overlapping, importer.Options{}))
	refRes := mustImport(t, rw, importer.WriteOptions{}, parse(t, "later.csv", overlapping, importer.Options{}))
	sameReports(t, "later.csv", refRes.Files, res.Files)
	f := res.Files[0]
	if f.FactsAdded != 2 || f.FactsReplaced != 2 || f.ReachReplaced != 2 || len(f.Dropped) != 1 || f.Dropped[0] != `Brand Awareness — Ñandú "Q1"` {
		t.Errorf("overlap %+v", f)
	}
	// Days 1 and 2 of the first export (2 campaigns each) + days 3 and 4 of the second.
	want := int64(1_000_100_000 + 1_200_550_000 + 380_120_000 + 380_120_000 + 10_000_000 + 20_000_000)
	if got := sumsOf(t, wh, metaAccount); got.facts != 6 || got.spend != want {
		t.Errorf("after the overlap: %+v, want spend %d", got, want)
	}
	if n := wh.Count(t, `SELECT count(*) FROM dataset WHERE key = 'last_date' AND value = '2026-01-04'`); n != 1 {
		t.Errorf("last_date not moved to 2026-01-04")
	}
	if n := wh.Count(t, `SELECT count(*) FROM reach WHERE account_id = '`+metaAccount+`' AND period_start = '2026-01-03'`); n != 1 {
		t.Errorf("%d reach rows on the replaced day", n)
	}
	if want, got := answers(t, rw, importQueries[:2]...), answers(t, wh, importQueries[:2]...); got != want {
		t.Errorf("answers differ\n--- reference\n%s\n--- got\n%s", want, got)
	}
}

// A warehouse holding the demo dataset is refused, unchanged; ReplaceDemo
// deletes the demo data first.
func importRefusesDemo(t *testing.T, w, _ ImportWarehouse) {
	wh := w.Fresh(t)
	ctx := context.Background()
	if err := wh.LoadDemo(ctx, demo.Config{Anchor: time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC), Seed: 1, Days: 5, Scale: 0.01}); err != nil {
		t.Fatal(err)
	}
	before := wh.Snapshot(t)
	ex := parse(t, "google_en_campaigns_daily.csv", nil, importer.Options{AccountID: "111-222-3333", AccountName: "Brand Co"})
	_, err := wh.Import(ctx, []*importer.Export{ex}, importer.WriteOptions{})
	if !errors.Is(err, importer.ErrDemoData) || !strings.Contains(err.Error(), "--replace-demo") ||
		!strings.Contains(err.Error(), "demo dataset") || !strings.Contains(err.Error(), wh.Name()) {
		t.Fatalf("import over demo data: %v", err)
	}
	if after := wh.Snapshot(t); after != before {
		t.Errorf("a refused import changed the warehouse")
	}

	res := mustImport(t, wh, importer.WriteOptions{ReplaceDemo: true}, ex)
	if !res.DemoReplaced || res.Created || res.Files[0].FactsAdded != 5 {
		t.Errorf("result %+v", res)
	}
	if n := wh.Count(t, `SELECT count(*) FROM accounts`); n != 1 {
		t.Errorf("%d accounts after replacing the demo data", n)
	}
	if n := wh.Count(t, `SELECT count(*) FROM dataset WHERE key IN ('anchor', 'seed')`); n != 0 {
		t.Errorf("demo dataset keys left")
	}
	got := sumsOf(t, wh, "111-222-3333")
	if got.facts != 5 || got.spend != 4_514_720_000 || got.conversions != 34.75 {
		t.Errorf("google sums %+v", got)
	}
	if n := wh.Count(t, `SELECT count(*) FROM facts WHERE link_clicks IS NOT NULL`); n != 0 {
		t.Errorf("%d Google facts with link clicks", n)
	}
	src := wh.Open(t)
	defer src.Close()
	if accounts, err := src.Accounts(ctx); err != nil || len(accounts) != 1 || accounts[0].AccountID != "111-222-3333" {
		t.Errorf("after replacing the demo: %v %v", accounts, err)
	}
}

// A conflict in any file, or a cancelled context, fails the whole import and
// leaves the warehouse exactly as it was: the files are checked before
// anything is written.
func importChangesNothingOnError(t *testing.T, w, _ ImportWarehouse) {
	wh := w.Fresh(t)
	mustImport(t, wh, importer.WriteOptions{}, parse(t, "meta_en_campaigns_daily.csv", nil, importer.Options{}))
	before := wh.Snapshot(t)
	ctx := context.Background()

	google := parse(t, "google_en_campaigns_daily.csv", nil, importer.Options{AccountID: "111-222-3333", AccountName: "Brand Co"})
	// The Meta account again, its money now in EUR.
	eur := parse(t, "eur.csv", []byte(`"Account ID","Campaign name","Day","Impressions","Amount spent (EUR)"
1015823746512093,C,2026-02-01,1,1.00
`), importer.Options{})
	_, err := wh.Import(ctx, []*importer.Export{google, eur}, importer.WriteOptions{})
	if err == nil || !strings.Contains(err.Error(), "eur.csv") || !strings.Contains(err.Error(), "is in USD in the warehouse") {
		t.Fatalf("conflicting import: %v", err)
	}
	if after := wh.Snapshot(t); after != before {
		t.Errorf("a failed import changed the warehouse")
	}

	// A Google file claiming the Meta account, after a good file.
	wrong := parse(t, "g.csv", []byte("Day,Campaign,Cost,Impr.\n2026-01-01,C,1.00,1\n"),
		importer.Options{AccountID: "act_1015823746512093", Currency: "USD", Platform: importer.Google})
	good := parse(t, "meta_es_adsets_daily.csv", nil, importer.Options{AccountID: "2284619037465520", AccountName: "Lumen Outdoor EU"})
	_, err = wh.Import(ctx, []*importer.Export{good, wrong}, importer.WriteOptions{})
	if err == nil || !strings.Contains(err.Error(), "g.csv") || !strings.Contains(err.Error(), "meta_ads account") {
		t.Errorf("platform conflict: %v", err)
	}
	if after := wh.Snapshot(t); after != before {
		t.Errorf("a failed import changed the warehouse")
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := wh.Import(cancelled, []*importer.Export{google}, importer.WriteOptions{}); err == nil {
		t.Errorf("import with a cancelled context succeeded")
	}
	if after := wh.Snapshot(t); after != before {
		t.Errorf("a cancelled import changed the warehouse")
	}
}

// A dry run reports what the import would do and writes nothing, into a new
// warehouse (which it does not create) or an existing one.
func importDryRun(t *testing.T, w, _ ImportWarehouse) {
	ex := parse(t, "meta_es_adsets_daily.csv", nil, importer.Options{AccountID: "2284619037465520", AccountName: "Lumen Outdoor EU", Timezone: "Europe/Berlin"})

	wh := w.Fresh(t)
	empty := wh.Snapshot(t)
	res := mustImport(t, wh, importer.WriteOptions{DryRun: true}, ex)
	if !res.DryRun || !res.Created || res.Files[0].FactsAdded != 4 || len(res.Files[0].NewAccounts) != 1 {
		t.Errorf("dry run %+v", res)
	}
	if after := wh.Snapshot(t); after != empty {
		t.Errorf("a dry run into a new warehouse created %s", after)
	}

	mustImport(t, wh, importer.WriteOptions{}, parse(t, "meta_en_campaigns_daily.csv", nil, importer.Options{}))
	before := wh.Snapshot(t)
	res = mustImport(t, wh, importer.WriteOptions{DryRun: true, Now: time.Now()}, ex)
	if !res.DryRun || res.Created || res.Files[0].FactsAdded != 4 || len(res.Files[0].NewAccounts) != 1 {
		t.Errorf("dry run %+v", res.Files[0])
	}
	if after := wh.Snapshot(t); after != before {
		t.Errorf("a dry run changed the warehouse")
	}
}

// Campaigns, ad sets and ads merge by ID across files; names follow the
// latest import (on the days it covers, where names live on the facts).
func importMergesObjects(t *testing.T, w, _ ImportWarehouse) {
	wh := w.Fresh(t)
	opt := importer.Options{AccountID: "act_7", Currency: "USD"}
	first := `"Campaign ID","Campaign name","Ad set ID","Ad set name","Ad ID","Ad name","Day","Impressions","Amount spent (USD)"
1,Spring,11,Broad,111,Video A,2026-04-01,10,1.00
1,Spring,11,Broad,112,Video B,2026-04-01,10,1.00
`
	second := `"Campaign ID","Campaign name","Ad set ID","Ad set name","Ad ID","Ad name","Day","Impressions","Amount spent (USD)"
1,Spring (renamed),11,Broad,111,Video A,2026-04-02,10,1.00
1,Spring (renamed),12,Lookalike,121,Static,2026-04-02,10,1.00
`
	res := mustImport(t, wh, importer.WriteOptions{}, parse(t, "1.csv", []byte(first), opt), parse(t, "2.csv", []byte(second), opt))
	if res.Files[0].NewCampaigns != 1 || res.Files[1].NewCampaigns != 0 {
		t.Errorf("new campaigns %+v", res.Files)
	}
	counts := map[string]int64{
		`SELECT count(*) FROM campaigns`: 1, `SELECT count(*) FROM facts`: 4,
		`SELECT count(DISTINCT adset_id) FROM facts`: 2, `SELECT count(DISTINCT ad_id) FROM facts`: 3,
		`SELECT count(*) FROM accounts WHERE account_name = 'act_7' AND timezone = 'UTC'`: 1,
	}
	if w.NamesPerFact {
		counts[`SELECT count(*) FROM facts WHERE campaign_name = 'Spring (renamed)' AND date = '2026-04-02'`] = 2
		counts[`SELECT count(*) FROM facts WHERE campaign_name = 'Spring' AND date = '2026-04-01'`] = 2
	} else {
		counts[`SELECT count(*) FROM adsets`] = 2
		counts[`SELECT count(*) FROM ads`] = 3
		counts[`SELECT count(*) FROM campaigns WHERE campaign_name = 'Spring (renamed)' AND start_date = '2026-04-01'`] = 1
	}
	for q, want := range counts {
		if n := wh.Count(t, q); n != want {
			t.Errorf("%s = %d, want %d", q, n, want)
		}
	}
}

// Two files of one import sharing a campaign: the second does not count it as
// new again, and the campaign is stored once (a regression of ClickHouse's,
// which planned every file against the warehouse as it was).
func importFilesShareACampaign(t *testing.T, w, ref ImportWarehouse) {
	wh, rw := w.Fresh(t), ref.Fresh(t)
	head := `"Account ID","Campaign name","Day","Impressions","Amount spent (USD)"` + "\n"
	files := func() []*importer.Export {
		return []*importer.Export{
			parse(t, "jan3.csv", []byte(head+"1015823746512093,Winter Sale | Prospecting,2026-01-03,100,10.00\n"), importer.Options{}),
			parse(t, "jan4.csv", []byte(head+"1015823746512093,Winter Sale | Prospecting,2026-01-04,100,20.00\n"), importer.Options{}),
		}
	}
	res := mustImport(t, wh, importer.WriteOptions{Now: importNow}, files()...)
	refRes := mustImport(t, rw, importer.WriteOptions{Now: importNow}, files()...)
	sameReports(t, "two files", refRes.Files, res.Files)
	if res.Files[0].NewCampaigns != 1 || res.Files[1].NewCampaigns != 0 {
		t.Errorf("new campaigns %d, %d; want 1, 0", res.Files[0].NewCampaigns, res.Files[1].NewCampaigns)
	}
	if n := wh.Count(t, `SELECT count(*) FROM campaigns`); n != 1 {
		t.Errorf("%d campaign rows", n)
	}
	// A later import of a third day finds it known.
	third := parse(t, "jan5.csv", []byte(head+"1015823746512093,Winter Sale | Prospecting,2026-01-05,100,30.00\n"), importer.Options{})
	if f := mustImport(t, wh, importer.WriteOptions{}, third).Files[0]; f.NewCampaigns != 0 {
		t.Errorf("third file: %+v", f)
	}
}

// csvSums are the spend (micros), impressions and conversions of a sample
// export and its daily reach per campaign, read with encoding/csv and math/big
// from the file itself (not by the importer), and its lines with activity.
type csvSums struct {
	factSums
	reach map[string]int64 // campaign name + " " + day
}

func sumCSV(t *testing.T, name, spend, impressions, conversions, value, reach, campaign, day string) csvSums {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(importTestdata(t, name), []byte("\ufeff")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	at := map[string]int{}
	for i, h := range recs[0] {
		at[h] = i
	}
	num := func(rec []string, h string, scale int64) int64 {
		i, ok := at[h]
		if h == "" || !ok {
			return 0
		}
		v := strings.ReplaceAll(rec[i], ",", "")
		if v == "-" || v == "--" || v == "" {
			return 0
		}
		r, ok := new(big.Rat).SetString(v)
		if !ok {
			t.Fatalf("%s: %q", name, rec[i])
		}
		r.Mul(r, big.NewRat(scale, 1))
		return r.Num().Int64() / r.Denom().Int64()
	}
	s := csvSums{reach: map[string]int64{}}
	for _, rec := range recs[1:] {
		if strings.HasPrefix(rec[0], "Total") {
			continue
		}
		sp, im, cv, va, re := num(rec, spend, 1e6), num(rec, impressions, 1), num(rec, conversions, 1), num(rec, value, 1e6), num(rec, reach, 1)
		if sp == 0 && im == 0 && cv == 0 && va == 0 && re == 0 {
			continue
		}
		s.facts++
		s.spend += sp
		s.impressions += im
		s.conversions += float64(cv)
		s.value += va
		if reach != "" {
			s.reach[rec[at[campaign]]+" "+rec[at[day]]] = re
		}
	}
	return s
}

// TikTok's sample exports: the warehouse holds the files' sums, the
// campaigns' daily reach as the file gives it, no reach for ad groups, and
// link clicks not reported; the second import of the same period replaces.
func importTikTok(t *testing.T, w, ref ImportWarehouse) {
	wh, rw := w.Fresh(t), ref.Fresh(t)
	exports := func() []*importer.Export {
		return []*importer.Export{parse(t, "tiktok_en_campaigns_daily.csv", nil, importer.Options{}),
			parse(t, "tiktok_en_adgroups_daily.csv", nil, tiktokAdGroupOptions)}
	}
	res := mustImport(t, wh, importer.WriteOptions{Now: importNow}, exports()...)
	refRes := mustImport(t, rw, importer.WriteOptions{Now: importNow}, exports()...)
	sameReports(t, "TikTok samples", refRes.Files, res.Files)

	campaigns := sumCSV(t, "tiktok_en_campaigns_daily.csv", "Cost", "Impressions", "Conversions", "Total complete payment value", "Reach", "Campaign name", "By Day")
	adgroups := sumCSV(t, "tiktok_en_adgroups_daily.csv", "Cost (EUR)", "Impressions", "Conversions", "Complete payment value", "", "", "")
	if got := sumsOf(t, wh, tiktokAccount); got != campaigns.factSums {
		t.Errorf("campaign sample: warehouse %+v, file %+v", got, campaigns.factSums)
	}
	if got := sumsOf(t, wh, tiktokAdGroupAccount); got != adgroups.factSums {
		t.Errorf("ad group sample: warehouse %+v, file %+v", got, adgroups.factSums)
	}
	if n := wh.Count(t, "SELECT count(*) FROM facts WHERE account_id = '"+tiktokAccount+"' AND link_clicks IS NOT NULL"); n != 0 {
		t.Errorf("%d TikTok facts have link clicks; TikTok does not report them", n)
	}

	src := wh.Open(t)
	tab := queryTable(t, src, `{"account_ids":["7201845539016472318"],"metrics":["reach"],"dimensions":["campaign_name"],
		"time_granularity":"daily","date_range":{"start":"2026-01-05","end":"2026-01-07"}}`)
	got := map[string]int64{}
	names, days, reach := tab.Column("campaign_name"), tab.Column("date"), tab.Column("reach")
	for i := range tab.Len() {
		if days == nil {
			t.Fatalf("no date column in %+v", tab)
		}
		got[names.Strings[i]+" "+days.Strings[i]] = int64(reach.Numbers[i])
	}
	src.Close()
	if len(got) != len(campaigns.reach) {
		t.Errorf("daily reach %v, want %v", got, campaigns.reach)
	}
	for k, v := range campaigns.reach {
		if got[k] != v {
			t.Errorf("reach of %s: %d, want %d (the file's)", k, got[k], v)
		}
	}
	if n := wh.Count(t, "SELECT count(*) FROM reach WHERE account_id = '"+tiktokAdGroupAccount+"'"); n != 0 {
		t.Errorf("%d reach rows for the ad group sample, want none", n)
	}
	if want, got := answers(t, rw, importQueries[5:]...), answers(t, wh, importQueries[5:]...); got != want {
		t.Errorf("answers differ\n--- reference\n%s\n--- got\n%s", want, got)
	}

	// A re-export of the same days (other bytes) replaces them: same sums.
	again := append(importTestdata(t, "tiktok_en_campaigns_daily.csv"), "\n"...)
	f := mustImport(t, wh, importer.WriteOptions{}, parse(t, "again.csv", again, importer.Options{})).Files[0]
	if f.FactsAdded != campaigns.facts || f.FactsReplaced != campaigns.facts {
		t.Errorf("re-export %+v", f)
	}
	if got := sumsOf(t, wh, tiktokAccount); got != campaigns.factSums {
		t.Errorf("after the re-export: %+v, want %+v", got, campaigns.factSums)
	}
}

// csvGroups sums a sample export's columns by the values of its key columns
// (joined with "\t"), with encoding/csv and math/big, independently of the
// importer: money columns (scale 1e6) in micros, the others in hundredths.
// skip is the lines before the header (Google's report name and range);
// totals lines (a "Total…" first field, or an empty first key) are left out.
func csvGroups(t *testing.T, name string, skip int, keys []string, cols map[string]int64) map[string]map[string]int64 {
	t.Helper()
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(importTestdata(t, name), []byte("\ufeff"))))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	recs = recs[skip:]
	at := map[string]int{}
	for i, h := range recs[0] {
		at[h] = i
	}
	out := map[string]map[string]int64{}
	for _, rec := range recs[1:] {
		if strings.HasPrefix(rec[0], "Total") || rec[at[keys[0]]] == "" {
			continue
		}
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = rec[at[k]]
		}
		key := strings.Join(parts, "\t")
		if out[key] == nil {
			out[key] = map[string]int64{}
		}
		for c, scale := range cols {
			v := strings.ReplaceAll(rec[at[c]], ",", "")
			if v == "" || v == "-" || v == "--" {
				continue
			}
			x, ok := new(big.Rat).SetString(v)
			if !ok {
				t.Fatalf("%s: %q", name, v)
			}
			x.Mul(x, big.NewRat(scale, 1))
			out[key][c] += x.Num().Int64() / x.Denom().Int64()
		}
	}
	return out
}

// tableGroups are a query's rows keyed by its string columns keys, with the
// number columns cols (scaled as csvGroups scales them).
func tableGroups(t *testing.T, tab *fit.Table, keys []string, cols map[string]string, scale map[string]int64) map[string]map[string]int64 {
	t.Helper()
	out := map[string]map[string]int64{}
	for i := range tab.Len() {
		parts := make([]string, len(keys))
		for j, k := range keys {
			c := tab.Column(k)
			if c == nil {
				t.Fatalf("no column %s in %+v", k, tab)
			}
			parts[j] = c.Strings[i]
		}
		key := strings.Join(parts, "\t")
		out[key] = map[string]int64{}
		for metric, file := range cols {
			out[key][file] = int64(math.Round(tab.Column(metric).Numbers[i] * float64(scale[file])))
		}
	}
	return out
}

func sameGroups(t *testing.T, what string, file, got map[string]map[string]int64) {
	t.Helper()
	if len(file) != len(got) {
		t.Errorf("%s: %d rows, the file has %d groups\nfile %v\ngot  %v", what, len(got), len(file), file, got)
	}
	for k, want := range file {
		for c, v := range want {
			if got[k][c] != v {
				t.Errorf("%s: %s: %s = %d, the file's sum is %d", what, k, c, got[k][c], v)
			}
		}
	}
}

// sumsIn are the account's fact totals in one breakdown set.
func sumsIn(t *testing.T, w ImportTarget, account, set string) factSums {
	t.Helper()
	where := " FROM facts WHERE account_id = '" + account + "' AND breakdown = '" + set + "'"
	return factSums{
		facts:       w.Count(t, "SELECT count(*)"+where),
		spend:       w.Count(t, "SELECT coalesce(sum(spend_micros), 0)"+where),
		value:       w.Count(t, "SELECT coalesce(sum(conversion_value_micros), 0)"+where),
		impressions: w.Count(t, "SELECT coalesce(sum(impressions), 0)"+where),
		conversions: float64(w.Count(t, "SELECT CAST(round(coalesce(sum(conversions), 0) * 100) AS BIGINT)"+where)) / 100,
	}
}

// Breakdown-set exports beside delivery exports: an age/gender export after
// a delivery export of the same days keeps the delivery rows (and reach),
// and a delivery export after it keeps the age/gender rows; each re-export
// replaces its own set; the per-campaign sums by age (and by placement, by
// conversion action, by Google's age and gender) are the files'; the
// accounts hold the attribution window and what conversions count.
func importBreakdownSets(t *testing.T, w, ref ImportWarehouse) {
	wh, rw := w.Fresh(t), ref.Fresh(t)
	delivery := func() *importer.Export { return parse(t, "meta_en_campaigns_daily.csv", nil, importer.Options{}) }
	ageGender := func() *importer.Export { return parse(t, "meta_en_age_gender_daily.csv", nil, importer.Options{}) }
	googleOpt := importer.Options{AccountID: "111-222-3333", AccountName: "Brand Co - Search", Timezone: "America/New_York"}

	mustImport(t, wh, importer.WriteOptions{}, delivery())
	d0 := sumsIn(t, wh, metaAccount, "delivery")
	reach0 := wh.Count(t, "SELECT count(*) FROM reach WHERE account_id = '"+metaAccount+"'")
	if d0.facts != 6 || reach0 != 6 {
		t.Fatalf("delivery %+v, %d reach rows", d0, reach0)
	}
	f := mustImport(t, wh, importer.WriteOptions{}, ageGender()).Files[0]
	ag := sumsIn(t, wh, metaAccount, "age_gender")
	if f.FactsAdded != ag.facts || f.FactsReplaced != 0 || f.ReachReplaced != 0 || f.ReachAdded != 0 || len(f.Dropped) != 0 {
		t.Errorf("age/gender after delivery: %+v", f)
	}
	if got := sumsIn(t, wh, metaAccount, "delivery"); got != d0 {
		t.Errorf("the age/gender export changed the delivery rows: %+v, were %+v", got, d0)
	}
	if n := wh.Count(t, "SELECT count(*) FROM reach WHERE account_id = '"+metaAccount+"'"); n != reach0 {
		t.Errorf("the age/gender export changed the reach: %d rows, were %d", n, reach0)
	}
	if n := wh.Count(t, "SELECT count(*) FROM facts WHERE breakdown = 'age_gender' AND (adset_id IS NOT NULL OR ad_id IS NOT NULL OR age IS NULL)"); n != 0 {
		t.Errorf("%d age_gender rows below their campaign or without an age", n)
	}
	money := map[string]int64{"Amount spent (USD)": 1e6, "Purchases conversion value": 1e6, "Impressions": 1, "Purchases": 1}
	metaMetrics := map[string]string{"spend": "Amount spent (USD)", "conversion_value": "Purchases conversion value", "impressions": "Impressions", "conversions": "Purchases"}
	byAge := csvGroups(t, "meta_en_age_gender_daily.csv", 0, []string{"Campaign name", "Age"}, money)
	delete(byAge, "Winter Sale | Prospecting\t45-54") // the line without activity
	checkAge := func(when string) {
		t.Helper()
		src := wh.Open(t)
		defer src.Close()
		tab := queryTable(t, src, `{"account_ids":["act_1015823746512093"],"metrics":["spend","conversion_value","impressions","conversions"],
			"dimensions":["campaign_name","age"],"date_range":{"start":"2026-01-01","end":"2026-01-02"}}`)
		sameGroups(t, "per campaign and age "+when, byAge, tableGroups(t, tab, []string{"campaign_name", "age"}, metaMetrics, money))
	}
	checkAge("after the age/gender export")

	// A delivery re-export of the same days (other bytes) replaces the
	// delivery rows only.
	again := append(importTestdata(t, "meta_en_campaigns_daily.csv"), "\n"...)
	f = mustImport(t, wh, importer.WriteOptions{}, parse(t, "again.csv", again, importer.Options{})).Files[0]
	if f.FactsReplaced != d0.facts || f.FactsAdded != d0.facts || f.ReachReplaced != reach0 {
		t.Errorf("delivery re-export: %+v", f)
	}
	if got := sumsIn(t, wh, metaAccount, "age_gender"); got != ag {
		t.Errorf("the delivery export changed the age/gender rows: %+v, were %+v", got, ag)
	}
	checkAge("after a delivery re-export")
	// An age/gender re-export replaces the age/gender rows only.
	againAge := append(importTestdata(t, "meta_en_age_gender_daily.csv"), "\n"...)
	f = mustImport(t, wh, importer.WriteOptions{}, parse(t, "again-age.csv", againAge, importer.Options{})).Files[0]
	if f.FactsReplaced != ag.facts || f.FactsAdded != ag.facts || f.ReachReplaced != 0 {
		t.Errorf("age/gender re-export: %+v", f)
	}
	if got := sumsIn(t, wh, metaAccount, "delivery"); got != d0 {
		t.Errorf("the age/gender re-export changed the delivery rows: %+v, were %+v", got, d0)
	}

	// Placement, conversions by action, Google's age and gender reports.
	rest := func() []*importer.Export {
		return []*importer.Export{parse(t, "meta_en_placement_daily.csv", nil, importer.Options{}),
			parse(t, "meta_en_actions_daily.csv", nil, importer.Options{}),
			parse(t, "google_en_campaigns_daily.csv", nil, googleOpt),
			parse(t, "google_en_age_daily.csv", nil, googleOpt),
			parse(t, "google_en_gender_daily.csv", nil, googleOpt)}
	}
	res := mustImport(t, wh, importer.WriteOptions{Now: importNow}, rest()...)
	if res.Files[4].FactsReplaced != 0 {
		t.Errorf("the gender report replaced %d rows (the age report's?)", res.Files[4].FactsReplaced)
	}
	if got := sumsIn(t, wh, metaAccount, "age_gender"); got != ag {
		t.Errorf("the placement export changed the age/gender rows: %+v, were %+v", got, ag)
	}
	src := wh.Open(t)
	tab := queryTable(t, src, `{"account_ids":["act_1015823746512093"],"metrics":["spend","impressions"],
		"dimensions":["campaign_name","publisher_platform","placement"],"date_range":{"start":"2026-01-02","end":"2026-01-03"}}`)
	pm := map[string]int64{"Amount spent (USD)": 1e6, "Impressions": 1}
	placements := csvGroups(t, "meta_en_placement_daily.csv", 0, []string{"Campaign name", "Platform", "Placement"}, pm)
	short := map[string]string{"Feed": "feed", "Instagram Reels": "reels", "Facebook Stories": "story", "Instagram Explore": "explore",
		"Native, banner and interstitial": "an_classic", "Messenger Inbox": "messenger_inbox", "Right column": "right_hand_column",
		"Facebook": "facebook", "Instagram": "instagram", "Audience Network": "audience_network", "Messenger": "messenger"}
	want := map[string]map[string]int64{}
	for k, v := range placements {
		parts := strings.Split(k, "\t")
		want[parts[0]+"\t"+short[parts[1]]+"\t"+short[parts[2]]] = v
	}
	sameGroups(t, "per campaign and placement", want,
		tableGroups(t, tab, []string{"campaign_name", "publisher_platform", "placement"}, map[string]string{"spend": "Amount spent (USD)", "impressions": "Impressions"}, pm))

	tab = queryTable(t, src, `{"account_ids":["act_1015823746512093"],"metrics":["conversions","conversion_value"],
		"dimensions":["campaign_name","conversion_action"],"date_range":{"start":"2026-02-01","end":"2026-02-03"}}`)
	acts := map[string]int64{"Purchases": 1, "Purchases conversion value": 1e6, "Adds to cart": 1, "Adds to cart conversion value": 1e6, "Leads": 1}
	file := csvGroups(t, "meta_en_actions_daily.csv", 0, []string{"Campaign name"}, acts)
	got := tableGroups(t, tab, []string{"campaign_name", "conversion_action"}, map[string]string{"conversions": "n", "conversion_value": "v"}, map[string]int64{"n": 1, "v": 1e6})
	for campaign, c := range file {
		for action, cols := range map[string][2]string{"purchase": {"Purchases", "Purchases conversion value"}, "add_to_cart": {"Adds to cart", "Adds to cart conversion value"}, "lead": {"Leads", ""}} {
			g := got[campaign+"\t"+action]
			if c[cols[0]] == 0 && g == nil {
				continue
			}
			if g["n"] != c[cols[0]] || cols[1] != "" && g["v"] != c[cols[1]] {
				t.Errorf("%s %s: %v, the file's %d and %d", campaign, action, g, c[cols[0]], c[cols[1]])
			}
		}
	}
	tab = queryTable(t, src, `{"account_ids":["act_1015823746512093"],"metrics":["conversions"],"date_range":{"start":"2026-02-01","end":"2026-02-03"}}`)
	purchases := int64(0)
	for _, c := range file {
		purchases += c["Purchases"]
	}
	if tab.Len() != 1 || int64(tab.Column("conversions").Numbers[0]) != purchases {
		t.Errorf("February conversions %+v, the file's Purchases %d", tab, purchases)
	}

	gm := map[string]int64{"Cost": 1e6, "Conversions": 100}
	for _, g := range []struct{ file, dim, col string }{{"google_en_age_daily.csv", "age", "Age"}, {"google_en_gender_daily.csv", "gender", "Gender"}} {
		tab = queryTable(t, src, `{"account_ids":["111-222-3333"],"metrics":["spend","conversions"],"dimensions":["campaign_id","`+g.dim+`"],
			"date_range":{"start":"2026-01-01","end":"2026-01-03"}}`)
		rows := tableGroups(t, tab, []string{"campaign_id", g.dim}, map[string]string{"spend": "Cost", "conversions": "Conversions"}, gm)
		fileRows := csvGroups(t, g.file, 2, []string{"Campaign ID", g.col}, gm)
		norm := map[string]map[string]int64{}
		for k, v := range fileRows {
			parts := strings.Split(k, "\t")
			norm[parts[0]+"\t"+strings.ToLower(strings.ReplaceAll(parts[1], " ", ""))] = v
		}
		sameGroups(t, "Google by "+g.dim, norm, rows)
	}
	accounts, err := src.Accounts(context.Background())
	src.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range accounts {
		switch a.AccountID {
		case metaAccount:
			if a.AttributionWindow != "7d_click_1d_view" || a.ConversionActions != "each campaign's result (Results); purchase" {
				t.Errorf("Meta account %+v", a)
			}
		case "111-222-3333":
			if a.AttributionWindow != "per_conversion_action" || a.ConversionActions != "the conversion actions in Conversions" {
				t.Errorf("Google account %+v", a)
			}
		}
	}

	// The same imports in the reference warehouse: the same reports and
	// answers.
	mustImport(t, rw, importer.WriteOptions{}, delivery())
	mustImport(t, rw, importer.WriteOptions{}, ageGender())
	mustImport(t, rw, importer.WriteOptions{}, parse(t, "again.csv", again, importer.Options{}))
	mustImport(t, rw, importer.WriteOptions{}, parse(t, "again-age.csv", againAge, importer.Options{}))
	sameReports(t, "breakdown samples", mustImport(t, rw, importer.WriteOptions{Now: importNow}, rest()...).Files, res.Files)
	queries := []string{
		`{"account_ids":["act_1015823746512093"],"metrics":["spend","conversions","ctr"],"dimensions":["age","gender"],"date_range":{"start":"2026-01-01","end":"2026-01-03"}}`,
		`{"account_ids":["act_1015823746512093"],"metrics":["spend","impressions"],"dimensions":["placement","device"],"time_granularity":"daily","date_range":{"start":"2026-01-01","end":"2026-01-03"}}`,
		`{"account_ids":["act_1015823746512093"],"metrics":["conversions","conversion_value"],"dimensions":["conversion_action"],"date_range":{"start":"2026-02-01","end":"2026-02-03"}}`,
		`{"account_ids":["111-222-3333"],"metrics":["spend","conversions"],"dimensions":["gender"],"date_range":{"start":"2026-01-01","end":"2026-01-03"}}`,
	}
	if want, got := answers(t, rw, queries...), answers(t, wh, queries...); got != want {
		t.Errorf("answers differ\n--- reference\n%s\n--- got\n%s", want, got)
	}
}
