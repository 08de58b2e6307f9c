package mcpserver

import (
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/internal/outcome"
)

// recordingObserver keeps every CallRecord. guard tells the observer before
// the answer leaves the handler, so a record is there when call returns.
type recordingObserver struct {
	mu   sync.Mutex
	recs []CallRecord
}

func (o *recordingObserver) ToolCall(r CallRecord) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.recs = append(o.recs, r)
}

func (o *recordingObserver) last(t *testing.T) CallRecord {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.recs) == 0 {
		t.Fatal("no call was recorded")
	}
	return o.recs[len(o.recs)-1]
}

// fromText is what the answer's text says about the call: the error type of
// an isError answer or data_too_large, and _meta's figures. It is how the
// metrics hook used to learn the outcome; here it is the oracle the typed
// report must agree with.
func fromText(t *testing.T, res *mcp.CallToolResult) CallRecord {
	t.Helper()
	var head struct {
		Type string `json:"type"`
		Meta struct {
			TokenEstimate int `json:"token_estimate"`
			SourceCalls   int `json:"source_calls"`
			Optimizations []struct {
				Type string `json:"type"`
			} `json:"optimizations_applied"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal([]byte(texts(t, res)[0]), &head); err != nil {
		t.Fatalf("the first block is not JSON: %v", err)
	}
	r := CallRecord{Outcome: outcome.OK, Tokens: head.Meta.TokenEstimate, SourceCalls: head.Meta.SourceCalls}
	if head.Type != "" {
		r.Outcome = outcome.Code(head.Type)
	}
	for _, o := range head.Meta.Optimizations {
		r.Optimizations = append(r.Optimizations, o.Type)
	}
	return r
}

// TestRecordIsTheAnswersReport: the record of every kind of answer (data,
// coarsened, data_too_large, each error the tools build) carries the outcome,
// tokens, source calls and optimizations its text states, read from the
// typed report and never from the text.
func TestRecordIsTheAnswersReport(t *testing.T) {
	coarse := `{` + six + `,"token_budget":1500,"date_range":{"start":"2025-12-01","end":"2026-02-28"},"dimensions":["account_name"],"metrics":["spend","clicks","ctr"],"time_granularity":"daily"}`
	tooLarge := `{` + six + `,"token_budget":1500,"date_range":{"start":"2025-12-01","end":"2026-02-28"},"dimensions":["ad_name","device"],"metrics":["spend","impressions","ctr"],"time_granularity":"daily"}`
	cases := []struct {
		name, tool, args string
		want             outcome.Code
	}{
		{"data", "query", small, outcome.OK},
		{"coarsened", "query", coarse, outcome.OK},
		{"data_too_large", "query", tooLarge, outcome.DataTooLarge},
		{"invalid query", "query", `{"metrics":["spend"],"date_preset":"yesterweek"}`, outcome.InvalidQuery},
		{"too many accounts", "query", `{"metrics":["spend"]}`, outcome.TooManyAccounts},
		{"list_accounts", "list_accounts", `{}`, outcome.OK},
		{"list_accounts, bad platform", "list_accounts", `{"platform":"myspace"}`, outcome.InvalidQuery},
		{"list_fields", "list_fields", `{"platform":"meta_ads"}`, outcome.OK},
	}
	obs := &recordingObserver{}
	cfg := testConfig(t)
	cfg.Observer, cfg.MaxAccounts = obs, 6
	cs := connect(t, cfg, "claude-code")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := call(t, cs, c.tool, c.args)
			got, want := obs.last(t), fromText(t, res)
			if got.Outcome != c.want || want.Outcome != c.want {
				t.Fatalf("outcome %s, text says %s, want %s", got.Outcome, want.Outcome, c.want)
			}
			if isError := c.want != outcome.OK && c.want != outcome.DataTooLarge; res.IsError != isError {
				t.Errorf("isError %v for %s", res.IsError, c.want)
			}
			if got.Tool != c.tool || got.Client != "claude-code" || got.Tokens != want.Tokens ||
				got.SourceCalls != want.SourceCalls || !slices.Equal(got.Optimizations, want.Optimizations) {
				t.Errorf("record %+v, the text says %+v", got, want)
			}
		})
	}
	if rec := obs.last(t); rec.Tokens != 0 {
		t.Errorf("list_fields has no token_estimate: %+v", rec)
	}
	for _, r := range obs.recs[:3] {
		if r.Tokens == 0 || r.SourceCalls == 0 {
			t.Errorf("a data answer without tokens or source calls: %+v", r)
		}
	}
	if !slices.Contains(obs.recs[1].Optimizations, "granularity_change") {
		t.Errorf("the coarsened answer's record: %+v", obs.recs[1])
	}
}

// TestRecordOfFailures: the answers guard builds itself — internal_error
// after a panic, timeout at the deadline, rate_limited — are recorded with
// their type.
func TestRecordOfFailures(t *testing.T) {
	check := func(t *testing.T, obs *recordingObserver, res *mcp.CallToolResult, want outcome.Code) {
		t.Helper()
		errorOf(t, res, string(want))
		if got, text := obs.last(t), fromText(t, res); got.Outcome != want || got.SourceCalls != text.SourceCalls {
			t.Errorf("record %+v, the text says %+v", got, text)
		}
	}
	t.Run("internal_error", func(t *testing.T) {
		obs := &recordingObserver{}
		cfg := testConfig(t)
		cfg.Source, cfg.Observer = panicSource{warehouse(t)}, obs
		check(t, obs, call(t, connect(t, cfg, "claude-code"), "query", small), outcome.InternalError)
	})
	t.Run("timeout", func(t *testing.T) {
		obs := &recordingObserver{}
		cfg := testConfig(t)
		cfg.Source, cfg.Deadline, cfg.Observer = newBlockingSource(t, false, false), 200*time.Millisecond, obs
		check(t, obs, call(t, connect(t, cfg, "claude-code"), "query", slow), outcome.Timeout)
	})
	t.Run("rate_limited", func(t *testing.T) {
		obs := &recordingObserver{}
		cfg := testConfig(t)
		cfg.Limiter, cfg.Observer = &fakeLimiter{}, obs
		cs := connectAs(t, startTenantServer(t, cfg), "token-acme", "claude-ai")
		check(t, obs, call(t, cs, "list_fields", `{}`), outcome.RateLimited)
		if rec := obs.last(t); rec.Principal == "" {
			t.Errorf("no principal in %+v", rec)
		}
	})
}
