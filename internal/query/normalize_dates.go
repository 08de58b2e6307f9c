package query

import (
	"fmt"
	"strings"
	"time"
)

// location is the timezone presets resolve in: the accounts' shared timezone, or
// UTC when they differ (each account's data is still by its own local dates).
func (n *normalizer) location() *time.Location {
	tz := ""
	for i, a := range n.q.Accounts {
		if i > 0 && a.Timezone != tz {
			return time.UTC
		}
		tz = a.Timezone
	}
	if loc, err := time.LoadLocation(tz); err == nil && tz != "" {
		return loc
	}
	return time.UTC
}

func (n *normalizer) dates(dr *DateRange, preset string) {
	loc := n.location()
	n.q.Location = loc.String()
	today := civil(n.opt.Now().In(loc))
	if dr != nil {
		if preset != "" {
			n.change(Change{Type: ChangeDatePresetIgnored, Field: "date_preset", From: preset,
				Detail: fmt.Sprintf("Both date_range and date_preset were given; date_range was used and date_preset %q ignored", preset)})
		}
		start, err1 := ParseDate(strings.TrimSpace(dr.Start))
		if err1 != nil {
			n.problem(Problem{Field: "date_range.start", Value: dr.Start, Problem: "is not a date in YYYY-MM-DD form",
				Fix: "write dates like " + today.AddDate(0, 0, -30).Format(time.DateOnly)})
		}
		end, err2 := ParseDate(strings.TrimSpace(dr.End))
		if err2 != nil {
			n.problem(Problem{Field: "date_range.end", Value: dr.End, Problem: "is not a date in YYYY-MM-DD form",
				Fix: "write dates like " + today.AddDate(0, 0, -1).Format(time.DateOnly)})
		}
		if err1 != nil || err2 != nil {
			return
		}
		n.setRange(start, end, today)
		return
	}
	if preset == "" {
		preset = DefaultPreset
	}
	p := strings.ToLower(strings.TrimSpace(preset))
	p = strings.NewReplacer(" ", "_", "-", "_").Replace(p)
	if alias, ok := presetAliases[p]; ok {
		p = alias
	}
	start, end, err := ResolvePreset(p, today)
	if err != nil {
		n.problem(Problem{Field: "date_preset", Value: preset, Problem: "unknown date preset",
			Valid: Presets, Closest: closestStrings(preset, Presets, 3),
			Fix: `use one of the valid presets, or date_range {"start":"YYYY-MM-DD","end":"YYYY-MM-DD"}`})
		return
	}
	if p != preset {
		n.change(Change{Type: ChangeValueNormalized, Field: "date_preset", From: preset, To: p,
			Detail: fmt.Sprintf("Date preset %q read as %q", preset, p)})
	}
	n.q.Preset = p
	n.q.Start, n.q.End = start, end
}

// presetAliases forgive the spellings of the platforms' own presets.
var presetAliases = map[string]string{
	"last_7_days": "last_7d", "last_14_days": "last_14d", "last_30_days": "last_30d", "last_90_days": "last_90d",
	"last7days": "last_7d", "last14days": "last_14d", "last30days": "last_30d", "last90days": "last_90d",
	"last_week_mon_sun": "last_week", "this_week_mon_today": "this_week",
}

func (n *normalizer) setRange(start, end, today time.Time) {
	if start.After(end) {
		n.problem(Problem{Field: "date_range", Value: start.Format(time.DateOnly) + " to " + end.Format(time.DateOnly),
			Problem: "start is after end", Fix: "swap start and end; both dates are inclusive"})
		return
	}
	if start.After(today) {
		n.problem(Problem{Field: "date_range.start", Value: start.Format(time.DateOnly),
			Problem: fmt.Sprintf("is in the future (today is %s in %s)", today.Format(time.DateOnly), n.q.Location),
			Fix:     "ask for dates up to today"})
		return
	}
	if end.After(today) {
		n.change(Change{Type: ChangeDateRangeClamped, Field: "date_range.end", From: end.Format(time.DateOnly),
			To: today.Format(time.DateOnly), Detail: "The end date was in the future; the range ends today"})
		end = today
	}
	if days := int(end.Sub(start).Hours()/24) + 1; days > n.opt.MaxSpanDays {
		n.problem(Problem{Field: "date_range", Value: fmt.Sprintf("%d days", days),
			Problem: fmt.Sprintf("spans more than %d days (37 months: how long Meta keeps insights, and about what one query can aggregate within the deadline)", n.opt.MaxSpanDays),
			Fix:     "split the range into several queries or use a shorter one"})
		return
	}
	n.q.Start, n.q.End = start, end
}
