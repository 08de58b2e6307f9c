package outcome

import (
	"encoding/json"
	"strings"
	"testing"
)

// wire is every code's string as clients read it. Changing one breaks
// clients and the contract (docs/contract.md §4): this list changes only
// when a code is added.
var wire = map[Code]string{
	OK: "ok", DataTooLarge: "data_too_large", Cancelled: "cancelled",
	InvalidQuery: "invalid_query", TooManyAccounts: "too_many_accounts", TooManyRows: "too_many_rows",
	Timeout: "timeout", SourceError: "source_error", PermissionDenied: "permission_denied",
	RateLimited: "rate_limited", InternalError: "internal_error",
	Unavailable: "unavailable", Rejected: "rejected",
}

// TestEveryCodeIsDocumented: the documented codes are exactly the wire
// codes, each once, with a meaning, an action and at least one use.
func TestEveryCodeIsDocumented(t *testing.T) {
	seen := map[Code]bool{}
	for _, d := range All() {
		if seen[d.Code] {
			t.Errorf("%s is documented twice", d.Code)
		}
		seen[d.Code] = true
		if _, ok := wire[d.Code]; !ok {
			t.Errorf("%s is documented but not pinned in wire", d.Code)
		}
		if d.Meaning == "" || d.Action == "" || d.Uses == 0 {
			t.Errorf("%s: incomplete doc %+v", d.Code, d)
		}
	}
	for c, s := range wire {
		if string(c) != s {
			t.Errorf("the wire string of %s changed: %q, want %q", s, string(c), s)
		}
		if !seen[c] || !c.Valid() {
			t.Errorf("%s is not documented", c)
		}
	}
}

func TestMarshal(t *testing.T) {
	for c, s := range wire {
		b, err := json.Marshal(struct {
			Type Code `json:"type"`
		}{c})
		if err != nil || string(b) != `{"type":"`+s+`"}` {
			t.Errorf("%s marshals as %s, %v", s, b, err)
		}
		var back struct{ Type Code }
		if err := json.Unmarshal(b, &back); err != nil || back.Type != c {
			t.Errorf("%s unmarshals as %q, %v", b, back.Type, err)
		}
	}
	// Outside the closed set: refused both ways, so it never reaches a client.
	for _, bad := range []Code{"", "invalid-query", "Timeout", "error"} {
		if _, err := json.Marshal(bad); err == nil || !strings.Contains(err.Error(), "not a code") {
			t.Errorf("%q marshalled: %v", bad, err)
		}
		var c Code
		if err := json.Unmarshal([]byte(`"`+bad+`"`), &c); err == nil {
			t.Errorf("%q unmarshalled", bad)
		}
	}
}

func TestUses(t *testing.T) {
	for c := range wire {
		d, _ := c.Describe()
		// Every answer type is also a call's outcome.
		if d.Uses&AnswerType != 0 && d.Uses&CallOutcome == 0 {
			t.Errorf("%s is an answer type but not an outcome", c)
		}
	}
	for _, c := range []Code{PermissionDenied, RateLimited, Unavailable, Rejected} {
		if d, _ := c.Describe(); d.Uses&AccountKind == 0 {
			t.Errorf("%s is not an account kind", c)
		}
	}
	if _, ok := Code("nope").Describe(); ok {
		t.Error("a value outside the set is described")
	}
}
