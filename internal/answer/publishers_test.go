package answer

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
)

// spendByAccount reads an answer's CSV block into spend per account_id.
func spendByAccount(t *testing.T, res *Result) map[string]float64 {
	t.Helper()
	if res.IsError || res.Response.Kind != fit.KindData || len(res.Blocks) != 2 {
		t.Fatalf("not data: %v", res.Blocks)
	}
	recs, err := csv.NewReader(strings.NewReader(res.Blocks[1])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	acct, spend := -1, -1
	for i, h := range recs[0] {
		switch h {
		case "account_id":
			acct = i
		case "spend":
			spend = i
		}
	}
	if acct < 0 || spend < 0 {
		t.Fatalf("header %v", recs[0])
	}
	out := map[string]float64{}
	for _, r := range recs[1:] {
		x, err := strconv.ParseFloat(r[spend], 64)
		if err != nil {
			t.Fatalf("spend %q: %v", r[spend], err)
		}
		out[r[acct]] += x
	}
	return out
}

// TestInstagramIsAPlacementNotMeta: platforms ["Instagram"] (and a platform
// filter naming Instagram) answers the spend of the instagram placement of the
// Meta accounts, as the facts hold it, never all of Meta.
func TestInstagramIsAPlacementNotMeta(t *testing.T) {
	e := engine(t)
	db := duckdbtest.Open(t).DB()
	const start, end = "2026-01-01", "2026-02-28"
	// The oracle: plain SQL over the facts, per Meta account.
	oracle := func(where string) map[string]float64 {
		rows, err := db.QueryContext(context.Background(), `SELECT f.account_id, SUM(f.spend_micros)
			FROM facts f JOIN accounts a ON a.account_id = f.account_id
			WHERE a.platform = 'meta_ads' AND f.breakdown = 'delivery' AND f.date BETWEEN CAST(? AS DATE) AND CAST(? AS DATE) `+where+`
			GROUP BY f.account_id`, start, end)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]float64{}
		for rows.Next() {
			var id string
			var micros int64
			if err := rows.Scan(&id, &micros); err != nil {
				t.Fatal(err)
			}
			out[id] = float64(micros) / 1e6
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	instagram, allMeta := oracle(`AND f.publisher_platform = 'instagram'`), oracle("")
	if len(instagram) == 0 || len(instagram) > 10 {
		t.Fatalf("%d Meta accounts with Instagram spend", len(instagram))
	}
	var totalIG, totalMeta float64
	for id := range allMeta {
		totalIG += instagram[id]
		totalMeta += allMeta[id]
	}
	if !(totalIG > 0 && totalIG < totalMeta) {
		t.Fatalf("test data: instagram %.2f, all of Meta %.2f", totalIG, totalMeta)
	}

	dates := fmt.Sprintf(`"date_range":{"start":%q,"end":%q}`, start, end)
	for _, args := range []string{
		`{"platforms":["Instagram"],` + dates + `,"dimensions":["account_id"],"metrics":["spend"]}`,
		`{"platforms":["meta_ads"],` + dates + `,"dimensions":["account_id"],"metrics":["spend"],"filters":[{"field":"platform","operator":"EQUALS","value":"Instagram"}]}`,
		`{"platforms":["IG"],` + dates + `,"dimensions":["account_id"],"metrics":["spend"]}`,
	} {
		res := ask(t, e, "claude-code", 0, args)
		got := spendByAccount(t, res)
		for id, want := range instagram {
			if math.Abs(got[id]-want) > 0.005 {
				t.Errorf("%s\n%s: spend %.2f, instagram facts %.2f (all of Meta %.2f)", args, id, got[id], want, allMeta[id])
			}
		}
		for id, x := range got {
			if _, ok := instagram[id]; !ok && x != 0 {
				t.Errorf("%s: account %s has no Instagram facts, answered %.2f", args, id, x)
			}
			if x >= allMeta[id] {
				t.Errorf("%s: %s answered %.2f, all of Meta is %.2f", args, id, x, allMeta[id])
			}
		}
		o := hasOptimization(res.Response.Meta, "publisher_platform_filter")
		if o == nil || !strings.Contains(o.Detail, "placement inside meta_ads, not an ad platform") {
			t.Errorf("%s: no publisher_platform_filter saying so: %+v", args, res.Response.Meta.Optimizations)
		}
		echo, err := json.Marshal(res.Response.Meta.Query)
		if err != nil || !strings.Contains(string(echo), `{"field":"publisher_platform","operator":"EQUALS","value":"instagram"}`) {
			t.Errorf("%s: the query echo does not carry the filter: %s", args, echo)
		}
	}

	// Every publisher platform the data holds is one the catalog knows, as
	// stored; placement rows whose publisher was lost say "unknown" (a
	// breakdown value, as for age and gender), never a made-up publisher.
	rows, err := db.QueryContext(context.Background(), `SELECT DISTINCT a.platform, f.publisher_platform FROM facts f
		JOIN accounts a ON a.account_id = f.account_id WHERE f.publisher_platform IS NOT NULL AND f.publisher_platform <> ''
		AND NOT (f.breakdown = 'placement' AND f.publisher_platform = 'unknown')`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var platform, value string
		if err := rows.Scan(&platform, &value); err != nil {
			t.Fatal(err)
		}
		if p, ok := catalog.LookupPublisher(value); !ok || p.Name != value || p.Platform != platform {
			t.Errorf("publisher_platform %q of %s: catalog has %+v, %v", value, platform, p, ok)
		}
	}
}
