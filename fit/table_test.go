package fit

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func sampleTable() *Table {
	return &Table{
		Grain: Daily,
		Columns: []*Column{
			{Name: "date", Role: RoleTime, Strings: []string{"2026-01-01", "2026-01-02", "2026-01-03"}},
			{Name: "campaign", Role: RoleDimension, Strings: []string{`Brand "A", US`, "line\nbreak", ""}},
			{Name: "currency", Role: RoleDimension, Strings: []string{"USD", "JPY", "KWD"}},
			{Name: "spend", Role: RoleMetric, Money: true, CurrencyColumn: "currency", Numbers: []float64{1234.5678, 1999.5, 0.12345}},
			{Name: "clicks", Role: RoleMetric, Numbers: []float64{10, 0, 3e7}},
			{Name: "impressions", Role: RoleMetric, Hidden: true, Numbers: []float64{1000, 0, 9e8}},
			{Name: "ctr", Role: RoleMetric, Aggregation: Ratio, Numerator: "clicks", Denominator: "impressions", Scale: 100,
				Numbers: []float64{1, 0, 3.3333333333}, Null: []bool{false, true, false}},
		},
	}
}

func TestWriteCSV(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCSV(&b, sampleTable()); err != nil {
		t.Fatal(err)
	}
	want := "date,campaign,currency,spend,clicks,ctr\n" +
		"2026-01-01,\"Brand \"\"A\"\", US\",USD,1234.57,10,1\n" +
		"2026-01-02,\"line\nbreak\",JPY,2000,0,\n" +
		"2026-01-03,,KWD,0.123,30000000,3.3333\n"
	if got := b.String(); got != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", got, want)
	}
}

func TestAppendNumberNeverUsesExponentsOrNegativeZero(t *testing.T) {
	a, b := 0.1, 0.2
	for _, c := range []struct {
		v    float64
		d    int
		want string
	}{{1e21, -1, "1000000000000000000000"}, {-0.0001, 2, "0"}, {a + b, -1, "0.30000000000000004"}, {2.675, 2, "2.68"}, {1e-7, 4, "0"}} {
		if got := string(appendNumber(nil, c.v, c.d)); got != c.want {
			t.Errorf("appendNumber(%v, %d) = %s, want %s", c.v, c.d, got, c.want)
		}
	}
}

func TestValidate(t *testing.T) {
	if err := sampleTable().Validate(); err != nil {
		t.Fatalf("valid table rejected: %v", err)
	}
	for name, break_ := range map[string]func(*Table){
		"short column":       func(t *Table) { t.Columns[4].Numbers = t.Columns[4].Numbers[:2] },
		"missing ratio part": func(t *Table) { t.Columns = t.Columns[:5]; t.Columns = append(t.Columns, sampleTable().Columns[6]) },
		"NaN value":          func(t *Table) { t.Columns[4].Numbers[0] = math.NaN() },
		"two time columns":   func(t *Table) { t.Columns[1].Role = RoleTime },
		"grain without time": func(t *Table) { t.Grain = Total },
		"missing currency":   func(t *Table) { t.Columns[3].CurrencyColumn = "cur" },
	} {
		tab := sampleTable()
		break_(tab)
		if err := tab.Validate(); err == nil || !strings.HasPrefix(err.Error(), "fit: ") {
			t.Errorf("%s: Validate() = %v", name, err)
		}
	}
}
