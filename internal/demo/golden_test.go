package demo

import (
	"context"
	"crypto/sha256"
	"fmt"
	"hash"
	"testing"

	"github.com/adsmcp/adsmcp/internal/ads"
)

// deliverySink hashes the delivery rows (and, apart, the campaigns, ad sets,
// ads and reach), skipping the accounts and the other breakdown sets' rows.
type deliverySink struct {
	delivery, structure hash.Hash
	rows, campaignDays  int
	seen                map[string]bool
}

func newDeliverySink() *deliverySink {
	return &deliverySink{delivery: sha256.New(), structure: sha256.New(), seen: map[string]bool{}}
}

func (s *deliverySink) Dataset(k, v string) error   { return nil }
func (s *deliverySink) Account(a ads.Account) error { return nil }
func (s *deliverySink) Campaign(c Campaign) error {
	_, err := fmt.Fprintf(s.structure, "C %+v\n", c)
	return err
}
func (s *deliverySink) AdSet(a AdSet) error {
	_, err := fmt.Fprintf(s.structure, "S %+v\n", a)
	return err
}
func (s *deliverySink) Ad(a Ad) error { _, err := fmt.Fprintf(s.structure, "AD %+v\n", a); return err }
func (s *deliverySink) Reach(r Reach) error {
	_, err := fmt.Fprintf(s.structure, "R %+v\n", r)
	return err
}
func (s *deliverySink) Fact(f *Fact) error {
	if f.Breakdown != "" {
		return nil
	}
	s.rows++
	if k := f.CampaignID + f.Date.String(); f.CampaignID != "" && !s.seen[k] {
		s.seen[k] = true
		s.campaignDays++
	}
	_, err := fmt.Fprintf(s.delivery, "F %+v\n", *f)
	return err
}

// TestDeliveryUnchanged: adding the breakdown sets (generator version 2) left
// every delivery row, campaign, ad set, ad and reach row byte-identical: the
// sets draw from random streams of their own. The goldens are the hashes of
// generator version 1's output (before the sets); only the accounts (which
// gained AttributionWindow and ConversionActions) and the new rows changed.
func TestDeliveryUnchanged(t *testing.T) {
	for _, c := range []struct {
		cfg                 Config
		delivery, structure string
		rows, campaignDays  int
	}{
		{Config{Anchor: anchor, Seed: 42, Days: 120, Scale: 0.05},
			"5ed923579df51a9f89a7e200166b8bcc53074c8c4ee658f7bc6dcd0ee45862a6",
			"4aa56b34e53eccc41df655f7bea79f5aca2afd8cf1ec6964f90f4d7911b51283", 60911, 3044},
		{small,
			"74d5aeb2761005f2d251f2e94c8647fb8abb59b14fbe9d8298209c79445c5b47",
			"257f8147a866511b73d361fddf7c16a9ac65fb2ff22afe092fefcfc4472ab71c", 302299, 14574},
	} {
		s := newDeliverySink()
		if err := Generate(context.Background(), c.cfg, s, nil); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%x", s.delivery.Sum(nil)); got != c.delivery || s.rows != c.rows || s.campaignDays != c.campaignDays {
			t.Errorf("%+v: delivery rows changed: %d rows on %d campaign-days, hash %s; want %d on %d, %s",
				c.cfg, s.rows, s.campaignDays, got, c.rows, c.campaignDays, c.delivery)
		}
		if got := fmt.Sprintf("%x", s.structure.Sum(nil)); got != c.structure {
			t.Errorf("%+v: campaigns, ad sets, ads or reach changed: hash %s, want %s", c.cfg, got, c.structure)
		}
	}
}
