// Package importer reads report exports of Meta Ads Manager and Google Ads (CSV
// files a marketer downloads) into the warehouse's rows: accounts, campaigns, ad
// sets, ads, daily facts with money in exact micros, and reach where it is exact.
//
// It understands the exports as they come: English or Spanish headers, the
// currency in a header ("Amount spent (USD)", "Importe gastado (EUR)"), numbers
// like 1,234.56 or 1.234,56 (told apart from the data), "--" for empty, totals
// rows, Google's report-name and date-range lines, comma, semicolon or tab
// delimiters, UTF-8, UTF-16 or Windows-1252 text. Anything it cannot read is an
// *Error naming the file, line and column, the reason and the fix; a file with an
// error yields nothing. Parsing is pure: writing the rows is the warehouse's job
// (duckdb.Import, postgres.Import; see WriteOptions). docs/import.md describes
// the mapping.
package importer

import (
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// The platforms an export can come from.
const (
	Meta   = catalog.MetaAds
	Google = catalog.GoogleAds
)

// Options supply what a file may lack, and the platform when it cannot be told.
type Options struct {
	// Platform is Meta or Google; empty detects it from the headers.
	Platform string
	// AccountID, AccountName, Currency and Timezone apply when the file has no
	// column (or header) for them; a file that says otherwise is an error.
	AccountID, AccountName, Currency, Timezone string
}

// Account is an account the file's rows belong to.
type Account struct {
	ads.Account
	// NameKnown: the file or Options gave the name (else it is the ID).
	NameKnown bool
	// TimezoneKnown: Options gave the timezone (else it is UTC).
	TimezoneKnown bool
}

// Export is a parsed file: its rows, ready for the warehouse, and its report.
type Export struct {
	Report
	// First and Last are the dates the file covers (its report range when it
	// states one, else its first and last day): importing it replaces the facts
	// of its accounts on those dates.
	First, Last time.Time
	Accounts    []Account
	Campaigns   []ads.Campaign
	AdSets      []ads.AdSet
	Ads         []ads.Ad
	Facts       []ads.Fact // in account, date, campaign, ad set, ad order
	Reach       []ads.Reach
}

// column is one column of the header row.
type column struct {
	index  int
	header string // as written
	kind   kind
}

type parser struct {
	file   string
	opt    Options
	rep    *Report
	header record
	cols   [numKinds]*column // nil: the file has no such column
	// breakdowns are the columns that split rows further than the warehouse
	// does (age, gender, …): their rows are summed.
	breakdowns []column
	platform   string
	lang       string
	style      NumberStyle
	currency   string // from a header suffix, or Options
	// conversions comes from this column (colPurchases, colResults or
	// colConversions; 0: none), its value from convValue.
	conversions, convValue kind

	declaredFirst, declaredLast time.Time // Google's date-range line
	// periodLine is a line taken for a totals line because it covers several
	// days (account-level files with no Day column).
	periodLine int
	// totalsCols are the columns all empty on a totals line (set on first use).
	totalsCols []column
	// memo caches the mapping of descriptive values (objective, status, …).
	memo map[string]string
}

// Parse reads one export. file names it in errors and the report.
func Parse(file string, data []byte, opt Options) (*Export, error) {
	ex := &Export{}
	p := &parser{file: file, opt: opt, rep: &ex.Report}
	sum := sha256.Sum256(data)
	p.rep.File, p.rep.SHA256 = file, hex.EncodeToString(sum[:])
	text, enc := decode(data)
	p.rep.Encoding = enc
	delim, text, skip := sniffDelimiter(text)
	p.rep.Delimiter = map[rune]string{',': "comma", ';': "semicolon", '\t': "tab"}[delim]
	if p.rep.Delimiter == "" {
		p.rep.Delimiter = fmt.Sprintf("%q", delim)
	}
	recs, err := readRecords(text, delim, skip)
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, &Error{File: file, Line: pe.Line + skip,
				Reason: fmt.Sprintf("malformed CSV at character %d: %v", pe.Column, pe.Err),
				Fix:    `quote a field that holds the delimiter, a quote or a line break ("…"), doubling quotes inside it ("")`}
		}
		return nil, &Error{File: file, Reason: err.Error()}
	}
	h := findHeader(recs)
	if h < 0 {
		return nil, &Error{File: file, Reason: fmt.Sprintf("no header row in the first %d lines", maxHeaderSearch),
			Fix: "export the report as CSV with its headers: Meta Ads Manager (Reports → Export table data → .csv) or Google Ads (Download → .csv); " +
				"recognized headers include Day, Campaign name, Amount spent (USD) (Meta) and Day, Campaign, Cost, Impr. (Google)"}
	}
	p.header = recs[h]
	if err := p.mapHeader(recs[:h]); err != nil {
		return nil, err
	}
	body := recs[h+1:]
	if err := p.sniffStyle(body); err != nil {
		return nil, err
	}
	p.rep.NumberStyle = p.style.String()
	rows, totals, err := p.readRows(body)
	if err != nil {
		return nil, err
	}
	if err := p.build(ex, rows, totals); err != nil {
		return nil, err
	}
	return ex, nil
}

// findHeader is the index of the header row: the first record (among the first
// few) with at least two known columns, one of them a metric.
func findHeader(recs []record) int {
	for i, r := range recs {
		if i >= maxHeaderSearch {
			break
		}
		if headerScore(r.fields) < 2 {
			continue
		}
		for _, f := range r.fields {
			folded, _ := foldHeader(f)
			if lookupHeader(folded).kind.isMetric() {
				return i
			}
		}
	}
	return -1
}

func (p *parser) errAt(line, col int, value, reason, fix string) *Error {
	e := &Error{File: p.file, Line: line, Column: col, Value: value, Reason: reason, Fix: fix}
	if col > 0 && col <= len(p.header.fields) {
		e.Header = strings.TrimSpace(p.header.fields[col-1])
	}
	return e
}

// mapHeader reads the lines before the header (Google's report name and date
// range) and the header: platform, language, currency, what each column holds.
func (p *parser) mapHeader(preamble []record) error {
	hl := p.header.line()
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

	type seen struct {
		def    headerDef
		folded string
	}
	defs := make([]seen, len(p.header.fields))
	meta, google := 0, 0
	en, es := 0, 0
	currencies := map[string]int{}
	for i, h := range p.header.fields {
		folded, cur := foldHeader(h)
		d := lookupHeader(folded)
		defs[i] = seen{d, folded}
		if cur != "" && d.kind != colUnknown { // "Amount spent (USD)", "Cost per result (USD)"
			currencies[cur] = i + 1
		}
		switch d.platform {
		case pMeta:
			meta++
		case pGoogle:
			google++
		}
		switch d.lang {
		case "en":
			en++
		case "es":
			es++
		}
	}
	if len(preamble) > 0 {
		google++
	}
	switch p.opt.Platform {
	case Meta, Google:
		p.platform = p.opt.Platform
	case "":
		switch {
		case meta > google:
			p.platform = Meta
		case google > meta:
			p.platform = Google
		default:
			return p.errAt(hl, 0, "", "cannot tell whether this is a Meta Ads Manager or a Google Ads export from its headers",
				"pass --platform meta_ads or --platform google_ads")
		}
	default:
		return &Error{File: p.file, Reason: fmt.Sprintf("unknown platform %q", p.opt.Platform),
			Fix: "pass --platform meta_ads or --platform google_ads, or leave it out to detect it"}
	}
	p.rep.Platform = p.platform
	p.lang = "en"
	if es > en {
		p.lang = "es"
	}
	p.rep.Language = p.lang

	bit := pMeta
	if p.platform == Google {
		bit = pGoogle
	}
	var unknown, other []string
	for i, s := range defs {
		h := strings.TrimSpace(p.header.fields[i])
		k := s.def.kind
		if k > colDerived && s.def.platform&bit == 0 {
			k = colUnknown // another platform's column
		}
		switch k {
		case colUnknown:
			if h != "" {
				unknown = append(unknown, h)
			}
			continue
		case colDerived:
			other = append(other, h)
			continue
		}
		if k == colBreakdown {
			p.breakdowns = append(p.breakdowns, column{i, h, k})
			continue
		}
		if prev := p.cols[k]; prev != nil {
			return p.errAt(hl, i+1, "", fmt.Sprintf("a second %s column (column %d %q is one too)", kindNames[k], prev.index+1, prev.header),
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

	// Currency: a header suffix, a column, or Options.
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
	if !p.has(colAccountID) && p.opt.AccountID == "" {
		return p.errAt(hl, 0, "", "the export has no account ID column",
			accountFix(p.platform))
	}
	if tz := p.opt.Timezone; tz != "" {
		if _, err := time.LoadLocation(tz); err != nil || tz == "Local" {
			return &Error{File: p.file, Value: tz, Reason: "--timezone is not an IANA time zone", Fix: "pass a zone such as America/New_York or Europe/Madrid"}
		}
	}

	// Dates.
	hasDay := p.has(colDay)
	hasStart := p.has(colReportStart)
	if pc := p.cols[colPeriod]; pc != nil && !hasDay {
		return p.errAt(hl, pc.index+1, "", "the rows are weeks or months; the warehouse stores days", dayFix(p.platform))
	}
	if !hasDay && !hasStart {
		return p.errAt(hl, 0, "", "the export has no Day column", dayFix(p.platform))
	}

	// Levels.
	cname := p.has(colCampaignName)
	cid := p.has(colCampaignID)
	sname := p.has(colAdSetName)
	sid := p.has(colAdSetID)
	aname := p.has(colAdName)
	aid := p.has(colAdID)
	switch {
	case (sname || sid || aname || aid) && !cname && !cid:
		return p.errAt(hl, 0, "", "the rows name ad sets or ads but not their campaign",
			"add the Campaign name (Meta) or Campaign (Google) column to the report")
	case (aname || aid) && !sname && !sid:
		return p.errAt(hl, 0, "", "the rows name ads but not their ad set",
			"add the Ad set name (Meta) or Ad group (Google) column to the report")
	}
	p.rep.Level = "account"
	switch {
	case aname || aid:
		p.rep.Level = "ad"
	case sname || sid:
		p.rep.Level = "adset"
	case cname || cid:
		p.rep.Level = "campaign"
	}

	// Metrics.
	if !p.has(colSpend) {
		what := `"Amount spent (USD)"`
		if p.platform == Google {
			what = `"Cost"`
		}
		return p.errAt(hl, 0, "", "the export has no spend column", "add the "+what+" column to the report")
	}
	if !p.has(colImpressions) {
		p.rep.note("no impressions column: impressions are 0")
	}
	if p.platform == Meta {
		all := p.has(colClicks)
		link := p.has(colLinkClicks)
		switch {
		case !all && link:
			p.rep.note(`no "Clicks (all)" column: clicks are the link clicks`)
		case !all && !link:
			p.rep.note("no clicks columns: clicks are 0")
		case all && !link:
			p.rep.note(`no "Link clicks" column: link clicks are left empty`)
		}
		switch {
		case p.has(colPurchases):
			p.conversions = colPurchases
			p.rep.note("conversions are the Purchases column")
		case p.has(colResults):
			p.conversions = colResults
			p.rep.note("conversions are the Results column (each campaign's optimization result)")
		default:
			p.rep.note("no Purchases or Results column: conversions are 0")
		}
		if p.has(colPurchaseValue) {
			p.convValue = colPurchaseValue
		}
	} else {
		if !p.has(colClicks) {
			p.rep.note("no clicks column: clicks are 0")
		}
		if p.has(colConversions) {
			p.conversions = colConversions
		} else {
			p.rep.note("no Conversions column: conversions are 0")
		}
		if p.has(colConversionValue) {
			p.convValue = colConversionValue
		}
	}
	return nil
}

func (p *parser) has(k kind) bool { return p.cols[k] != nil }

// colNumber is the 1-based number of the column of kind k (0: none).
func (p *parser) colNumber(k kind) int {
	if c := p.cols[k]; c != nil {
		return c.index + 1
	}
	return 0
}

func accountFix(platform string) string {
	if platform == Google {
		return "pass --account-id with the customer ID (123-456-7890) and --account-name, or add the Customer ID and Account columns to the report"
	}
	return "pass --account-id with the ad account ID (act_1234567890) and --account-name, or add the Account ID and Account name columns to the report"
}

func dayFix(platform string) string {
	if platform == Google {
		return "in Google Ads, segment the report by Day (Segment → Time → Day) and download it again"
	}
	return "in Ads Manager, choose Breakdown → By time → Day and export again"
}

var currencyRE = regexp.MustCompile(`^[A-Z]{3}$`)

func isCurrency(s string) bool { return currencyRE.MatchString(s) }

// cell is the value of the column of kind k in rec ("" when there is none).
func (p *parser) cell(rec record, k kind) string {
	c := p.cols[k]
	if c == nil || c.index >= len(rec.fields) {
		return ""
	}
	return strings.TrimSpace(rec.fields[c.index])
}

// lineOf is the physical line of the column of kind k in rec.
func (p *parser) lineOf(rec record, k kind) int {
	if c := p.cols[k]; c != nil && c.index < len(rec.lines) {
		return rec.lines[c.index]
	}
	return rec.line()
}

func (p *parser) errCell(rec record, k kind, reason, fix string) *Error {
	return p.errAt(p.lineOf(rec, k), p.colNumber(k), p.cell(rec, k), reason, fix)
}

// sniffStyle decides the number style from the data (see styleEvidence), or
// from the headers' language when every number could be either.
func (p *parser) sniffStyle(body []record) error {
	var enLine, esLine int
	var enCol, esCol kind
	for _, rec := range body {
		for i, c := range p.cols {
			k := kind(i)
			if c == nil || !k.isMetric() || c.index >= len(rec.fields) {
				continue
			}
			switch styleEvidence(rec.fields[c.index], k.isInteger()) {
			case styleEN:
				if enLine == 0 {
					enLine, enCol = rec.line(), k
				}
			case styleES:
				if esLine == 0 {
					esLine, esCol = rec.line(), k
				}
			}
		}
		if enLine > 0 && esLine > 0 {
			return p.errAt(max(enLine, esLine), p.colNumber(max2(enLine, esLine, enCol, esCol)), "",
				fmt.Sprintf("numbers are written like 1,234.56 on line %d (%s) but like 1.234,56 on line %d (%s)",
					enLine, p.cols[enCol].header, esLine, p.cols[esCol].header),
				"export the file again in one number format")
		}
	}
	switch {
	case enLine > 0:
		p.style = English
	case esLine > 0:
		p.style = Spanish
	case p.lang == "es":
		p.style = Spanish
	default:
		p.style = English
	}
	return nil
}

// max2 is the kind on the later of two lines.
func max2(a, b int, ka, kb kind) kind {
	if a >= b {
		return ka
	}
	return kb
}

// totalsRE matches the label of a totals row: "Total", "Totales", "Total: Account",
// "Total: campañas", "Grand total".
var totalsRE = regexp.MustCompile(`(?i)^\s*(total(es)?|grand total|total general|resultados totales)\s*(:.*)?$`)

// row is one data line, parsed.
type row struct {
	line                      int
	day                       time.Time
	accountID, accountName    string
	currency                  string
	campaignID, campaignName  string
	adsetID, adsetName        string
	adID, adName              string
	country, device, platform string
	objective, status         string

	spend, convValue                        int64
	impressions, clicks, linkClicks, videos int64
	conversions                             float64
	reach                                   int64 // -1: none
	nonConversion                           string
}

// totalsRow is a totals line: its spend, for the check against the rows' sum.
type totalsRow struct {
	line  int
	spend int64
	ok    bool
}

func (p *parser) readRows(body []record) ([]row, []totalsRow, error) {
	rows := make([]row, 0, len(body))
	var totals []totalsRow
	var single []int // lines with a single field
	width := len(p.header.fields)
	for _, rec := range body {
		blank := true
		for _, f := range rec.fields {
			if strings.TrimSpace(f) != "" {
				blank = false
				break
			}
		}
		if blank {
			continue
		}
		p.rep.DataLines++
		if len(rec.fields) == 1 && width > 1 {
			single = append(single, rec.line()) // a footer, unless data follows
			continue
		}
		if len(single) > 0 {
			return nil, nil, p.errAt(single[0], 0, "", fmt.Sprintf("a line with a single field among the data lines (this file is %s-separated)", p.rep.Delimiter),
				"remove the line, or export the file again")
		}
		if len(rec.fields) != width {
			return nil, nil, p.errAt(rec.line(), 0, "", fmt.Sprintf("%d fields, but the header (line %d) has %d", len(rec.fields), p.header.line(), width),
				"quote fields that contain the delimiter, or export the file again")
		}
		if p.isTotals(rec) {
			t := totalsRow{line: rec.line()}
			if d, err := parseDecimal(p.cell(rec, colSpend), p.style); err == nil {
				t.spend, err = d.micros()
				t.ok = err == nil
			}
			totals = append(totals, t)
			for _, k := range []kind{colReportStart, colReportEnd} {
				if d, err := parseDate(p.cell(rec, k), p.lang); err == nil {
					p.widen(d)
				}
			}
			p.rep.skip("totals row", rec.line())
			continue
		}
		r, err := p.parseRow(rec)
		if err != nil {
			return nil, nil, err
		}
		rows = append(rows, r)
	}
	for _, l := range single {
		p.rep.skip("text after the data (a single field)", l)
	}
	return rows, totals, nil
}

// isTotals: a line whose names and IDs are all empty (Meta's totals line), or
// whose first field or a name says "Total…" (Google's "Total: Account").
func (p *parser) isTotals(rec record) bool {
	if len(rec.fields) > 0 && isTotalsLabel(rec.fields[0]) {
		return true
	}
	if p.totalsCols == nil {
		// The names below the account (an account's name may be filled in on
		// Meta's totals line), the breakdowns, and the day.
		p.totalsCols = append([]column{}, p.breakdowns...)
		for i, c := range p.cols {
			k := kind(i)
			account := k == colAccountID || k == colAccountName
			if c != nil && (k.isDimension() && (!account || p.rep.Level == "account") || k == colDay) {
				p.totalsCols = append(p.totalsCols, *c)
			}
		}
	}
	empty := 0
	for _, c := range p.totalsCols {
		v := strings.TrimSpace(rec.fields[c.index])
		if isEmptyValue(v) {
			empty++
		} else if isTotalsLabel(v) {
			return true
		}
	}
	if len(p.totalsCols) > 0 {
		return empty == len(p.totalsCols)
	}
	// An account-level file without names: Meta's totals line is the one
	// covering the whole period when the lines are single days.
	if !p.has(colDay) && p.has(colReportEnd) {
		s, err1 := parseDate(p.cell(rec, colReportStart), p.lang)
		e, err2 := parseDate(p.cell(rec, colReportEnd), p.lang)
		if err1 == nil && err2 == nil && !s.Equal(e) {
			p.periodLine = rec.line()
			return true
		}
	}
	return false
}

// isTotalsLabel: "Total", "Total: Account", "Totales", "Grand total"…
func isTotalsLabel(s string) bool {
	s = strings.TrimSpace(s)
	if len(s) < 5 {
		return false
	}
	switch strings.ToLower(s[:5]) {
	case "total", "grand", "resul":
		return totalsRE.MatchString(s)
	}
	return false
}

func (p *parser) parseRow(rec record) (row, error) {
	r := row{line: rec.line(), reach: -1}

	// The day: the Day column, or a one-day reporting period.
	if p.has(colDay) {
		v := p.cell(rec, colDay)
		d, err := parseDate(v, p.lang)
		if err != nil {
			return r, p.errCell(rec, colDay, "not a date", "dates look like 2026-03-15")
		}
		r.day = d
	} else {
		s, e := p.cell(rec, colReportStart), p.cell(rec, colReportEnd)
		d, err := parseDate(s, p.lang)
		if err != nil {
			return r, p.errCell(rec, colReportStart, "not a date", "dates look like 2026-03-15")
		}
		if p.has(colReportEnd) {
			end, err := parseDate(e, p.lang)
			if err != nil {
				return r, p.errCell(rec, colReportEnd, "not a date", "dates look like 2026-03-15")
			}
			if !end.Equal(d) {
				return r, p.errCell(rec, colReportEnd, fmt.Sprintf("this row covers %s to %s; the warehouse stores days and cannot split a period's totals into them",
					d.Format(time.DateOnly), end.Format(time.DateOnly)), dayFix(p.platform))
			}
		}
		r.day = d
	}
	for _, k := range []kind{colReportStart, colReportEnd} {
		if !p.has(k) {
			continue
		}
		d, err := parseDate(p.cell(rec, k), p.lang)
		if err != nil {
			return r, p.errCell(rec, k, "not a date", "dates look like 2026-03-15")
		}
		p.widen(d)
	}

	// The account.
	r.accountID = p.opt.AccountID
	if p.has(colAccountID) {
		r.accountID = p.cell(rec, colAccountID)
		if isEmptyValue(r.accountID) {
			return r, p.errCell(rec, colAccountID, "empty account ID", "fill it in, or remove the column and pass --account-id")
		}
		if p.opt.AccountID != "" && ads.FoldID(p.opt.AccountID) != ads.FoldID(r.accountID) {
			return r, p.errCell(rec, colAccountID, "the file's account ID differs from --account-id "+p.opt.AccountID,
				"leave --account-id out: the file names its accounts")
		}
	}
	r.accountID = normalizeAccountID(r.accountID, p.platform)
	r.accountName = p.opt.AccountName
	if v := p.cell(rec, colAccountName); !isEmptyValue(v) {
		r.accountName = v
	}
	r.currency = p.currency
	if p.has(colCurrency) {
		v := strings.ToUpper(p.cell(rec, colCurrency))
		switch {
		case isEmptyValue(v) && p.currency == "":
			return r, p.errCell(rec, colCurrency, "empty currency", "fill it in, or pass --currency")
		case isEmptyValue(v):
		case !isCurrency(v):
			return r, p.errCell(rec, colCurrency, "not an ISO 4217 currency code", "currencies look like USD, EUR, ARS")
		case p.currency != "" && v != p.currency:
			return r, p.errCell(rec, colCurrency, "this row's currency differs from "+p.currency,
				"export one currency per file, or leave --currency out")
		default:
			r.currency = v
		}
	}

	// Campaign, ad set, ad.
	name := func(k kind) string {
		v := p.cell(rec, k)
		if isEmptyValue(v) {
			return ""
		}
		return v
	}
	r.campaignID, r.campaignName = name(colCampaignID), name(colCampaignName)
	r.adsetID, r.adsetName = name(colAdSetID), name(colAdSetName)
	r.adID, r.adName = name(colAdID), name(colAdName)
	levels := []struct {
		id, name string
		has      bool
		k        kind
		what     string
	}{
		{r.campaignID, r.campaignName, p.has(colCampaignID) || p.has(colCampaignName), colCampaignName, "campaign"},
		{r.adsetID, r.adsetName, p.has(colAdSetID) || p.has(colAdSetName), colAdSetName, "ad set"},
		{r.adID, r.adName, p.has(colAdID) || p.has(colAdName), colAdName, "ad"},
	}
	for _, l := range levels {
		if l.has && l.id == "" && l.name == "" {
			k := l.k
			if !p.has(k) {
				k--
			}
			return r, p.errCell(rec, k, "no "+l.what+" name or ID on a line that is not a totals line",
				"fill in the "+l.what+" name, or remove the line")
		}
	}
	r.objective = p.mapped("o", name(colObjective), objective)
	r.status = p.mapped("s", name(colStatus), status)
	r.country = country(name(colCountry))
	r.device = p.mapped("d", name(colDevice), device)
	r.platform = p.mapped("p", name(colPublisher), snake)

	// Metrics.
	var err error
	if r.spend, err = p.money(rec, colSpend); err != nil {
		return r, err
	}
	if r.impressions, err = p.count(rec, colImpressions); err != nil {
		return r, err
	}
	if r.clicks, err = p.count(rec, colClicks); err != nil {
		return r, err
	}
	r.linkClicks = ads.NotReported
	if p.platform == Meta && p.has(colLinkClicks) {
		if r.linkClicks, err = p.count(rec, colLinkClicks); err != nil {
			return r, err
		}
		if !p.has(colClicks) {
			r.clicks = r.linkClicks
		}
	}
	if r.videos, err = p.count(rec, colVideoViews); err != nil {
		return r, err
	}
	if p.has(colReach) {
		if v := p.cell(rec, colReach); !isEmptyValue(v) {
			if r.reach, err = p.count(rec, colReach); err != nil {
				return r, err
			}
		}
	}
	if p.conversions != 0 {
		d, ok, err := p.decimal(rec, p.conversions)
		if err != nil {
			return r, err
		}
		if ok {
			if r.conversions, err = d.float(); err != nil {
				return r, p.errCell(rec, p.conversions, err.Error(), "")
			}
		}
		if p.conversions == colResults {
			if t := p.cell(rec, colResultType); r.conversions != 0 && p.mapped("r", t, notConversionMark) != "" {
				r.nonConversion, r.conversions = t, 0
			}
		}
	}
	if p.convValue != 0 {
		if r.convValue, err = p.money(rec, p.convValue); err != nil {
			return r, err
		}
	}
	return r, nil
}

// mapped is f(v), remembered: the same few values repeat on every line.
func (p *parser) mapped(kind, v string, f func(string) string) string {
	if v == "" {
		return ""
	}
	if p.memo == nil {
		p.memo = map[string]string{}
	}
	key := kind + v
	out, ok := p.memo[key]
	if !ok {
		out = f(v)
		p.memo[key] = out
	}
	return out
}

// widen extends the file's stated range with a reporting start or end.
func (p *parser) widen(d time.Time) {
	if p.declaredFirst.IsZero() || d.Before(p.declaredFirst) {
		p.declaredFirst = d
	}
	if p.declaredLast.IsZero() || d.After(p.declaredLast) {
		p.declaredLast = d
	}
}

// decimal parses the number in the column of kind k; ok is false when the cell is
// empty ("", "--") or the column absent.
func (p *parser) decimal(rec record, k kind) (decimal, bool, error) {
	v := p.cell(rec, k)
	if isEmptyValue(v) {
		return decimal{}, false, nil
	}
	d, err := parseDecimal(v, p.style)
	if err != nil {
		if errors.Is(err, errNegative) {
			return d, false, p.errCell(rec, k, "negative", "export the report again; "+kindNames[k]+" cannot be negative")
		}
		return d, false, p.errCell(rec, k, "not a number in this file's format ("+p.style.String()+")",
			"write numbers like "+p.style.String()+", with no text around them")
	}
	return d, true, nil
}

func (p *parser) money(rec record, k kind) (int64, error) {
	d, ok, err := p.decimal(rec, k)
	if !ok || err != nil {
		return 0, err
	}
	m, err := d.micros()
	if err != nil {
		return 0, p.errCell(rec, k, err.Error(), "")
	}
	return m, nil
}

func (p *parser) count(rec record, k kind) (int64, error) {
	d, ok, err := p.decimal(rec, k)
	if !ok || err != nil {
		return 0, err
	}
	n, err := d.integer()
	if err != nil {
		return 0, p.errCell(rec, k, err.Error(), kindNames[k]+" are counted in whole numbers")
	}
	return n, nil
}

// normalizeAccountID writes IDs as the platforms' APIs (and the demo data) do:
// Meta act_<digits>, Google 123-456-7890 (catalog.NormalizeAccountID).
func normalizeAccountID(id, platform string) string { return catalog.NormalizeAccountID(id, platform) }

// DeriveID is the ID of an object the export names but does not identify:
// "imp-" and 16 hex digits of SHA-256 over the platform, the account and the
// names from the campaign down. The same names give the same ID in every file.
func DeriveID(platform, accountID string, names ...string) string {
	h := sha256.New()
	h.Write([]byte(platform))
	for _, s := range append([]string{accountID}, names...) {
		h.Write([]byte{0})
		h.Write([]byte(s))
	}
	return "imp-" + hex.EncodeToString(h.Sum(nil))[:16]
}
