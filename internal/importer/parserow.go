package importer

import (
	"fmt"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// parseRow reads one data line: its day, account, objects, descriptive values
// and metrics.
func (p *parser) parseRow(rec record) (row, error) {
	r := row{line: rec.line(), reach: -1}
	var err error
	if r.day, err = p.parseDay(rec); err != nil {
		return r, err
	}
	if err := p.parseAccount(rec, &r); err != nil {
		return r, err
	}
	if err := p.parseObjects(rec, &r); err != nil {
		return r, err
	}
	if err := p.parseMetrics(rec, &r); err != nil {
		return r, err
	}
	return r, nil
}

// parseDay is the row's day: the Day column, or a one-day reporting period. The
// reporting start and end also widen the file's stated range.
func (p *parser) parseDay(rec record) (time.Time, error) {
	var day time.Time
	if p.has(colDay) {
		d, err := parseDate(p.cell(rec, colDay), p.lang)
		if err != nil {
			return day, p.errCell(rec, colDay, "not a date", "dates look like 2026-03-15")
		}
		day = d
	} else {
		d, err := parseDate(p.cell(rec, colReportStart), p.lang)
		if err != nil {
			return day, p.errCell(rec, colReportStart, "not a date", "dates look like 2026-03-15")
		}
		if p.has(colReportEnd) {
			end, err := parseDate(p.cell(rec, colReportEnd), p.lang)
			if err != nil {
				return day, p.errCell(rec, colReportEnd, "not a date", "dates look like 2026-03-15")
			}
			if !end.Equal(d) {
				return day, p.errCell(rec, colReportEnd, fmt.Sprintf("this row covers %s to %s; the warehouse stores days and cannot split a period's totals into them",
					d.Format(time.DateOnly), end.Format(time.DateOnly)), dayFix(p.platform))
			}
		}
		day = d
	}
	for _, k := range []kind{colReportStart, colReportEnd} {
		if !p.has(k) {
			continue
		}
		d, err := parseDate(p.cell(rec, k), p.lang)
		if err != nil {
			return day, p.errCell(rec, k, "not a date", "dates look like 2026-03-15")
		}
		p.widen(d)
	}
	return day, nil
}

// parseAccount reads the row's account ID, name and currency.
func (p *parser) parseAccount(rec record, r *row) error {
	r.accountID = p.opt.AccountID
	if p.has(colAccountID) {
		r.accountID = p.cell(rec, colAccountID)
		if isEmptyValue(r.accountID) {
			return p.errCell(rec, colAccountID, "empty account ID", "fill it in, or remove the column and pass --account-id")
		}
		if p.opt.AccountID != "" && ads.FoldID(p.opt.AccountID) != ads.FoldID(r.accountID) {
			return p.errCell(rec, colAccountID, "the file's account ID differs from --account-id "+p.opt.AccountID,
				"leave --account-id out: the file names its accounts")
		}
	}
	r.accountID = normalizeAccountID(r.accountID, p.platform)
	r.accountName = p.opt.AccountName
	if v := p.cell(rec, colAccountName); !isEmptyValue(v) {
		r.accountName = v
	}
	r.currency = p.currency
	if !p.has(colCurrency) {
		return nil
	}
	v := strings.ToUpper(p.cell(rec, colCurrency))
	switch {
	case isEmptyValue(v) && p.currency == "":
		return p.errCell(rec, colCurrency, "empty currency", "fill it in, or pass --currency")
	case isEmptyValue(v):
	case !isCurrency(v):
		return p.errCell(rec, colCurrency, "not an ISO 4217 currency code", "currencies look like USD, EUR, ARS")
	case p.currency != "" && v != p.currency:
		return p.errCell(rec, colCurrency, "this row's currency differs from "+p.currency,
			"export one currency per file, or leave --currency out")
	default:
		r.currency = v
	}
	return nil
}

// name is the value of a descriptive column ("" when empty or absent).
func (p *parser) name(rec record, k kind) string {
	v := p.cell(rec, k)
	if isEmptyValue(v) {
		return ""
	}
	return v
}

// parseObjects reads the row's campaign, ad set and ad (each named or
// identified where the file has the level) and their descriptive values.
func (p *parser) parseObjects(rec record, r *row) error {
	r.campaignID, r.campaignName = p.name(rec, colCampaignID), p.name(rec, colCampaignName)
	r.adsetID, r.adsetName = p.name(rec, colAdSetID), p.name(rec, colAdSetName)
	r.adID, r.adName = p.name(rec, colAdID), p.name(rec, colAdName)
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
			what := l.what
			if what == "ad set" && p.platform != Meta {
				what = "ad group"
			}
			return p.errCell(rec, k, "no "+what+" name or ID on a line that is not a totals line",
				"fill in the "+what+" name, or remove the line")
		}
	}
	if p.platform == TikTok {
		r.objective = p.mapped("o", p.name(rec, colObjective), tiktokObjective)
	} else {
		r.objective = p.mapped("o", p.name(rec, colObjective), objective)
	}
	r.status = p.mapped("s", p.name(rec, colStatus), status)
	r.country = country(p.name(rec, colCountry))
	r.device = p.mapped("d", p.name(rec, colDevice), device)
	r.platform = p.mapped("p", p.name(rec, colPublisher), snake)
	return nil
}

// parseMetrics reads the stored measures, then what Meta's exports need beyond
// their columns: clicks from link clicks when there is no "Clicks (all)", and
// conversions from Results (unless a row's result type is not a conversion)
// when there is no Purchases column; and reach.
func (p *parser) parseMetrics(rec record, r *row) error {
	if err := p.parseMeasures(rec, r); err != nil {
		return err
	}
	m := &r.measures
	if p.platform == Meta && !p.has(measureKind(catalog.Clicks)) && p.has(measureKind(catalog.LinkClicks)) {
		m[catalog.Clicks] = m[catalog.LinkClicks]
	}
	if p.has(colReach) {
		if v := p.cell(rec, colReach); !isEmptyValue(v) {
			var err error
			if r.reach, err = p.count(rec, colReach); err != nil {
				return err
			}
		}
	}
	if p.platform != Meta || p.has(measureKind(catalog.Conversions)) || !p.has(colResults) {
		return nil
	}
	v, err := p.float(rec, colResults)
	if err != nil {
		return err
	}
	m[catalog.Conversions] = v
	if t := p.cell(rec, colResultType); v != 0 && p.mapped("r", t, notConversionMark) != "" {
		r.nonConversion, m[catalog.Conversions] = t, 0
	}
	return nil
}
