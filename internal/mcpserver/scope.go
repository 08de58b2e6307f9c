package mcpserver

import (
	"context"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/fit"
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/answer"
	"github.com/adsmcp/adsmcp/internal/auth"
	"github.com/adsmcp/adsmcp/internal/budget"
	"github.com/adsmcp/adsmcp/internal/query"
	"github.com/adsmcp/adsmcp/internal/source"
)

// Tenant isolation. Over authenticated HTTP every request carries a principal
// (auth.Principal in the bearer token's info); every tool, resource and prompt
// sees the source through it, so another tenant's account is exactly as unknown
// as an account that does not exist — in list_accounts, in query's
// normalization ("unknown account"), in too_many_accounts' list, in summaries
// and suggestions (built from the query's own accounts), in timeouts' narrower
// queries and in error texts. Over stdio there is no principal: the local user
// sees every account.

// principalOf is the caller of a request (nil over stdio).
func principalOf(extra *mcp.RequestExtra) *auth.Principal {
	if extra == nil {
		return nil
	}
	return auth.FromTokenInfo(extra.TokenInfo)
}

// scoped is the source as one principal sees it.
type scoped struct {
	source.Source
	p *auth.Principal
}

func (s scoped) Accounts(ctx context.Context) ([]ads.Account, error) {
	all, err := s.Source.Accounts(ctx)
	if err != nil {
		return nil, err
	}
	return s.p.Filter(all), nil
}

// Coverage answers only for the principal's accounts.
func (s scoped) Coverage(ctx context.Context, accountIDs []string) (map[string]source.Coverage, error) {
	cs, ok := s.Source.(source.CoverageSource)
	if !ok {
		return nil, errNoCoverage
	}
	mine, err := s.Accounts(ctx)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, id := range accountIDs {
		if slices.ContainsFunc(mine, func(a ads.Account) bool { return a.AccountID == id }) {
			ids = append(ids, id)
		}
	}
	return cs.Coverage(ctx, ids)
}

// RecountsWindows passes on whether the source recounts conversions under
// an asked window (source.WindowRecounter).
func (s scoped) RecountsWindows() bool { return !source.StoresOneWindow(s.Source) }

// Query refuses accounts outside the principal's, as a second line of defence
// (normalization only knows the principal's accounts, so none should arrive).
func (s scoped) Query(ctx context.Context, q *query.Query) (*fit.Table, error) {
	if err := (scopedSizer{p: s.p}).allowed(q); err != nil {
		return nil, err
	}
	return s.Source.Query(ctx, q)
}

// accountsFor lists the accounts the caller may see.
func (s *server) accountsFor(ctx context.Context, p *auth.Principal) ([]ads.Account, error) {
	all, err := s.accounts.Accounts(ctx)
	if err != nil {
		return nil, err
	}
	return p.Filter(all), nil
}

// engineFor is the query engine as the caller sees the source.
func (s *server) engineFor(p *auth.Principal) *answer.Engine {
	if p == nil {
		return s.engine
	}
	e := *s.engine
	e.Source = scoped{Source: s.accounts, p: p}
	return &e
}

// budgetOf is the caller's budget for list answers: the principal's own when
// it has one, else its profile's or the MCP client's.
func (s *server) budgetOf(ctx context.Context, p *auth.Principal) budget.Budget {
	client := clientFrom(ctx)
	if p != nil && p.Client != "" && !strings.EqualFold(p.Client, client.Name) {
		client = budget.Client{Name: p.Client}
	}
	if p != nil && p.Budget > 0 {
		b := budget.Resolve(client, budget.Overrides{Tokens: map[string]int{"*": p.Budget}, Sizes: s.cfg.BudgetOverrides.Sizes}, 0) // keeps the Claude margin
		b.Source = "principal:" + p.ID
		return b
	}
	return budget.Resolve(client, s.cfg.BudgetOverrides, 0)
}
