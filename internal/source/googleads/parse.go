package googleads

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/adsmcp/adsmcp/internal/catalog"
)

// row is one GoogleAdsRow as the REST API writes it (lowerCamel keys, int64 as
// strings, doubles as numbers, zero values often omitted). Only the fields the
// connector selects are declared; others are ignored.
type row struct {
	Customer *struct {
		ID              id     `json:"id"`
		DescriptiveName string `json:"descriptiveName"`
		CurrencyCode    string `json:"currencyCode"`
		TimeZone        string `json:"timeZone"`
		Status          string `json:"status"`
		Manager         bool   `json:"manager"`
	} `json:"customer"`
	CustomerClient *struct {
		ID              id     `json:"id"`
		DescriptiveName string `json:"descriptiveName"`
		CurrencyCode    string `json:"currencyCode"`
		TimeZone        string `json:"timeZone"`
		Status          string `json:"status"`
		Manager         bool   `json:"manager"`
		Level           int64s `json:"level"`
	} `json:"customerClient"`
	Campaign *struct {
		ID                     id     `json:"id"`
		Name                   string `json:"name"`
		AdvertisingChannelType string `json:"advertisingChannelType"`
		Status                 string `json:"status"`
	} `json:"campaign"`
	AdGroup *struct {
		ID   id     `json:"id"`
		Name string `json:"name"`
	} `json:"adGroup"`
	AdGroupAd *struct {
		Ad struct {
			ID   id     `json:"id"`
			Name string `json:"name"`
		} `json:"ad"`
	} `json:"adGroupAd"`
	AdGroupCriterion *struct {
		AgeRange *struct {
			Type string `json:"type"`
		} `json:"ageRange"`
		Gender *struct {
			Type string `json:"type"`
		} `json:"gender"`
	} `json:"adGroupCriterion"`
	ConversionAction *struct {
		Name string `json:"name"`
	} `json:"conversionAction"`
	UserLocationView *struct {
		CountryCriterionID id `json:"countryCriterionId"`
	} `json:"userLocationView"`
	GeoTargetConstant *struct {
		ID          id     `json:"id"`
		CountryCode string `json:"countryCode"`
	} `json:"geoTargetConstant"`
	Segments struct {
		Date          string `json:"date"`
		Week          string `json:"week"`
		Month         string `json:"month"`
		Device        string `json:"device"`
		AdNetworkType string `json:"adNetworkType"`
		// ConversionActionName is segments.conversion_action_name.
		ConversionActionName string `json:"conversionActionName"`
	} `json:"segments"`
	Metrics measures `json:"metrics"`
}

// measures are a row's metrics as the catalog's stored measures (by
// catalog.Measure): each read from its GAQL field as metricFields says Google
// writes it; 0 where the row leaves it out.
type measures [catalog.NumMeasures]float64

// rowMetric is one catalog metric's GAQL field as a key of a row's metrics.
type rowMetric struct {
	key     string // metrics.cost_micros → costMicros
	measure catalog.Measure
	value   gaqlValue
	micros  bool // stored in micros: a double is money in currency units
}

var rowMetrics = func() []rowMetric {
	var out []rowMetric
	for _, f := range catalog.Measures() {
		if mf, ok := metricFields[f.Name]; ok {
			out = append(out, rowMetric{jsonKey(mf.field), f.Storage.Measure, mf.value, f.Storage.Kind == catalog.Micros})
		}
	}
	return out
}()

func (m *measures) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	for _, g := range rowMetrics {
		v, ok := raw[g.key]
		if !ok {
			continue
		}
		x, err := g.read(v)
		if err != nil {
			return err
		}
		m[g.measure] = x
	}
	return nil
}

// read reads one metric: an int64 (a count, or micros), a double, or money in
// currency units read exactly into micros.
func (g rowMetric) read(b []byte) (float64, error) {
	switch {
	case g.value == int64Value:
		var v int64s
		err := v.UnmarshalJSON(b)
		return float64(v), err
	case g.micros:
		var v micros
		err := v.UnmarshalJSON(b)
		return float64(v), err
	}
	var v float
	err := v.UnmarshalJSON(b)
	return float64(v), err
}

// id is a resource ID: digits, written as a JSON string (int64) or number.
type id string

func (v *id) UnmarshalJSON(b []byte) error {
	s, err := scalar(b)
	if err != nil {
		return err
	}
	if s == "" {
		*v = ""
		return nil
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return fmt.Errorf("ID %s is not a number", snippet(b))
		}
	}
	if len(s) > 19 {
		return fmt.Errorf("ID %s is too long", snippet(b))
	}
	*v = id(s)
	return nil
}

// int64s is an int64 written as a JSON string (proto3 JSON) or number.
type int64s int64

func (v *int64s) UnmarshalJSON(b []byte) error {
	s, err := scalar(b)
	if err != nil {
		return err
	}
	if s == "" {
		*v = 0
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("%s is not an integer", snippet(b))
	}
	*v = int64s(n)
	return nil
}

// float is a double, written as a JSON number (or a string).
type float float64

func (v *float) UnmarshalJSON(b []byte) error {
	s, err := scalar(b)
	if err != nil {
		return err
	}
	if s == "" {
		*v = 0
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return fmt.Errorf("%s is not a finite number", snippet(b))
	}
	*v = float(f)
	return nil
}

// micros is an amount of money in currency units (a double such as 123.45),
// read exactly from its decimal text into millionths.
type micros int64

func (v *micros) UnmarshalJSON(b []byte) error {
	s, err := scalar(b)
	if err != nil {
		return err
	}
	if s == "" {
		*v = 0
		return nil
	}
	m, err := parseMicros(s)
	if err != nil {
		return fmt.Errorf("%s is not an amount: %w", snippet(b), err)
	}
	*v = micros(m)
	return nil
}

// scalar returns the text of a JSON string or number ("" for null).
func scalar(b []byte) (string, error) {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		return "", nil
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return "", err
		}
		return s, nil
	case b[0] == '-' || (b[0] >= '0' && b[0] <= '9'):
		return string(b), nil
	}
	return "", fmt.Errorf("expected a number, got %s", snippet(b))
}

// parseMicros turns a decimal amount ("123.45", "-0.5", "1e3") into millionths,
// exactly for up to 6 decimals and rounded half away from zero beyond.
func parseMicros(s string) (int64, error) {
	neg := false
	switch {
	case strings.HasPrefix(s, "-"):
		neg, s = true, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > 30 || e < -30 {
			return 0, errors.New("bad exponent")
		}
		mant, exp = s[:i], e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart == "" && frac == "" {
		return 0, errors.New("no digits")
	}
	all := intPart + frac
	for _, r := range all {
		if r < '0' || r > '9' {
			return 0, errors.New("not a decimal number")
		}
	}
	// value = all × 10^(exp − len(frac)); micros = value × 10^6.
	shift := exp - len(frac) + 6
	all = strings.TrimLeft(all, "0")
	if all == "" {
		return 0, nil
	}
	var n int64
	roundUp := false
	switch {
	case shift >= 0:
		if len(all)+shift > 18 {
			return 0, errors.New("amount out of range")
		}
		all += strings.Repeat("0", shift)
	default:
		cut := len(all) + shift // digits kept
		if cut < 0 {
			return 0, nil
		}
		roundUp = all[cut] >= '5'
		all = all[:cut]
		if len(all) > 18 {
			return 0, errors.New("amount out of range")
		}
	}
	if all != "" {
		var err error
		if n, err = strconv.ParseInt(all, 10, 64); err != nil {
			return 0, errors.New("amount out of range")
		}
	}
	if roundUp {
		n++
	}
	if neg {
		n = -n
	}
	return n, nil
}

// readStream reads a searchStream response body — a JSON array of batches,
// each {"results": [rows], "fieldMask", "requestId", …}, possibly ending with
// an {"error": …} element — and hands each batch's rows to fn. It returns an
// *apiError for an error element, a *streamError for anything not of that
// shape (never panics), or fn's error.
func readStream(r io.Reader, fn func([]row) error) error {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	bad := func(format string, args ...any) error { return &streamError{msg: fmt.Sprintf(format, args...)} }
	tok, err := dec.Token()
	if err != nil {
		return bad("expected a JSON array of result batches: %v", jsonErr(err))
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return bad("expected a JSON array of result batches, got %v", tok)
	}
	for n := 0; dec.More(); n++ {
		var batch struct {
			Results []row      `json:"results"`
			Error   *errorJSON `json:"error"`
		}
		if err := dec.Decode(&batch); err != nil {
			return bad("batch %d: %v", n, jsonErr(err))
		}
		if batch.Error != nil {
			e := &apiError{}
			fillError(e, batch.Error)
			return e
		}
		if err := fn(batch.Results); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return bad("the array of result batches is not closed: %v", jsonErr(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return bad("unexpected data after the array of result batches")
	}
	return nil
}

// jsonErr makes decoding errors read well (io.EOF inside a value is a cut).
func jsonErr(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("the response ended early (truncated)")
	}
	return err
}

// parseAccessible reads listAccessibleCustomers: {"resourceNames":
// ["customers/1234567890", …]} → customer IDs (digits).
func parseAccessible(body []byte) ([]string, error) {
	var v struct {
		ResourceNames []string `json:"resourceNames"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, &streamError{msg: "listAccessibleCustomers: " + err.Error()}
	}
	ids := make([]string, 0, len(v.ResourceNames))
	for _, n := range v.ResourceNames {
		cid, ok := strings.CutPrefix(n, "customers/")
		if !ok || cid == "" || digits(cid) != cid || len(cid) > 19 {
			return nil, &streamError{msg: "listAccessibleCustomers: unexpected resource name " + snippet([]byte(n))}
		}
		ids = append(ids, cid)
	}
	return ids, nil
}
