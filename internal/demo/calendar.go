package demo

import "time"

// The calendar shapes demand the way retail ad accounts see it: a weekly rhythm that
// differs by platform, and a few peaks every year (Black Friday/Cyber Monday, the
// December holidays, a summer sale; Hot Sale in Argentina) with a January slump.
// Seasonal campaigns are scheduled in the same windows.

const day = 24 * time.Hour

// civil returns UTC midnight of a calendar date.
func civil(y int, m time.Month, d int) time.Time {
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// thanksgiving is the fourth Thursday of November.
func thanksgiving(y int) time.Time {
	first := civil(y, time.November, 1)
	offset := (int(time.Thursday) - int(first.Weekday()) + 7) % 7
	return first.AddDate(0, 0, offset+21)
}

// nthWeekday returns the n-th (1-based) weekday wd of a month.
func nthWeekday(y int, m time.Month, wd time.Weekday, n int) time.Time {
	first := civil(y, m, 1)
	offset := (int(wd) - int(first.Weekday()) + 7) % 7
	return first.AddDate(0, 0, offset+7*(n-1))
}

// demand is the market's appetite on a date relative to an ordinary weekday: it
// scales spend, and (less) CPMs and conversion rates.
func demand(t time.Time, spanish bool) float64 {
	y, m, d := t.Date()
	bf := thanksgiving(y).AddDate(0, 0, 1)
	cm := bf.AddDate(0, 0, 3)
	switch {
	case !t.Before(bf) && !t.After(cm):
		if t.Equal(bf) {
			return 2.9
		}
		if t.Equal(cm) {
			return 2.5
		}
		return 2.1
	case !t.Before(bf.AddDate(0, 0, -7)) && t.Before(bf):
		// The week before Black Friday ramps up.
		return 1.3 + 0.1*float64(7-int(bf.Sub(t)/day))
	case t.After(cm) && !t.After(cm.AddDate(0, 0, 3)):
		return 1.45
	}
	if spanish {
		// Argentina: Hot Sale (second week of May) and CyberMonday AR (early November).
		hs := nthWeekday(y, time.May, time.Monday, 2)
		if !t.Before(hs) && !t.After(hs.AddDate(0, 0, 2)) {
			return 2.4
		}
		cy := nthWeekday(y, time.November, time.Monday, 1)
		if !t.Before(cy) && !t.After(cy.AddDate(0, 0, 2)) {
			return 2.2
		}
	}
	switch m {
	case time.December:
		switch {
		case d <= 20:
			return 1.35
		case d <= 23:
			return 1.15
		case d <= 26:
			return 0.7
		default:
			return 0.95
		}
	case time.January:
		if d <= 20 {
			return 0.82
		}
	case time.July:
		// The summer sale.
		if d >= 8 && d <= 14 {
			return 1.6
		}
		if d >= 5 && d <= 16 {
			return 1.2
		}
	}
	return 1
}

// weekly is spend by weekday (Sunday first) per platform: search is a weekday
// habit, social feeds peak on weekends.
var weekly = map[string][7]float64{
	metaAds:   {1.06, 1.0, 0.99, 0.98, 0.98, 0.95, 1.03},
	googleAds: {0.9, 1.07, 1.06, 1.04, 1.02, 0.95, 0.84},
	tiktokAds: {1.07, 0.96, 0.96, 0.98, 1.0, 1.03, 1.07},
}

// window is a seasonal campaign's flight for the event of a year.
type window func(y int) (start, end time.Time)

// windows of the seasonal campaign kinds (names.go).
var windows = map[string]window{
	"bfcm": func(y int) (time.Time, time.Time) {
		bf := thanksgiving(y).AddDate(0, 0, 1)
		return bf.AddDate(0, 0, -10), bf.AddDate(0, 0, 4)
	},
	"holiday": func(y int) (time.Time, time.Time) {
		return civil(y, time.December, 1), civil(y, time.December, 23)
	},
	"summer": func(y int) (time.Time, time.Time) {
		return civil(y, time.July, 1), civil(y, time.July, 21)
	},
	"valentines": func(y int) (time.Time, time.Time) {
		return civil(y, time.January, 28), civil(y, time.February, 14)
	},
	"mothers": func(y int) (time.Time, time.Time) {
		return civil(y, time.April, 22), nthWeekday(y, time.May, time.Sunday, 2)
	},
	"school": func(y int) (time.Time, time.Time) {
		return civil(y, time.July, 22), civil(y, time.September, 5)
	},
	"newyear": func(y int) (time.Time, time.Time) {
		return civil(y, time.January, 2), civil(y, time.January, 20)
	},
	"spring": func(y int) (time.Time, time.Time) {
		return civil(y, time.March, 1), civil(y, time.March, 31)
	},
	"hotsale": func(y int) (time.Time, time.Time) {
		hs := nthWeekday(y, time.May, time.Monday, 2)
		return hs.AddDate(0, 0, -7), hs.AddDate(0, 0, 2)
	},
	"cyberar": func(y int) (time.Time, time.Time) {
		cy := nthWeekday(y, time.November, time.Monday, 1)
		return cy.AddDate(0, 0, -5), cy.AddDate(0, 0, 2)
	},
	"fathers": func(y int) (time.Time, time.Time) {
		fd := nthWeekday(y, time.June, time.Sunday, 3)
		return fd.AddDate(0, 0, -14), fd
	},
}

// isoMonday is the Monday starting t's ISO week.
func isoMonday(t time.Time) time.Time {
	back := (int(t.Weekday()) + 6) % 7
	return t.AddDate(0, 0, -back)
}

// monthStart is the first of t's month.
func monthStart(t time.Time) time.Time {
	y, m, _ := t.Date()
	return civil(y, m, 1)
}
