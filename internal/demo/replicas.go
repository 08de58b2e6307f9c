package demo

import (
	"math"
	"strconv"
)

// MaxScale is the largest Config.Scale: ten copies of the accounts, ~32M fact rows.
const MaxScale = 10

// Above Scale 1 the dataset grows by whole copies of the 14 accounts, for
// benchmarks on bigger warehouses. Copy 1 is the accounts themselves; copy k ≥ 2
// holds a replica of each: the same platform, currency, timezone, markets, size and
// quirks (the all-zero and the closed account have all-zero and closed replicas),
// with its own account ID, name and random streams, so its campaigns, IDs and
// numbers are new. Scale n + f (0 < f < 1) is n full copies plus copy n+1 at
// Scale f: every replica account of it keeps a fraction f of its campaigns, as the
// accounts themselves do below Scale 1. So Scale ≤ 1 is exactly the dataset it
// always was, and as the copies come one after another in every table (accounts,
// campaigns, …, facts, reach), the data of a whole Scale n begins the data of every
// bigger Scale; a copy kept in part is a subset of the same copy in full.

// copies returns how many copies of the accounts a normalized Scale makes.
func copies(scale float64) int { return int(math.Ceil(scale)) }

// copyFraction returns the fraction of its campaigns that copy k (1-based) keeps.
func copyFraction(scale float64, k int) float64 { return min(1, scale-float64(k-1)) }

// streamKey is the key of copy k of account idx in every random stream's path:
// the account index itself for copy 1 (so its streams are what they always were),
// and distinct from every other account's key for the replicas.
func streamKey(idx, k int) uint64 {
	if k == 1 {
		return uint64(idx)
	}
	return uint64(k-1)<<32 | uint64(idx)
}

// replicaName is the account name of copy k ≥ 2. The prefix, rather than a
// suffix, sorts every replica after all 14 original accounts within a platform
// (the originals' names start with B–P), so listings and "the first N accounts"
// stay the originals first.
func replicaName(name string, k int) string {
	return "Replica " + strconv.Itoa(k) + " - " + name
}

// replicaSpec returns copy k ≥ 2 of account idx. Its account ID is drawn in the
// platform's format from a stream of the copy alone — not of the seed, so that, as
// for the originals, the accounts do not change with the seed — and is unique
// among taken, which it joins.
func replicaSpec(idx, k int, taken map[string]bool) *accountSpec {
	spec := accountSpecs[idx] // a copy; its slices are shared, read-only
	spec.AccountName = replicaName(spec.AccountName, k)
	r := newRand(0, tagReplica, uint64(k), uint64(idx))
	for {
		var id string
		switch spec.Platform {
		case metaAds:
			id = "act_" + strconv.Itoa(1+r.IntN(9)) + digits(r, 15)
		case googleAds:
			d := strconv.Itoa(1+r.IntN(9)) + digits(r, 9)
			id = d[:3] + "-" + d[3:6] + "-" + d[6:]
		default:
			id = "7" + digits(r, 18)
		}
		if !taken[id] {
			taken[id] = true
			spec.AccountID = id
			return &spec
		}
	}
}
