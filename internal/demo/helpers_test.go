package demo

import (
	"context"
	"crypto/sha256"
	"fmt"
	"hash"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
)

// anchor is the fixed anchor the tests use.
var anchor = time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC)

// hashSink serializes every Sink call, in order, into a SHA-256.
type hashSink struct {
	h     hash.Hash
	calls int
}

func newHashSink() *hashSink { return &hashSink{h: sha256.New()} }

func (s *hashSink) put(format string, args ...any) error {
	s.calls++
	_, err := fmt.Fprintf(s.h, format, args...)
	return err
}
func (s *hashSink) Dataset(k, v string) error   { return s.put("D %q %q\n", k, v) }
func (s *hashSink) Account(a ads.Account) error { return s.put("A %+v\n", a) }
func (s *hashSink) Campaign(c Campaign) error   { return s.put("C %+v\n", c) }
func (s *hashSink) AdSet(a AdSet) error         { return s.put("S %+v\n", a) }
func (s *hashSink) Ad(a Ad) error               { return s.put("AD %+v\n", a) }
func (s *hashSink) Fact(f *Fact) error          { return s.put("F %+v\n", *f) }
func (s *hashSink) Reach(r Reach) error         { return s.put("R %+v\n", r) }
func (s *hashSink) sum() string                 { return fmt.Sprintf("%x", s.h.Sum(nil)) }

// memSink keeps everything.
type memSink struct {
	dataset   map[string]string
	accounts  []ads.Account
	campaigns []Campaign
	adsets    []AdSet
	ads       []Ad
	facts     []Fact
	reach     []Reach
	order     []string // table of each call, to check the documented order
}

func (s *memSink) note(t string) {
	if n := len(s.order); n == 0 || s.order[n-1] != t {
		s.order = append(s.order, t)
	}
}
func (s *memSink) Dataset(k, v string) error {
	if s.dataset == nil {
		s.dataset = map[string]string{}
	}
	s.note("dataset")
	s.dataset[k] = v
	return nil
}
func (s *memSink) Account(a ads.Account) error {
	s.note("accounts")
	s.accounts = append(s.accounts, a)
	return nil
}
func (s *memSink) Campaign(c Campaign) error {
	s.note("campaigns")
	s.campaigns = append(s.campaigns, c)
	return nil
}
func (s *memSink) AdSet(a AdSet) error { s.note("adsets"); s.adsets = append(s.adsets, a); return nil }
func (s *memSink) Ad(a Ad) error       { s.note("ads"); s.ads = append(s.ads, a); return nil }
func (s *memSink) Fact(f *Fact) error  { s.note("facts"); s.facts = append(s.facts, *f); return nil }
func (s *memSink) Reach(r Reach) error { s.note("reach"); s.reach = append(s.reach, r); return nil }

// generated caches small datasets: several tests read the same one.
var generated = map[Config]*memSink{}

func generate(t *testing.T, cfg Config) *memSink {
	t.Helper()
	if s, ok := generated[cfg]; ok {
		return s
	}
	s := &memSink{}
	if err := Generate(context.Background(), cfg, s, nil); err != nil {
		t.Fatal(err)
	}
	generated[cfg] = s
	return s
}

// small is the dataset most tests check: a tenth of the campaigns over a year and a
// bit, so it spans a Black Friday, December and a summer.
var small = Config{Anchor: anchor, Seed: 42, Days: 400, Scale: 0.1}
