package importer

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// factKey is what makes a fact: the warehouse's finest grain, in a
// breakdown set (set "" is delivery).
type factKey struct {
	account, campaign, adset, ad, country, device, platform string
	set, age, gender, placement, action                     string
	day                                                     int64
}

// build turns the parsed lines into the warehouse's rows and fills the report.
func (p *parser) build(ex *Export, rows []row, totals []totalsRow) error {
	if err := p.dateRange(ex, rows); err != nil {
		return err
	}
	b := newBuilder(p, ex, len(rows))
	for i := range rows {
		if err := b.add(&rows[i]); err != nil {
			return err
		}
	}
	// Facts, in the order the warehouse wants them.
	slices.SortFunc(ex.Facts, compareFacts)
	b.addReach()
	b.noteMerged()
	p.checkTotals(totals, b.spendSum)
	b.finishObjects()
	return nil
}

// dateRange sets the dates the file covers: its stated range, else its first to
// its last day. A row outside a stated range is an error.
func (p *parser) dateRange(ex *Export, rows []row) error {
	if len(rows) == 0 && p.periodLine > 0 {
		return p.errAt(p.periodLine, 0, "", "the lines cover several days each; the warehouse stores days and cannot split a period's totals into them",
			dayFix(p.platform))
	}
	if len(rows) == 0 {
		return &Error{File: p.file, Line: p.header.line(), Reason: "no data rows after the header",
			Fix: "export a period with delivery, or check that the file is the report itself"}
	}
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
	p.rep.First, p.rep.Last = first.Format(time.DateOnly), last.Format(time.DateOnly)
	return nil
}

// builder accumulates the rows of an export line by line.
type builder struct {
	p   *parser
	ex  *Export
	rep *Report

	accounts    map[string]*Account
	campaigns   map[string]*ads.Campaign
	campaignDay map[string]time.Time // the day a campaign's name and attributes were last set
	started     map[string]bool      // the campaign's StartDate is a day of delivery
	adsets      map[string]*ads.AdSet
	ads         map[string]*ads.Ad
	facts       map[factKey]int // index in ex.Facts
	derived     map[string]string

	reach       map[factKey]int64
	keepReach   bool
	reachWhy    string // why reach is not imported, when the file has it
	merged      map[factKey]bool
	mergedLines int
	// summedUp counts the lines of a breakdown set's export summed up into
	// its campaign's rows (from ad sets and ads, or other breakdowns).
	summedUp int
	// byAction: the lines also give conversion_action rows (actionRows of
	// them).
	byAction    bool
	actionRows  int
	nonConv     []string // result types that are not conversions
	nonConvRows int
	spendSum    int64
}

func newBuilder(p *parser, ex *Export, rows int) *builder {
	b := &builder{p: p, ex: ex, rep: p.rep,
		accounts: map[string]*Account{}, campaigns: map[string]*ads.Campaign{}, campaignDay: map[string]time.Time{},
		started: map[string]bool{}, adsets: map[string]*ads.AdSet{}, ads: map[string]*ads.Ad{},
		facts: make(map[factKey]int, rows), derived: map[string]string{},
		reach: map[factKey]int64{}, merged: map[factKey]bool{}}
	ex.Facts = make([]ads.Fact, 0, rows)
	b.reachWhy = p.reachWhy()
	b.keepReach = p.has(colReach) && b.reachWhy == ""
	b.byAction = p.byAction()
	return b
}

// reachWhy says why the file's reach cannot be imported ("" when it can, or the
// file has none): reach is exact only where a line is a whole account or
// campaign on one day.
func (p *parser) reachWhy() string {
	switch {
	case !p.has(colReach):
	case p.platform == Google:
		return "Google Ads does not report reach"
	case p.rep.Level == "adset" || p.rep.Level == "ad":
		return "the rows are " + map[string]string{"adset": p.adSets(), "ad": "ads"}[p.rep.Level] +
			", and reach (distinct people) is stored per account and per campaign only: it cannot be summed up to them"
	case p.set != catalog.Delivery:
		return "the rows are broken down by " + p.set + ", and reach (distinct people) is never stored per breakdown"
	case p.has(colCountry) || p.has(colDevice) || p.has(colPublisher) || len(p.breakdowns) > 0:
		return "the rows are broken down (country, device, region…), and reach of the parts cannot be summed"
	}
	return ""
}

// derive is DeriveID, remembered.
func (b *builder) derive(names ...string) string {
	key := strings.Join(names, "\x00")
	id, ok := b.derived[key]
	if !ok {
		id = DeriveID(b.p.platform, names[0], names[1:]...)
		b.derived[key] = id
	}
	return id
}

// add takes one line: its account and objects, then its metrics into a new fact
// or summed into the fact of the same key.
func (b *builder) add(r *row) error {
	b.spendSum += int64(r.measures[catalog.Spend])
	if err := b.account(r); err != nil {
		return err
	}
	cid, sid, adid := b.objects(r)
	if b.p.setLevel() < catalog.LevelAd {
		adid = "" // the set keeps no ads (Google's location: ad groups)
	}
	if r.nonConversion != "" {
		b.nonConvRows++
		if !slices.Contains(b.nonConv, r.nonConversion) {
			b.nonConv = append(b.nonConv, r.nonConversion)
		}
	}
	if !r.active() {
		b.rep.skip("no activity (every metric 0 or empty)", r.line)
		return nil
	}
	if c := b.campaigns[cid]; c != nil && (!b.started[cid] || r.day.Before(c.StartDate)) {
		c.StartDate, b.started[cid] = r.day, true // the first day of delivery
	}
	b.rep.RowsImported++
	if b.p.perCampaign() {
		b.addSetRow(r, cid)
		return nil
	}
	if b.byAction {
		b.addActions(r, cid)
	}
	k := factKey{account: r.accountID, campaign: cid, adset: sid, ad: adid,
		country: r.country, device: r.device, platform: r.platform, day: r.day.Unix()}
	i, seen := b.facts[k]
	if !seen {
		b.facts[k] = len(b.ex.Facts)
		b.ex.Facts = append(b.ex.Facts, ads.Fact{Date: r.day, AccountID: r.accountID, CampaignID: cid, AdSetID: sid, AdID: adid,
			Country: r.country, Device: r.device, PublisherPlatform: r.platform, Breakdown: b.p.adLevelSet(), Measures: r.measures})
		if b.keepReach && r.reach >= 0 {
			b.reach[k] = r.reach
		}
		return nil
	}
	b.merged[k] = true
	b.mergedLines++
	f := &b.ex.Facts[i]
	for m, v := range r.measures {
		if v != ads.NotReported {
			f.Measures[m] += v
		}
	}
	return nil
}

// addSetRow adds the line of a breakdown set's export to its campaign's row
// of the same day and values: the set is stored per campaign, so ad set and
// ad lines are summed up (exactly: the measures are additive).
func (b *builder) addSetRow(r *row, cid string) {
	k := factKey{account: r.accountID, campaign: cid, set: b.p.set, device: r.device, platform: r.platform,
		age: r.age, gender: r.gender, placement: r.placement, day: r.day.Unix()}
	if i, seen := b.facts[k]; seen {
		b.summedUp++
		addMeasures(&b.ex.Facts[i], &r.measures)
		return
	}
	b.facts[k] = len(b.ex.Facts)
	b.ex.Facts = append(b.ex.Facts, ads.Fact{Date: r.day, AccountID: r.accountID, CampaignID: cid, Breakdown: b.p.set,
		Device: r.device, PublisherPlatform: r.platform, Age: r.age, Gender: r.gender, Placement: r.placement, Measures: r.measures})
}

// addActions adds the line's conversions by action to its campaign's
// conversion_action rows of the day: purchase from the conversions measure
// (the Purchases column), the others from their columns. Only conversions
// and conversion_value are meaningful on them; the other measures are 0, or
// NotReported where the delivery rows' are.
func (b *builder) addActions(r *row, cid string) {
	add := func(action string, n, value float64) {
		if n == 0 && value == 0 {
			return
		}
		k := factKey{account: r.accountID, campaign: cid, set: ConversionActionSet, action: action, day: r.day.Unix()}
		i, seen := b.facts[k]
		if !seen {
			var m [catalog.NumMeasures]float64
			for j, v := range r.measures {
				if v == ads.NotReported {
					m[j] = ads.NotReported
				}
			}
			i = len(b.ex.Facts)
			b.facts[k] = i
			b.ex.Facts = append(b.ex.Facts, ads.Fact{Date: r.day, AccountID: r.accountID, CampaignID: cid,
				Breakdown: ConversionActionSet, ConversionAction: action, Measures: m})
			b.actionRows++
		}
		f := &b.ex.Facts[i]
		f.Measures[catalog.Conversions] += n
		if f.Measures[catalog.ConversionValue] != ads.NotReported {
			f.Measures[catalog.ConversionValue] += value
		}
	}
	value := r.measures[catalog.ConversionValue]
	if value == ads.NotReported {
		value = 0
	}
	add(purchaseAction, r.measures[catalog.Conversions], value)
	for i, a := range metaActions {
		add(a.action, r.actions[i][0], r.actions[i][1])
	}
}

// addMeasures sums m into f's measures (a NotReported measure stays so).
func addMeasures(f *ads.Fact, m *[catalog.NumMeasures]float64) {
	for j, v := range m {
		if v != ads.NotReported && f.Measures[j] != ads.NotReported {
			f.Measures[j] += v
		}
	}
}

// active: some metric of the line is not 0 (nor empty).
func (r *row) active() bool {
	for _, v := range r.measures {
		if v > 0 {
			return true
		}
	}
	for _, a := range r.actions {
		if a[0] > 0 || a[1] > 0 {
			return true
		}
	}
	return r.reach > 0
}

// account records the line's account; an account has one currency.
func (b *builder) account(r *row) error {
	a := b.accounts[r.accountID]
	if a == nil {
		a = &Account{Account: ads.Account{AccountID: r.accountID, Platform: b.p.platform, AccountName: r.accountName,
			Currency: r.currency, Timezone: b.p.opt.Timezone, Status: "ACTIVE"}}
		a.NameKnown = r.accountName != ""
		a.TimezoneKnown = a.Timezone != ""
		b.accounts[r.accountID] = a
	}
	if a.Currency != r.currency {
		return b.p.errAt(r.line, b.p.colNumber(colCurrency), r.currency,
			fmt.Sprintf("account %s is in %s on an earlier line", r.accountID, a.Currency), "an account has one currency: export the report again")
	}
	if !a.NameKnown && r.accountName != "" {
		a.AccountName, a.NameKnown = r.accountName, true
	}
	return nil
}

// objects records the line's campaign, ad set and ad (IDs derived from names
// where the file has none) and returns their IDs ("" where the line has none).
func (b *builder) objects(r *row) (cid, sid, adid string) {
	if r.campaignID == "" && r.campaignName == "" {
		return "", "", ""
	}
	cid = b.campaign(r)
	cname := cmp.Or(r.campaignName, r.campaignID)
	if r.adsetID == "" && r.adsetName == "" {
		return cid, "", ""
	}
	sid = r.adsetID
	if sid == "" {
		sid = b.derive(r.accountID, cname, r.adsetName)
	}
	s := b.adsets[sid]
	if s == nil {
		s = &ads.AdSet{AdSetID: sid, CampaignID: cid, AccountID: r.accountID}
		b.adsets[sid] = s
	}
	if r.adsetName != "" {
		s.Name = r.adsetName
	}
	if r.adID == "" && r.adName == "" {
		return cid, sid, ""
	}
	adid = r.adID
	if adid == "" {
		adid = b.derive(r.accountID, cname, cmp.Or(r.adsetName, r.adsetID), r.adName)
	}
	ad := b.ads[adid]
	if ad == nil {
		ad = &ads.Ad{AdID: adid, AdSetID: sid, CampaignID: cid, AccountID: r.accountID}
		b.ads[adid] = ad
	}
	if r.adName != "" {
		ad.Name = r.adName
	}
	return cid, sid, adid
}

// campaign records the line's campaign: its earliest day, and its name and
// attributes as of its latest line.
func (b *builder) campaign(r *row) string {
	cid := r.campaignID
	if cid == "" {
		cid = b.derive(r.accountID, r.campaignName)
	}
	c := b.campaigns[cid]
	if c == nil {
		c = &ads.Campaign{CampaignID: cid, AccountID: r.accountID, StartDate: r.day}
		b.campaigns[cid] = c
	}
	if !b.started[cid] && r.day.Before(c.StartDate) {
		c.StartDate = r.day
	}
	if !r.day.Before(b.campaignDay[cid]) {
		b.campaignDay[cid] = r.day
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
	return cid
}

// addReach turns the kept reach values into reach rows, per account or
// campaign and day; an object-day on several lines has no exact reach.
func (b *builder) addReach() {
	p, rep, ex := b.p, b.rep, b.ex
	if !p.has(colReach) {
		return
	}
	if !b.keepReach {
		rep.note("reach not imported: %s", b.reachWhy)
		return
	}
	level := "campaign"
	if rep.Level == "account" {
		level = "account"
	}
	dropped := 0
	for k, v := range b.reach {
		if b.merged[k] {
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

// noteMerged reports lines summed into one fact, and Results that are not
// conversions.
func (b *builder) noteMerged() {
	rep := b.rep
	if b.summedUp > 0 {
		rep.note("%d lines summed up into the %s rows of their campaign, day and values (the set is stored per campaign)", b.summedUp, b.p.set)
	}
	if b.actionRows > 0 {
		rep.note("%d conversion_action rows (campaign × day × action)", b.actionRows)
	}
	if b.mergedLines > 0 {
		if len(b.p.breakdowns) > 0 {
			var names []string
			for _, c := range b.p.breakdowns {
				names = append(names, c.header)
			}
			rep.note("%d lines summed into facts of the same day and names: the warehouse has no %s dimension", b.mergedLines, strings.Join(names, "/"))
		} else {
			rep.note("%d lines summed into facts of the same day and names (two objects with the same name and no ID?)", b.mergedLines)
		}
	}
	if b.nonConvRows > 0 {
		rep.note("%d lines have Results that are not conversions (%s): counted as 0 conversions", b.nonConvRows, strings.Join(b.nonConv, ", "))
	}
}

// finishObjects sorts the accounts, campaigns, ad sets and ads into the export
// and counts them in the report.
func (b *builder) finishObjects() {
	p, rep, ex := b.p, b.rep, b.ex
	for _, a := range b.accounts {
		if a.AccountName == "" {
			a.AccountName = a.AccountID
			rep.note("account %s has no name in the file: named by its ID (pass --account-name)", a.AccountID)
		}
		if a.Timezone == "" {
			a.Timezone = "UTC"
		}
		a.AttributionWindow = p.attribution
		if p.platform == Google {
			a.AttributionWindow = catalog.PerActionWindow // each conversion action has its own
		}
		a.ConversionActions = p.conversionActions()
		ex.Accounts = append(ex.Accounts, *a)
	}
	slices.SortFunc(ex.Accounts, func(a, b Account) int { return cmp.Compare(a.AccountID, b.AccountID) })
	for _, a := range ex.Accounts {
		rep.Accounts = append(rep.Accounts, fmt.Sprintf("%s (%s, %s)", a.AccountName, a.AccountID, a.Currency))
	}
	ex.Campaigns = sortedRows(b.campaigns, func(c *ads.Campaign) string { return c.AccountID + "\x00" + c.CampaignID })
	ex.AdSets = sortedRows(b.adsets, func(s *ads.AdSet) string { return s.AccountID + "\x00" + s.AdSetID })
	ex.Ads = sortedRows(b.ads, func(a *ads.Ad) string { return a.AccountID + "\x00" + a.AdID })
	rep.Facts, rep.ReachRows = len(ex.Facts), len(ex.Reach)
	rep.Campaigns, rep.AdSets, rep.Ads = len(ex.Campaigns), len(ex.AdSets), len(ex.Ads)
}

// compareFacts orders facts by account, date, campaign, ad set, ad, country,
// device, publisher platform, breakdown set and the set's values.
func compareFacts(a, b ads.Fact) int {
	if c := strings.Compare(a.AccountID, b.AccountID); c != 0 {
		return c
	}
	if c := a.Date.Compare(b.Date); c != 0 {
		return c
	}
	for _, p := range [...][2]string{{a.CampaignID, b.CampaignID}, {a.AdSetID, b.AdSetID}, {a.AdID, b.AdID},
		{a.Country, b.Country}, {a.Device, b.Device}, {a.PublisherPlatform, b.PublisherPlatform}, {a.Breakdown, b.Breakdown},
		{a.Age, b.Age}, {a.Gender, b.Gender}, {a.Placement, b.Placement}, {a.ConversionAction, b.ConversionAction}} {
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
