package importer

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
)

// memStore is a Store in memory that records the writes it is asked for.
type memStore struct {
	transactional bool
	state         State
	accounts      []ads.Account
	ledger        map[string]LedgerEntry
	campaigns     []CampaignKey
	replaced      map[string]Replacement // by account ID
	writes        []string
	files         []*FilePlan
	dataset       [][2]string
	syncStates    []SyncState
}

func (m *memStore) Target() Target {
	return Target{Name: "mem", Elsewhere: "another", Transactional: m.transactional}
}
func (m *memStore) State(context.Context) (State, error)            { return m.state, nil }
func (m *memStore) Accounts(context.Context) ([]ads.Account, error) { return m.accounts, nil }
func (m *memStore) Campaigns(context.Context, []string) ([]CampaignKey, error) {
	return m.campaigns, nil
}
func (m *memStore) Imported(_ context.Context, sha string) (LedgerEntry, bool, error) {
	e, ok := m.ledger[sha]
	return e, ok, nil
}
func (m *memStore) Replaced(_ context.Context, r Range) (Replacement, error) {
	return m.replaced[r.AccountID], nil
}
func (m *memStore) FactDates(context.Context) (time.Time, time.Time, bool, error) {
	return jan(1), jan(3), true, nil
}
func (m *memStore) ClearDemo(context.Context) error { m.writes = append(m.writes, "clear"); return nil }
func (m *memStore) WriteFile(_ context.Context, p *FilePlan) error {
	m.writes = append(m.writes, "file "+p.Ledger.FileName)
	m.files = append(m.files, p)
	return nil
}
func (m *memStore) WriteDataset(_ context.Context, rows [][2]string) error {
	m.writes = append(m.writes, "dataset")
	m.dataset = rows
	return nil
}

func (m *memStore) SyncStates(context.Context) ([]SyncState, error) { return m.syncStates, nil }
func (m *memStore) WriteSyncState(_ context.Context, st SyncState) error {
	m.writes = append(m.writes, "state "+st.AccountID)
	m.syncStates = append(m.syncStates, st)
	return nil
}

func jan(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }

// export is a one-campaign export of account on days first … last.
func export(name, account, currency string, first, last int, campaigns ...string) *Export {
	ex := &Export{Report: Report{File: name, SHA256: "sha-" + name, Platform: Meta}, First: jan(first), Last: jan(last)}
	ex.Accounts = []Account{{Account: ads.Account{AccountID: account, Platform: Meta, AccountName: account, Currency: currency, Timezone: "UTC"}}}
	for _, c := range campaigns {
		ex.Campaigns = append(ex.Campaigns, ads.Campaign{CampaignID: c, AccountID: account, Name: c})
		ex.Facts = append(ex.Facts, ads.Fact{Date: jan(first), AccountID: account, CampaignID: c})
	}
	ex.Reach = []ads.Reach{{Level: "account", AccountID: account, Grain: "daily", PeriodStart: jan(first), Reach: 5}}
	return ex
}

func TestWritePlansAgainstTheWarehouse(t *testing.T) {
	m := &memStore{transactional: true, state: State{Kind: KindImport},
		accounts:  []ads.Account{{AccountID: "act_1", Platform: Meta, AccountName: "Old", Currency: "USD", Timezone: "UTC"}},
		campaigns: []CampaignKey{{"act_1", "c1"}},
		ledger:    map[string]LedgerEntry{"sha-old.csv": {FileName: "first.csv", ImportedAt: jan(9)}},
		replaced:  map[string]Replacement{"act_1": {Facts: 4, Reach: 2, Campaigns: []DroppedCampaign{{"c9", "Zed"}, {"c1", "c1"}, {"c8", "Abe"}}}},
	}
	a := export("a.csv", "1", "USD", 1, 3, "c1", "c2")
	a.Accounts[0].NameKnown, a.Accounts[0].AccountName = true, "New name"
	b := export("b.csv", "ACT_2", "EUR", 2, 2, "c2")
	dup := export("a copy.csv", "1", "USD", 1, 3)
	dup.SHA256 = a.SHA256
	old := export("old.csv", "1", "USD", 1, 1)
	res, err := Write(context.Background(), m, []*Export{a, b, dup, old}, WriteOptions{Now: jan(20)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Created || res.DemoReplaced || res.Target != "mem" {
		t.Errorf("result %+v", res)
	}
	fa := res.Files[0]
	if fa.NewCampaigns != 1 || len(fa.NewAccounts) != 0 || fa.FactsReplaced != 4 || fa.ReachReplaced != 2 ||
		strings.Join(fa.Dropped, ",") != "Abe,Zed" || fa.FactsAdded != 2 || fa.ReachAdded != 1 {
		t.Errorf("a.csv %+v", fa)
	}
	pa := m.files[0]
	if acc := pa.Accounts[0]; acc.AccountID != "act_1" || acc.AccountName != "New name" || !acc.Changed || acc.New {
		t.Errorf("a.csv's account %+v", acc)
	}
	// Rows go out with the warehouse's spelling of the account ID.
	var sent []string
	if err := pa.Send(sinkFunc(func(id string) { sent = append(sent, id) })); err != nil {
		t.Fatal(err)
	}
	if strings.Join(sent, ",") != "act_1,act_1,act_1" || pa.Campaigns()[0].AccountID != "act_1" {
		t.Errorf("rows sent for %v", sent)
	}
	if r := pa.Ranges[0]; r.AccountID != "act_1" || !r.Reach[1].From.Equal(jan(1).AddDate(0, 0, -6)) || !r.Reach[2].From.Equal(jan(1)) {
		t.Errorf("range %+v", r)
	}
	if e := pa.Ledger; e.FileName != "a.csv" || strings.Join(e.Accounts, ",") != "act_1" || e.Facts != 2 || !e.ImportedAt.Equal(jan(20)) {
		t.Errorf("ledger %+v", e)
	}
	if fb := res.Files[1]; fb.NewCampaigns != 1 || strings.Join(fb.NewAccounts, ",") != "ACT_2" {
		t.Errorf("b.csv %+v", fb)
	}
	// A file given twice is imported once; a file in the ledger is skipped.
	if f := res.Files[2]; !f.AlreadyImported || f.ImportedAs != "a.csv" || !f.ImportedAt.Equal(jan(20)) || f.FactsAdded != 0 {
		t.Errorf("the same file again %+v", f)
	}
	if f := res.Files[3]; !f.AlreadyImported || f.ImportedAs != "first.csv" || !f.ImportedAt.Equal(jan(9)) {
		t.Errorf("a file imported before %+v", f)
	}
	if got := strings.Join(m.writes, "; "); got != "file a.csv; file b.csv; dataset" {
		t.Errorf("writes %s", got)
	}
	if got := m.dataset; len(got) != 5 || got[2] != [2]string{"first_date", "2026-01-01"} || got[4] != [2]string{"complete", "true"} {
		t.Errorf("dataset %v", got)
	}
}

// sinkFunc is an ads.Sink that passes each fact's and reach row's account on.
type sinkFunc func(account string)

func (sinkFunc) Dataset(string, string) error { return nil }
func (sinkFunc) Account(ads.Account) error    { return nil }
func (sinkFunc) Campaign(ads.Campaign) error  { return nil }
func (sinkFunc) AdSet(ads.AdSet) error        { return nil }
func (sinkFunc) Ad(ads.Ad) error              { return nil }
func (f sinkFunc) Fact(x *ads.Fact) error     { f(x.AccountID); return nil }
func (f sinkFunc) Reach(r ads.Reach) error {
	if r.ObjectID != r.AccountID {
		return errors.New("an account's reach must name the account")
	}
	f(r.AccountID)
	return nil
}

// A conflict in any file fails the import before anything is written, the
// demo data's deletion included.
func TestWriteChecksEveryFileFirst(t *testing.T) {
	for _, tc := range []struct {
		name, currency, platform, want string
	}{
		{"currency", "EUR", Meta, "is in USD in the warehouse"},
		{"platform", "USD", Google, "is a meta_ads account in the warehouse, and this is a google_ads export"},
	} {
		m := &memStore{state: State{Kind: "demo"}}
		good := export("good.csv", "act_1", "USD", 1, 1, "c1")
		bad := export("bad.csv", "1", tc.currency, 2, 2, "c1")
		bad.Accounts[0].Platform = tc.platform
		_, err := Write(context.Background(), m, []*Export{good, bad}, WriteOptions{ReplaceDemo: true})
		if err == nil || !strings.HasPrefix(err.Error(), "bad.csv: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.name, err)
		}
		if len(m.writes) != 0 {
			t.Errorf("%s: written before the conflict was found: %v", tc.name, m.writes)
		}
	}
}

func TestWriteRefusesDemoData(t *testing.T) {
	for kind, what := range map[string]string{"demo": "holds the demo dataset", "": `holds data that was neither imported nor synced (dataset kind "")`} {
		m := &memStore{state: State{Kind: kind}}
		_, err := Write(context.Background(), m, []*Export{export("a.csv", "1", "USD", 1, 1)}, WriteOptions{})
		if !errors.Is(err, ErrDemoData) || !strings.Contains(err.Error(), "mem "+what+"; pass --replace-demo to delete it and import, or another") {
			t.Errorf("kind %q: %v", kind, err)
		}
	}
	m := &memStore{state: State{Kind: "demo"}, accounts: []ads.Account{{AccountID: "1", Platform: Google, Currency: "EUR"}}}
	res, err := Write(context.Background(), m, []*Export{export("a.csv", "1", "USD", 1, 1, "c1")}, WriteOptions{ReplaceDemo: true})
	if err != nil || !res.DemoReplaced || res.Created || len(res.Files[0].NewAccounts) != 1 {
		t.Fatalf("replace the demo: %+v %v", res, err)
	}
	if got := strings.Join(m.writes, "; "); got != "clear; file a.csv; dataset" {
		t.Errorf("writes %s", got)
	}
}

// A dry run writes nothing into a store without transactions (and reads
// nothing from one that will be emptied); a transactional store is written,
// for its caller to roll back.
func TestWriteDryRun(t *testing.T) {
	for _, tx := range []bool{false, true} {
		m := &memStore{transactional: tx, state: State{Kind: "demo"}, replaced: map[string]Replacement{"1": {Facts: 9}}}
		res, err := Write(context.Background(), m, []*Export{export("a.csv", "1", "USD", 1, 1, "c1")}, WriteOptions{DryRun: true, ReplaceDemo: true})
		if err != nil || !res.DryRun || !res.DemoReplaced {
			t.Fatalf("%+v %v", res, err)
		}
		want, replaced := "", int64(0)
		if tx {
			want, replaced = "clear; file a.csv; dataset", 9
		}
		if got := strings.Join(m.writes, "; "); got != want || res.Files[0].FactsReplaced != replaced {
			t.Errorf("transactional %v: writes %q, %d replaced", tx, got, res.Files[0].FactsReplaced)
		}
	}
}

// A campaign two files of one import share is new once, and so is an
// account; the second file replaces what the first wrote on its days (a
// transactional store's reads see its writes).
func TestWriteFilesShareACampaign(t *testing.T) {
	m := &memStore{transactional: true, state: State{Empty: true}}
	res, err := Write(context.Background(), m, []*Export{
		export("jan1.csv", "act_1", "USD", 1, 1, "c1"), export("jan2.csv", "1", "USD", 2, 2, "c1", "c2"),
	}, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f := res.Files; !res.Created || f[0].NewCampaigns != 1 || f[1].NewCampaigns != 1 || len(f[0].NewAccounts) != 1 || len(f[1].NewAccounts) != 0 {
		t.Errorf("files %+v", f)
	}
	if p := m.files[1]; !p.NewCampaigns[CampaignKey{"act_1", "c2"}] || p.NewCampaigns[CampaignKey{"act_1", "c1"}] || p.Accounts[0].AccountID != "act_1" {
		t.Errorf("second file's plan %+v", p)
	}
}
