package mcpserver

import (
	"encoding/csv"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
)

// Regression tests for truthful answers under composition (docs/contract.md),
// through the MCP server. Ground truth comes from plain SQL over
// the raw tables of the test warehouse, written here and sharing nothing with
// the SQL generator.

const (
	usdMeta  = "act_4409187263550918"
	usdMeta2 = "act_1015823746512093"
	eurMeta  = "act_2284619037465520"
	arsMeta  = "act_3376015298441067"
	usdGoog  = "482-915-3307"
	eurGoog  = "725-118-6403"
	quarter  = `"date_range":{"start":"2025-12-01","end":"2026-02-28"}`
	quarterQ = `f.date BETWEEN DATE '2025-12-01' AND DATE '2026-02-28'`
)

// truth runs a ground-truth query on the raw tables.
// The ground truth reads the delivery rows (breakdown = 'delivery'): the
// other breakdown sets hold the same delivery split another way, and summing
// them too would count it several times.
func truth(t *testing.T, sql string, args ...any) float64 {
	t.Helper()
	if !strings.Contains(sql, "FROM facts f") {
		t.Fatalf("ground truth must read facts as f: %s", sql)
	}
	sql = strings.ReplaceAll(sql, "FROM facts f", "FROM (SELECT * FROM facts WHERE breakdown = 'delivery') f")
	var v float64
	if err := duckdbtest.Open(t).DB().QueryRow(sql, args...).Scan(&v); err != nil {
		t.Fatalf("ground truth: %v\n%s", err, sql)
	}
	return v
}

// answerCSV calls query and returns _meta and the CSV records (header first).
func answerCSV(t *testing.T, args string) (map[string]any, [][]string) {
	t.Helper()
	cs := connect(t, testConfig(t), "claude-code")
	res := call(t, cs, "query", args)
	b := texts(t, res)
	if res.IsError || len(b) != 2 {
		t.Fatalf("want _meta and CSV, got isError=%v:\n%v", res.IsError, b)
	}
	recs, err := csv.NewReader(strings.NewReader(b[1])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return metaOf(t, b[0]), recs
}

func column(t *testing.T, recs [][]string, name string) []string {
	t.Helper()
	i := slices.Index(recs[0], name)
	if i < 0 {
		t.Fatalf("no column %s in %v", name, recs[0])
	}
	var out []string
	for _, r := range recs[1:] {
		out = append(out, r[i])
	}
	return out
}

func sum(t *testing.T, vals []string) float64 {
	s := 0.0
	for _, v := range vals {
		if v == "" {
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatal(err)
		}
		s += f
	}
	return s
}

func hasWarningType(meta map[string]any, typ string) map[string]any {
	return entryOf(meta, "warnings", typ)
}

func near(a, b float64) bool { return math.Abs(a-b) < 0.005+1e-9*math.Abs(b) }

// Class 1: a metric filter selects rows at the requested grain; the coarser
// answer sums exactly the rows selected, and says so.
func TestMetricFilterSurvivesCoarsening(t *testing.T) {
	args := `{"account_ids":["` + usdMeta + `","` + usdMeta2 + `"],` + quarter + `,"dimensions":["campaign_name"],"metrics":["spend"],` +
		`"time_granularity":"daily","filters":[{"field":"spend","operator":"GREATER_THAN","value":30}],"token_budget":3000}`
	meta, recs := answerCSV(t, args)
	if g := meta["time_granularity"].(map[string]any)["returned"]; g == "daily" {
		t.Fatalf("not coarsened; the test needs a coarser answer: %v", meta)
	}
	want := truth(t, `SELECT sum(s) FROM (
		SELECT f.date, c.campaign_name, sum(f.spend_micros) / 1e6 AS s
		FROM facts f LEFT JOIN campaigns c ON c.campaign_id = f.campaign_id
		WHERE f.account_id IN (?, ?) AND `+quarterQ+`
		GROUP BY 1, 2 HAVING sum(f.spend_micros) > 30000000) WHERE campaign_name IS NOT NULL`, usdMeta, usdMeta2)
	if got := sum(t, column(t, recs, "spend")); !near(got, want) {
		t.Errorf("coarsened rows sum to %.2f; the daily rows with spend > 30 sum to %.2f", got, want)
	}
	w := hasWarningType(meta, "selection_at_requested_grain")
	if w == nil || !strings.Contains(w["detail"].(string), "spend > 30") {
		t.Errorf("no selection_at_requested_grain warning naming the filter: %v", meta["warnings"])
	}
}

// Class 2: the requested sort holds after a local roll-up.
func TestSortHoldsAfterRollup(t *testing.T) {
	args := `{"account_ids":["` + usdMeta + `"],` + quarter + `,"dimensions":["ad_name"],"metrics":["spend","cpa"],` +
		`"time_granularity":"daily","sort":[{"field":"cpa","direction":"asc"}],"token_budget":6000}`
	meta, recs := answerCSV(t, args)
	if g := meta["time_granularity"].(map[string]any)["returned"]; g == "daily" {
		t.Fatalf("not coarsened: %v", meta["time_granularity"])
	}
	cpa := column(t, recs, "cpa")
	seenEmpty := false
	prev := math.Inf(-1)
	for i, v := range cpa {
		if v == "" {
			seenEmpty = true
			continue
		}
		f, _ := strconv.ParseFloat(v, 64)
		if seenEmpty || f < prev {
			t.Fatalf("row %d: cpa %v after %v (empty seen: %v): not sorted by cpa asc, empty last", i+1, f, prev, seenEmpty)
		}
		prev = f
	}
}

// Class 3: limit N returns min(N, qualifying rows): a row without a campaign
// never takes a place in the top N.
func TestLimitIgnoresUnattributedRows(t *testing.T) {
	for _, acct := range []string{usdMeta, usdGoog} {
		n := truth(t, `SELECT count(DISTINCT c.campaign_name) FROM facts f JOIN campaigns c ON c.campaign_id = f.campaign_id
			WHERE f.account_id = ? AND `+quarterQ, acct)
		limit := int(n) - 1 // a limit that cuts, with an unattributed row in the data
		if limit < 2 {
			t.Fatalf("%s has %v campaigns: the test needs more", acct, n)
		}
		args := `{"account_ids":["` + acct + `"],` + quarter + `,"dimensions":["campaign_name"],"metrics":["spend"],` +
			`"sort":[{"field":"spend","direction":"asc"}],"limit":` + strconv.Itoa(limit) + `}`
		meta, recs := answerCSV(t, args)
		if hasOptimization(meta, "validation_filter") == nil {
			t.Fatalf("%s: no unattributed row in the data; the test needs one", acct)
		}
		names := column(t, recs, "campaign_name")
		if len(names) != limit || slices.Contains(names, "") {
			t.Fatalf("%s: %d rows %q, want the %d lowest-spending campaigns", acct, len(names), names, limit)
		}
		last := truth(t, `SELECT max(s) FROM (SELECT sum(f.spend_micros) / 1e6 AS s
			FROM facts f JOIN campaigns c ON c.campaign_id = f.campaign_id
			WHERE f.account_id = ? AND `+quarterQ+` GROUP BY c.campaign_name ORDER BY s LIMIT ?)`, acct, limit)
		if got := sum(t, column(t, recs, "spend")[limit-1:]); !near(got, last) {
			t.Errorf("%s: last of the top %d: spend %.2f, truth %.2f", acct, limit, got, last)
		}
		if meta["rows_before_limit"] != n {
			t.Errorf("%s: rows_before_limit %v, %v campaigns qualify", acct, meta["rows_before_limit"], n)
		}
	}
}

// Class 4: emptiness is judged on the asked-for dimensions (an added currency
// column does not make a row look attributed), and what removed rows carried is
// reported per currency, so a breakdown reconciles with the account totals.
func TestUnattributedRowsReconcile(t *testing.T) {
	args := `{"account_ids":["` + usdGoog + `","` + eurGoog + `"],` + quarter + `,"dimensions":["campaign_name"],"metrics":["spend","clicks"],"time_granularity":"monthly"}`
	meta, recs := answerCSV(t, args)
	if slices.Contains(column(t, recs, "campaign_name"), "") {
		t.Fatalf("rows with no campaign kept beside the currency column")
	}
	vf := hasOptimization(meta, "validation_filter")
	if vf == nil {
		t.Fatalf("no validation_filter: %v", meta["optimizations_applied"])
	}
	removed := map[string]float64{}
	for _, r := range vf["removed_totals"].([]any) {
		m := r.(map[string]any)
		removed[m["currency"].(string)] = m["spend"].(float64)
	}
	cur, spend := column(t, recs, "currency"), column(t, recs, "spend")
	for _, c := range []struct{ acct, currency string }{{usdGoog, "USD"}, {eurGoog, "EUR"}} {
		var got float64
		for i := range cur {
			if cur[i] == c.currency {
				got += sum(t, spend[i:i+1])
			}
		}
		want := truth(t, `SELECT sum(f.spend_micros) / 1e6 FROM facts f WHERE f.account_id = ? AND `+quarterQ, c.acct)
		if removed[c.currency] <= 0 || !near(got+removed[c.currency], want) {
			t.Errorf("%s: campaigns %.2f + removed %.2f ≠ account total %.2f", c.currency, got, removed[c.currency], want)
		}
	}
}

// Class 5: money is ranked within each currency, never across; a money
// threshold over several currencies is warned.
func TestMoneyRankedWithinCurrency(t *testing.T) {
	args := `{"account_ids":["` + usdMeta + `","` + eurMeta + `","` + arsMeta + `"],` + quarter + `,"dimensions":["campaign_name"],"metrics":["spend"],` +
		`"sort":[{"field":"spend","direction":"desc"}],"limit":2,"filters":[{"field":"spend","operator":"GREATER_THAN","value":10}]}`
	meta, recs := answerCSV(t, args)
	var want []string
	for _, c := range []struct{ acct, currency string }{{arsMeta, "ARS"}, {eurMeta, "EUR"}, {usdMeta, "USD"}} {
		n := truth(t, `SELECT count(*) FROM (SELECT c.campaign_name FROM facts f JOIN campaigns c ON c.campaign_id = f.campaign_id
			WHERE f.account_id = ? AND `+quarterQ+` GROUP BY 1 HAVING sum(f.spend_micros) > 10000000)`, c.acct)
		for range min(2, int(n)) {
			want = append(want, c.currency)
		}
	}
	cur := column(t, recs, "currency")
	if !slices.Equal(cur, want) || len(want) < 5 {
		t.Fatalf("currencies of the rows %v, want %v: the top 2 of each currency, grouped", cur, want)
	}
	top := truth(t, `SELECT max(s) FROM (SELECT sum(f.spend_micros) / 1e6 AS s FROM facts f JOIN campaigns c ON c.campaign_id = f.campaign_id
		WHERE f.account_id = ? AND `+quarterQ+` GROUP BY c.campaign_name)`, usdMeta)
	usd := slices.Index(cur, "USD")
	if got := sum(t, column(t, recs, "spend")[usd:usd+1]); !near(got, top) {
		t.Errorf("top USD campaign %.2f, truth %.2f", got, top)
	}
	if hasWarningType(meta, "sort_per_currency") == nil || hasWarningType(meta, "threshold_per_currency") == nil {
		t.Errorf("warnings %v: want sort_per_currency and threshold_per_currency", meta["warnings"])
	}
}

// Class 10: the row-accounting identity holds on a re-query path.
func TestRowAccountingOnRequery(t *testing.T) {
	args := `{"account_ids":["` + usdMeta2 + `"],"date_range":{"start":"2026-01-01","end":"2026-02-25"},"dimensions":["campaign_id"],` +
		`"metrics":["reach","spend"],"time_granularity":"daily","token_budget":1000}`
	meta, _ := answerCSV(t, args)
	gc := hasOptimization(meta, "granularity_change")
	if gc == nil || meta["source_calls"].(float64) < 2 {
		t.Fatalf("want a re-query at a coarser grain: %v", meta)
	}
	left := meta["original_rows"].(float64)
	for _, o := range meta["optimizations_applied"].([]any) {
		m := o.(map[string]any)
		if m["type"] == "validation_filter" && m["grain"] == nil {
			left -= m["rows_removed"].(float64)
		}
	}
	if gc["rows_before"] != left || gc["rows_after"] != meta["returned_rows"] {
		t.Errorf("original %v − removed = %v, rows_before %v; rows_after %v, returned %v",
			meta["original_rows"], left, gc["rows_before"], gc["rows_after"], meta["returned_rows"])
	}
}

// Class 7: a placement named as a platform answers that placement inside its
// platform, never the whole platform.
func TestPlacementIsNotAPlatform(t *testing.T) {
	meta, recs := answerCSV(t, `{"platforms":["Instagram"],`+quarter+`,"dimensions":["currency"],"metrics":["spend"]}`)
	if hasOptimization(meta, "publisher_platform_filter") == nil {
		t.Errorf("no publisher_platform_filter change: %v", meta["optimizations_applied"])
	}
	cur, spend := column(t, recs, "currency"), column(t, recs, "spend")
	for i, c := range cur {
		want := truth(t, `SELECT sum(f.spend_micros) / 1e6 FROM facts f JOIN accounts a ON a.account_id = f.account_id
			WHERE a.platform = 'meta_ads' AND a.currency = ? AND f.publisher_platform = 'instagram' AND `+quarterQ, c)
		all := truth(t, `SELECT sum(f.spend_micros) / 1e6 FROM facts f JOIN accounts a ON a.account_id = f.account_id
			WHERE a.platform = 'meta_ads' AND a.currency = ? AND `+quarterQ, c)
		if got := sum(t, spend[i:i+1]); !near(got, want) || got >= all {
			t.Errorf("%s: Instagram spend %.2f, truth %.2f (all of Meta %.2f)", c, got, want, all)
		}
	}
}

// Class 9: every answer fits its budget by exact o200k count, whatever the
// arguments, and an empty result is never a data_too_large.
func TestLongInListFitsAndEmptyIsNotASummary(t *testing.T) {
	cs := connect(t, testConfig(t), "claude-code")
	var names []string
	for i := range 1000 {
		names = append(names, `"A campaign name nobody uses, long as the names agencies write: Prospecting - US - Lookalike 1% - Purchasers 180d - Broad - Advantage+ - number `+strconv.Itoa(i)+`"`)
	}
	args := `{"account_ids":["` + usdMeta + `","` + usdMeta2 + `"],` + quarter + `,"dimensions":["campaign_name"],"metrics":["spend"],` +
		`"time_granularity":"daily","filters":[{"field":"campaign_name","operator":"IN","value":[` + strings.Join(names, ",") + `]}]}`
	res := call(t, cs, "query", args)
	b := texts(t, res)
	n := 0
	for _, block := range b {
		n += fit.NewO200k().Exact(block)
	}
	if n > 21250 {
		t.Errorf("%d o200k tokens for claude-code's 21,250", n)
	}
	if res.IsError || len(b) != 2 || object(t, b[0])["type"] != nil {
		t.Fatalf("an empty result must answer _meta and the CSV header, got isError=%v:\n%.500s", res.IsError, b[0])
	}
	if hasWarningType(metaOf(t, b[0]), "no_rows") == nil {
		t.Errorf("no no_rows warning: %.800s", b[0])
	}
}

// Class 8: a data_too_large suggestion keeps the caller's token_budget and
// re-runs at the rows and grain it promises, within the budget.
func TestSuggestionsRerunExactly(t *testing.T) {
	cs := connect(t, testConfig(t), "claude-code")
	args := `{"platforms":["meta_ads"],` + quarter + `,"dimensions":["ad_name","device"],"metrics":["spend","clicks"],"time_granularity":"daily","token_budget":2500}`
	b := texts(t, call(t, cs, "query", args))
	body := object(t, b[0])
	if body["type"] != "data_too_large" {
		t.Fatalf("want data_too_large, got %.300s", b[0])
	}
	sugg, _ := body["requery_instructions"].(map[string]any)["suggestions"].([]any)
	if len(sugg) == 0 {
		t.Fatal("no suggestion")
	}
	for _, s := range sugg {
		s := s.(map[string]any)
		q := s["query"].(map[string]any)
		if q["token_budget"] != 2500.0 {
			t.Errorf("%q: token_budget %v, want the caller's 2500", s["description"], q["token_budget"])
		}
		raw, _ := jsonMarshal(q)
		rb := texts(t, call(t, cs, "query", string(raw)))
		if len(rb) != 2 {
			t.Errorf("%q re-run: not CSV: %.300s", s["description"], rb[0])
			continue
		}
		m := metaOf(t, rb[0])
		grain := q["time_granularity"]
		if m["returned_rows"] != s["expected_rows"] || m["time_granularity"].(map[string]any)["returned"] != grain {
			t.Errorf("%q: promised %v rows at %v, got %v at %v", s["description"], s["expected_rows"], grain,
				m["returned_rows"], m["time_granularity"])
		}
		if n := fit.NewO200k().Exact(rb[0]) + fit.NewO200k().Exact(rb[1]); n > 2125 { // 2,500 less claude-code's margin
			t.Errorf("%q: %d tokens for a budget of 2,125", s["description"], n)
		}
	}
}
