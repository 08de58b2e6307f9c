package answer

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/fit"
)

var fuzzDimensions = []string{"campaign_name", "ad_name", "adset_name", "device", "country", "publisher_platform", "account_name", "currency", "nonsense"}

// fuzzArgs builds query arguments from the fuzzer's numbers: IN lists up to
// 1,000 values, values up to 500 characters (some longer, rejected), many
// filters, many dimensions, a limit, a token_budget.
func fuzzArgs(seed uint64, inValues, valueLen, filters, dims uint16, grain, budget uint8) string {
	r := rand.New(rand.NewPCG(seed, 7))
	word := func(n int) string {
		const alphabet = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJ-0123456789éñ«»\"&<>日本語"
		rs := []rune(alphabet)
		var b strings.Builder
		for range n {
			b.WriteRune(rs[r.IntN(len(rs))])
		}
		return b.String()
	}
	a := map[string]any{"metrics": []string{"spend", "clicks", "ctr"}[:1+r.IntN(3)]}
	if r.IntN(4) > 0 {
		a["account_ids"] = []string{"act_4409187263550918", "act_6630418825197342", "act_1015823746512093", "617-204-8851", "act_3376015298441067", "act_2284619037465520"}[:1+r.IntN(6)]
	}
	a["date_preset"] = []string{"last_7d", "last_30d", "last_90d", "last_year"}[r.IntN(4)]
	a["time_granularity"] = []string{"daily", "weekly", "monthly", "total"}[int(grain)%4]
	var ds []string
	for i := range int(dims) % 6 {
		ds = append(ds, fuzzDimensions[(i+r.IntN(len(fuzzDimensions)))%len(fuzzDimensions)])
	}
	a["dimensions"] = ds
	var fs []map[string]any
	for i := range int(filters) % 40 {
		switch r.IntN(4) {
		case 0, 1:
			n := 1 + int(inValues)%1001
			vals := make([]any, n)
			for j := range vals {
				vals[j] = word(1 + int(valueLen)%510)
			}
			op := []string{"IN", "NOT_IN"}[r.IntN(2)]
			fs = append(fs, map[string]any{"field": []string{"campaign_name", "ad_name", "country", "platform"}[r.IntN(4)], "operator": op, "value": vals})
		case 2:
			fs = append(fs, map[string]any{"field": "campaign_name", "operator": "CONTAINS", "value": word(1 + int(valueLen)%400)})
		default:
			fs = append(fs, map[string]any{"field": []string{"spend", "clicks", word(8)}[i%3], "operator": ">", "value": r.IntN(50)})
		}
	}
	if fs != nil {
		a["filters"] = fs
	}
	if r.IntN(3) == 0 {
		a["sort"] = []map[string]any{{"field": "spend", "direction": "desc"}}
		a["limit"] = 1 + r.IntN(20000)
	}
	if budget > 0 {
		a["token_budget"] = 1000 + int(budget)*200
	}
	b, _ := json.Marshal(a)
	return string(b)
}

// FuzzQueryBudget: whatever the arguments, no answer of any kind exceeds its
// budget by exact o200k count, and nothing panics. The seeds run as a normal
// test; go test -fuzz FuzzQueryBudget ./internal/answer explores further.
func FuzzQueryBudget(f *testing.F) {
	f.Add(uint64(1), uint16(1000), uint16(90), uint16(1), uint16(1), uint8(0), uint8(0))
	f.Add(uint64(2), uint16(1000), uint16(500), uint16(3), uint16(2), uint8(0), uint8(0))
	f.Add(uint64(3), uint16(10), uint16(30), uint16(39), uint16(5), uint8(1), uint8(1))
	f.Add(uint64(4), uint16(500), uint16(509), uint16(7), uint16(3), uint8(2), uint8(0))
	f.Add(uint64(5), uint16(0), uint16(0), uint16(0), uint16(3), uint8(0), uint8(0))
	f.Add(uint64(6), uint16(300), uint16(200), uint16(2), uint16(4), uint8(0), uint8(10))
	f.Add(uint64(7), uint16(1000), uint16(60), uint16(12), uint16(5), uint8(3), uint8(0))
	f.Add(uint64(8), uint16(50), uint16(20), uint16(1), uint16(2), uint8(0), uint8(2))
	f.Add(uint64(9), uint16(999), uint16(480), uint16(21), uint16(0), uint8(0), uint8(0))
	e := engine(f)
	c := fit.NewO200k()
	f.Fuzz(func(t *testing.T, seed uint64, inValues, valueLen, filters, dims uint16, grain, budget uint8) {
		args := fuzzArgs(seed, inValues, valueLen, filters, dims, grain, budget)
		for _, client := range []string{"claude-code", "other"} {
			res, err := e.Query(context.Background(), Request{Args: []byte(args), Client: client})
			if err != nil {
				t.Fatalf("%v", err)
			}
			n := 0
			for _, b := range res.Blocks {
				n += c.Exact(b)
			}
			if limit := effective(client, 0, args); n > limit {
				kind := "error"
				if res.Response != nil {
					kind = string(res.Response.Kind)
				}
				t.Errorf("%s, %s: %d tokens > %d: %.400s", client, kind, n, limit, res.Blocks[0])
			}
		}
	})
}
