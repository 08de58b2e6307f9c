package importer

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// benchExport is an ad-level Meta export: days × 20 campaigns × 4 ad sets × 5 ads.
func benchExport(days int) []byte {
	var b strings.Builder
	b.WriteString(`"Reporting starts","Reporting ends","Account ID","Account name","Campaign name","Ad set name","Ad name","Day","Reach","Impressions","Amount spent (USD)","Link clicks","Clicks (all)","Results","Result indicator"` + "\n")
	d0 := time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	for d := range days {
		day := d0.AddDate(0, 0, d).Format(time.DateOnly)
		for c := range 20 {
			for s := range 4 {
				for a := range 5 {
					n++
					imp := n * 7919 % 50000
					imps := fmt.Sprint(imp)
					if imp >= 1000 {
						imps = fmt.Sprintf("%d,%03d", imp/1000, imp%1000)
					}
					fmt.Fprintf(&b, `"%s","%s","123","Big","Campaign %d","Set %d","Ad %d","%s","%d","%s","%d.%02d","%d","%d","%d","actions:offsite_conversion.fb_pixel_purchase"`+"\n",
						day, day, c, s, a, day, imp/2, imps, imp/10, n%100, imp/100, imp/80, imp/1000)
				}
			}
		}
	}
	return []byte(b.String())
}

// BenchmarkParseExport: a quarter of an ad-level export (36,800 lines).
func BenchmarkParseExport(b *testing.B) {
	data := benchExport(92)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse("bench.csv", data, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
