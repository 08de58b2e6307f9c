package importer

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
)

// factKey is what makes a fact: the warehouse's finest grain.
type factKey struct {
	account, campaign, adset, ad, country, device, platform string
	day                                                     int64
}

// build turns the parsed lines into the warehouse's rows and fills the report.
func (p *parser) build(ex *Export, rows []row, totals []totalsRow) error {
	rep := p.rep
	if len(rows) == 0 && p.periodLine > 0 {
		return p.errAt(p.periodLine, 0, "", "the lines cover several days each; the warehouse stores days and cannot split a period's totals into them",
			dayFix(p.platform))
	}
	if len(rows) == 0 {
		return &Error{File: p.file, Line: p.header.line(), Reason: "no data rows after the header",
			Fix: "export a period with delivery, or check that the file is the report itself"}
	}

	// The dates covered: the stated range, else the first to the last day.
	first, last := p.declaredFirst, p.declaredLast
	if first.IsZero() {
		first, last = rows[0].day, rows[0].day
		for _, r := range rows {
			if r.day.Before(first) {
				first = r.day
			}
			if r.day.After(last) {
				last = r.day
			}
		}
	}
	for _, r := range rows {
		if r.day.Before(first) || r.day.After(last) {
			k := colDay
			if !p.has(k) {
				k = colReportStart
			}
			return p.errAt(r.line, p.colNumber(k), r.day.Format(time.DateOnly),
				fmt.Sprintf("outside the report's range %s to %s", first.Format(time.DateOnly), last.Format(time.DateOnly)),
				"export the report again: its rows and its date range disagree")
		}
	}
	ex.First, ex.Last = first, last
	rep.First, rep.Last = first.Format(time.DateOnly), last.Format(time.DateOnly)

	accounts := map[string]*Account{}
	campaigns := map[string]*ads.Campaign{}
	campaignDay := map[string]time.Time{} // the day a campaign's name and attributes were last set
	started := map[string]bool{}          // the campaign's StartDate is a day of delivery
	adsets := map[string]*ads.AdSet{}
	adList := map[string]*ads.Ad{}
	facts := make(map[factKey]int, len(rows)) // index in ex.Facts
	ex.Facts = make([]ads.Fact, 0, len(rows))
	reach := map[factKey]int64{}
	merged := map[factKey]bool{}
	mergedLines := 0
	var nonConv []string
	nonConvRows := 0
	var spendSum int64
	derived := map[string]string{}
	derive := func(names ...string) string {
		key := strings.Join(names, "\x00")
		id, ok := derived[key]
		if !ok {
			id = DeriveID(p.platform, names[0], names[1:]...)
			derived[key] = id
		}
		return id
	}

	// Reach is exact only where a line is a whole account or campaign on one day.
	reachWhy := ""
	switch {
	case !p.has(colReach):
	case p.platform != Meta:
		reachWhy = "Google Ads does not report reach"
	case p.rep.Level == "adset" || p.rep.Level == "ad":
		reachWhy = "the rows are " + map[string]string{"adset": "ad sets", "ad": "ads"}[p.rep.Level] +
			", and reach (distinct people) is stored per account and per campaign only: it cannot be summed up to them"
	case p.has(colCountry) || p.has(colDevice) || p.has(colPublisher) || len(p.breakdowns) > 0:
		reachWhy = "the rows are broken down (country, device, age…), and reach of the parts cannot be summed"
	}
	keepReach := p.has(colReach) && reachWhy == ""

	for _, r := range rows {
		spendSum += r.spend
		a := accounts[r.accountID]
		if a == nil {
			a = &Account{Account: ads.Account{AccountID: r.accountID, Platform: p.platform, AccountName: r.accountName,
				Currency: r.currency, Timezone: p.opt.Timezone, Status: "ACTIVE"}}
			a.NameKnown = r.accountName != ""
			a.TimezoneKnown = a.Timezone != ""
			accounts[r.accountID] = a
		}
		if a.Currency != r.currency {
			return p.errAt(r.line, p.colNumber(colCurrency), r.currency,
				fmt.Sprintf("account %s is in %s on an earlier line", r.accountID, a.Currency), "an account has one currency: export the report again")
		}
		if !a.NameKnown && r.accountName != "" {
			a.AccountName, a.NameKnown = r.accountName, true
		}

		var cid, sid, adid string
		if r.campaignID != "" || r.campaignName != "" {
			cid = r.campaignID
			if cid == "" {
				cid = derive(r.accountID, r.campaignName)
			}
			c := campaigns[cid]
			if c == nil {
				c = &ads.Campaign{CampaignID: cid, AccountID: r.accountID, StartDate: r.day}
				campaigns[cid] = c
			}
			if !started[cid] && r.day.Before(c.StartDate) {
				c.StartDate = r.day
			}
			if !r.day.Before(campaignDay[cid]) {
				campaignDay[cid] = r.day
				if r.campaignName != "" {
					c.Name = r.campaignName
				}
				if r.objective != "" {
					c.Objective = r.objective
				}
				if r.status != "" {
					c.Status = r.status
				}
			}
			cname := cmp.Or(r.campaignName, r.campaignID)
			if r.adsetID != "" || r.adsetName != "" {
				sid = r.adsetID
				if sid == "" {
					sid = derive(r.accountID, cname, r.adsetName)
				}
				s := adsets[sid]
				if s == nil {
					s = &ads.AdSet{AdSetID: sid, CampaignID: cid, AccountID: r.accountID}
					adsets[sid] = s
				}
				if r.adsetName != "" {
					s.Name = r.adsetName
				}
				if r.adID != "" || r.adName != "" {
					adid = r.adID
					if adid == "" {
						adid = derive(r.accountID, cname, cmp.Or(r.adsetName, r.adsetID), r.adName)
					}
					ad := adList[adid]
					if ad == nil {
						ad = &ads.Ad{AdID: adid, AdSetID: sid, CampaignID: cid, AccountID: r.accountID}
						adList[adid] = ad
					}
					if r.adName != "" {
						ad.Name = r.adName
					}
				}
			}
		}

		if r.nonConversion != "" {
			nonConvRows++
			if !slices.Contains(nonConv, r.nonConversion) {
				nonConv = append(nonConv, r.nonConversion)
			}
		}
		active := r.spend != 0 || r.impressions != 0 || r.clicks != 0 || r.linkClicks > 0 || r.videos != 0 ||
			r.conversions != 0 || r.convValue != 0 || r.reach > 0
		if !active {
			rep.skip("no activity (every metric 0 or empty)", r.line)
			continue
		}
		if c := campaigns[cid]; c != nil && (!started[cid] || r.day.Before(c.StartDate)) {
			c.StartDate, started[cid] = r.day, true // the first day of delivery
		}
		rep.RowsImported++

		k := factKey{account: r.accountID, campaign: cid, adset: sid, ad: adid,
			country: r.country, device: r.device, platform: r.platform, day: r.day.Unix()}
		i, seen := facts[k]
		if !seen {
			facts[k] = len(ex.Facts)
			ex.Facts = append(ex.Facts, ads.Fact{Date: r.day, AccountID: r.accountID, CampaignID: cid, AdSetID: sid, AdID: adid,
				Country: r.country, Device: r.device, PublisherPlatform: r.platform,
				SpendMicros: r.spend, Impressions: r.impressions, Clicks: r.clicks, LinkClicks: r.linkClicks,
				Conversions: r.conversions, ConversionValueMicros: r.convValue, VideoViews: r.videos})
			if keepReach && r.reach >= 0 {
				reach[k] = r.reach
			}
			continue
		}
		merged[k] = true
		mergedLines++
		f := &ex.Facts[i]
		f.SpendMicros += r.spend
		f.Impressions += r.impressions
		f.Clicks += r.clicks
		if r.linkClicks != ads.NotReported {
			f.LinkClicks += r.linkClicks
		}
		f.Conversions += r.conversions
		f.ConversionValueMicros += r.convValue
		f.VideoViews += r.videos
	}

	// Facts, in the order the warehouse wants them.
	slices.SortFunc(ex.Facts, compareFacts)

	if p.has(colReach) {
		if !keepReach {
			rep.note("reach not imported: %s", reachWhy)
		} else {
			level := "campaign"
			if p.rep.Level == "account" {
				level = "account"
			}
			dropped := 0
			for k, v := range reach {
				if merged[k] {
					dropped++
					continue
				}
				obj := k.campaign
				if level == "account" {
					obj = k.account
				}
				ex.Reach = append(ex.Reach, ads.Reach{Level: level, ObjectID: obj, AccountID: k.account, Grain: "daily",
					PeriodStart: time.Unix(k.day, 0).UTC(), Reach: v})
			}
			slices.SortFunc(ex.Reach, func(a, b ads.Reach) int {
				return cmp.Or(cmp.Compare(a.AccountID, b.AccountID), a.PeriodStart.Compare(b.PeriodStart), cmp.Compare(a.ObjectID, b.ObjectID))
			})
			if dropped > 0 {
				rep.note("reach left out for %d %s-days that appear on several lines (reach cannot be summed)", dropped, level)
			}
			rep.note("reach imported per %s and day", level)
		}
	}

	if mergedLines > 0 {
		if len(p.breakdowns) > 0 {
			var names []string
			for _, b := range p.breakdowns {
				names = append(names, b.header)
			}
			rep.note("%d lines summed into facts of the same day and names: the warehouse has no %s dimension", mergedLines, strings.Join(names, "/"))
		} else {
			rep.note("%d lines summed into facts of the same day and names (two objects with the same name and no ID?)", mergedLines)
		}
	}
	if nonConvRows > 0 {
		rep.note("%d lines have Results that are not conversions (%s): counted as 0 conversions", nonConvRows, strings.Join(nonConv, ", "))
	}
	p.checkTotals(totals, spendSum)

	// Accounts, campaigns, ad sets, ads, sorted.
	for _, a := range accounts {
		if a.AccountName == "" {
			a.AccountName = a.AccountID
			rep.note("account %s has no name in the file: named by its ID (pass --account-name)", a.AccountID)
		}
		if a.Timezone == "" {
			a.Timezone = "UTC"
		}
		ex.Accounts = append(ex.Accounts, *a)
	}
	slices.SortFunc(ex.Accounts, func(a, b Account) int { return cmp.Compare(a.AccountID, b.AccountID) })
	for _, a := range ex.Accounts {
		rep.Accounts = append(rep.Accounts, fmt.Sprintf("%s (%s, %s)", a.AccountName, a.AccountID, a.Currency))
	}
	ex.Campaigns = sortedRows(campaigns, func(c *ads.Campaign) string { return c.AccountID + "\x00" + c.CampaignID })
	ex.AdSets = sortedRows(adsets, func(s *ads.AdSet) string { return s.AccountID + "\x00" + s.AdSetID })
	ex.Ads = sortedRows(adList, func(a *ads.Ad) string { return a.AccountID + "\x00" + a.AdID })
	rep.Facts, rep.ReachRows = len(ex.Facts), len(ex.Reach)
	rep.Campaigns, rep.AdSets, rep.Ads = len(ex.Campaigns), len(ex.AdSets), len(ex.Ads)
	return nil
}

// compareFacts orders facts by account, date, campaign, ad set, ad, country,
// device and publisher platform.
func compareFacts(a, b ads.Fact) int {
	if c := strings.Compare(a.AccountID, b.AccountID); c != 0 {
		return c
	}
	if c := a.Date.Compare(b.Date); c != 0 {
		return c
	}
	for _, p := range [...][2]string{{a.CampaignID, b.CampaignID}, {a.AdSetID, b.AdSetID}, {a.AdID, b.AdID},
		{a.Country, b.Country}, {a.Device, b.Device}, {a.PublisherPlatform, b.PublisherPlatform}} {
		if c := strings.Compare(p[0], p[1]); c != 0 {
			return c
		}
	}
	return 0
}

func sortedRows[T any](m map[string]*T, key func(*T) string) []T {
	list := make([]*T, 0, len(m))
	for _, v := range m {
		list = append(list, v)
	}
	slices.SortFunc(list, func(a, b *T) int { return cmp.Compare(key(a), key(b)) })
	out := make([]T, len(list))
	for i, v := range list {
		out[i] = *v
	}
	return out
}

// checkTotals compares the totals lines' spend with the rows': a mismatch is
// reported (a filtered export, or Google's account total that includes what the
// report leaves out), not an error.
func (p *parser) checkTotals(totals []totalsRow, sum int64) {
	var checked []totalsRow
	for _, t := range totals {
		if t.ok {
			checked = append(checked, t)
		}
	}
	if len(checked) == 0 {
		return
	}
	for _, t := range checked {
		if t.spend == sum {
			p.rep.note("totals line %d matches the sum of the rows (spend %s)", t.line, FormatMicros(sum))
			return
		}
	}
	t := checked[0]
	p.rep.note("the totals line %d says spend %s, the rows sum to %s: the export may be filtered or leave rows out",
		t.line, FormatMicros(t.spend), FormatMicros(sum))
}

// FormatMicros writes micros as a decimal with two or more decimals: 1234.5 → "1234.50".
func FormatMicros(m int64) string {
	neg := m < 0
	if neg {
		m = -m
	}
	s := strconv.FormatInt(m/1_000_000, 10) + "." + fmt.Sprintf("%06d", m%1_000_000)
	s = strings.TrimRight(s, "0")
	if i := strings.IndexByte(s, '.'); len(s)-i < 3 {
		s += strings.Repeat("0", 3-(len(s)-i))
	}
	if neg {
		s = "-" + s
	}
	return s
}
