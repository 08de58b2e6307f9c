package fit

import (
	"context"
	"strings"
	"testing"
)

// A notice about rows whose dimensions are empty (AboutEmpty) does not hold
// for a narrower answer kept to named values of one of them: a suggestion's
// token estimate leaves it out, as the answer will, while a notice about
// anything else stays in the estimate.
func TestSuggestionEstimateLeavesOutNoticesAboutEmptyRows(t *testing.T) {
	long := strings.Repeat("delivery that no campaign's report holds has no campaign_name ", 12)
	estimates := func(n *Notice) map[string]int {
		tab := wideTable(30, 40)
		if n != nil {
			tab.Notices = []Notice{*n}
		}
		resp, err := Fit(context.Background(), tab, Options{Budget: 8000, Suggest: func(n Narrowing) any { return n }})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Meta.Alternatives) != 1 {
			t.Fatalf("%d alternatives at %s grain", len(resp.Meta.Alternatives), resp.Meta.TimeGranularity.Returned)
		}
		a := resp.Meta.Alternatives[0]
		if n := a.Query.(Narrowing); n.Field != "campaign_name" || n.Exclude {
			t.Fatalf("alternative narrows %+v", n)
		}
		return map[string]int{"top": a.TokenEstimate, "rest": a.Rest.TokenEstimate}
	}
	none := estimates(nil)
	about := estimates(&Notice{Type: "unattributed", Detail: long, AboutEmpty: []string{"campaign_name"}})
	other := estimates(&Notice{Type: "unattributed", Detail: long})
	if about["top"] != none["top"] {
		t.Errorf("the top campaigns' estimate is %d with a notice about empty campaign names, %d without any notice", about["top"], none["top"])
	}
	// The fold groups by no dimension: no row of it has campaign_name at all.
	if about["rest"] != none["rest"] {
		t.Errorf("the fold's estimate is %d with a notice about empty campaign names, %d without any notice", about["rest"], none["rest"])
	}
	if other["top"] <= none["top"]+50 {
		t.Errorf("a notice about other rows is not in the estimate: %d with it, %d without", other["top"], none["top"])
	}
}
