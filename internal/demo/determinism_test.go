package demo

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

func hashOf(t *testing.T, cfg Config) (string, int) {
	t.Helper()
	s := newHashSink()
	if err := Generate(context.Background(), cfg, s, nil); err != nil {
		t.Fatal(err)
	}
	return s.sum(), s.calls
}

func TestDeterministic(t *testing.T) {
	cfg := Config{Anchor: anchor, Seed: 42, Days: 120, Scale: 0.05}
	h1, n1 := hashOf(t, cfg)
	// Generation runs on GOMAXPROCS goroutines: a single one must give the same stream.
	prev := runtime.GOMAXPROCS(1)
	h2, n2 := hashOf(t, cfg)
	runtime.GOMAXPROCS(prev)
	if h1 != h2 || n1 != n2 {
		t.Fatalf("same config, different output: %s (%d calls) vs %s (%d calls)", h1, n1, h2, n2)
	}
	if n1 < 10_000 {
		t.Fatalf("only %d sink calls: the dataset is suspiciously small", n1)
	}
	// The anchor's calendar date is what counts, not its time or location.
	later := cfg
	later.Anchor = time.Date(2026, 3, 15, 23, 59, 0, 0, time.FixedZone("X", -5*3600))
	if h3, _ := hashOf(t, later); h3 != h1 {
		t.Fatal("an anchor on the same calendar date gave different data")
	}
}

func TestSeedAnchorAndScaleChangeTheData(t *testing.T) {
	base := Config{Anchor: anchor, Seed: 42, Days: 60, Scale: 0.05}
	h, _ := hashOf(t, base)
	for name, cfg := range map[string]Config{
		"seed":   {Anchor: anchor, Seed: 43, Days: 60, Scale: 0.05},
		"anchor": {Anchor: anchor.AddDate(0, 0, 1), Seed: 42, Days: 60, Scale: 0.05},
		"scale":  {Anchor: anchor, Seed: 42, Days: 60, Scale: 0.06},
	} {
		if got, _ := hashOf(t, cfg); got == h {
			t.Errorf("a different %s gave identical data", name)
		}
	}
}

func TestConfigValidation(t *testing.T) {
	for _, cfg := range []Config{
		{},                            // no anchor
		{Anchor: anchor, Scale: 10.5}, // more than MaxScale
		{Anchor: anchor, Scale: -0.1}, // negative
		{Anchor: anchor, Days: -3},
	} {
		if err := Generate(context.Background(), cfg, newHashSink(), nil); err == nil {
			t.Errorf("Generate(%+v) accepted an invalid config", cfg)
		}
	}
}

// errSink fails on the n-th fact.
type errSink struct {
	*hashSink
	n int
}

var errBoom = errors.New("boom")

func (s *errSink) Fact(f *Fact) error {
	if s.n--; s.n == 0 {
		return errBoom
	}
	return nil
}

func TestSinkErrorAndCancellationStopGeneration(t *testing.T) {
	cfg := Config{Anchor: anchor, Seed: 1, Days: 200, Scale: 0.1}
	if err := Generate(context.Background(), cfg, &errSink{newHashSink(), 50_000}, nil); !errors.Is(err, errBoom) {
		t.Fatalf("sink error not returned: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	err := Generate(ctx, cfg, newHashSink(), func(done, total int64) {
		if calls++; calls == 3 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancellation not returned: %v", err)
	}
}

func TestProgress(t *testing.T) {
	cfg := Config{Anchor: anchor, Seed: 7, Days: 90, Scale: 0.05}
	s := newHashSink()
	var last, est int64
	err := Generate(context.Background(), cfg, s, func(done, total int64) {
		if done < last || total < done {
			t.Fatalf("progress went backwards or past its total: %d/%d after %d", done, total, last)
		}
		last, est = done, total
	})
	if err != nil {
		t.Fatal(err)
	}
	facts := int64(len(generateCount(t, cfg)))
	if last != facts {
		t.Fatalf("progress ended at %d, %d facts were emitted", last, facts)
	}
	// The estimate drives a progress bar: it should be within a few percent.
	if est > facts*11/10 || est < facts*9/10 {
		t.Errorf("estimated %d facts, %d were emitted", est, facts)
	}
}

func generateCount(t *testing.T, cfg Config) []Fact {
	return generate(t, cfg).facts
}
