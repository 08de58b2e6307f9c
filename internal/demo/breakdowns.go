package demo

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/adsmcp/adsmcp/internal/catalog"
)

// Breakdown sets (catalog.BreakdownSet) other than delivery: for every campaign
// and day with delivery, the rows the account's platform reports in its age ×
// gender (Google: age, gender), placement and conversion action reports, stored
// per campaign; Meta's device × publisher_platform rows (device_platform),
// stored per ad: the delivery rows summed over country, which Insights does
// not report with them; and Google's countries (location), stored per ad
// group: the delivery rows summed over ads, as user_location_view reports
// them. They are made FROM the day's delivery rows, after them: each
// set's rows split the campaign-day's delivery totals exactly (integer splits,
// money in whole cents, Google conversions in quarters), so "spend by age"
// always adds up to "spend". The shares come from the campaign's audience (its
// targeting and skew: who it reaches, which placements it runs on) with a little
// daily noise, and the per-cell rates from how ageBrackets, genders and placements
// usually behave (older people convert more and buy dearer, reels are cheap and
// watched, the right-hand column is cheap and ignored), so answers look real.
//
// Their random numbers come from streams of their own (tagAudience at plan
// time, tagBreakdowns per campaign while generating): adding them left every
// delivery row, campaign and reach row exactly as it was.

// Ages, genders as the catalog names them (catalog "age", "gender").
var (
	ageBrackets = []string{"18-24", "25-34", "35-44", "45-54", "55-64", "65+"}
	genders     = []string{"female", "male", "unknown"}
)

// unknown is the value of a breakdown the platform could not tell (Google's
// undetermined age and gender, a placement row of delivery whose device was
// lost): breakdown rows never have an empty dimension.
const unknown = "unknown"

// rates are a cell's performance relative to the campaign's: cost per
// impression, clicks per impression, conversions per click, value per
// conversion, video views per impression.
type rates struct{ cpm, ctr, cvr, aov, view float64 }

// Per-age and per-gender rates (the unknown age, Google's, is the last entry).
var (
	ageRates = []rates{
		{0.85, 1.15, 0.6, 0.75, 1.25}, {1, 1.05, 0.95, 0.95, 1.1}, {1.08, 1, 1.15, 1.05, 1},
		{1.1, 0.95, 1.2, 1.15, 0.9}, {1.02, 0.9, 1.1, 1.2, 0.85}, {0.95, 0.85, 0.95, 1.15, 0.8},
		{0.9, 0.9, 0.8, 1, 1}, // unknown
	}
	genderRates = []rates{{1.08, 1.05, 1.1, 1, 1}, {0.95, 0.95, 0.9, 1, 1}, {0.9, 0.8, 0.7, 1, 1}}
)

// Typical age mix of the people an ad reaches, by platform (Meta skews older
// than TikTok), and the share Google cannot place in an age or gender.
var (
	ageMix = map[string][]float64{
		metaAds:   {0.12, 0.27, 0.24, 0.17, 0.12, 0.08},
		googleAds: {0.13, 0.24, 0.21, 0.17, 0.14, 0.11},
		tiktokAds: {0.34, 0.33, 0.18, 0.09, 0.04, 0.02},
	}
	unknownGender = map[string]float64{metaAds: 0.015, googleAds: 0.18, tiktokAds: 0.04}
	// femaleShare by vertical: skincare reaches mostly women, outdoor mostly men.
	femaleShare = map[string]float64{"outdoor": 0.4, "garden": 0.6, "skincare": 0.78, "nutrition": 0.45, "home": 0.66}
)

// placement is one Meta platform_position of a publisher platform.
type placement struct {
	name    string
	weight  float64
	devices [3]bool // the devices it exists on (mobile, desktop, tablet)
	manual  bool    // among the few a manual-placement campaign picks
	rates   rates
}

var (
	anyDevice = [3]bool{true, true, true}
	handheld  = [3]bool{true, false, true}
	desktop   = [3]bool{false, true, false}
)

// metaPlacements by publisher platform (Threads is left out: the delivery rows
// have no threads publisher, and the placement rows must add up to them).
var metaPlacements = map[string][]placement{
	"facebook": {
		{"feed", 0.5, anyDevice, true, rates{1.1, 1.1, 1.1, 1, 0.9}},
		{"story", 0.14, handheld, true, rates{0.8, 0.7, 0.9, 1, 1.2}},
		{"reels", 0.14, handheld, false, rates{0.7, 0.6, 0.8, 1, 1.7}},
		{"marketplace", 0.08, anyDevice, false, rates{0.9, 0.9, 1.1, 1, 0.5}},
		{"video_feeds", 0.07, anyDevice, false, rates{0.8, 0.7, 0.8, 1, 1.8}},
		{"right_hand_column", 0.05, desktop, false, rates{0.4, 0.45, 0.9, 1, 0}},
		{"search", 0.02, anyDevice, false, rates{1.2, 1.4, 1.3, 1, 0.4}},
	},
	"instagram": {
		{"feed", 0.45, anyDevice, true, rates{1.1, 1.05, 1.1, 1, 0.9}},
		{"story", 0.27, handheld, true, rates{0.85, 0.8, 0.9, 1, 1.2}},
		{"reels", 0.2, handheld, true, rates{0.75, 0.7, 0.85, 1, 1.6}},
		{"explore", 0.08, handheld, false, rates{0.9, 0.9, 0.9, 1, 1}},
	},
	"messenger": {
		{"inbox", 0.7, anyDevice, true, rates{0.9, 1, 1, 1, 0.5}},
		{"story", 0.3, handheld, false, rates{0.8, 0.8, 0.9, 1, 1.2}},
	},
	"audience_network": {
		{"classic", 0.65, handheld, true, rates{0.9, 1, 0.9, 1, 0.8}},
		{"rewarded_video", 0.35, handheld, false, rates{0.8, 0.8, 0.7, 1, 1.8}},
	},
}

// Conversion actions: the default action each platform's conversions count
// (the account's ConversionActions) and the extra ones its reports split by
// action also hold. Meta and TikTok name them as their APIs do, without
// prefixes; Google by the names the account gave its conversion actions.
var defaultAction = map[string]string{metaAds: "purchase", tiktokAds: "complete_payment"}

// extraAction is an action counted besides the default one: its count per click
// (plus per default conversion), and its value per count relative to a default
// conversion's.
type extraAction struct {
	name                 string
	perClick, perConv    float64
	leadsPerClick, value float64 // leadsPerClick replaces perClick in lead-generation campaigns
}

var extraActions = map[string][]extraAction{
	metaAds: {
		{name: "add_to_cart", perClick: 0.01, perConv: 3, leadsPerClick: 0.004, value: 0.9},
		{name: "lead", perClick: 0.0015, leadsPerClick: 0.09},
		{name: "complete_registration", perClick: 0.004, leadsPerClick: 0.02},
	},
	tiktokAds: {
		{name: "add_to_cart", perClick: 0.008, perConv: 2.5, leadsPerClick: 0.008, value: 0.85},
		{name: "form_submit", perClick: 0.002, leadsPerClick: 0.002},
	},
}

// googleAction is one of a Google account's primary conversion actions: its
// share of the conversions and its value per conversion relative to the mean.
type googleAction struct {
	name         string
	share, value float64
}

// googleActions are each Google demo account's primary conversion actions, in
// the order its ConversionActions lists them.
var googleActions = map[string][]googleAction{
	"outdoor":   {{"Purchase", 0.82, 1.18}, {"Lead form", 0.18, 0.2}},
	"skincare":  {{"Purchase", 1, 1}},
	"nutrition": {{"Purchase", 0.7, 1.1}, {"Subscribe", 0.3, 0.8}},
	"home":      {{"Purchase", 0.9, 1.08}, {"Request a quote", 0.1, 0.3}},
}

// minCell is the impressions a cell must expect on a campaign-day to get a
// share: a small campaign's day reaches few age × gender cells and
// placements, which keeps the breakdown rows in proportion to the delivery.
const minCell = 60

// audience is a campaign's people and placements.
type audience struct {
	age    []float64 // share of impressions by age; Google: and unknown last
	gender []float64 // female, male, unknown
	// manual: the campaign runs on a few chosen placements rather than all
	// (Meta's Advantage+ placements).
	manual bool
}

// newAudience draws campaign i's audience from its own stream: its age
// targeting (a third of campaigns target an age range), its lean, and its
// placements.
func (p *plan) newAudience(a *accountPlan, i int) *audience {
	spec := a.spec
	r := newRand(p.cfg.Seed, tagAudience, a.key, uint64(i))
	mix := ageMix[spec.Platform]
	au := &audience{age: make([]float64, len(mix))}
	lo, hi := 0, len(mix)-1
	if r.Float64() < 0.33 {
		lo = r.IntN(3)
		hi = min(len(mix)-1, lo+2+r.IntN(3))
	}
	for k := range mix {
		if k >= lo && k <= hi {
			au.age[k] = mix[k] * lognormal(r, 0.35)
		}
	}
	if spec.Platform == googleAds {
		au.age = append(au.age, sum(au.age)*between(r, 0.15, 0.35)) // age undetermined
	}
	f := min(0.92, max(0.08, femaleShare[spec.vertical]+r.NormFloat64()*0.08))
	u := unknownGender[spec.Platform] * lognormal(r, 0.3)
	au.gender = []float64{f * (1 - u), (1 - f) * (1 - u), u}
	au.manual = r.Float64() < 0.4
	return au
}

// jitter is a cheap noise factor with mean 1 and standard deviation sd
// (uniform; sd ≤ 0.5 keeps it positive): the daily wobble of a cell's share,
// drawn for every cell of every campaign-day, where lognormal's exp would
// double the time the breakdown rows take.
func jitter(r *rand.Rand, sd float64) float64 {
	return 1 + sd*math.Sqrt(3)*(2*r.Float64()-1)
}

func sum(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}

// cell is one row of a breakdown set being split: its expected share of the
// impressions, its rates, and its dimension values.
type cell struct {
	w                                       float64
	rates                                   rates
	age, gender, pub, place, device, action string
}

// totals are measures summed over delivery rows.
type totals = [catalog.NumMeasures]float64

// group is the delivery of one (publisher_platform, device) of a campaign-day.
type group struct {
	pub, device string
	tot         totals
}

// breakdownGen makes an account's breakdown rows.
type breakdownGen struct {
	g    *accountGen
	sets []catalog.BreakdownSet // the platform's sets but delivery
	// rands: one stream per campaign, apart from the delivery's.
	rands []*rand.Rand
	// byCampaign maps a campaign ID to its index in the account's campaigns.
	byCampaign map[string]int
	// The day's delivery by campaign; reused every day.
	tot    []totals
	seen   []bool
	groups [][]group
	// Scratch space of a split.
	cells []cell
	out   [catalog.NumMeasures][]int64
	w     []float64
	caps  []int64
}

func newBreakdownGen(g *accountGen) *breakdownGen {
	b := &breakdownGen{g: g, byCampaign: map[string]int{}}
	for _, s := range catalog.PlatformSets(g.a.spec.Platform) {
		if s.Key != catalog.Delivery {
			b.sets = append(b.sets, s)
		}
	}
	for ci, c := range g.a.campaigns {
		b.rands = append(b.rands, newRand(g.p.cfg.Seed, tagBreakdowns, g.a.key, uint64(c.idx)))
		b.byCampaign[c.CampaignID] = ci
	}
	n := len(g.a.campaigns)
	b.tot, b.seen, b.groups = make([]totals, n), make([]bool, n), make([][]group, n)
	return b
}

// day appends the breakdown rows of day d, whose delivery rows (with their
// artifacts) are g.batch[start:]: campaign by campaign, set by set. A
// campaign's totals include its artifacts (rows that lost their country or
// device still belong to the campaign), so every set adds up to what the
// delivery rows give for the campaign; in the placement set, what lost its
// publisher or device is a row with "unknown" there.
func (b *breakdownGen) day(d, start int) {
	g := b.g
	end := len(g.batch)
	for ci := range b.tot {
		b.tot[ci], b.seen[ci], b.groups[ci] = totals{}, false, b.groups[ci][:0]
	}
	ci, last := -1, ""
	for i := start; i < end; i++ {
		f := &g.batch[i]
		if f.CampaignID == "" {
			continue // an artifact of the account alone: no campaign's report has it
		}
		if f.CampaignID != last { // a campaign's delivery rows come together
			ci, last = b.byCampaign[f.CampaignID], f.CampaignID
		}
		b.seen[ci] = true
		add(&b.tot[ci], &f.Measures)
		pub, dev := f.PublisherPlatform, f.Device
		if pub == "" {
			pub = unknown
		}
		if dev == "" {
			dev = unknown
		}
		gs := b.groups[ci]
		k := slices.IndexFunc(gs, func(x group) bool { return x.pub == pub && x.device == dev })
		if k < 0 {
			gs = append(gs, group{pub: pub, device: dev})
			k = len(gs) - 1
		}
		add(&gs[k].tot, &f.Measures)
		b.groups[ci] = gs
	}
	date := g.p.dates[d]
	for _, s := range b.sets {
		if s.Level > catalog.LevelCampaign {
			b.perObject(s, start, end)
		}
	}
	for ci, c := range g.a.campaigns {
		if !b.seen[ci] {
			continue
		}
		for _, s := range b.sets {
			row := func(x *cell, m *totals) {
				g.batch = append(g.batch, Fact{Date: date, AccountID: c.AccountID, CampaignID: c.CampaignID,
					Breakdown: s.Key, Age: x.age, Gender: x.gender, PublisherPlatform: x.pub,
					Placement: x.place, Device: x.device, ConversionAction: x.action, Measures: *m})
			}
			switch s.Key {
			case "age_gender", "age", "gender":
				b.demographic(ci, s.Key, row)
			case "placement":
				b.placements(ci, row)
			case "conversion_action":
				b.actions(ci, c, s, row)
			}
		}
	}
}

// perObject appends the rows of set s, kept per ad like delivery (Meta's
// device_platform) or per ad group (Google's location): the day's delivery
// rows g.batch[start:end], artifacts included, summed over the delivery
// dimensions s does not carry and, per ad group, over ads, so they add up to
// the delivery exactly — but for a set of campaigns' or ad groups' reports,
// which no account-alone artifact is in (catalog.BreakdownSet
// PerObjectReports). It draws no random number.
func (b *breakdownGen) perObject(s catalog.BreakdownSet, start, end int) {
	g := b.g
	keep := func(dim, v string) string {
		if s.Holds([]string{dim}) {
			return v
		}
		return ""
	}
	type key struct{ campaign, adset, ad, country, device, pub string }
	at := map[key]int{}
	for i := start; i < end; i++ {
		f := g.batch[i] // a copy: appending may move the batch
		if s.PerObjectReports() && f.CampaignID == "" {
			continue // an artifact of the account alone: no campaign's report has it
		}
		if s.Level < catalog.LevelAd {
			f.AdID = ""
		}
		k := key{f.CampaignID, f.AdSetID, f.AdID, keep("country", f.Country), keep("device", f.Device), keep("publisher_platform", f.PublisherPlatform)}
		if j, ok := at[k]; ok {
			add(&g.batch[j].Measures, &f.Measures)
			continue
		}
		at[k] = len(g.batch)
		g.batch = append(g.batch, Fact{Date: f.Date, AccountID: f.AccountID, CampaignID: f.CampaignID, AdSetID: f.AdSetID, AdID: f.AdID,
			Breakdown: s.Key, Country: k.country, Device: k.device, PublisherPlatform: k.pub, Measures: f.Measures})
	}
}

// add adds the reported measures of m to t.
func add(t, m *totals) {
	for k, v := range m {
		if v != NotReported {
			t[k] += v
		}
	}
}

// demographic emits campaign ci's age × gender (or age, or gender) rows.
func (b *breakdownGen) demographic(ci int, key string, row func(*cell, *totals)) {
	au := b.g.a.campaigns[ci].aud
	r := b.rands[ci]
	b.cells = b.cells[:0]
	ageVal := func(k int) string {
		if k < len(ageBrackets) {
			return ageBrackets[k]
		}
		return unknown
	}
	switch key {
	case "age_gender":
		for k, aw := range au.age {
			for j, gw := range au.gender {
				if aw*gw > 0 {
					b.cells = append(b.cells, cell{w: aw * gw * jitter(r, 0.08), rates: times(ageRates[k], genderRates[j]),
						age: ageVal(k), gender: genders[j]})
				}
			}
		}
	case "age":
		for k, aw := range au.age {
			if aw > 0 {
				b.cells = append(b.cells, cell{w: aw * jitter(r, 0.08), rates: ageRates[k], age: ageVal(k)})
			}
		}
	case "gender":
		for j, gw := range au.gender {
			b.cells = append(b.cells, cell{w: gw * jitter(r, 0.08), rates: genderRates[j], gender: genders[j]})
		}
	}
	if b.g.a.spec.Platform == tiktokAds {
		b.cells = mergeOldest(b.cells)
	}
	b.emitSplit(ci, &b.tot[ci], row)
}

// tiktokOldest is TikTok's oldest age bracket (AGE_55_100): TikTok reports
// no 55-64 or 65+, so its accounts' demo rows hold 55+ instead.
const tiktokOldest = "55+"

// mergeOldest merges the 55-64 and 65+ cells of each gender into one 55+
// cell, its weight their sum and its rates their weighted mean. It draws no
// random number, so every other row stays as it was.
func mergeOldest(cells []cell) []cell {
	out := cells[:0]
	at := map[string]int{} // gender → index in out of its 55+ cell
	for _, c := range cells {
		if c.age != "55-64" && c.age != "65+" {
			out = append(out, c)
			continue
		}
		i, ok := at[c.gender]
		if !ok {
			c.age = tiktokOldest
			at[c.gender] = len(out)
			out = append(out, c)
			continue
		}
		m := &out[i]
		w := m.w + c.w
		mix := func(a, b float64) float64 { return (a*m.w + b*c.w) / w }
		m.rates = rates{mix(m.rates.cpm, c.rates.cpm), mix(m.rates.ctr, c.rates.ctr), mix(m.rates.cvr, c.rates.cvr),
			mix(m.rates.aov, c.rates.aov), mix(m.rates.view, c.rates.view)}
		m.w = w
	}
	return out
}

func times(a, c rates) rates {
	return rates{a.cpm * c.cpm, a.ctr * c.ctr, a.cvr * c.cvr, a.aov * c.aov, a.view * c.view}
}

// placements emits campaign ci's placement rows: each (publisher_platform,
// device) of its delivery split across the publisher's placements on that
// device (TikTok: placement = publisher_platform, one row per group).
func (b *breakdownGen) placements(ci int, row func(*cell, *totals)) {
	au := b.g.a.campaigns[ci].aud
	r := b.rands[ci]
	meta := b.g.a.spec.Platform == metaAds
	for gi := range b.groups[ci] {
		gr := &b.groups[ci][gi]
		b.cells = b.cells[:0]
		dev := slices.Index(devices[:], gr.device)
		if pls := metaPlacements[gr.pub]; meta && dev >= 0 {
			for pass := range 2 {
				for _, pl := range pls {
					if pl.devices[dev] && (pl.manual || !au.manual || pass == 1) {
						b.cells = append(b.cells, cell{w: pl.weight * jitter(r, 0.1), rates: pl.rates,
							pub: gr.pub, place: pl.name, device: gr.device})
					}
				}
				if len(b.cells) > 0 {
					break // pass 1 only when none of the manual placements exists on the device
				}
			}
		}
		if len(b.cells) == 0 {
			// TikTok (placement is the publisher), or a Meta group whose
			// device the delivery rows lost (which placements exist depends on
			// it): one row with what is known.
			place := gr.pub
			if meta {
				place = unknown
			}
			b.cells = append(b.cells, cell{w: 1, rates: rates{1, 1, 1, 1, 1}, pub: gr.pub, place: place, device: gr.device})
		}
		b.emitSplit(ci, &gr.tot, row)
	}
}

// actions emits campaign ci's conversion_action rows: the default actions'
// rows carry exactly the delivery conversions and conversion value; Meta and
// TikTok add rows for other actions, with counts of their own, which the
// conversions metric does not count. Google has no extra rows: its
// metrics.conversions segmented by segments.conversion_action holds only the
// primary actions (include_in_conversions_metric), which are the account's
// ConversionActions; secondary actions are only in all_conversions, which
// adsmcp does not store.
func (b *breakdownGen) actions(ci int, c *campaignPlan, s catalog.BreakdownSet, row func(*cell, *totals)) {
	g := b.g
	r := b.rands[ci]
	platform := g.a.spec.Platform
	tot := &b.tot[ci]
	base := g.emptyRow(s)
	emit := func(name string, conv, value float64) {
		if conv <= 0 && value <= 0 {
			return // platforms report no empty rows
		}
		m := base
		m[catalog.Conversions], m[catalog.ConversionValue] = conv, value
		row(&cell{action: name}, &m)
	}
	if platform == googleAds {
		acts := googleActions[g.a.spec.vertical]
		b.scratch(len(acts))
		for k, ga := range acts {
			b.w[k], b.caps[k] = ga.share*lognormal(r, 0.15), math.MaxInt64
		}
		conv, value := b.out[catalog.Conversions], b.out[catalog.ConversionValue]
		splitInt(r, int64(tot[catalog.Conversions]*4), b.w, b.caps, conv) // quarters
		for k, ga := range acts {
			b.w[k], b.caps[k] = float64(conv[k])*ga.value, roomIf(conv[k] > 0)
		}
		splitInt(r, int64(tot[catalog.ConversionValue]/microsPerCent), b.w, b.caps, value)
		for k, ga := range acts {
			emit(ga.name, float64(conv[k])/4, float64(value[k]*microsPerCent))
		}
		return
	}
	emit(defaultAction[platform], tot[catalog.Conversions], tot[catalog.ConversionValue])
	clicks, conv := tot[catalog.Clicks], tot[catalog.Conversions]
	perConv := c.perf.aov * g.a.spec.fx
	if conv > 0 {
		perConv = tot[catalog.ConversionValue] / 1e6 / conv
	}
	leads := c.Objective == "OUTCOME_LEADS"
	for _, x := range extraActions[platform] {
		rate := x.perClick
		if leads {
			rate = x.leadsPerClick
		}
		n := stochRound(r, (clicks*rate+conv*x.perConv)*lognormal(r, 0.2))
		var value float64
		if x.value > 0 {
			value = float64(cents(float64(n) * perConv * x.value * lognormal(r, 0.1)))
		}
		emit(x.name, float64(n), value)
	}
}

// microsPerCent: money is stored in micros, always whole cents.
const microsPerCent = 10_000

// emptyRow is a row of set s before its values: 0 for the measures the
// platform reports, NotReported for the others.
func (g *accountGen) emptyRow(s catalog.BreakdownSet) totals {
	var m totals
	for k := range m {
		if !g.reports[k] {
			m[k] = NotReported
		}
	}
	return m
}

// scratch sizes the split buffers for n cells.
func (b *breakdownGen) scratch(n int) {
	b.w = slices.Grow(b.w[:0], n)[:n]
	b.caps = slices.Grow(b.caps[:0], n)[:n]
	for k := range b.out {
		b.out[k] = slices.Grow(b.out[k][:0], n)[:n]
	}
}

// roomIf is the cap of a cell that may take any amount when ok, none otherwise
// (no spend without impressions, no conversion value without conversions).
func roomIf(ok bool) int64 {
	if ok {
		return math.MaxInt64
	}
	return 0
}

// emitSplit splits tot exactly across b.cells and emits the cells that got
// anything. Cells expecting fewer than minCell impressions are dropped first
// (the biggest stays): their share goes to the others.
func (b *breakdownGen) emitSplit(ci int, tot *totals, row func(*cell, *totals)) {
	g, r := b.g, b.rands[ci]
	cells := b.cells
	if len(cells) > 1 {
		var W float64
		big := 0
		for k, c := range cells {
			W += c.w
			if c.w > cells[big].w {
				big = k
			}
		}
		keep := cells[:0]
		for k, c := range cells {
			if k == big || tot[catalog.Impressions]*c.w/W >= minCell {
				keep = append(keep, c)
			}
		}
		cells = keep
	}
	n := len(cells)
	b.scratch(n)
	o := &b.out
	units := int64(1)
	if g.a.spec.Platform == googleAds {
		units = 4 // conversions in quarters
	}
	// part splits measure m with weights from the cells already split.
	part := func(m catalog.Measure, scale float64, weight func(k int) float64, limit func(k int) int64) {
		if !g.reports[m] {
			return
		}
		for k := range n {
			b.w[k], b.caps[k] = weight(k), limit(k)
		}
		splitInt(r, int64(tot[m]/scale), b.w, b.caps, o[m])
	}
	inf := func(int) int64 { return math.MaxInt64 }
	imps, clicks, conv, views := o[catalog.Impressions], o[catalog.Clicks], o[catalog.Conversions], o[catalog.VideoViews]
	part(catalog.Impressions, 1, func(k int) float64 { return cells[k].w }, inf)
	part(catalog.Spend, microsPerCent, func(k int) float64 { return float64(imps[k]) * cells[k].rates.cpm },
		func(k int) int64 { return roomIf(imps[k] > 0) })
	part(catalog.Clicks, 1, func(k int) float64 { return float64(imps[k]) * cells[k].rates.ctr },
		func(k int) int64 { return imps[k] })
	part(catalog.LinkClicks, 1, func(k int) float64 { return float64(clicks[k]) },
		func(k int) int64 { return clicks[k] })
	part(catalog.Conversions, 1/float64(units), func(k int) float64 { return float64(clicks[k]) * cells[k].rates.cvr },
		func(k int) int64 { return clicks[k] * units })
	part(catalog.ConversionValue, microsPerCent, func(k int) float64 { return float64(conv[k]) * cells[k].rates.aov },
		func(k int) int64 { return roomIf(conv[k] > 0) })
	part(catalog.VideoViews, 1, func(k int) float64 { return float64(imps[k]) * cells[k].rates.view },
		func(k int) int64 { return imps[k] })
	part(catalog.VideoViewsP100, 1, func(k int) float64 { return float64(views[k]) },
		func(k int) int64 { return views[k] })

	scale := [catalog.NumMeasures]float64{catalog.Spend: microsPerCent, catalog.ConversionValue: microsPerCent}
	scale[catalog.Conversions] = 1 / float64(units)
	for k := range n {
		var m totals
		nonzero := false
		for j := range m {
			switch {
			case !g.reports[j]:
				m[j] = NotReported
			default:
				s := scale[j]
				if s == 0 {
					s = 1
				}
				m[j] = float64(o[j][k]) * s
				nonzero = nonzero || m[j] != 0
			}
		}
		if nonzero {
			row(&cells[k], &m)
		}
	}
}

// splitInt splits total units across cells exactly: out[k] ≤ caps[k], in
// proportion to w where the caps allow, each cell getting the whole part of its
// quota and the fractional parts distributed by systematic sampling (a cell
// gets one more unit with the probability of its fraction), so that small
// totals do not all go to the biggest cell. If the caps cannot hold total (the
// callers' caps always can: a part never exceeds its whole), the rest goes to
// the first cell, keeping the sum exact.
func splitInt(r *rand.Rand, total int64, w []float64, caps []int64, out []int64) {
	for k := range out {
		out[k] = 0
	}
	rem := total
	for rem > 0 {
		var W float64
		room := false
		for k := range out {
			if out[k] < caps[k] {
				room = true
				W += w[k]
			}
		}
		if !room {
			out[0] += rem
			return
		}
		even := W == 0 // no weight where there is room: spread evenly
		weight := func(k int) float64 {
			switch {
			case out[k] >= caps[k]:
				return 0
			case even:
				return 1
			}
			return w[k]
		}
		if even {
			for k := range out {
				W += weight(k)
			}
		}
		rem0, filled := float64(rem), false
		for k := range out {
			if wk := weight(k); wk > 0 && rem0*wk/W >= float64(caps[k]-out[k]) {
				rem -= caps[k] - out[k]
				out[k], filled = caps[k], true
			}
		}
		if filled {
			continue // spread the rest over the cells with room
		}
		u, acc, last := r.Float64(), 0.0, -1
		for k := range out {
			wk := weight(k)
			if wk == 0 {
				continue
			}
			q := rem0 * wk / W
			whole := math.Floor(q)
			frac := q - whole
			n := int64(whole)
			if math.Floor(acc+frac-u) > math.Floor(acc-u) {
				n++
				last = k
			}
			acc += frac
			out[k] += n
			rem -= n
		}
		if rem < 0 && last >= 0 { // rounding error picked one too many
			out[last]--
			rem++
		}
	}
	for rem < 0 { // rounding error beyond that: take back from the biggest
		k := 0
		for j := range out {
			if out[j] > out[k] {
				k = j
			}
		}
		out[k]--
		rem++
	}
}

// expectedBreakdownRows estimates the campaign's breakdown rows for the
// progress bar: on each day it delivers, a cell has a row when it expects at
// least minCell impressions (emitSplit), an action when it expects a count.
func (c *campaignPlan) expectedBreakdownRows(spec *accountSpec) float64 {
	imps := c.budget / (c.perf.cpm * spec.fx) * 1000 // a typical day's
	cells := func(ws []float64, of float64) float64 {
		total := sum(ws)
		n := 0.0
		for _, w := range ws {
			if w > 0 && of*w/total >= minCell {
				n++
			}
		}
		return max(n, 1)
	}
	var n float64
	switch spec.Platform {
	case googleAds:
		n += cells(c.aud.age, imps) + cells(c.aud.gender, imps)
	default:
		var ag []float64
		for _, a := range c.aud.age {
			for _, g := range c.aud.gender {
				ag = append(ag, a*g)
			}
		}
		n += cells(ag, imps)
		// Placement: the (publisher, device) groups of its ads, each split
		// across the publisher's placements on the device.
		pubs := map[*publisher]float64{}
		var total float64
		for _, s := range c.adsets {
			for _, ad := range s.ads {
				pubs[ad.pub] += s.weight * ad.weight
				total += s.weight * ad.weight
			}
		}
		for pub, w := range pubs {
			for dev, share := range pub.devices {
				gi := imps * w / total * share
				if share == 0 || gi < 1 {
					continue
				}
				var ws []float64
				for _, pl := range metaPlacements[pub.name] {
					if pl.devices[dev] && (pl.manual || !c.aud.manual) {
						ws = append(ws, pl.weight)
					}
				}
				if spec.Platform == metaAds && len(ws) > 0 {
					n += cells(ws, gi)
				} else {
					n++
				}
			}
		}
	}
	clicks := imps * c.perf.ctr
	n += min(1, clicks*c.perf.cvr)
	for _, x := range extraActions[spec.Platform] {
		n += min(1, clicks*x.perClick+clicks*c.perf.cvr*x.perConv)
	}
	return n * float64(c.last-c.first+1)
}
