package answer

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/outcome"
)

// unmarshallable fails to marshal with a message full of characters Go's %q
// escapes in ways JSON does not read (\x7f, \x00).
type unmarshallable struct{}

func (unmarshallable) MarshalJSON() ([]byte, error) {
	return nil, errors.New("bad \x00 value \x7f \"quoted\"")
}

// TestErrorResultThatCannotBeWritten: an error answer whose specifics do not
// marshal becomes an internal_error that is still JSON (encoding/json, not
// %q) and reports internal_error with the call's source calls.
func TestErrorResultThatCannotBeWritten(t *testing.T) {
	res := errorResult(outcome.Timeout, "detail", map[string]any{"x": unmarshallable{}}, errorMeta{SourceCalls: 2}, -1)
	var body struct {
		Type   outcome.Code `json:"type"`
		Detail string       `json:"detail"`
	}
	if err := json.Unmarshal([]byte(res.Blocks[0]), &body); err != nil {
		t.Fatalf("not JSON: %v\n%q", err, res.Blocks[0])
	}
	if !res.IsError || body.Type != outcome.InternalError || !strings.Contains(body.Detail, "bad \x00 value \x7f \"quoted\"") {
		t.Errorf("%+v", body)
	}
	if res.Report.Outcome != outcome.InternalError || res.Report.SourceCalls != 2 {
		t.Errorf("report %+v", res.Report)
	}
	// A code outside the set never reaches the client either.
	res = errorResult(outcome.Code("made_up"), "detail", nil, errorMeta{}, -1)
	if json.Unmarshal([]byte(res.Blocks[0]), &body) != nil || body.Type != outcome.InternalError {
		t.Errorf("made_up: %s", res.Blocks[0])
	}
}

// TestReportOfAnswers: the engine's data and data_too_large answers report
// their outcome and the figures of their _meta (mcpserver's
// TestRecordIsTheAnswersReport checks them against the text).
func TestReportOfAnswers(t *testing.T) {
	e := engine(t)
	const daily = `{` + meta6 + `,"date_range":{"start":"2025-12-01","end":"2026-02-28"},"dimensions":["ad_name","device"],"metrics":["spend","impressions","ctr"],"time_granularity":"daily"}`
	for _, c := range []struct {
		budget int
		want   outcome.Code
	}{{120000, outcome.OK}, {4000, outcome.DataTooLarge}} {
		res := ask(t, e, "", c.budget, daily)
		m, r := res.Response.Meta, res.Report
		if r.Outcome != c.want || res.IsError || r.Tokens != m.TokenEstimate || r.Tokens == 0 ||
			r.SourceCalls != m.SourceCalls || len(r.Optimizations) != len(m.Optimizations) {
			t.Errorf("budget %d: report %+v, _meta %+v", c.budget, r, m)
		}
		for i, o := range m.Optimizations {
			if r.Optimizations[i] != o.Type {
				t.Errorf("budget %d: optimization %d is %s, _meta says %s", c.budget, i, r.Optimizations[i], o.Type)
			}
		}
	}
	res := ask(t, e, "", 0, `{"metrics":["spend"],"date_preset":"yesterweek"}`)
	if res.Report.Outcome != outcome.InvalidQuery || !res.IsError {
		t.Errorf("invalid query: %+v", res.Report)
	}
}
