package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestBreakdownsOverMCP: over the protocol, age × gender answers per
// campaign with the definitions of its conversions; Meta and Google together
// get the attribution_window column; breakdowns no platform reports together,
// a Google placement, spend by conversion_action and a window Google cannot
// recount are each an invalid_query whose problem names what works.
func TestBreakdownsOverMCP(t *testing.T) {
	cs := connect(t, testConfig(t), "claude-ai")
	const dates = `"date_range":{"start":"2026-02-01","end":"2026-02-28"}`

	b := texts(t, call(t, cs, "query", `{"platforms":["meta_ads"],"metrics":["spend","conversions"],"dimensions":["age","gender"],`+dates+`}`))
	if len(b) != 2 || !strings.HasPrefix(b[1], "age,gender,currency,spend,conversions\n") {
		t.Fatalf("age × gender:\n%v", b)
	}
	meta := metaOf(t, b[0])
	defs, _ := json.Marshal(meta["definitions"])
	if !strings.Contains(string(defs), `"counts":"purchase"`) || !strings.Contains(string(defs), `"attribution_window":"7d_click_1d_view"`) {
		t.Errorf("_meta.definitions %s: want purchases under 7d_click_1d_view", defs)
	}

	b = texts(t, call(t, cs, "query", `{"account_ids":["act_1015823746512093","482-915-3307"],"metrics":["conversions"],"dimensions":["platform"],`+dates+`}`))
	if len(b) != 2 || !strings.HasPrefix(b[1], "platform,attribution_window,conversions\n") {
		t.Fatalf("Meta and Google conversions without their windows:\n%v", b)
	}

	for _, c := range []struct {
		args  string
		field string
		want  []string
	}{
		{`{"platforms":["meta_ads"],"metrics":["spend"],"dimensions":["age","placement"],` + dates + `}`, "dimensions",
			[]string{"Meta Ads cannot combine age with placement", "age and gender", "placement with publisher_platform and device"}},
		{`{"platforms":["google_ads"],"metrics":["spend"],"dimensions":["placement"],` + dates + `}`, "dimensions",
			[]string{"Google Ads does not report placement", "meta_ads"}},
		{`{"platforms":["meta_ads"],"metrics":["spend","conversions"],"dimensions":["conversion_action"],` + dates + `}`, "metrics",
			[]string{"conversions and conversion_value"}},
		{`{"platforms":["google_ads"],"metrics":["conversions"],"attribution_window":"1d_click",` + dates + `}`, "attribution_window",
			[]string{"Google Ads counts each conversion action under its own", "omit attribution_window"}},
	} {
		body := errorOf(t, call(t, cs, "query", c.args), "invalid_query")
		text, _ := json.Marshal(body["problems"])
		if !strings.Contains(string(text), `"field":"`+c.field+`"`) {
			t.Errorf("%s: problems %s do not name %s", c.args, text, c.field)
		}
		for _, w := range c.want {
			if !strings.Contains(string(text), w) {
				t.Errorf("%s: problems %s do not say %q", c.args, text, w)
			}
		}
	}
}
