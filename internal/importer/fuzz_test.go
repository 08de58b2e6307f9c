package importer

import (
	"errors"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/adsmcp/adsmcp/internal/ads"
)

// fuzzSeeds are small exports of every shape the parser knows, and broken ones.
var fuzzSeeds = []string{
	// Meta, English, totals line, thousands separators.
	`"Reporting starts","Reporting ends","Campaign name","Day","Reach","Impressions","Amount spent (USD)","Link clicks","Clicks (all)","Results","Result indicator"
"2026-01-01","2026-01-02","","","3,000","12,000","1,234.56","300","400","",""
"2026-01-01","2026-01-01","A","2026-01-01","1,500","6,000","600.00","150","200","3","actions:offsite_conversion.fb_pixel_purchase"
"2026-01-02","2026-01-02","A","2026-01-02","1,600","6,000","634.56","150","200","2","reach"
`,
	// Meta, Spanish, ad sets and ads, decimal commas.
	`"Inicio del informe","Fin del informe","Nombre de la campaña","Nombre del conjunto de anuncios","Nombre del anuncio","Día","Impresiones","Importe gastado (EUR)","Compras","Valor de conversión de compras"
"2026-02-01","2026-02-01","Rebajas","Mujeres","Vídeo 1","2026-02-01","1.000","12,34","1","50,00"
`,
	// Meta, account level, one-day periods.
	`"Reporting starts","Reporting ends","Reach","Impressions","Amount spent (ARS)"
"2026-03-01","2026-03-01","1.000","1.500","10.000,00"
`,
	// Meta with breakdowns.
	`"Account ID","Campaign ID","Campaign name","Day","Age","Country","Platform","Device platform","Impressions","Amount spent (USD)"
1,2,C,2026-01-01,18-24,US,facebook,mobile_app,10,1.00
1,2,C,2026-01-01,25-34,US,facebook,mobile_app,10,1.00
`,
	// Google, English, preamble and totals.
	"Campaign report\n\"January 1, 2026 - January 2, 2026\"\nDay,Campaign,Campaign ID,Ad group,Ad group ID,Currency code,Cost,Impr.,Clicks,Conversions,Conv. value\n" +
		"2026-01-01,Brand,1,AG,10,USD,\"1,234.50\",\"12,345\",678,12.50,\"1,500.00\"\n2026-01-02,Brand,1,AG,10,USD,--,--,--,--,--\nTotal: Account,--,--,--,--,USD,\"1,234.50\",\"12,345\",678,12.50,\"1,500.00\"\n",
	// Google, Spanish, semicolons, CRLF.
	"Informe\r\n\"1 feb 2026 - 2 feb 2026\"\r\nDía;Campaña;Código de moneda;Coste;Impr.;Clics;Conversiones\r\n2026-02-01;Marca;EUR;1.234,56;12.345;678;12,5\r\nTotal: campañas;--;EUR;1.234,56;12.345;678;12,5\r\n",
	// Tabs, sep= hint.
	"sep=\t\nDay\tCampaign\tCost\tImpr.\n2026-01-01\tC\t1.00\t10\n",
	// TikTok, campaigns by day: BOM, quoted, a "Total of …" line, "-" for empty, currency column.
	"\xef\xbb\xbf\"By Day\",\"Account ID\",\"Campaign name\",\"Campaign ID\",\"Primary status\",\"Currency\",\"Cost\",\"Impressions\",\"Clicks (destination)\",\"Clicks (all)\",\"Reach\",\"Conversions\",\"Total complete payment value\",\"Video views\",\"Video views at 100%\"\n" +
		"\"Total of 2 campaigns\",\"-\",\"-\",\"-\",\"-\",\"USD\",\"1,234.56\",\"12,000\",\"300\",\"400\",\"9,000\",\"5\",\"50.00\",\"2,000\",\"100\"\n" +
		"\"2026-01-05\",\"7201845539016472318\",\"A, \"\"x\"\"\",\"1790000000000000001\",\"Active\",\"USD\",\"1,000.00\",\"10,000\",\"250\",\"330\",\"8,000\",\"5\",\"50.00\",\"1,500\",\"80\"\n" +
		"\"2026-01-05\",\"7201845539016472318\",\"B\",\"1790000000000000002\",\"Not delivering\",\"USD\",\"234.56\",\"2,000\",\"50\",\"70\",\"1,000\",\"-\",\"--\",\"500\",\"20\"\n",
	// TikTok, ad groups and ads by day, currency in the header, an age breakdown.
	"Date,Campaign name,Ad group name,Ad group ID,Ad name,Ad ID,Age,Cost (EUR),Impressions,Clicks (destination),Conversions,Reach\r\n" +
		"2026-01-05,C,G,1800000000000000011,Ad 1,1900000000000000001,18-24,12.50,\"1,000\",10,1,800\r\n" +
		"2026-01-05,C,G,1800000000000000011,Ad 1,1900000000000000001,25-34,7.50,500,5,0,400\r\n",
	// TikTok refused: hours, no cost, a tie with Google.
	"Campaign name,By Hour,Cost,Impressions\nC,2026-01-05 10:00,1.00,1\n",
	"Campaign name,By Day,Impressions,Clicks (destination)\nC,2026-01-05,1,1\n",
	"Campaign ID,Date,Cost,Impressions,Clicks,Conversions\n1,2026-01-05,1.00,1,1,1\n",
	"PK\x03\x04\x14\x00",
	// Broken: mixed styles, bad quote, short line, negative, bad date.
	"Day,Campaign,Cost,Impr.\n2026-01-01,C,\"1,234.50\",1\n2026-01-02,C,\"1.234,50\",1\n",
	"Day,Campaign,Cost,Impr.\n2026-01-01,C \"x\",1.00,1\n",
	"Day,Campaign,Cost,Impr.\n2026-01-01,C,1.00\n",
	"Day,Campaign,Cost,Impr.\n2026-01-01,C,-1.00,1\n",
	"Day,Campaign,Cost,Impr.\nyesterday,C,1.00,1\n",
	"",
	"\xff\xfe",
	// Every line without activity: nothing to add, the dates still covered.
	"\"Account ID\",\"Campaign name\",\"Day\",\"Impressions\",\"Amount spent (USD)\"\n1,C,2000 01 01,0,0\n",
	"\xef\xbb\xbf\"Campaign name\",\"Day\",\"Amount spent (USD)\",\"Impressions\"\nC,2026-01-01,99999999999999.999999,9223372036854775807\n",
	// Breakdown sets: Meta age and gender by ad set with an attribution
	// setting and a totals line; Meta placement with platform and device;
	// Meta conversions by action; TikTok placement; Google's age report.
	`"Reporting starts","Reporting ends","Account ID","Campaign name","Ad set name","Day","Age","Gender","Attribution setting","Impressions","Amount spent (USD)","Purchases","Purchases conversion value"
"2026-01-01","2026-01-01","","","","","","","","30","3.00","2","20.00"
"2026-01-01","2026-01-01","1","C","S","2026-01-01","18-24","female","7-day click or 1-day view","10","1.00","1","10.00"
"2026-01-01","2026-01-01","1","C","T","2026-01-01","18-24","female","7-day click or 1-day view","10","1.00","",""
"2026-01-01","2026-01-01","1","C","T","2026-01-01","65+","unknown","7-day click or 1-day view","10","1.00","1","10.00"
`,
	"Account ID,Campaign name,Day,Platform,Placement,Impression device,Impressions,Amount spent (USD)\n" +
		"1,C,2026-01-01,Instagram,Instagram Reels,iPhone,10,1.00\n1,C,2026-01-01,Facebook,Feed,Desktop,10,2.00\n1,C,2026-01-01,,Facebook Stories,,10,2.00\n",
	"Account ID,Campaign name,Day,Impressions,Amount spent (USD),Purchases,Purchases conversion value,Adds to cart,Adds to cart conversion value,Leads,Registrations completed,Checkouts initiated,Attribution setting\n" +
		"1,C,2026-01-01,10,1.00,2,20.00,5,50.00,1,1,3,1-day click\n1,D,2026-01-01,0,0.00,,,1,,,,,1-day click\n",
	"By Day,Campaign name,Ad group name,Placement,Age,Gender,Cost (USD),Impressions\n2026-01-05,C,G,Pangle,,,1.00,1\n",
	"By Day,Campaign name,Age,Gender,Cost,Impressions,Currency\n2026-01-05,C,55+,Male,1.00,1,USD\n2026-01-05,C,AGE_18_24,FEMALE,1.00,1,USD\n",
	"Age report\n\"January 1, 2026 - January 1, 2026\"\nAge,Day,Campaign,Ad group,Currency code,Cost,Impr.,Conversions\n18 - 24,2026-01-01,C,A,USD,1.00,1,0.50\n65+,2026-01-01,C,A,USD,1.00,1,0.25\nTotal: Account,,,,USD,2.00,2,0.75\n",
	// Refused: age with placement, two attribution settings, a bad gender.
	"Account ID,Campaign name,Day,Age,Placement,Impressions,Amount spent (USD)\n1,C,2026-01-01,18-24,Feed,10,1.00\n",
	"Account ID,Campaign name,Day,Attribution setting,Impressions,Amount spent (USD)\n1,C,2026-01-01,1-day click,1,1.00\n1,C,2026-01-02,7-day click,1,1.00\n",
	"Day,Campaign,Gender,Cost,Impr.\n2026-01-01,C,18-24,1.00,1\n",
}

// FuzzParseExport: any bytes, no panic; an error is an *Error naming the file;
// a success holds consistent rows (dates in range, IDs that resolve, no negative
// or non-finite metric, counts that add up), and parsing again gives the same.
func FuzzParseExport(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	files, _ := filepath.Glob("testdata/*.csv")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data, true)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, flags bool) {
		opt := Options{}
		if flags {
			opt = Options{AccountID: "act_1", AccountName: "A", Currency: "USD", Timezone: "UTC"}
			if len(data) > 0 && data[0]%3 == 0 { // TikTok forced, as --platform tiktok_ads does
				opt.Platform = TikTok
			}
		}
		ex, err := Parse("fuzz.csv", data, opt)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.File != "fuzz.csv" || e.Reason == "" {
				t.Fatalf("error %T %v", err, err)
			}
			return
		}
		checkExport(t, ex)
		again, err := Parse("fuzz.csv", data, opt)
		if err != nil || len(again.Facts) != len(ex.Facts) || again.Report.SHA256 != ex.Report.SHA256 {
			t.Fatalf("second parse differs: %v", err)
		}
	})
}

func checkExport(t *testing.T, ex *Export) {
	t.Helper()
	if len(ex.Facts) == 0 && ex.Report.RowsImported > 0 || len(ex.Accounts) == 0 || ex.Last.Before(ex.First) {
		t.Fatalf("empty or inverted export: %d facts, %d accounts, %v–%v", len(ex.Facts), len(ex.Accounts), ex.First, ex.Last)
	}
	accounts := map[string]bool{}
	for _, a := range ex.Accounts {
		if a.AccountID == "" || !isCurrency(a.Currency) || a.Timezone == "" || a.AccountName == "" {
			t.Fatalf("account %+v", a)
		}
		accounts[a.AccountID] = true
	}
	campaigns := map[string]bool{}
	for _, c := range ex.Campaigns {
		if c.CampaignID == "" || !accounts[c.AccountID] {
			t.Fatalf("campaign %+v", c)
		}
		campaigns[c.CampaignID] = true
	}
	adsets := map[string]bool{}
	for _, s := range ex.AdSets {
		if s.AdSetID == "" || !campaigns[s.CampaignID] {
			t.Fatalf("ad set %+v", s)
		}
		adsets[s.AdSetID] = true
	}
	for _, a := range ex.Ads {
		if a.AdID == "" || !adsets[a.AdSetID] {
			t.Fatalf("ad %+v", a)
		}
	}
	set, actionFacts := ex.BreakdownKey(), 0
	purchases := map[string]float64{} // campaign + day: delivery conversions minus purchase rows
	for _, f := range ex.Facts {
		key := f.CampaignID + f.Date.String()
		switch {
		case f.Breakdown == ConversionActionSet:
			actionFacts++
			if set != catalog.Delivery || f.AdSetID != "" || f.AdID != "" || f.ConversionAction == "" || f.Measures[catalog.Spend] != 0 {
				t.Fatalf("conversion_action row %+v in a %s export", f, set)
			}
			if f.ConversionAction == purchaseAction {
				purchases[key] -= f.Measures[catalog.Conversions]
			}
		case f.BreakdownKey() != set:
			t.Fatalf("a %s row in a %s export: %+v", f.BreakdownKey(), set, f)
		case perCampaignSet(set) && (f.AdSetID != "" || f.AdID != ""):
			t.Fatalf("a %s row below its campaign: %+v", set, f)
		case set == catalog.Delivery:
			purchases[key] += f.Measures[catalog.Conversions]
		}
		switch {
		case !accounts[f.AccountID], f.CampaignID != "" && !campaigns[f.CampaignID], f.AdSetID != "" && !adsets[f.AdSetID]:
			t.Fatalf("fact with unknown IDs %+v", f)
		case f.Date.Before(ex.First) || f.Date.After(ex.Last):
			t.Fatalf("fact outside %v–%v: %+v", ex.First, ex.Last, f)
		case f.Measures[catalog.Spend] < 0 || f.Measures[catalog.Impressions] < 0 || f.Measures[catalog.Clicks] < 0 || f.Measures[catalog.LinkClicks] < ads.NotReported || f.Measures[catalog.VideoViews] < 0 ||
			f.Measures[catalog.ConversionValue] < 0 || f.Measures[catalog.Conversions] < 0 || math.IsNaN(f.Measures[catalog.Conversions]) || math.IsInf(f.Measures[catalog.Conversions], 0):
			t.Fatalf("bad metric %+v", f)
		}
	}
	for _, r := range ex.Reach {
		if r.Reach < 0 || r.Grain != "daily" || (r.Level != "account" && r.Level != "campaign") {
			t.Fatalf("reach %+v", r)
		}
	}
	if actionFacts > 0 {
		for k, v := range purchases {
			if v != 0 {
				t.Fatalf("purchase rows of %s differ from the delivery conversions by %v", k, v)
			}
		}
	}
	if set != catalog.Delivery && len(ex.Reach) > 0 {
		t.Fatalf("reach in a %s export", set)
	}
	rep := ex.Report
	if rep.Facts != len(ex.Facts) || rep.RowsImported < rep.Facts-actionFacts || rep.RowsImported+rep.SkippedLines() > rep.DataLines {
		t.Fatalf("report counts %+v", rep)
	}
}
