package fit

import (
	"bytes"
	"context"
	"encoding/csv"
	"slices"
	"testing"
)

// A non-additive metric gets at most 4 decimals like the ratios, whether or
// not its producer names its parts (frequency: impressions / reach); a count
// such as reach stays whole.
func TestNonAdditiveDecimals(t *testing.T) {
	tab := &Table{Grain: Total, Columns: []*Column{
		{Name: "reach", Role: RoleMetric, Aggregation: NonAdditive, Numbers: []float64{2413703}},
		{Name: "frequency", Role: RoleMetric, Aggregation: NonAdditive, Numbers: []float64{5.139556938032558}},
		{Name: "frequency2", Role: RoleMetric, Aggregation: NonAdditive, Numerator: "impressions", Denominator: "reach", Scale: 1, Numbers: []float64{5.871196712363637}},
	}}
	var b bytes.Buffer
	if err := WriteCSV(&b, tab); err != nil {
		t.Fatal(err)
	}
	if want := "reach,frequency,frequency2\n2413703,5.1396,5.8712\n"; b.String() != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", b.String(), want)
	}
}

// all_zero_metrics means rows exist and every metric is zero: rows whose
// metrics are only empty (reach a platform does not report, a ratio over
// nothing) are not the symptom of a token without reporting scopes.
func TestAllZeroNeedsAZero(t *testing.T) {
	for _, c := range []struct {
		name string
		cols []*Column
		want bool
	}{
		{"only empty", []*Column{{Name: "reach", Role: RoleMetric, Aggregation: NonAdditive, Numbers: []float64{0, 0}, Null: []bool{true, true}}}, false},
		{"zero and empty", []*Column{
			{Name: "spend", Role: RoleMetric, Numbers: []float64{0, 0}},
			{Name: "reach", Role: RoleMetric, Aggregation: NonAdditive, Numbers: []float64{0, 0}, Null: []bool{true, true}}}, true},
		{"one value", []*Column{{Name: "spend", Role: RoleMetric, Numbers: []float64{0, 3}}}, false},
	} {
		tab := &Table{Grain: Total, Columns: append([]*Column{{Name: "account_id", Role: RoleDimension, Strings: []string{"a", "a"}}}, c.cols...)}
		resp, err := Fit(context.Background(), tab, Options{Budget: 5000, Partitions: Partitions{Column: "account_id"}})
		if err != nil {
			t.Fatal(err)
		}
		got := false
		for _, w := range resp.Meta.Warnings {
			got = got || w.Type == "all_zero_metrics"
		}
		if got != c.want {
			t.Errorf("%s: all_zero_metrics %v, want %v (%v)", c.name, got, c.want, resp.Meta.Warnings)
		}
	}
}

// A row whose only field is empty is written as "" rather than a blank line,
// which CSV readers skip: the row must not vanish.
func TestSingleEmptyFieldRowIsKept(t *testing.T) {
	tab := &Table{Grain: Total, Columns: []*Column{
		{Name: "reach", Role: RoleMetric, Aggregation: NonAdditive, Numbers: []float64{0}, Null: []bool{true}},
	}}
	var b bytes.Buffer
	if err := WriteCSV(&b, tab); err != nil {
		t.Fatal(err)
	}
	if want := "reach\n\"\"\n"; b.String() != want {
		t.Errorf("CSV %q, want %q", b.String(), want)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Errorf("read back %q, %v", rows, err)
	}
}

// A caller that judged each partition itself (Partitions.Judged) is believed
// for a table without the partition column — rows by campaign that mix an
// all-zero account with others — except for a selection, which says nothing
// of what a partition holds; a table with the column is judged by it.
func TestAllZeroJudgedByTheCaller(t *testing.T) {
	byCampaign := func() *Table {
		return &Table{Grain: Total, Columns: []*Column{
			{Name: "campaign", Role: RoleDimension, Strings: []string{"x", "y"}},
			{Name: "spend", Role: RoleMetric, Numbers: []float64{0, 3}}}}
	}
	judged := Partitions{Column: "account_id", Keys: []string{"a", "b"}, Judged: true, Zero: []string{"b"}}
	for _, c := range []struct {
		name      string
		tab       *Table
		selection string
		want      []string
	}{
		{"no partition column", byCampaign(), "", []string{"b"}},
		{"a selection", byCampaign(), "spend > 1", nil},
		{"the partition column", &Table{Grain: Total, Columns: []*Column{
			{Name: "account_id", Role: RoleDimension, Strings: []string{"a", "b"}},
			{Name: "spend", Role: RoleMetric, Numbers: []float64{0, 3}}}}, "", []string{"a"}},
	} {
		resp, err := Fit(context.Background(), c.tab, Options{Budget: 5000, Partitions: judged, Selection: c.selection})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, w := range resp.Meta.Warnings {
			if w.Type == "all_zero_metrics" {
				got = append(got, w.Keys...)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: all_zero_metrics %q, want %q", c.name, got, c.want)
		}
	}
}
