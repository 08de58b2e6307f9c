package importer

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/internal/catalog"
)

// mapHeader reads the lines before the header (Google's report name and date
// range) and the header: platform, language, currency, what each column holds.
func (p *parser) mapHeader(preamble []record) error {
	p.readPreamble(preamble)
	defs, currencies := p.lookupHeaders()
	if err := p.choosePlatform(defs, len(preamble) > 0); err != nil {
		return err
	}
	if err := p.assignColumns(defs); err != nil {
		return err
	}
	if err := p.chooseCurrency(currencies); err != nil {
		return err
	}
	if err := p.checkAccount(); err != nil {
		return err
	}
	if err := p.checkDays(); err != nil {
		return err
	}
	if err := p.chooseLevel(); err != nil {
		return err
	}
	if err := p.chooseSet(); err != nil {
		return err
	}
	if err := p.noteMetrics(); err != nil {
		return err
	}
	p.noteActions()
	return nil
}

// readPreamble takes Google's date range and report name from the lines before
// the header.
func (p *parser) readPreamble(preamble []record) {
	for _, r := range preamble {
		line := strings.TrimSpace(strings.Join(r.fields, ","))
		if line == "" {
			continue
		}
		if f, l, ok := parseRange(line, "en"); ok && p.declaredFirst.IsZero() {
			p.declaredFirst, p.declaredLast = f, l
		} else if f, l, ok := parseRange(line, "es"); ok && p.declaredFirst.IsZero() {
			p.declaredFirst, p.declaredLast = f, l
		} else if p.rep.ReportName == "" {
			p.rep.ReportName = line
		}
	}
}

// seenHeader is one header cell looked up in the dictionary.
type seenHeader struct {
	def    headerDef
	folded string
}

// lookupHeaders looks every header cell up; currencies are the currency suffixes
// of known headers ("Amount spent (USD)") with the column that has each.
func (p *parser) lookupHeaders() ([]seenHeader, map[string]int) {
	defs := make([]seenHeader, len(p.header.fields))
	currencies := map[string]int{}
	for i, h := range p.header.fields {
		folded, cur := foldHeader(h)
		d := lookupHeader(folded)
		defs[i] = seenHeader{d, folded}
		if cur != "" && d.kind != colUnknown { // "Amount spent (USD)", "Cost per result (USD)"
			currencies[cur] = i + 1
		}
	}
	return defs, currencies
}

// choosePlatform takes the platform from Options or from the headers: the
// platform whose titles the most columns are (a preamble is Google's). A tie
// is refused: a file that reads as two platforms' export is not guessed. The
// language is the majority's.
func (p *parser) choosePlatform(defs []seenHeader, preamble bool) error {
	var score [len(platformBits)]int
	en, es := 0, 0
	for _, s := range defs {
		for i := range score {
			if s.def.platform&(1<<i) != 0 {
				score[i]++
			}
		}
		switch s.def.lang {
		case "en":
			en++
		case "es":
			es++
		}
	}
	if preamble {
		score[1]++ // Google's report-name and date-range lines
	}
	switch p.opt.Platform {
	case Meta, Google, TikTok:
		p.platform = p.opt.Platform
	case "":
		best := 0
		for i := range score {
			if score[i] > score[best] {
				best = i
			}
		}
		var tied []string
		for i := range score {
			if score[i] == score[best] {
				tied = append(tied, platformBits[i])
			}
		}
		if len(tied) > 1 {
			return p.errAt(p.header.line(), 0, "", "cannot tell from its headers whether this is "+orList(tied, exportName)+" export: "+
				"its columns are titled alike in each", "pass "+orList(tied, func(pl string) string { return "--platform " + pl }))
		}
		p.platform = platformBits[best]
	default:
		return &Error{File: p.file, Reason: fmt.Sprintf("unknown platform %q", p.opt.Platform),
			Fix: "pass --platform meta_ads, --platform google_ads or --platform tiktok_ads, or leave it out to detect it"}
	}
	p.rep.Platform = p.platform
	p.lang = "en"
	if es > en {
		p.lang = "es"
	}
	p.rep.Language = p.lang
	return nil
}

// exportName names a platform's export in messages.
func exportName(platform string) string {
	switch platform {
	case Meta:
		return "a Meta Ads Manager"
	case Google:
		return "a Google Ads"
	}
	return "a TikTok Ads Manager"
}

// orList is "a, b or c" of f of each item.
func orList(items []string, f func(string) string) string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = f(it)
	}
	if len(out) < 2 {
		return strings.Join(out, "")
	}
	return strings.Join(out[:len(out)-1], ", ") + " or " + out[len(out)-1]
}

// assignColumns records what each column holds for this platform; another
// platform's columns are not recognized, and a column twice is an error.
func (p *parser) assignColumns(defs []seenHeader) error {
	bit := bitOf(p.platform)
	var unknown, other []string
	for i, s := range defs {
		h := strings.TrimSpace(p.header.fields[i])
		k := s.def.kindOn(bit) // another platform's column is unknown
		switch k {
		case colUnknown:
			if h != "" {
				unknown = append(unknown, h)
			}
			continue
		case colDerived:
			other = append(other, h)
			continue
		case colBreakdown:
			p.breakdowns = append(p.breakdowns, column{i, h, k})
			continue
		}
		if prev := p.cols[k]; prev != nil {
			return p.errAt(p.header.line(), i+1, "", fmt.Sprintf("a second %s column (column %d %q is one too)", p.kindName(k), prev.index+1, prev.header),
				"export the report again without the duplicate column")
		}
		p.cols[k] = &column{i, h, k}
	}
	if len(other) > 0 {
		p.rep.note("columns recomputed from the imported parts or not stored, ignored: %s", strings.Join(other, ", "))
	}
	if len(unknown) > 0 {
		p.rep.note("columns not recognized, ignored: %s", strings.Join(unknown, ", "))
	}
	return nil
}

// chooseCurrency takes the currency from a header suffix, else Options; a file
// with neither needs a currency column.
func (p *parser) chooseCurrency(currencies map[string]int) error {
	hl := p.header.line()
	if len(currencies) > 1 {
		var list []string
		for c := range currencies {
			list = append(list, c)
		}
		slices.Sort(list)
		return p.errAt(hl, 0, "", "headers name several currencies: "+strings.Join(list, ", "),
			"export one currency (one account, or accounts in the same currency) per file")
	}
	for c, col := range currencies {
		p.currency = c
		if p.opt.Currency != "" && !strings.EqualFold(p.opt.Currency, c) {
			return p.errAt(hl, col, "", fmt.Sprintf("the header says the money is in %s; --currency says %s", c, p.opt.Currency),
				"leave --currency out, or pass the currency of the header")
		}
	}
	if p.currency == "" && p.opt.Currency != "" {
		if !isCurrency(strings.ToUpper(p.opt.Currency)) {
			return &Error{File: p.file, Value: p.opt.Currency, Reason: "--currency is not an ISO 4217 code", Fix: "pass three letters such as USD, EUR, ARS"}
		}
		p.currency = strings.ToUpper(p.opt.Currency)
	}
	if !p.has(colCurrency) && p.currency == "" {
		return p.errAt(hl, 0, "", "the export does not say its currency (no currency column, no currency in a header such as \"Amount spent (USD)\")",
			"pass --currency with the account's ISO 4217 code, e.g. --currency USD")
	}
	return nil
}

// checkAccount: the rows' account comes from a column or Options; a timezone in
// Options must be an IANA zone.
func (p *parser) checkAccount() error {
	if !p.has(colAccountID) && p.opt.AccountID == "" {
		return p.errAt(p.header.line(), 0, "", "the export has no account ID column",
			accountFix(p.platform))
	}
	if tz := p.opt.Timezone; tz != "" {
		if _, err := time.LoadLocation(tz); err != nil || tz == "Local" {
			return &Error{File: p.file, Value: tz, Reason: "--timezone is not an IANA time zone", Fix: "pass a zone such as America/New_York or Europe/Madrid"}
		}
	}
	return nil
}

// checkDays: the rows must be days (a Day column, or one-day reporting periods).
func (p *parser) checkDays() error {
	hl := p.header.line()
	hasDay := p.has(colDay)
	if pc := p.cols[colPeriod]; pc != nil && !hasDay {
		return p.errAt(hl, pc.index+1, "", "the rows are hours, weeks or months; the warehouse stores days", dayFix(p.platform))
	}
	if !hasDay && !p.has(colReportStart) {
		return p.errAt(hl, 0, "", "the export has no Day column", dayFix(p.platform))
	}
	return nil
}

// chooseLevel is the finest object the rows name; a level must name its parents.
func (p *parser) chooseLevel() error {
	hl := p.header.line()
	campaign := p.has(colCampaignName) || p.has(colCampaignID)
	adset := p.has(colAdSetName) || p.has(colAdSetID)
	ad := p.has(colAdName) || p.has(colAdID)
	switch {
	case (adset || ad) && !campaign:
		return p.errAt(hl, 0, "", "the rows name "+p.adSets()+" or ads but not their campaign",
			"add the Campaign name (Meta, TikTok) or Campaign (Google) column to the report")
	case ad && !adset:
		return p.errAt(hl, 0, "", "the rows name ads but not their "+strings.TrimSuffix(p.adSets(), "s"),
			"add the Ad set name (Meta), Ad group (Google) or Ad group name (TikTok) column to the report")
	}
	p.rep.Level = "account"
	switch {
	case ad:
		p.rep.Level = "ad"
	case adset:
		p.rep.Level = "adset"
	case campaign:
		p.rep.Level = "campaign"
	}
	p.tiktokStatus()
	return nil
}

// adSets is what the platform calls ad sets.
func (p *parser) adSets() string {
	if p.platform == Meta {
		return "ad sets"
	}
	return "ad groups"
}

// tiktokStatus drops TikTok's "Primary status" from an ad group or ad report:
// there it is the status of each ad group or ad, not of its campaign.
func (p *parser) tiktokStatus() {
	c := p.cols[colStatus]
	if p.platform != TikTok || c == nil || p.rep.Level == "campaign" || p.rep.Level == "account" {
		return
	}
	if f, _ := foldHeader(c.header); f == "primary status" {
		p.cols[colStatus] = nil
		p.rep.note("%q is each %s's status, not its campaign's: ignored", c.header, map[string]string{"adset": "ad group", "ad": "ad"}[p.rep.Level])
	}
}

// noteMetrics requires spend and says what missing metric columns become.
func (p *parser) noteMetrics() error {
	if !p.has(measureKind(catalog.Spend)) {
		what := `"Amount spent (USD)"`
		if p.platform != Meta {
			what = `"Cost"`
		}
		return p.errAt(p.header.line(), 0, "", "the export has no spend column", "add the "+what+" column to the report")
	}
	if !p.has(measureKind(catalog.Impressions)) {
		p.rep.note("no impressions column: impressions are 0")
	}
	all := p.has(measureKind(catalog.Clicks))
	conversions := p.has(measureKind(catalog.Conversions))
	if p.platform == Google {
		if !all {
			p.rep.note("no clicks column: clicks are 0")
		}
		if !conversions {
			p.rep.note("no Conversions column: conversions are 0")
		}
		return nil
	}
	if p.platform == TikTok {
		p.noteTikTokMetrics()
		return nil
	}
	switch link := p.has(measureKind(catalog.LinkClicks)); {
	case !all && link:
		p.rep.note(`no "Clicks (all)" column: clicks are the link clicks`)
	case !all && !link:
		p.rep.note("no clicks columns: clicks are 0")
	case all && !link:
		p.rep.note(`no "Link clicks" column: link clicks are left empty`)
	}
	switch {
	case conversions:
		p.rep.note("conversions are the Purchases column")
	case p.has(colResults):
		p.rep.note("conversions are the Results column (each campaign's optimization result)")
	default:
		p.rep.note("no Purchases or Results column: conversions are 0")
	}
	return nil
}

// noteTikTokMetrics says what a TikTok export's missing metric columns become.
// Clicks are the destination clicks ("Clicks (destination)"), as TikTok's API
// reports clicks; "Clicks (all)" also counts likes, shares and profile clicks
// and is not stored.
func (p *parser) noteTikTokMetrics() {
	if !p.has(measureKind(catalog.Clicks)) {
		p.rep.note(`no "Clicks (destination)" column: clicks are 0 ("Clicks (all)" is not stored: add "Clicks (destination)" to the report)`)
	}
	if !p.has(measureKind(catalog.Conversions)) {
		p.rep.note("no Conversions column: conversions are 0")
	}
	if !p.has(measureKind(catalog.ConversionValue)) {
		p.rep.note(`no "Total complete payment value" column: conversion value is 0`)
	}
}
