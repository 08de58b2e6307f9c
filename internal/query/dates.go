package query

import (
	"fmt"
	"time"
)

// Presets are the valid date_preset values.
var Presets = []string{"today", "yesterday", "last_7d", "last_14d", "last_30d", "last_90d",
	"this_week", "last_week", "this_month", "last_month", "this_quarter", "last_quarter",
	"this_year", "last_year"}

// DefaultPreset applies when neither date_range nor date_preset is given.
const DefaultPreset = "last_30d"

// ResolvePreset turns a preset into an inclusive civil date range relative to
// today. last_Nd ends yesterday (today's data is still incomplete), like Meta's
// presets; this_* periods end today; weeks start on Monday.
func ResolvePreset(preset string, today time.Time) (start, end time.Time, err error) {
	today = civil(today)
	yesterday := today.AddDate(0, 0, -1)
	monday := today.AddDate(0, 0, -((int(today.Weekday()) + 6) % 7))
	month := time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, time.UTC)
	quarter := time.Date(today.Year(), (today.Month()-1)/3*3+1, 1, 0, 0, 0, 0, time.UTC)
	year := time.Date(today.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	switch preset {
	case "today":
		return today, today, nil
	case "yesterday":
		return yesterday, yesterday, nil
	case "last_7d":
		return today.AddDate(0, 0, -7), yesterday, nil
	case "last_14d":
		return today.AddDate(0, 0, -14), yesterday, nil
	case "last_30d":
		return today.AddDate(0, 0, -30), yesterday, nil
	case "last_90d":
		return today.AddDate(0, 0, -90), yesterday, nil
	case "this_week":
		return monday, today, nil
	case "last_week":
		return monday.AddDate(0, 0, -7), monday.AddDate(0, 0, -1), nil
	case "this_month":
		return month, today, nil
	case "last_month":
		return month.AddDate(0, -1, 0), month.AddDate(0, 0, -1), nil
	case "this_quarter":
		return quarter, today, nil
	case "last_quarter":
		return quarter.AddDate(0, -3, 0), quarter.AddDate(0, 0, -1), nil
	case "this_year":
		return year, today, nil
	case "last_year":
		return year.AddDate(-1, 0, 0), year.AddDate(0, 0, -1), nil
	}
	return time.Time{}, time.Time{}, fmt.Errorf("unknown date preset %q", preset)
}

// civil keeps the calendar date of t (in t's own location) at UTC midnight, the
// representation of dates throughout adsmcp.
func civil(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// ParseDate parses a YYYY-MM-DD civil date.
func ParseDate(s string) (time.Time, error) {
	return time.Parse(time.DateOnly, s)
}
