package tiktok

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/internal/source/decimal"
)

// The API for Business answers every request with one envelope,
// {"code":0,"message":"OK","request_id":"…","data":{…}}: a non-zero code is an
// error whatever the HTTP status. The integrated report writes every value as
// a string (numbers too: "12.34", "1000"); money is parsed as an exact decimal
// into micros, never through a float.

// envelope is a response before its data is read.
type envelope struct {
	Code      *json.Number    `json:"code"`
	Message   string          `json:"message"`
	RequestID string          `json:"request_id"`
	Data      json.RawMessage `json:"data"`
}

// parseEnvelope reads the envelope: its data when code is 0, an *APIError
// when it is not, or an error when the body is no envelope at all.
func parseEnvelope(body []byte) (json.RawMessage, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil, errors.New("an empty body, not a TikTok response")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var env envelope
	if err := dec.Decode(&env); err != nil {
		return nil, fmt.Errorf("not a TikTok response: %s", truncate(err.Error(), 120))
	}
	if env.Code == nil {
		return nil, errors.New("not a TikTok response: no code")
	}
	code, err := env.Code.Int64()
	if err != nil || code < 0 || code > 1<<31 {
		return nil, fmt.Errorf("not a TikTok response: code %q is not a small integer", truncate(env.Code.String(), 40))
	}
	if code != 0 {
		return nil, &APIError{Code: int(code), Message: truncate(env.Message, 500), RequestID: truncate(env.RequestID, 80)}
	}
	return env.Data, nil
}

// ReportPage is one page of the integrated report.
type ReportPage struct {
	Rows []ReportRow
	// Page and TotalPage are page_info's: the report has been read when Page
	// reaches TotalPage (a short page proves nothing).
	Page, TotalPage int
	TotalNumber     int
}

// ReportRow is one row: its dimensions and metrics as TikTok wrote them
// (strings), by name. Values are read with Micros, Text and Day.
type ReportRow struct {
	Dimensions map[string]string
	Metrics    map[string]string
}

// value is a JSON string TikTok writes; numbers and null are accepted too.
type value struct {
	s       string
	present bool
}

func (v *value) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		return nil
	case len(b) > 0 && b[0] == '"':
		if err := json.Unmarshal(b, &v.s); err != nil {
			return err
		}
		v.present = true
		return nil
	case len(b) > 0 && (b[0] == '-' || b[0] >= '0' && b[0] <= '9'):
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return err
		}
		v.s, v.present = n.String(), true
		return nil
	}
	return fmt.Errorf("want a string or a number, got %.40s", b)
}

type rawReport struct {
	List *[]struct {
		Dimensions map[string]value `json:"dimensions"`
		Metrics    map[string]value `json:"metrics"`
	} `json:"list"`
	PageInfo *struct {
		Page        value `json:"page"`
		PageSize    value `json:"page_size"`
		TotalNumber value `json:"total_number"`
		TotalPage   value `json:"total_page"`
	} `json:"page_info"`
}

// ParseReport parses one response of /report/integrated/get/: its rows and
// page_info, or the *APIError it carries. It never panics, whatever the body.
func ParseReport(body []byte) (*ReportPage, error) {
	data, err := parseEnvelope(body)
	if err != nil {
		return nil, err
	}
	var raw rawReport
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("malformed report data: %s", truncate(err.Error(), 120))
	}
	if raw.List == nil || raw.PageInfo == nil {
		return nil, errors.New("malformed report data: no list or no page_info")
	}
	p := &ReportPage{Rows: make([]ReportRow, 0, len(*raw.List))}
	for _, f := range []struct {
		name string
		v    value
		to   *int
	}{{"page", raw.PageInfo.Page, &p.Page}, {"total_page", raw.PageInfo.TotalPage, &p.TotalPage}, {"total_number", raw.PageInfo.TotalNumber, &p.TotalNumber}} {
		n, err := smallCount(f.v)
		if err != nil {
			return nil, fmt.Errorf("malformed report page_info: %s: %w", f.name, err)
		}
		*f.to = n
	}
	for _, r := range *raw.List {
		row := ReportRow{Dimensions: make(map[string]string, len(r.Dimensions)), Metrics: make(map[string]string, len(r.Metrics))}
		for k, v := range r.Dimensions {
			if v.present {
				row.Dimensions[k] = v.s
			}
		}
		for k, v := range r.Metrics {
			if v.present {
				row.Metrics[k] = v.s
			}
		}
		p.Rows = append(p.Rows, row)
	}
	return p, nil
}

// smallCount is a page_info number: whole, non-negative, below a million pages.
func smallCount(v value) (int, error) {
	if !v.present {
		return 0, errors.New("missing")
	}
	m, err := parseMicros(v.s)
	if err != nil || m < 0 || m%1e6 != 0 || m/1e6 > 1e9 {
		return 0, fmt.Errorf("%q is not a whole non-negative number", truncate(v.s, 40))
	}
	return int(m / 1e6), nil
}

// Text is a dimension's or a metric's text ("" when absent; TikTok writes "-"
// for a value that does not apply, read as absent too).
func (r *ReportRow) Text(name string) string {
	if v, ok := r.Dimensions[name]; ok {
		return cleanText(v)
	}
	return cleanText(r.Metrics[name])
}

func cleanText(s string) string {
	if s == "-" {
		return ""
	}
	return s
}

// Micros is a metric's value in millionths, exactly; false when the row does
// not have it (absent, empty or "-").
func (r *ReportRow) Micros(name string) (int64, bool, error) {
	s, ok := r.Metrics[name]
	s = strings.TrimSpace(s)
	if !ok || s == "" || s == "-" {
		return 0, false, nil
	}
	m, err := parseMicros(s)
	if err != nil {
		return 0, false, fmt.Errorf("metric %s: %w", name, err)
	}
	return m, true, nil
}

// Day is stat_time_day's date ("2026-03-01 00:00:00" or "2026-03-01").
func (r *ReportRow) Day() (time.Time, error) {
	s := r.Dimensions["stat_time_day"]
	if len(s) >= 10 {
		if t, err := time.Parse(time.DateOnly, s[:10]); err == nil && (len(s) == 10 || s[10:] == " 00:00:00") {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("stat_time_day %q is not a date", truncate(s, 40))
}

// parseMicros is the connectors' one decimal reader (internal/source/decimal).
var parseMicros = decimal.ParseMicros

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// advertisersData is /oauth2/advertiser/get/'s data.
type advertisersData struct {
	List *[]struct {
		AdvertiserID value  `json:"advertiser_id"`
		Name         string `json:"advertiser_name"`
	} `json:"list"`
}

// advertiserInfo is one entry of /advertiser/info/'s data.list.
type advertiserInfo struct {
	AdvertiserID    value  `json:"advertiser_id"`
	Name            string `json:"name"`
	Currency        string `json:"currency"`
	Timezone        string `json:"timezone"`
	DisplayTimezone string `json:"display_timezone"`
	Status          string `json:"status"`
}

type advertiserInfoData struct {
	List *[]advertiserInfo `json:"list"`
}

// campaignsData is one page of /campaign/get/'s data.
type campaignsData struct {
	List *[]struct {
		CampaignID      value  `json:"campaign_id"`
		Name            string `json:"campaign_name"`
		ObjectiveType   string `json:"objective_type"`
		OperationStatus string `json:"operation_status"`
		SecondaryStatus string `json:"secondary_status"`
	} `json:"list"`
	PageInfo *struct {
		Page      value `json:"page"`
		TotalPage value `json:"total_page"`
	} `json:"page_info"`
}

// decodeData parses an envelope and decodes its data into v.
func decodeData(body []byte, what string, v any) error {
	data, err := parseEnvelope(body)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("malformed %s data: %s", what, truncate(err.Error(), 120))
	}
	return nil
}
