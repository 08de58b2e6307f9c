package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/answer"
	"github.com/adsmcp/adsmcp/internal/auth"
	"github.com/adsmcp/adsmcp/internal/budget"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/query"
)

// QueryInput documents the query tool's arguments (docs/contract.md §4) for its JSON
// schema. The handler does not decode into it: it hands the client's raw
// arguments to the same parser as `adsmcp query`, which forgives more than this
// schema states (aliases, synonyms, time fields as dimensions) and explains
// what it rejects.
type QueryInput struct {
	Metrics           []string      `json:"metrics" jsonschema:"What to measure (at least one), e.g. [\"spend\",\"clicks\",\"ctr\"]. Ratios (ctr, cpc, cpm, cpa, roas, conversion_rate) are recomputed from their parts at every grain. See list_fields."`
	Dimensions        []string      `json:"dimensions,omitempty" jsonschema:"Group rows by these, e.g. [\"campaign_name\"]. Never a time field (use time_granularity). Omit for totals."`
	AccountIDs        []string      `json:"account_ids,omitempty" jsonschema:"Accounts to query, from list_accounts. Omit for every account (on platforms, if given); more than the maximum is an error that lists the accounts."`
	Platforms         []string      `json:"platforms,omitempty" jsonschema:"Only accounts on these ad platforms. Instagram, Facebook, YouTube, Search… are placements inside a platform, not platforms: for them filter publisher_platform (e.g. EQUALS instagram)."`
	DatePreset        string        `json:"date_preset,omitempty" jsonschema:"Relative period in each account's timezone; last_Nd ends yesterday. Default last_30d. Give date_preset or date_range, not both."`
	DateRange         *DateRange    `json:"date_range,omitempty" jsonschema:"Inclusive dates in each account's timezone. Give date_range or date_preset, not both."`
	Compare           any           `json:"compare,omitempty" jsonschema:"Compare with another window: previous_period (as many days just before; whole weeks/months at weekly/monthly grain), previous_year (same dates a year earlier; ISO weeks at weekly grain) or {start,end}, not overlapping the dates. Adds per metric m: m_compare, m_change, m_change_pct, which sort and filters may use. Rows in one window only are kept, with compare_status new or stopped."`
	TimeGranularity   string        `json:"time_granularity,omitempty" jsonschema:"Time rows: daily (column date), weekly (column week: the Monday of the ISO week), monthly (column month: YYYY-MM), quarterly (column quarter: YYYY-Qn, calendar quarters, Q1 = January–March) or total (no time column; the default)."`
	Filters           []FilterInput `json:"filters,omitempty" jsonschema:"Conditions that must all hold. Text matching is case-insensitive. Filters on metrics apply to the aggregated rows at the returned grain (like SQL HAVING)."`
	Sort              []SortInput   `json:"sort,omitempty" jsonschema:"Row order, first key first."`
	Limit             int           `json:"limit,omitempty" jsonschema:"Keep only the first N rows after sort (requires sort); _meta reports how many rows existed. The only way rows are ever cut: use it for an explicit top-N only."`
	AttributionWindow string        `json:"attribution_window,omitempty" jsonschema:"Count conversions under this attribution window instead of each account's own (stated in _meta.definitions): parts joined by _, clicks first, e.g. 7d_click_1d_view, 1d_click, 28d_click, 7d_click_1d_ev. Recounted only for accounts read live on platforms whose reports take a window; otherwise answered only when every account already holds that window."`
	TokenBudget       int           `json:"token_budget,omitempty" jsonschema:"Lower the response's token budget below the client's default (it cannot raise it). Rarely needed."`
}

// DateRange is an inclusive range of dates.
type DateRange struct {
	Start string `json:"start" jsonschema:"First day, YYYY-MM-DD."`
	End   string `json:"end" jsonschema:"Last day (inclusive), YYYY-MM-DD."`
}

// FilterInput is one filter.
type FilterInput struct {
	Field    string `json:"field" jsonschema:"A dimension or metric name."`
	Operator string `json:"operator" jsonschema:"IN and NOT_IN take an array of values, BETWEEN takes [low, high] (inclusive), the others one value. Text fields take EQUALS, NOT_EQUALS, CONTAINS, NOT_CONTAINS, STARTS_WITH, IN, NOT_IN; metrics the comparisons, EQUALS, NOT_EQUALS, IN, NOT_IN."`
	Value    any    `json:"value" jsonschema:"A string, a number, or an array of them."`
}

// SortInput is one sort key.
type SortInput struct {
	Field     string `json:"field" jsonschema:"A requested dimension or metric, or the time column (date, week, month, quarter)."`
	Direction string `json:"direction,omitempty" jsonschema:"Default: desc for metrics, asc otherwise."`
}

func queryTool(s *server) tool {
	return tool{
		def: &mcp.Tool{
			Name:        "query",
			Description: queryDescription,
			Annotations: readOnly("Query advertising data"),
			InputSchema: querySchema(s.cfg.MaxAccounts),
			Meta:        toolMeta(),
		},
		handler: s.guard("query", s.query, s.queryTimeout),
	}
}

func querySchema(maxAccounts int) *jsonschema.Schema {
	return schemaFor[QueryInput](func(sc *jsonschema.Schema) {
		p := sc.Properties
		p["metrics"].MinItems = ptr(1)
		p["metrics"].Items.Enum = enum(catalog.Names(catalog.Metric)...)
		p["dimensions"].Items.Enum = enum(catalog.Names(catalog.Dimension)...)
		p["account_ids"].MinItems = ptr(1)
		p["account_ids"].MaxItems = ptr(maxAccounts)
		p["account_ids"].Description = fmt.Sprintf("Accounts to query (at most %d), from list_accounts. "+
			"Omit for every account (on platforms, if given); more than %d is an error that lists the accounts.", maxAccounts, maxAccounts)
		p["platforms"].Items.Enum = enum(catalog.AllPlatforms...)
		p["date_preset"].Enum = enum(query.Presets...)
		dr := p["date_range"]
		for _, end := range []string{"start", "end"} {
			dr.Properties[end].Pattern = `^\d{4}-\d{2}-\d{2}$`
		}
		window := dr.CloneSchemas()
		window.Description = ""
		p["compare"].AnyOf = []*jsonschema.Schema{{Type: "string", Enum: enum(query.CompareModes...)}, window}
		p["time_granularity"].Enum = enum(query.GrainNames...)
		f := p["filters"].Items
		f.Properties["operator"].Enum = enum(query.Operators...)
		scalar := func() []*jsonschema.Schema { return []*jsonschema.Schema{{Type: "string"}, {Type: "number"}} }
		f.Properties["value"].AnyOf = append(scalar(), &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{AnyOf: scalar()}})
		p["sort"].Items.Properties["direction"].Enum = enum("asc", "desc")
		p["limit"].Minimum = ptr(1.0)
		p["limit"].Maximum = ptr(float64(query.MaxLimit))
		var fixed []string
		for _, pl := range catalog.Platforms() {
			if pl.FixedAttribution != "" {
				fixed = append(fixed, pl.Name)
			}
		}
		aw := p["attribution_window"]
		aw.Description = strings.Replace(aw.Description, "accounts read live on platforms whose reports take a window",
			catalog.PlatformLabels("and", catalog.AttributionPlatforms...)+" accounts read live", 1)
		aw.Description = strings.Replace(aw.Description, "already holds that window.",
			"already holds that window ("+catalog.PlatformLabels("and", fixed...)+" count under their own settings).", 1)
		p["token_budget"].Minimum = ptr(float64(query.MinTokenBudget))
		p["token_budget"].Maximum = ptr(float64(query.MaxTokenBudget))
	})
}

// query runs the call through the same engine as `adsmcp query`, with the
// client's raw arguments and name, and returns the engine's blocks as they are:
// _meta first, then the data, each its own text block, read once.
func (s *server) query(ctx context.Context, req *mcp.CallToolRequest, _ time.Time) (*reply, error) {
	p := principalOf(req.Extra)
	s.knowAccounts(ctx, p, req.Params.Arguments)
	r := engineRequest(req, p, clientFrom(ctx))
	r.Progress = reporterFrom(ctx)
	res, err := s.engineFor(p).Query(ctx, r)
	if err != nil {
		return nil, err
	}
	return engineReply(res), nil
}

// knowAccounts refreshes the account list before a query that names an
// account the caller's list does not hold: an account opened or shared since
// the list was read answers at once, not after the list's next refresh. The
// miss is judged on the principal's own accounts, so another tenant's account
// and an account that does not exist cost the same (one refresh at most per
// accountlist.DefaultMinInterval, whoever asks). Arguments that do not parse
// refresh nothing: normalization reports them. A failed listing is left to
// the engine, which lists the accounts next and reports it.
func (s *server) knowAccounts(ctx context.Context, p *auth.Principal, raw json.RawMessage) {
	args, _, err := query.Parse(raw)
	if err != nil || len(args.AccountIDs) == 0 {
		return
	}
	_, _ = s.accounts.accountsKnowing(ctx, func(all []ads.Account) bool {
		return len(query.UnknownAccounts(p.Filter(all), args.AccountIDs)) == 0
	})
}

// engineRequest is the engine's request for a query call: the raw arguments,
// the client's name, and the principal's client and budget when it has them.
func engineRequest(req *mcp.CallToolRequest, p *auth.Principal, client budget.Client) answer.Request {
	r := answer.Request{Args: req.Params.Arguments, Client: client.Name, ClientVersion: client.Version}
	if p != nil {
		if p.Client != "" && !strings.EqualFold(p.Client, client.Name) {
			// The key names the client's profile; its version is not known.
			r.Client, r.ClientVersion = p.Client, ""
		}
		if p.Budget > 0 {
			r.Budget, r.BudgetSource = p.Budget, "principal:"+p.ID
		}
	}
	return r
}
