package answer

import (
	"slices"

	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
)

// definitions are _meta.definitions: what the answer's numbers mean where
// that varies by account. Conversions are whatever each platform (and its
// configuration) counts, under an attribution window: an answer with them
// says both, per group of accounts, so a model repeating "1,204 conversions"
// can say which and under which window (docs/fields.md, "Conversions").
type definitions struct {
	Conversions []conversionsDefinition `json:"conversions,omitempty"`
}

// conversionsDefinition is how conversions are counted for some accounts.
type conversionsDefinition struct {
	Platform string `json:"platform"`
	// Counts names the actions the conversions metric holds ("purchase");
	// per conversion_action row, only that row's action.
	Counts string `json:"counts"`
	// AttributionWindow is the window they are credited under; Window says
	// whether the query asked for it or it is the one the account is counted
	// under by default (the source's: a warehouse's stored counts, a
	// platform's default window).
	AttributionWindow string   `json:"attribution_window"`
	Window            string   `json:"window"`
	Accounts          []string `json:"accounts"`
}

// definitionsOf is q's _meta.definitions, or nil when it reads no
// conversions.
func definitionsOf(q *query.Query) any {
	if !q.UsesConversions() {
		return nil
	}
	var out definitions
	for _, a := range q.Accounts {
		d := conversionsDefinition{Platform: a.Platform, Counts: a.ConversionActions,
			AttributionWindow: q.WindowOf(a), Window: "default"}
		if d.Counts == "" {
			d.Counts = "the platform's conversions (the source does not name the actions)"
		}
		if q.AttributionWindow != "" {
			d.Window = "asked"
		}
		if slices.Contains(q.Dimensions, "conversion_action") {
			d.Counts = "per row, the row's conversion_action only (by default conversions count " + d.Counts + ")"
		}
		i := slices.IndexFunc(out.Conversions, func(c conversionsDefinition) bool {
			return c.Platform == d.Platform && c.Counts == d.Counts && c.AttributionWindow == d.AttributionWindow
		})
		if i < 0 {
			out.Conversions = append(out.Conversions, d)
			i = len(out.Conversions) - 1
		}
		out.Conversions[i].Accounts = append(out.Conversions[i].Accounts, a.AccountID)
	}
	slices.SortStableFunc(out.Conversions, func(x, y conversionsDefinition) int {
		return slices.Index(catalog.AllPlatforms, x.Platform) - slices.Index(catalog.AllPlatforms, y.Platform)
	})
	return out
}
