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
	return p.parseBreakdowns(rec, r)
}

// parseBreakdowns reads the age, gender and placement of the row: values
// that are not an age bracket or a gender are errors (a wrong column would
// otherwise be stored as ages); placements are kept as Meta and TikTok name
// them, in the catalog's short form.
func (p *parser) parseBreakdowns(rec record, r *row) error {
	if v := p.name(rec, colAge); v != "" {
		if r.age = p.mapped("a", v, age); r.age == "" {
			return p.errCell(rec, colAge, "not an age bracket",
				"ages look like 18-24, 25-34, 35-44, 45-54, 55-64, 65+ or Unknown: export the report again with the Age breakdown")
		}
	}
	if v := p.name(rec, colGender); v != "" {
		if r.gender = p.mapped("g", v, gender); r.gender == "" {
			return p.errCell(rec, colGender, "not a gender", "genders are female, male or unknown: export the report again with the Gender breakdown")
		}
	}
	v := p.name(rec, colPlacement)
	switch {
	case v == "":
	case p.platform == TikTok:
		r.placement = p.mapped("t", v, tiktokPlacement)
		r.platform = r.placement // TikTok's placement is its publisher platform
	default:
		pos, plat := metaPlacement(v)
		r.placement = pos
		if r.platform == "" {
			r.platform = plat // "Instagram Reels" names its platform
		}
	}
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
	if err := p.parseActions(rec, r); err != nil {
		return err
	}
	if err := p.parseAttribution(rec); err != nil {
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

// parseActions reads Meta's per-action columns: counts whole, values in
// micros.
func (p *parser) parseActions(rec record, r *row) error {
	for i := range metaActions {
		if k := actionKind(i, false); p.has(k) {
			n, err := p.count(rec, k)
			if err != nil {
				return err
			}
			r.actions[i][0] = float64(n)
		}
		if k := actionKind(i, true); p.has(k) {
			m, err := p.money(rec, k)
			if err != nil {
				return err
			}
			r.actions[i][1] = float64(m)
		}
	}
	return nil
}

// parseAttribution reads the line's attribution setting: one per file, since
// an account's conversions are held under one window.
func (p *parser) parseAttribution(rec record) error {
	v := p.name(rec, colAttribution)
	if v == "" {
		return nil
	}
	w := p.mapped("w", v, func(v string) string {
		w, err := attributionSetting(v)
		if err != nil {
			return "!" + err.Error()
		}
		return w
	})
	if strings.HasPrefix(w, "!") {
		return p.errCell(rec, colAttribution, w[1:],
			"export the report again with the Attribution setting column as Ads Manager writes it, or remove the column")
	}
	switch {
	case p.attribution == "":
		p.attribution, p.attributionLine = w, rec.line()
	case p.attribution != w:
		return p.errCell(rec, colAttribution,
			fmt.Sprintf("this line's attribution setting is %s, line %d's is %s: conversions counted under different windows cannot be stored for one account", w, p.attributionLine, p.attribution),
			"export one attribution setting per file (in Ads Manager, keep one Attribution setting in Compare attribution settings, or filter the campaigns by it)")
	}
	return nil
}
