package demo

import (
	"math"
	"math/rand/v2"
)

// Every random choice comes from a PCG stream whose seed is derived from Config.Seed
// and the path of the object it belongs to (account key, campaign index, …; the key
// is the account's index, combined with its copy number for replicas above Scale 1:
// streamKey). Each object drawing from its own stream is what makes the output
// independent of goroutine scheduling, and makes a smaller Scale a true subset of the
// full dataset.

// Stream tags keep the streams of different purposes apart.
const (
	tagAccount uint64 = iota + 1
	tagCampaign
	tagFacts
	tagArtifacts
	tagReach
	tagIDs
	tagSubset
	tagReplica    // replica account IDs (replicas.go)
	tagAudience   // a campaign's audience and placements (breakdowns.go)
	tagBreakdowns // a campaign's breakdown rows, apart from its delivery's
)

// mix is SplitMix64's finalizer: a bijective, well-spread hash of x.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// derive hashes a seed and a path into a new seed.
func derive(seed uint64, path ...uint64) uint64 {
	h := mix(seed)
	for _, p := range path {
		h = mix(h ^ mix(p+0x632be59bd9b4e019))
	}
	return h
}

// newRand returns the PCG stream for seed and path.
func newRand(seed uint64, path ...uint64) *rand.Rand {
	s := derive(seed, path...)
	return rand.New(rand.NewPCG(s, mix(s^0xda3e39cb94b95bdb)))
}

// lognormal is a multiplicative noise factor with mean 1.
func lognormal(r *rand.Rand, sigma float64) float64 {
	return math.Exp(r.NormFloat64()*sigma - sigma*sigma/2)
}

// stochRound rounds x ≥ 0 down or up with the probability that keeps its expected
// value, so that small splits do not all round to zero (or all up).
func stochRound(r *rand.Rand, x float64) int64 {
	f := math.Floor(x)
	if r.Float64() < x-f {
		f++
	}
	return int64(f)
}

// pareto draws from a Pareto distribution with minimum xm and tail index alpha: the
// heavy tail gives a few campaigns most of the spend, as in real accounts.
func pareto(r *rand.Rand, xm, alpha float64) float64 {
	return xm / math.Pow(1-r.Float64(), 1/alpha)
}

// between is uniform in [lo, hi).
func between(r *rand.Rand, lo, hi float64) float64 {
	return lo + (hi-lo)*r.Float64()
}

// pick returns an index drawn with the given weights.
func pick(r *rand.Rand, weights []float64) int {
	var total float64
	for _, w := range weights {
		total += w
	}
	x := r.Float64() * total
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}

// cents rounds an amount of money to whole cents and returns it in micros.
func cents(amount float64) int64 {
	return int64(math.Round(amount*100)) * 10_000
}
