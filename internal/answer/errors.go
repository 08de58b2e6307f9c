package answer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"time"
	"unicode/utf8"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/outcome"
	"github.com/adsmcp/adsmcp/internal/query"
)

// Errors fit the budget like every answer: an error echoes the query (its IN
// lists included), lists every problem or account, and may quote a source's
// message. errorAnswer sheds, in order, until the answer fits: the query echo
// (abbreviated, then left out), then the tail of each list (the first ones are
// listed, with how many there are), then the end of the detail.

// cuttable is an error's list that may be cut to fit the budget.
type cuttable interface {
	count() int
	first(n int) any
	// note says, when only the first n of total are listed, what to do.
	note(n, total int) string
}

// cutList is a list of an error answer that may be cut.
type cutList[T any] struct {
	items []T
	noun  string
	// more says how to see the others (optional).
	more string
}

func (l cutList[T]) count() int      { return len(l.items) }
func (l cutList[T]) first(n int) any { return l.items[:n] }
func (l cutList[T]) note(n, total int) string {
	s := fmt.Sprintf("Only the first %d of %d %s are listed so the answer fits the client's budget.", n, total, l.noun)
	if l.more != "" {
		s += " " + l.more
	}
	return s
}

func problemList(ps []query.Problem) cutList[query.Problem] {
	return cutList[query.Problem]{items: ps, noun: "problems", more: "Fix these and call again to see the others."}
}

// errorBudget is the limits an error answer is fitted to: the client's, lowered
// by a token_budget argument when it can be read.
func (e *Engine) errorBudget(req Request, q *query.Query) Limits {
	if q == nil {
		q = &query.Query{}
		var a struct {
			TokenBudget *float64 `json:"token_budget"`
		}
		if json.Unmarshal(req.Args, &a) == nil && a.TokenBudget != nil &&
			*a.TokenBudget >= query.MinTokenBudget && *a.TokenBudget <= query.MaxTokenBudget {
			q.TokenBudget = int(*a.TokenBudget)
		}
	}
	return LimitsOf(e.budgetFor(req, q))
}

// errorMeta is the _meta of an error answer.
type errorMeta struct {
	Query       any    `json:"query,omitempty"`
	QueryEcho   string `json:"query_echo,omitempty"`
	SourceCalls int    `json:"source_calls"`
	ElapsedMS   int64  `json:"elapsed_ms"`
	// Warnings is demo_data from the demo dataset: an error may name its
	// accounts or suggest queries over them.
	Warnings []fit.Warning `json:"warnings,omitempty"`
}

// errorAnswer is an error the model can act on, as one JSON block (type and
// detail first, then the specifics in a fixed order, then _meta), fitted to
// every limit of lim.
func (e *Engine) errorAnswer(started time.Time, lim Limits, q *query.Query, typ outcome.Code, detail string, extra map[string]any, calls int) *Result {
	counter := e.counter()
	limit := lim.Tokens
	cost := func(r *Result) int { return lim.Cost(counter.Exact(r.Blocks[0]), r.Blocks, true) }
	fits := func(r *Result) bool { return cost(r) <= limit }
	meta := errorMeta{SourceCalls: calls, ElapsedMS: time.Since(started).Milliseconds(), Warnings: demoWarnings(e.Demo)}
	if q != nil {
		meta.Query = q
	}
	// The echo: full, abbreviated, left out.
	r := errorResult(typ, detail, extra, meta, -1)
	if fits(r) {
		return r
	}
	if q != nil {
		if a, ok := Abbreviate(q); ok {
			meta.Query, meta.QueryEcho = a, EchoNote
			if r = errorResult(typ, detail, extra, meta, -1); fits(r) {
				return r
			}
		}
		meta.Query, meta.QueryEcho = nil, "_meta.query is left out so the answer fits the client's budget; it is the arguments sent"
		if r = errorResult(typ, detail, extra, meta, -1); fits(r) {
			return r
		}
	}
	// The lists: the first n items of each.
	longest := 0
	for _, v := range extra {
		if c, ok := v.(cuttable); ok {
			longest = max(longest, c.count())
		}
	}
	if longest > 0 {
		r = FitRows(longest, limit, func(n int) *Result { return errorResult(typ, detail, extra, meta, n) },
			cost)
		if fits(r) {
			return r
		}
	}
	// The detail (a source's message may quote the whole query): its beginning.
	runes := utf8.RuneCountInString(detail)
	for n := runes; n > 1 && !fits(r); {
		n = max(1, min(n-1, n*limit/cost(r)*9/10))
		short := cut(detail, n) + fmt.Sprintf(" [cut to fit the client's budget: %d of %d characters]", n, runes)
		r = errorResult(typ, short, extra, meta, 0)
	}
	return r
}

// errorResult writes an error answer; cuttable lists keep their first n items
// (all when n < 0), and say so when cut.
func errorResult(typ outcome.Code, detail string, extra map[string]any, meta errorMeta, n int) *Result {
	var buf bytes.Buffer
	field := func(k string, v any) error {
		if buf.Len() > 1 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, err := fit.MarshalText(v)
		if err != nil {
			return err
		}
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(vb)
		return nil
	}
	buf.WriteByte('{')
	err := field("type", typ)
	if err == nil {
		err = field("detail", detail)
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := extra[k]
		c, ok := v.(cuttable)
		if !ok {
			if err == nil {
				err = field(k, v)
			}
			continue
		}
		total := c.count()
		shown := total
		if n >= 0 {
			shown = min(n, total)
		}
		if err == nil {
			err = field(k, c.first(shown))
		}
		if shown < total && err == nil {
			err = field(k+"_total", total)
			if err == nil {
				err = field(k+"_listed", shown)
			}
			if err == nil {
				err = field(k+"_note", c.note(shown, total))
			}
		}
	}
	if err == nil {
		err = field("_meta", meta)
	}
	buf.WriteByte('}')
	if err != nil {
		return failedErrorResult(err, meta)
	}
	return &Result{Blocks: []string{buf.String()}, IsError: true,
		Report: outcome.Report{Outcome: typ, SourceCalls: meta.SourceCalls}}
}

// failedErrorResult is the answer when an error answer could not be written
// (a value that does not marshal): an internal_error saying why.
func failedErrorResult(err error, meta errorMeta) *Result {
	b, _ := json.Marshal(struct {
		Type   outcome.Code `json:"type"`
		Detail string       `json:"detail"`
	}{outcome.InternalError, err.Error()})
	return &Result{Blocks: []string{string(b)}, IsError: true,
		Report: outcome.Report{Outcome: outcome.InternalError, SourceCalls: meta.SourceCalls}}
}
