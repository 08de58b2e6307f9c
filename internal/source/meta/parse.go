package meta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/source/decimal"
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
// for are zero or absent.
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

	// Numbers are the numeric Insights fields of the catalog's metrics that the
	// row has (spend, impressions, reach, …), by field name: money in micros,
	// counts as counts (see metaFields).
	Numbers map[string]int64
	// Actions are the lists of actions of the catalog's metrics that the row
	// has (actions, action_values), by field name; each keeps every action
	// type: which count is the connector's choice (Options.ActionTypes).
	Actions map[string][]Action

	// Breakdown values, as Meta names them.
	Country           string
	ImpressionDevice  string
	DevicePlatform    string
	PublisherPlatform string
	PlatformPosition  string
	Age               string
	Gender            string
}

// Number is a numeric field's value (0 when the row does not have it).
func (r *Row) Number(field string) int64 { return r.Numbers[field] }

// Has reports whether the row has a numeric field (with a value, not null).
func (r *Row) Has(field string) bool {
	_, ok := r.Numbers[field]
	return ok
}

// metaField is how a numeric or action-list Insights field is parsed.
type metaField struct {
	actions bool // a list of actions
	count   bool // a whole non-negative count (else money, in micros)
}

// metaFields are the Insights fields behind the metrics Meta reports
// (insightsMetrics).
var metaFields = func() map[string]metaField {
	out := map[string]metaField{}
	for _, m := range insightsMetrics {
		out[m.Field] = metaField{actions: m.isActions(), count: catalog.MustLookup(m.Metric).Unit == catalog.Count}
	}
	return out
}()

// metaFieldNames are metaFields' names, sorted, for a stable parse order.
var metaFieldNames = slices.Sorted(maps.Keys(metaFields))

// Action is one entry of actions or action_values: an action type and its
// value in micros (a count of 3 is 3,000,000; a value of 12.5 is 12,500,000).
type Action struct {
	Type string
	// Micros is the action's "value": Meta's figure under the default
	// attribution ("Metric value of default attribution window", Ads Action
	// Stats reference).
	Micros int64
	// Windows are the values per attribution window ("7d_click", "1d_view",
	// …) the entry has: present when the request asked for
	// action_attribution_windows.
	Windows map[string]int64
}

// windowFields are the per-window keys of an action entry (Ads Action
// Stats): the catalog's window parts and the withdrawn view windows.
var windowFields = append(slices.Clone(catalog.AttributionParts), "7d_view", "28d_view")

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
	windows    map[string]flexNumber
}

func (a *rawAction) UnmarshalJSON(b []byte) error {
	type plain rawAction
	if err := json.Unmarshal(b, (*plain)(a)); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	for _, w := range windowFields {
		raw, ok := all[w]
		if !ok {
			continue
		}
		var n flexNumber
		if err := json.Unmarshal(raw, &n); err != nil {
			return fmt.Errorf("%s: %w", w, err)
		}
		if a.windows == nil {
			a.windows = map[string]flexNumber{}
		}
		a.windows[w] = n
	}
	return nil
}

// rawRow is a row's identity, dates and breakdowns; its metric fields are
// read by name (metaFields).
type rawRow struct {
	AccountID         string `json:"account_id"`
	CampaignID        string `json:"campaign_id"`
	CampaignName      string `json:"campaign_name"`
	AdSetID           string `json:"adset_id"`
	AdSetName         string `json:"adset_name"`
	AdID              string `json:"ad_id"`
	AdName            string `json:"ad_name"`
	Objective         string `json:"objective"`
	DateStart         string `json:"date_start"`
	DateStop          string `json:"date_stop"`
	Country           string `json:"country"`
	ImpressionDevice  string `json:"impression_device"`
	DevicePlatform    string `json:"device_platform"`
	PublisherPlatform string `json:"publisher_platform"`
	PlatformPosition  string `json:"platform_position"`
	Age               string `json:"age"`
	Gender            string `json:"gender"`

	metrics map[string]json.RawMessage
}

func (r *rawRow) UnmarshalJSON(b []byte) error {
	type plain rawRow
	if err := json.Unmarshal(b, (*plain)(r)); err != nil {
		return err
	}
	return json.Unmarshal(b, &r.metrics)
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
		PublisherPlatform: r.PublisherPlatform, PlatformPosition: r.PlatformPosition, Age: r.Age, Gender: r.Gender,
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
	return row, r.parseMetrics(&row)
}

// parseMetrics reads the row's metric fields: numbers and lists of actions.
func (r *rawRow) parseMetrics(row *Row) error {
	for _, name := range metaFieldNames {
		raw, ok := r.metrics[name]
		if !ok {
			continue
		}
		mf := metaFields[name]
		if mf.actions {
			var list []rawAction
			if err := json.Unmarshal(raw, &list); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			actions, err := parseActions(name, list)
			if err != nil {
				return err
			}
			if actions != nil {
				if row.Actions == nil {
					row.Actions = map[string][]Action{}
				}
				row.Actions[name] = actions
			}
			continue
		}
		var n flexNumber
		if err := json.Unmarshal(raw, &n); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if !n.present || n.s == "" {
			continue
		}
		parse := optionalMicros
		if mf.count {
			parse = optionalCount
		}
		v, err := parse(name, n)
		if err != nil {
			return err
		}
		if row.Numbers == nil {
			row.Numbers = map[string]int64{}
		}
		row.Numbers[name] = v
	}
	return nil
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
		what := name + "[" + truncate(a.ActionType, 60) + "]"
		m, err := optionalMicros(what, a.Value)
		if err != nil {
			return nil, err
		}
		act := Action{Type: a.ActionType, Micros: m}
		for _, w := range windowFields {
			n, ok := a.windows[w]
			if !ok || !n.present {
				continue
			}
			v, err := optionalMicros(what+"."+w, n)
			if err != nil {
				return nil, err
			}
			if act.Windows == nil {
				act.Windows = map[string]int64{}
			}
			act.Windows[w] = v
		}
		out = append(out, act)
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

// parseMicros and formatMicros are the connectors' one decimal reader
// (internal/source/decimal).
var (
	parseMicros  = decimal.ParseMicros
	formatMicros = decimal.FormatMicros
)

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
