package answer

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/outcome"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
)

// failingSource fails every query that includes one of its bad accounts, the
// way the live source does.
type failingSource struct {
	source.Source
	bad  map[string]outcome.Code // account → kind
	text error                   // a plain error instead
}

func (f failingSource) Query(ctx context.Context, q *query.Query) (*fit.Table, error) {
	if f.text != nil {
		return nil, f.text
	}
	var e source.AccountsError
	for _, a := range q.Accounts {
		if kind, ok := f.bad[a.AccountID]; ok {
			e.Failed = append(e.Failed, &source.AccountError{AccountID: a.AccountID, Platform: a.Platform, Kind: kind,
				Cause: "Error validating access token: Session has expired", Fix: "re-authorize adsmcp in Business Manager", RetryAfter: 90 * time.Second})
		} else {
			e.Succeeded = append(e.Succeeded, a.AccountID)
		}
	}
	if len(e.Failed) > 0 {
		return nil, &e
	}
	return f.Source.Query(ctx, q)
}

type errorBody struct {
	Type        string `json:"type"`
	Detail      string `json:"detail"`
	Failed      []map[string]any
	Suggestions []struct {
		Description string          `json:"description"`
		Query       json.RawMessage `json:"query"`
	} `json:"suggestions"`
	Meta map[string]any `json:"_meta"`
}

// TestFailedAccountsAnswer: failed accounts are named with cause, fix and retry
// time; permission failures answer permission_denied; the suggested query
// without them runs and answers for the others only.
func TestFailedAccountsAnswer(t *testing.T) {
	wh := duckdbtest.Open(t)
	const args = `{"metrics":["spend"],"dimensions":["account_name"],"platforms":["meta_ads"],"date_preset":"last_7d"}`
	for _, kind := range []outcome.Code{source.PermissionDenied, source.RateLimited} {
		e := &Engine{Source: failingSource{Source: wh, bad: map[string]outcome.Code{"act_1015823746512093": kind}}, Now: duckdbtest.Now}
		res := ask(t, e, "", 0, args)
		var body errorBody
		if !res.IsError || json.Unmarshal([]byte(res.Blocks[0]), &body) != nil {
			t.Fatalf("%s: %v", kind, res.Blocks)
		}
		var raw map[string]json.RawMessage
		json.Unmarshal([]byte(res.Blocks[0]), &raw)
		json.Unmarshal(raw["failed_accounts"], &body.Failed)
		want := map[outcome.Code]string{source.PermissionDenied: "permission_denied", source.RateLimited: "source_error"}[kind]
		if body.Type != want || len(body.Failed) != 1 || body.Failed[0]["account_id"] != "act_1015823746512093" ||
			body.Failed[0]["fix"] == nil || body.Failed[0]["retry_after_seconds"] != 90.0 || !strings.Contains(body.Detail, "1 of 6 accounts") {
			t.Errorf("%s: %s", kind, res.Blocks[0])
		}
		if len(body.Suggestions) != 1 || strings.Contains(string(body.Suggestions[0].Query), "act_1015823746512093") {
			t.Fatalf("%s: suggestions %+v", kind, body.Suggestions)
		}
		again := ask(t, e, "", 0, string(body.Suggestions[0].Query))
		if again.IsError || again.Response.Meta.ReturnedRows == 0 || strings.Contains(again.Blocks[1], "Lumen Outdoor US") {
			t.Errorf("%s: the suggestion does not answer for the others: %v", kind, again.Blocks)
		}
	}
	// A failure that names no account is a source_error with the message.
	e := &Engine{Source: failingSource{Source: wh, text: errors.New("connection refused")}, Now: duckdbtest.Now}
	res := ask(t, e, "", 0, args)
	if !res.IsError || !strings.Contains(res.Blocks[0], `"type":"source_error","detail":"connection refused"`) {
		t.Errorf("plain error: %v", res.Blocks)
	}
}

// TestSourceCallsCounted: _meta.source_calls counts the requests the source
// made, re-queries at a coarser grain and the per-account query that judges
// all-zero accounts included.
func TestSourceCallsCounted(t *testing.T) {
	e := engine(t)
	small := ask(t, e, "", 0, `{"metrics":["spend"],"account_ids":["act_1015823746512093"],"date_preset":"last_7d"}`)
	mixed := ask(t, e, "", 0, `{"metrics":["spend"],"platforms":["meta_ads"],"date_preset":"last_7d"}`)
	big := ask(t, e, "", 3000, `{"metrics":["spend","reach"],"dimensions":["campaign_name"],"platforms":["meta_ads"],"time_granularity":"daily","date_preset":"last_90d"}`)
	if small.Response.Meta.SourceCalls != 1 {
		t.Errorf("one query: source_calls %d", small.Response.Meta.SourceCalls)
	}
	if mixed.Response.Meta.SourceCalls != 2 {
		t.Errorf("one query over accounts whose rows are mixed, and one by account to judge all-zero accounts: source_calls %d", mixed.Response.Meta.SourceCalls)
	}
	if big.Response.Meta.SourceCalls < 2 {
		t.Errorf("a re-queried answer: source_calls %d (%v)", big.Response.Meta.SourceCalls, big.Response.Meta.Optimizations)
	}
}
