package meta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// The Marketing API writes numbers as JSON strings ("123.45"); money is parsed
// as an exact decimal into micros, never through a float.

// InsightsPage is one page of an Insights response.
type InsightsPage struct {
	Rows []Row
	// Next is the URL of the next page; empty on the last page (a short page
	// proves nothing: only a missing next ends the paging).
	Next string
}

// Row is one Insights row, its numbers parsed. Fields the request did not ask
// for are zero (Has* says whether the optional ones were present).
type Row struct {
	AccountID    string
	CampaignID   string
	CampaignName string
	AdSetID      string
	AdSetName    string
	AdID         string
	AdName       string
	Objective    string
	DateStart    time.Time
	DateStop     time.Time

	SpendMicros      int64
	Impressions      int64
	Clicks           int64
	InlineLinkClicks int64
	Reach            int64
	HasReach         bool
	// Actions and ActionValues keep every action type; which count as
	// conversions is the connector's choice (Options.ActionTypes).
	Actions      []Action
	ActionValues []Action

	// Breakdown values, as Meta names them.
	Country           string
	ImpressionDevice  string
	DevicePlatform    string
	PublisherPlatform string
}

// Action is one entry of actions or action_values: an action type and its
// value in micros (a count of 3 is 3,000,000; a value of 12.5 is 12,500,000).
type Action struct {
	Type   string
	Micros int64
}

// flexNumber is a JSON number Meta usually writes as a string; a bare number or
// null is accepted too.
type flexNumber struct {
	s       string
	present bool
}

func (n *flexNumber) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		return nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		n.s, n.present = s, true
		return nil
	case len(b) > 0 && (b[0] == '-' || b[0] >= '0' && b[0] <= '9'):
		n.s, n.present = string(b), true
		return nil
	}
	return fmt.Errorf("want a number or a numeric string, got %.40s", b)
}

type rawAction struct {
	ActionType string     `json:"action_type"`
	Value      flexNumber `json:"value"`
}

type rawRow struct {
	AccountID         string      `json:"account_id"`
	CampaignID        string      `json:"campaign_id"`
	CampaignName      string      `json:"campaign_name"`
	AdSetID           string      `json:"adset_id"`
	AdSetName         string      `json:"adset_name"`
	AdID              string      `json:"ad_id"`
	AdName            string      `json:"ad_name"`
	Objective         string      `json:"objective"`
	DateStart         string      `json:"date_start"`
	DateStop          string      `json:"date_stop"`
	Spend             flexNumber  `json:"spend"`
	Impressions       flexNumber  `json:"impressions"`
	Clicks            flexNumber  `json:"clicks"`
	InlineLinkClicks  flexNumber  `json:"inline_link_clicks"`
	Reach             flexNumber  `json:"reach"`
	Actions           []rawAction `json:"actions"`
	ActionValues      []rawAction `json:"action_values"`
	Country           string      `json:"country"`
	ImpressionDevice  string      `json:"impression_device"`
	DevicePlatform    string      `json:"device_platform"`
	PublisherPlatform string      `json:"publisher_platform"`
}

type rawPaging struct {
	Next string `json:"next"`
}

type rawInsights struct {
	Data   *[]rawRow       `json:"data"`
	Paging rawPaging       `json:"paging"`
	Error  json.RawMessage `json:"error"`
}

// ParseInsights parses one page of an Insights response (sync, or an async
// report's results). A body that is not such a page — an error envelope,
// malformed JSON, a row with a missing date or an unreadable number — is an
// error saying what is wrong; it never panics, whatever the body.
func ParseInsights(body []byte) (*InsightsPage, error) {
	var raw rawInsights
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, fmt.Errorf("malformed Insights response: %w", err)
	}
	if len(raw.Error) > 0 && !bytes.Equal(raw.Error, []byte("null")) {
		if e, err := ParseError(body); err == nil {
			return nil, e
		}
		return nil, errors.New("malformed Insights response: an unreadable error object")
	}
	if raw.Data == nil {
		return nil, errors.New("malformed Insights response: no data array")
	}
	page := &InsightsPage{Next: raw.Paging.Next, Rows: make([]Row, 0, len(*raw.Data))}
	for i, r := range *raw.Data {
		row, err := r.parse()
		if err != nil {
			return nil, fmt.Errorf("malformed Insights response: row %d: %w", i, err)
		}
		page.Rows = append(page.Rows, row)
	}
	return page, nil
}

func (r *rawRow) parse() (Row, error) {
	row := Row{
		AccountID: r.AccountID, CampaignID: r.CampaignID, CampaignName: r.CampaignName,
		AdSetID: r.AdSetID, AdSetName: r.AdSetName, AdID: r.AdID, AdName: r.AdName, Objective: r.Objective,
		Country: r.Country, ImpressionDevice: r.ImpressionDevice, DevicePlatform: r.DevicePlatform,
		PublisherPlatform: r.PublisherPlatform,
	}
	var err error
	if row.DateStart, err = parseDate("date_start", r.DateStart); err != nil {
		return row, err
	}
	if row.DateStop, err = parseDate("date_stop", r.DateStop); err != nil {
		return row, err
	}
	if row.DateStop.Before(row.DateStart) {
		return row, fmt.Errorf("date_stop %s is before date_start %s", r.DateStop, r.DateStart)
	}
	if row.SpendMicros, err = optionalMicros("spend", r.Spend); err != nil {
		return row, err
	}
	for _, c := range []struct {
		name string
		n    flexNumber
		dst  *int64
	}{
		{"impressions", r.Impressions, &row.Impressions},
		{"clicks", r.Clicks, &row.Clicks},
		{"inline_link_clicks", r.InlineLinkClicks, &row.InlineLinkClicks},
		{"reach", r.Reach, &row.Reach},
	} {
		if *c.dst, err = optionalCount(c.name, c.n); err != nil {
			return row, err
		}
	}
	row.HasReach = r.Reach.present && r.Reach.s != ""
	if row.Actions, err = parseActions("actions", r.Actions); err != nil {
		return row, err
	}
	if row.ActionValues, err = parseActions("action_values", r.ActionValues); err != nil {
		return row, err
	}
	return row, nil
}

func parseDate(name, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, fmt.Errorf("%s is missing", name)
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s %q is not a YYYY-MM-DD date", name, truncate(s, 40))
	}
	return t, nil
}

func parseActions(name string, raw []rawAction) ([]Action, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	out := make([]Action, 0, len(raw))
	for _, a := range raw {
		m, err := optionalMicros(name+"["+truncate(a.ActionType, 60)+"]", a.Value)
		if err != nil {
			return nil, err
		}
		out = append(out, Action{Type: a.ActionType, Micros: m})
	}
	return out, nil
}

func optionalMicros(name string, n flexNumber) (int64, error) {
	if !n.present || n.s == "" {
		return 0, nil
	}
	m, err := parseMicros(n.s)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

func optionalCount(name string, n flexNumber) (int64, error) {
	m, err := optionalMicros(name, n)
	if err != nil {
		return 0, err
	}
	if m < 0 || m%1e6 != 0 {
		return 0, fmt.Errorf("%s: %q is not a whole non-negative count", name, truncate(n.s, 40))
	}
	return m / 1e6, nil
}

// maxIntDigits bounds the integer part so that micros fit an int64 with room
// to spare (a trillion of any currency is not a plausible amount).
const maxIntDigits = 12

// parseMicros parses a decimal string ("123.45", "-0.5", "12") into millionths
// exactly. Digits past the sixth decimal are rounded half away from zero.
func parseMicros(s string) (int64, error) {
	orig := s
	bad := func(why string) (int64, error) {
		return 0, fmt.Errorf("%q is not a decimal number (%s)", truncate(orig, 40), why)
	}
	if s == "" {
		return bad("empty")
	}
	neg := false
	switch s[0] {
	case '-':
		neg, s = true, s[1:]
	case '+':
		s = s[1:]
	}
	intPart, frac := s, ""
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			intPart, frac = s[:i], s[i+1:]
			break
		}
	}
	if intPart == "" && frac == "" {
		return bad("no digits")
	}
	var v int64
	digits := 0
	for i := 0; i < len(intPart); i++ {
		c := intPart[i]
		if c < '0' || c > '9' {
			return bad("unexpected character")
		}
		if v > 0 || c != '0' {
			digits++
		}
		if digits > maxIntDigits {
			return bad("too large")
		}
		v = v*10 + int64(c-'0')
	}
	v *= 1e6
	scale := int64(1e5)
	for i := 0; i < len(frac); i++ {
		c := frac[i]
		if c < '0' || c > '9' {
			return bad("unexpected character")
		}
		switch {
		case i < 6:
			v += int64(c-'0') * scale
			scale /= 10
		case i == 6 && c >= '5':
			v++
		}
	}
	if neg {
		v = -v
	}
	return v, nil
}

// formatMicros writes micros as the shortest exact decimal ("12.5", "3").
func formatMicros(m int64) string {
	neg := m < 0
	if neg {
		m = -m
	}
	s := fmt.Sprintf("%d.%06d", m/1e6, m%1e6)
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	s = trimSuffixDot(s)
	if neg {
		s = "-" + s
	}
	return s
}

func trimSuffixDot(s string) string {
	if s[len(s)-1] == '.' {
		return s[:len(s)-1]
	}
	return s
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// accountsPage is one page of /me/adaccounts.
type accountsPage struct {
	Data *[]struct {
		ID            string     `json:"id"`
		AccountID     string     `json:"account_id"`
		Name          string     `json:"name"`
		Currency      string     `json:"currency"`
		TimezoneName  string     `json:"timezone_name"`
		AccountStatus flexNumber `json:"account_status"`
	} `json:"data"`
	Paging rawPaging `json:"paging"`
}

// campaignsPage is one page of /act_<id>/campaigns.
type campaignsPage struct {
	Data *[]struct {
		ID              string `json:"id"`
		Name            string `json:"name"`
		Objective       string `json:"objective"`
		EffectiveStatus string `json:"effective_status"`
		StartTime       string `json:"start_time"`
		StopTime        string `json:"stop_time"`
	} `json:"data"`
	Paging rawPaging `json:"paging"`
}

// asyncStatus is a report run as polled.
type asyncStatus struct {
	ID                     string     `json:"id"`
	AsyncStatus            string     `json:"async_status"`
	AsyncPercentCompletion flexNumber `json:"async_percent_completion"`
}

// decodePage decodes a paged list response, refusing an error envelope or a
// body without a data array.
func decodePage(body []byte, what string, v any, hasData func() bool) error {
	if e, err := ParseError(body); err == nil {
		return e
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("malformed %s response: %w", what, err)
	}
	if !hasData() {
		return fmt.Errorf("malformed %s response: no data array", what)
	}
	return nil
}
