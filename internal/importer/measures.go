package importer

import (
	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// The metric columns an export may have come from the catalog: each metric
// declares its column titles per platform and language (catalog.Export), and a
// stored measure is parsed by the kind of its column (money into exact micros,
// counts as whole numbers, doubles as they are written).

// measureKind is the column kind of stored measure m.
func measureKind(m catalog.Measure) kind { return colMeasure + kind(m) }

// measure is the stored measure of a column kind, and whether it is one.
func (k kind) measure() (catalog.Measure, bool) {
	if k < colMeasure || k >= numKinds {
		return 0, false
	}
	return catalog.Measure(k - colMeasure), true
}

// exportPlatforms are the catalog's export platforms with their header bits.
var exportPlatforms = []struct {
	name string
	bit  int
}{{catalog.ExportMeta, pMeta}, {catalog.ExportGoogle, pGoogle}, {catalog.ExportTikTok, pTikTok}}

// defineMetricHeaders adds the catalog's metric column titles to the dictionary:
// stored measures and reach.
func defineMetricHeaders() {
	for _, f := range catalog.Fields() {
		k, ok := metricKind(f)
		if !ok {
			continue
		}
		for _, ep := range exportPlatforms {
			if e, ok := f.Exports[ep.name]; ok {
				def(k, ep.bit, "en", e.EN...)
				def(k, ep.bit, "es", e.ES...)
			}
		}
	}
}

// metricKind is the column kind of a catalog metric an export can hold.
func metricKind(f catalog.Field) (kind, bool) {
	switch {
	case f.Storage != nil:
		return measureKind(f.Storage.Measure), true
	case f.Distinct != "":
		return colReach, true
	}
	return 0, false
}

// export is how this file's platform titles measure m's column.
func (p *parser) export(m catalog.Measure) catalog.Export {
	return catalog.MeasureField(m).Exports[p.platform]
}

// kindName is what messages call a column of kind k.
func (p *parser) kindName(k kind) string {
	if m, ok := k.measure(); ok {
		return p.export(m).ColumnName(catalog.MeasureField(m))
	}
	return kindNames[k]
}

// isInteger: the metric columns that must hold whole numbers.
func (p *parser) isInteger(k kind) bool {
	if m, ok := k.measure(); ok {
		return catalog.MeasureField(m).Storage.Kind == catalog.Integer || p.export(m).Whole
	}
	return k == colReach
}

// parseMeasures reads the row's stored measures. A measure whose column the file
// lacks is 0, or NotReported (stored NULL) when its column may be NULL: link
// clicks of a Meta export without them are unknown, not 0.
func (p *parser) parseMeasures(rec record, r *row) error {
	for _, c := range catalog.FactColumns() {
		k := measureKind(c.Measure)
		if !p.has(k) {
			if c.Nullable {
				r.measures[c.Measure] = ads.NotReported
			}
			continue
		}
		v, err := p.number(rec, k, c.Kind)
		if err != nil {
			return err
		}
		r.measures[c.Measure] = v
	}
	return nil
}

// maxExact is the largest whole number a fact's float64 measure holds exactly.
const maxExact = 1 << 53

// number parses the cell of column k as a value of a measure column kind. Whole
// numbers beyond maxExact (9 billion in micros) are too large for a fact.
func (p *parser) number(rec record, k kind, ck catalog.ColumnKind) (float64, error) {
	var v int64
	var err error
	switch ck {
	case catalog.Micros:
		v, err = p.money(rec, k)
	case catalog.Integer:
		v, err = p.count(rec, k)
	default:
		return p.float(rec, k)
	}
	if err == nil && v > maxExact {
		return 0, p.errCell(rec, k, "too large", "")
	}
	return float64(v), err
}

// float parses a number that may have decimals (conversions); 0 when empty.
func (p *parser) float(rec record, k kind) (float64, error) {
	d, ok, err := p.decimal(rec, k)
	if !ok || err != nil {
		return 0, err
	}
	v, err := d.float()
	if err != nil {
		return 0, p.errCell(rec, k, err.Error(), "")
	}
	return v, nil
}
