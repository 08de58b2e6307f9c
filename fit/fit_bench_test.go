package fit

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pipelineBenchTable is an ad-like daily table of about n rows: campaigns × 365 days,
// with a currency column, money spend, clicks, hidden impressions and ctr.
func pipelineBenchTable(n int) *Table {
	days := 365
	if n < days*4 {
		days = n / 4
	}
	camps := n / days
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	t := &Table{Grain: Daily}
	date := &Column{Name: "date", Role: RoleTime}
	name := &Column{Name: "campaign_name", Role: RoleDimension}
	cur := &Column{Name: "currency", Role: RoleDimension}
	spend := &Column{Name: "spend", Role: RoleMetric, Aggregation: Sum, Money: true, CurrencyColumn: "currency"}
	clicks := &Column{Name: "clicks", Role: RoleMetric, Aggregation: Sum}
	impr := &Column{Name: "impressions", Role: RoleMetric, Aggregation: Sum, Hidden: true}
	ctr := &Column{Name: "ctr", Role: RoleMetric, Aggregation: Ratio, Numerator: "clicks", Denominator: "impressions", Scale: 100}
	labels := make([]string, days)
	for d := range days {
		labels[d] = start.AddDate(0, 0, d).Format(time.DateOnly)
	}
	names := make([]string, camps)
	for c := range camps {
		names[c] = "Prospecting - US - Lookalike " + strconv.Itoa(c)
	}
	for d := range days {
		for c := range camps {
			date.Strings = append(date.Strings, labels[d])
			name.Strings = append(name.Strings, names[c])
			cur.Strings = append(cur.Strings, []string{"USD", "EUR"}[c%2])
			im := float64(1000 + (d*31+c*17)%9000)
			cl := float64((d*7 + c*3) % 120)
			spend.Numbers = append(spend.Numbers, float64((d*13+c*29)%50000)/100)
			clicks.Numbers = append(clicks.Numbers, cl)
			impr.Numbers = append(impr.Numbers, im)
			ctr.Numbers = append(ctr.Numbers, cl/im*100)
		}
	}
	t.Columns = []*Column{date, name, cur, spend, clicks, impr, ctr}
	return t
}

// BenchmarkFit runs the whole pipeline with a 30,000-token budget: at 5k rows the
// daily data is coarsened, at 100k and 1M it ends in a summary with suggestions.
func BenchmarkFit(b *testing.B) {
	counter := NewO200k()
	counter.Exact("warm up")
	for _, n := range []int{5000, 100000, 1000000} {
		tab := pipelineBenchTable(n)
		start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var kind Kind
			for b.Loop() {
				resp, err := Fit(context.Background(), tab, Options{Budget: 30000, Counter: counter,
					Start: start, End: start.AddDate(0, 0, 364), Suggest: func(n Narrowing) any { return n }})
				if err != nil {
					b.Fatal(err)
				}
				kind = resp.Kind
			}
			b.ReportMetric(peakRSSMB(), "peak-RSS-MB")
			b.Logf("%d rows → %s", tab.Len(), kind)
		})
	}
}

// BenchmarkFitByteLimit is BenchmarkFit with an older Codex's limits (9,500
// bytes, 250 lines) besides the tokens, against the tokens alone in the same
// run: what measuring bytes and lines costs.
func BenchmarkFitByteLimit(b *testing.B) {
	counter := NewO200k()
	counter.Exact("warm up")
	for _, n := range []int{5000, 100000} {
		tab := pipelineBenchTable(n)
		start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		for _, limits := range []struct {
			name         string
			bytes, lines int
		}{{"tokens", 0, 0}, {"bytes+lines", 9500, 250}} {
			b.Run(fmt.Sprintf("rows=%d/%s", n, limits.name), func(b *testing.B) {
				b.ReportAllocs()
				var kind Kind
				for b.Loop() {
					resp, err := Fit(context.Background(), tab, Options{Budget: 8000, Counter: counter, MaxBytes: limits.bytes, MaxLines: limits.lines,
						Start: start, End: start.AddDate(0, 0, 364), Suggest: func(n Narrowing) any { return n }})
					if err != nil {
						b.Fatal(err)
					}
					kind = resp.Kind
				}
				b.Logf("%d rows → %s", tab.Len(), kind)
			})
		}
	}
}

// peakRSSMB is the process's peak resident memory so far (Linux), in MB.
func peakRSSMB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			f := strings.Fields(line)
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}
