package main

import (
	"reflect"
	"testing"

	"github.com/adsmcp/adsmcp/internal/query"
)

func TestParseFilterFlag(t *testing.T) {
	cases := []struct {
		in   string
		want query.FilterArg
	}{
		{"spend>100", query.FilterArg{Field: "spend", Operator: ">", Value: "100"}},
		{"spend >= 100.5", query.FilterArg{Field: "spend", Operator: ">=", Value: "100.5"}},
		{"campaign_name != Brand Search", query.FilterArg{Field: "campaign_name", Operator: "!=", Value: "Brand Search"}},
		{"campaign_name CONTAINS a=b", query.FilterArg{Field: "campaign_name", Operator: "CONTAINS", Value: "a=b"}},
		{"country IN US, CA,MX", query.FilterArg{Field: "country", Operator: "IN", Value: []any{"US", "CA", "MX"}}},
		{"clicks BETWEEN 10,20", query.FilterArg{Field: "clicks", Operator: "BETWEEN", Value: []any{"10", "20"}}},
		{"campaign_name starts_with Summer Sale", query.FilterArg{Field: "campaign_name", Operator: "starts_with", Value: "Summer Sale"}},
	}
	for _, c := range cases {
		got, err := parseFilterFlag(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseFilterFlag(%q) = %#v, %v; want %#v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "spend", "spend >", "campaign_name CONTAINS", ">5"} {
		if _, err := parseFilterFlag(bad); err == nil {
			t.Errorf("parseFilterFlag(%q) accepted", bad)
		}
	}
}

// FuzzParseFilterFlag: any text gives a filter or an error, never a panic, and a
// parsed filter always has a field, an operator and a value.
func FuzzParseFilterFlag(f *testing.F) {
	for _, s := range []string{"spend>100", "campaign_name CONTAINS x", "country IN a,b", "<>", "a b c d", "x=\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fa, err := parseFilterFlag(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if fa.Field == "" || fa.Operator == "" || fa.Value == nil || fa.Value == "" {
			t.Fatalf("parseFilterFlag(%q) = %#v", s, fa)
		}
	})
}
