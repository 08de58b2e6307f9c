package answer

import (
	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/outcome"
)

// dataResult is the answer of a call the pipeline fitted: the data, or
// data_too_large, with its report read from the response's _meta.
func dataResult(resp *fit.Response) *Result {
	code := outcome.OK
	if resp.Kind == fit.KindTooLarge {
		code = outcome.DataTooLarge
	}
	m := resp.Meta
	rep := outcome.Report{Outcome: code, Tokens: m.TokenEstimate, SourceCalls: m.SourceCalls}
	for _, o := range m.Optimizations {
		rep.Optimizations = append(rep.Optimizations, o.Type)
	}
	return &Result{Blocks: resp.Blocks, Response: resp, Report: rep}
}
