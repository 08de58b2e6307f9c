// Package importer reads report exports of Meta Ads Manager, Google Ads and
// TikTok Ads Manager (CSV files a marketer downloads) into the warehouse's rows: accounts, campaigns, ad
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
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// The platforms an export can come from.
const (
	Meta   = catalog.MetaAds
	Google = catalog.GoogleAds
	TikTok = catalog.TikTokAds
)

// Platforms are the platforms whose exports Parse reads (Options.Platform).
var Platforms = []string{Meta, Google, TikTok}

// Options supply what a file may lack, and the platform when it cannot be told.
type Options struct {
	// Platform is Meta, Google or TikTok; empty detects it from the headers.
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
	// Breakdown is the breakdown set of the file's lines ("": delivery; see
	// BreakdownKey): importing the file replaces that set's rows only.
	Breakdown string
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
	// set is the breakdown set of the lines (chooseSet).
	set string
	// attribution is the file's attribution setting as a window name, from
	// the line attributionLine ("" when the file has none).
	attribution     string
	attributionLine int
	lang            string
	style           NumberStyle
	currency        string // from a header suffix, or Options

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
	if isZip(data) {
		return nil, &Error{File: file, Reason: "an Excel workbook (.xlsx) or another zip file, not CSV: workbooks are not read",
			Fix: "export the report as CSV (TikTok Ads Manager: Export → CSV; Meta: Export table data → .csv; Google Ads: Download → .csv), or save the sheet as CSV"}
	}
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
			Fix: "export the report as CSV with its headers: Meta Ads Manager (Reports → Export table data → .csv), Google Ads (Download → .csv) " +
				"or TikTok Ads Manager (Custom reports → Export → CSV); recognized headers include Day, Campaign name, Amount spent (USD) (Meta), " +
				"Day, Campaign, Cost, Impr. (Google) and By Day, Campaign name, Cost, Impressions (TikTok)"}
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
	if p.set != catalog.Delivery {
		ex.Breakdown = p.set
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

func (p *parser) has(k kind) bool { return p.cols[k] != nil }

// colNumber is the 1-based number of the column of kind k (0: none).
func (p *parser) colNumber(k kind) int {
	if c := p.cols[k]; c != nil {
		return c.index + 1
	}
	return 0
}

func accountFix(platform string) string {
	switch platform {
	case Google:
		return "pass --account-id with the customer ID (123-456-7890) and --account-name, or add the Customer ID and Account columns to the report"
	case TikTok:
		return "pass --account-id with the advertiser ID (the digits under the account name in TikTok Ads Manager) and --account-name, " +
			"or add the Account ID and Account name columns to the custom report"
	}
	return "pass --account-id with the ad account ID (act_1234567890) and --account-name, or add the Account ID and Account name columns to the report"
}

func dayFix(platform string) string {
	switch platform {
	case Google:
		return "in Google Ads, segment the report by Day (Segment → Time → Day) and download it again"
	case TikTok:
		return "in TikTok Ads Manager, make a custom report (Analytics → Custom reports) with the time dimension Day, and export it again"
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
			switch styleEvidence(rec.fields[c.index], p.isInteger(k)) {
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
// "Total: campañas", "Grand total", and TikTok's "Total of 3 campaigns" or
// "Total (3 ad groups)".
var totalsRE = regexp.MustCompile(`(?i)^\s*(total(es)?|grand total|total general|resultados totales)\s*(:.*|\(.*\)|\s+of\s+[\d,.]+\s.*)?$`)

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
	age, gender, placement    string
	objective, status         string

	// measures are the stored measures, indexed by catalog.Measure (see
	// parseMeasures).
	measures [catalog.NumMeasures]float64
	// actions are the counts and values (micros) of metaActions.
	actions       [numMetaActions][2]float64
	reach         int64 // -1: none
	nonConversion string
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
			if d, err := parseDecimal(p.cell(rec, measureKind(catalog.Spend)), p.style); err == nil {
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
			return d, false, p.errCell(rec, k, "negative", "export the report again; "+p.kindName(k)+" cannot be negative")
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
		return 0, p.errCell(rec, k, err.Error(), p.kindName(k)+" are counted in whole numbers")
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

// isZip: data is a zip archive, as an .xlsx workbook is.
func isZip(data []byte) bool { return len(data) >= 4 && string(data[:4]) == "PK\x03\x04" }
