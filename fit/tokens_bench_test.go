package fit

import (
	"math/rand/v2"
	"testing"
)

// tokBenchCSV is the CSV of a generated ad table (campaign_name, date, spend,
// impressions, clicks) of at least size bytes.
func tokBenchCSV(tb testing.TB, size int) string {
	rows := size / 45
	for {
		s := tokCSV(tb, tokAdTable(rand.New(rand.NewPCG(uint64(size), 1)), tokSpec{rows: rows, grain: Daily}))
		if len(s) >= size {
			return s
		}
		rows += rows/10 + 1
	}
}

var tokBenchSink int

func benchCounter(b *testing.B, count func(string) int) {
	for _, size := range []struct {
		name  string
		bytes int
	}{{"55KB", 55_000}, {"200KB", 200_000}} {
		text := tokBenchCSV(b, size.bytes)
		b.Run(size.name, func(b *testing.B) {
			count(text) // load the encoder outside the timing
			b.SetBytes(int64(len(text)))
			b.ResetTimer()
			for b.Loop() {
				tokBenchSink = count(text)
			}
		})
	}
}

func BenchmarkEstimate(b *testing.B) { benchCounter(b, NewO200k().Estimate) }

func BenchmarkExact(b *testing.B) { benchCounter(b, NewO200k().Exact) }

// BenchmarkCharsTimes03 is the seed's rule, as the trivial baseline.
func BenchmarkCharsTimes03(b *testing.B) {
	benchCounter(b, func(s string) int {
		n := 0
		for range s {
			n++
		}
		return n * 3 / 10
	})
}
