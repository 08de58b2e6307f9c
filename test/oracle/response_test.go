package oracle

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The response as the client reads it: parsed from the blocks, never from fit's types.

type headJSON struct {
	Type                string           `json:"type"`
	Detail              string           `json:"detail"`
	Meta                *metaJSON        `json:"_meta"`
	RequeryInstructions *requeryJSON     `json:"requery_instructions"`
	Summary             *json.RawMessage `json:"summary"`
}

type metaJSON struct {
	OriginalRows    int             `json:"original_rows"`
	ReturnedRows    int             `json:"returned_rows"`
	RowsBeforeLimit int             `json:"rows_before_limit"`
	Format          string          `json:"format"`
	TokenEstimate   int             `json:"token_estimate"`
	TokenBudget     int             `json:"token_budget"`
	BudgetSource    string          `json:"budget_source"`
	TimeGranularity *grainJSON      `json:"time_granularity"`
	Optimizations   []optJSON       `json:"optimizations_applied"`
	Warnings        []warnJSON      `json:"warnings"`
	Query           json.RawMessage `json:"query"`
	Definitions     *struct {
		Conversions []struct {
			Platform          string   `json:"platform"`
			Counts            string   `json:"counts"`
			AttributionWindow string   `json:"attribution_window"`
			Window            string   `json:"window"`
			Accounts          []string `json:"accounts"`
		} `json:"conversions"`
	} `json:"definitions"`
}

type grainJSON struct {
	Requested string `json:"requested"`
	Returned  string `json:"returned"`
}

type optJSON struct {
	Type          string           `json:"type"`
	Field         string           `json:"field"`
	From          string           `json:"from"`
	To            string           `json:"to"`
	Grain         string           `json:"grain"`
	RowsRemoved   int              `json:"rows_removed"`
	RowsBefore    int              `json:"rows_before"`
	RowsAfter     int              `json:"rows_after"`
	RemovedTotals []map[string]any `json:"removed_totals"`
	Detail        string           `json:"detail"`
}

type warnJSON struct {
	Type   string   `json:"type"`
	Detail string   `json:"detail"`
	Fields []string `json:"fields"`
	Keys   []string `json:"keys"`
}

type requeryJSON struct {
	Suggestions []suggestionJSON `json:"suggestions"`
}

type suggestionJSON struct {
	Description   string          `json:"description"`
	Query         json.RawMessage `json:"query"`
	ExpectedRows  int             `json:"expected_rows"`
	TokenEstimate int             `json:"token_estimate"`
}

type echoJSON struct {
	AccountIDs        []string `json:"account_ids"`
	Platforms         []string `json:"platforms"`
	AttributionWindow string   `json:"attribution_window"`
	DateRange         *struct {
		Start string `json:"start"`
		End   string `json:"end"`
	} `json:"date_range"`
	Dimensions      []string `json:"dimensions"`
	Metrics         []string `json:"metrics"`
	TimeGranularity string   `json:"time_granularity"`
	Filters         []struct {
		Field    string `json:"field"`
		Operator string `json:"operator"`
		Value    any    `json:"value"`
	} `json:"filters"`
	Sort []struct {
		Field     string `json:"field"`
		Direction string `json:"direction"`
	} `json:"sort"`
	Limit       int `json:"limit"`
	TokenBudget int `json:"token_budget"`
}

func (m *metaJSON) opts(typ string) []optJSON {
	var out []optJSON
	for _, o := range m.Optimizations {
		if o.Type == typ {
			out = append(out, o)
		}
	}
	return out
}

// removals are the validation_filter optimizations at grain g: those naming g,
// or, when g is the requested grain, those naming none.
func (m *metaJSON) removals(g, requested string) []optJSON {
	var out []optJSON
	for _, o := range m.opts("validation_filter") {
		if o.Grain == g || o.Grain == "" && g == requested {
			out = append(out, o)
		}
	}
	return out
}

func (m *metaJSON) warning(typ string) *warnJSON {
	for i := range m.Warnings {
		if m.Warnings[i].Type == typ {
			return &m.Warnings[i]
		}
	}
	return nil
}

// isMetric: a field the catalog calls a metric, or a comparison's derived
// column of one (spend_change).
func isMetric(f string) bool {
	if _, suffix := Derived(f); suffix != "" {
		return true
	}
	return Additive[f] || slices.Contains(ratioPool, f) || f == "reach" || f == "frequency"
}

// parseEcho turns _meta.query into the oracle's Query. A long IN list the echo
// abbreviates ({"first": [...], "count": N}) is taken from the call's own
// arguments (args), the filter of the same field and operator.
func parseEcho(raw json.RawMessage, args []byte) (*Query, *echoJSON, error) {
	var e echoJSON
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, nil, fmt.Errorf("_meta.query: %v", err)
	}
	var orig echoJSON
	json.Unmarshal(args, &orig)
	for i, f := range e.Filters {
		m, ok := f.Value.(map[string]any)
		if !ok {
			continue
		}
		found := false
		for _, o := range orig.Filters {
			if vs, isList := o.Value.([]any); isList && o.Field == f.Field && strings.EqualFold(o.Operator, f.Operator) && float64(len(vs)) == m["count"] {
				e.Filters[i].Value, found = vs, true
				break
			}
		}
		if !found {
			return nil, nil, fmt.Errorf("_meta.query.filters[%d].value is abbreviated (%v) and the arguments have no such list", i, m["count"])
		}
	}
	if e.DateRange == nil {
		return nil, nil, fmt.Errorf("_meta.query has no date_range")
	}
	q := &Query{AccountIDs: e.AccountIDs, Dims: e.Dimensions, Metrics: e.Metrics, Grain: e.TimeGranularity, Limit: e.Limit}
	if q.Grain == "" {
		q.Grain = "total"
	}
	var err error
	if q.Start, err = time.Parse(time.DateOnly, e.DateRange.Start); err != nil {
		return nil, nil, err
	}
	if q.End, err = time.Parse(time.DateOnly, e.DateRange.End); err != nil {
		return nil, nil, err
	}
	for _, f := range e.Filters {
		flt := Filter{Field: f.Field, Op: f.Operator, Metric: isMetric(f.Field)}
		switch v := f.Value.(type) {
		case []any:
			flt.Values = v
		default:
			flt.Values = []any{v}
		}
		for i, v := range flt.Values {
			if flt.Metric {
				flt.Values[i] = toFloat(v)
			} else if _, ok := v.(string); !ok {
				flt.Values[i] = fmt.Sprint(v)
			}
		}
		q.Filters = append(q.Filters, flt)
	}
	for _, s := range e.Sort {
		q.Sort = append(q.Sort, SortKey{Field: s.Field, Desc: strings.EqualFold(s.Direction, "desc")})
	}
	return q, &e, nil
}

// table is a parsed CSV block.
type table struct {
	header []string
	rows   [][]string
}

func parseCSV(s string) (*table, error) {
	recs, err := csv.NewReader(strings.NewReader(s)).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return &table{}, nil
	}
	t := &table{header: recs[0], rows: recs[1:]}
	if len(t.header) == 1 {
		// encoding/csv skips empty lines, which are rows with one empty cell here.
		lines := strings.Split(strings.TrimSuffix(strings.ReplaceAll(s, "\r\n", "\n"), "\n"), "\n")
		t.rows = nil
		for _, l := range lines[1:] {
			v := l
			if uq, err := strconv.Unquote(l); err == nil && strings.HasPrefix(l, `"`) {
				v = uq
			}
			t.rows = append(t.rows, []string{v})
		}
	}
	return t, nil
}

func (t *table) col(name string) int { return slices.Index(t.header, name) }

// cellValue is a parsed CSV number; NaN for an empty cell.
func cellValue(s string) (float64, error) {
	if s == "" {
		return math.NaN(), nil
	}
	return strconv.ParseFloat(s, 64)
}

// decimals is the number of digits after the point in a CSV number.
func decimals(s string) int {
	if i := strings.IndexByte(s, '.'); i >= 0 && !strings.ContainsAny(s, "eE") {
		return len(s) - i - 1
	}
	return 0
}
