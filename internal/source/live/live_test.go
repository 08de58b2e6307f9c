package live

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
)

func TestMain(m *testing.M) { os.Exit(duckdbtest.Main(m)) }

// dataset is the test warehouse's rows, in memory, for fake connectors.
type dataset struct {
	accounts  []ads.Account
	campaigns []ads.Campaign
	adsets    []ads.AdSet
	ads       []ads.Ad
	facts     []ads.Fact
	reach     []ads.Reach
}

func (d *dataset) Dataset(string, string) error  { return nil }
func (d *dataset) Account(a ads.Account) error   { d.accounts = append(d.accounts, a); return nil }
func (d *dataset) Campaign(c ads.Campaign) error { d.campaigns = append(d.campaigns, c); return nil }
func (d *dataset) AdSet(s ads.AdSet) error       { d.adsets = append(d.adsets, s); return nil }
func (d *dataset) Ad(a ads.Ad) error             { d.ads = append(d.ads, a); return nil }
func (d *dataset) Fact(f *ads.Fact) error        { d.facts = append(d.facts, *f); return nil }
func (d *dataset) Reach(r ads.Reach) error       { d.reach = append(d.reach, r); return nil }

var (
	dataOnce sync.Once
	data     dataset
)

func testData(t testing.TB) *dataset {
	var err error
	dataOnce.Do(func() { err = demo.Generate(context.Background(), duckdbtest.Config, &data, nil) })
	if err != nil {
		t.Fatal(err)
	}
	return &data
}

// fakeConnector serves one platform's accounts of the test data as an API
// would: only the requested accounts and dates, counting one call per account;
// fail makes an account fail with an AccountError.
type fakeConnector struct {
	platform string
	data     *dataset
	fail     map[string]*source.AccountError
	listErr  error
}

func (f *fakeConnector) Platform() string { return f.platform }

func (f *fakeConnector) Accounts(context.Context) ([]ads.Account, error) {
	if f.listErr != nil {
		return nil, f.listErr
	}
	var out []ads.Account
	for _, a := range f.data.accounts {
		if a.Platform == f.platform {
			out = append(out, a)
		}
	}
	return out, nil
}

func (f *fakeConnector) Workers() int { return 2 }

// Compile fetches from the dataset what p asks, counting one call per
// account: names and facts in p's range (at the data's daily grain), and
// exactly the reach p reads; with ReachOnly, the reach alone.
func (f *fakeConnector) Compile(p *Plan) (AccountFetch, error) {
	return func(ctx context.Context, a ads.Account, b *Batch) error {
		source.CountCall(ctx)
		if e := f.fail[a.AccountID]; e != nil {
			return e
		}
		if r := p.Reach; r != nil {
			level := map[catalog.Level]string{catalog.LevelAccount: "account", catalog.LevelCampaign: "campaign"}[r.Level]
			for _, x := range f.data.reach {
				if x.AccountID == a.AccountID && x.Level == level && x.Grain == string(r.Grain) && !x.PeriodStart.Before(r.First) && !x.PeriodStart.After(r.Last) {
					b.Reach(x)
				}
			}
		}
		if p.ReachOnly {
			return nil
		}
		for _, c := range f.data.campaigns {
			if c.AccountID == a.AccountID {
				b.Campaign(c)
			}
		}
		for _, s := range f.data.adsets {
			if s.AccountID == a.AccountID {
				b.AdSet(s)
			}
		}
		for _, x := range f.data.ads {
			if x.AccountID == a.AccountID {
				b.Ad(x)
			}
		}
		for _, x := range f.data.facts {
			// The plan's set only, as an API's report holds one.
			if x.AccountID == a.AccountID && x.BreakdownKey() == p.Set.Key && !x.Date.Before(p.Start) && !x.Date.After(p.End) {
				b.Facts(x)
			}
		}
		return nil
	}, nil
}

func connectors(t testing.TB) (*fakeConnector, *fakeConnector, *fakeConnector) {
	d := testData(t)
	return &fakeConnector{platform: "meta_ads", data: d}, &fakeConnector{platform: "google_ads", data: d}, &fakeConnector{platform: "tiktok_ads", data: d}
}

func normalize(t *testing.T, accounts []ads.Account, raw string) *query.Query {
	t.Helper()
	q, err := normalizeQuery(accounts, raw)
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return q
}

func normalizeQuery(accounts []ads.Account, raw string) (*query.Query, error) {
	return query.ParseAndNormalize([]byte(raw), query.Options{Accounts: accounts, Now: duckdbtest.Now, MaxAccounts: 20})
}

func csv(t *testing.T, tab *fit.Table) string {
	var b bytes.Buffer
	if err := fit.WriteCSV(&b, tab); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestSameAnswersAsTheWarehouse: rows fetched per platform, staged and queried
// give exactly the warehouse's answers — across platforms, at every grain,
// with reach, metric filters and limits.
func TestSameAnswersAsTheWarehouse(t *testing.T) {
	m, g, tt := connectors(t)
	src := New(nil, m, g, tt)
	wh := duckdbtest.Open(t)
	accounts, err := src.Accounts(context.Background())
	if err != nil || len(accounts) != 14 {
		t.Fatalf("accounts: %d, %v", len(accounts), err)
	}
	for _, raw := range []string{
		`{"metrics":["spend","clicks","ctr","conversions","roas"],"dimensions":["platform","account_name"],"date_preset":"last_90d"}`,
		`{"metrics":["spend","impressions","cpm"],"dimensions":["campaign_name"],"platforms":["google_ads","tiktok_ads"],"time_granularity":"weekly","date_range":{"start":"2025-12-15","end":"2026-01-20"}}`,
		`{"metrics":["spend","reach","frequency"],"dimensions":["account_name","campaign_name"],"platforms":["meta_ads"],"time_granularity":"monthly","date_range":{"start":"2025-11-01","end":"2026-02-28"}}`,
		`{"metrics":["spend","clicks"],"dimensions":["campaign_name","country"],"date_preset":"last_30d","filters":[{"field":"spend","operator":"GREATER_THAN","value":50}],"sort":[{"field":"spend"}],"limit":15}`,
		`{"metrics":["spend"],"time_granularity":"daily","platforms":["meta_ads"],"date_preset":"last_14d"}`,
	} {
		q := normalize(t, accounts, raw)
		calls := &source.Calls{}
		got, err := src.Query(source.WithCalls(context.Background(), calls), q)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		want, err := wh.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := csv(t, got), csv(t, want); a != b || got.RowsBeforeLimit != want.RowsBeforeLimit || want.Len() == 0 {
			t.Errorf("%s: live differs from the warehouse:\n%.600s\n---\n%.600s", raw, a, b)
		}
		// One per account, and one more for the delivery of an account
		// whose set is made of campaigns' or ad groups' reports (what it
		// leaves out: unattributed.go).
		n := len(q.Accounts)
		for _, a := range q.Accounts {
			if keepsUnattributed(q, a.Platform) {
				n++
			}
		}
		if calls.N() != n {
			t.Errorf("%s: %d calls counted, want %d", raw, calls.N(), n)
		}
	}
}

// TestFailedAccountsFailTheQuery: one failed account fails the whole query,
// naming it and the accounts that answered; no rows come back.
func TestFailedAccountsFailTheQuery(t *testing.T) {
	m, g, _ := connectors(t)
	src := New(nil, m, g)
	accounts, _ := src.Accounts(context.Background())
	q := normalize(t, accounts, `{"metrics":["spend"],"dimensions":["account_name"],"platforms":["meta_ads","google_ads"],"date_preset":"last_7d"}`)
	bad := q.Accounts[0].AccountID
	m.fail = map[string]*source.AccountError{}
	g.fail = map[string]*source.AccountError{}
	failFor := m.fail
	if q.Accounts[0].Platform == "google_ads" {
		failFor = g.fail
	}
	failFor[bad] = &source.AccountError{AccountID: bad, Platform: q.Accounts[0].Platform, Kind: source.PermissionDenied, Cause: "token expired", Fix: "re-authorize"}
	tab, err := src.Query(context.Background(), q)
	var ae *source.AccountsError
	if tab != nil || !errors.As(err, &ae) || len(ae.Failed) != 1 || ae.Failed[0].AccountID != bad || len(ae.Succeeded) != len(q.Accounts)-1 {
		t.Fatalf("got %v, %v", tab, err)
	}
	if ae.Kind() != source.PermissionDenied || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "re-authorize") {
		t.Errorf("error: %v", err)
	}
}

// TestAccountsNameTheFailingPlatform: a platform whose listing fails fails the
// list, by name.
func TestAccountsNameTheFailingPlatform(t *testing.T) {
	m, g, _ := connectors(t)
	g.listErr = errors.New("401 UNAUTHENTICATED")
	_, err := New(nil, m, g).Accounts(context.Background())
	if err == nil || !strings.Contains(err.Error(), "listing google_ads accounts: 401") {
		t.Errorf("err = %v", err)
	}
}

// TestMissingConnector: accounts of a platform without a connector are an error.
func TestMissingConnector(t *testing.T) {
	m, _, _ := connectors(t)
	src := New(nil, m)
	q := &query.Query{Accounts: []ads.Account{{AccountID: "1", Platform: "google_ads"}}, Start: time.Now(), End: time.Now()}
	if _, err := src.Query(context.Background(), q); err == nil || !strings.Contains(err.Error(), "no google_ads connector") {
		t.Errorf("err = %v", err)
	}
}
