package importer

import (
	"slices"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// FilePlan is what importing one file writes, decided by the engine before a
// store writes it: every row in the warehouse's spelling of its account IDs.
type FilePlan struct {
	Export *Export
	// Accounts are the file's accounts (in Export.Accounts order) as the
	// warehouse holds them after the import.
	Accounts []PlannedAccount
	// Ranges are what the file replaces, one per account.
	Ranges []Range
	// NewCampaigns are the file's campaigns that neither the warehouse nor an
	// earlier file of the same import has: a campaign two files share is new
	// once.
	NewCampaigns map[CampaignKey]bool
	// Ledger is the file's row of the imports ledger, written last.
	Ledger LedgerEntry

	ids map[string]string // the file's account ID → the warehouse's
}

// PlannedAccount is an account of a file as the warehouse holds it after the
// import: the warehouse's spelling of a known ID (IDs match by ads.FoldID),
// the file's name and timezone where the file states them.
type PlannedAccount struct {
	ads.Account
	// New: the warehouse does not have it (nor an earlier file of the import).
	New bool
	// Changed: a known account whose name or timezone the file changes.
	Changed bool
}

// AccountID is the warehouse's spelling of one of the file's account IDs.
func (p *FilePlan) AccountID(fileID string) string {
	if id, ok := p.ids[fileID]; ok {
		return id
	}
	return fileID
}

// Campaigns are the file's campaigns, with the warehouse's account IDs.
func (p *FilePlan) Campaigns() []ads.Campaign {
	return withAccounts(p, p.Export.Campaigns, func(c *ads.Campaign) *string { return &c.AccountID })
}

// AdSets are the file's ad sets, with the warehouse's account IDs.
func (p *FilePlan) AdSets() []ads.AdSet {
	return withAccounts(p, p.Export.AdSets, func(s *ads.AdSet) *string { return &s.AccountID })
}

// Ads are the file's ads, with the warehouse's account IDs.
func (p *FilePlan) Ads() []ads.Ad {
	return withAccounts(p, p.Export.Ads, func(a *ads.Ad) *string { return &a.AccountID })
}

// withAccounts is a copy of rows with the warehouse's account IDs.
func withAccounts[T any](p *FilePlan, rows []T, account func(*T) *string) []T {
	out := slices.Clone(rows)
	for i := range out {
		id := account(&out[i])
		*id = p.AccountID(*id)
	}
	return out
}

// Send sends the file's facts, then its reach rows, to sink (a warehouse's
// loader: the code that writes demo and connector rows), with the
// warehouse's account IDs; an account's reach row names the account as its
// object. Only Fact and Reach are called.
func (p *FilePlan) Send(sink ads.Sink) error {
	for i := range p.Export.Facts {
		f := p.Export.Facts[i]
		f.AccountID = p.AccountID(f.AccountID)
		if err := sink.Fact(&f); err != nil {
			return err
		}
	}
	for _, r := range p.Export.Reach {
		r.AccountID = p.AccountID(r.AccountID)
		if r.Level == "account" {
			r.ObjectID = r.AccountID
		}
		if err := sink.Reach(r); err != nil {
			return err
		}
	}
	return nil
}

// replaceRange is what importing a file of breakdown set set covering first
// … last replaces for one account: its set's facts on those days and, for a
// delivery export, the conversion_action rows of those days (read from the
// same lines) and the reach of every period that overlaps them (reach is
// stored per day, ISO week and month, and never per breakdown).
func replaceRange(account, set string, first, last time.Time) Range {
	if set != catalog.Delivery {
		return Range{AccountID: account, First: first, Last: last, Breakdowns: []string{set}}
	}
	monthStart := time.Date(first.Year(), first.Month(), 1, 0, 0, 0, 0, first.Location())
	return Range{AccountID: account, First: first, Last: last, Breakdowns: []string{catalog.Delivery, ConversionActionSet}, Reach: []ReachPeriod{
		{Grain: "daily", From: first, To: last},
		{Grain: "weekly", From: first.AddDate(0, 0, -6), To: last},
		{Grain: "monthly", From: monthStart, To: last},
	}}
}

// dropped are the campaigns with facts in a replaced range that the file does
// not have, by name then ID.
func (p *FilePlan) dropped(account string, withFacts []DroppedCampaign) []string {
	inFile := map[CampaignKey]bool{}
	for _, c := range p.Export.Campaigns {
		inFile[CampaignKey{p.AccountID(c.AccountID), c.CampaignID}] = true
	}
	var out []DroppedCampaign
	for _, c := range withFacts {
		if !inFile[CampaignKey{account, c.ID}] {
			out = append(out, c)
		}
	}
	return DroppedNames(out)
}
