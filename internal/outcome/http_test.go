package outcome

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestWriteHTTPError: the body is JSON whatever the text holds (quotes,
// backslashes, control characters, invalid UTF-8, HTML), never cached or
// sniffed, with error_description only when there is one.
func TestWriteHTTPError(t *testing.T) {
	odd := "Host \"a\\b\" \x00\x01\x7f é <b>&</b> \u2028 \xff"
	for _, e := range []HTTPError{{Error: odd}, {Error: "invalid_token", Description: odd}} {
		rec := httptest.NewRecorder()
		WriteHTTPError(rec, http.StatusForbidden, e)
		body := rec.Body.Bytes()
		if rec.Code != http.StatusForbidden || !json.Valid(body) {
			t.Fatalf("%d %s", rec.Code, body)
		}
		h := rec.Header()
		if h.Get("Content-Type") != "application/json" || h.Get("Cache-Control") != "no-store" || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("headers %v", h)
		}
		var got map[string]string
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatal(err)
		}
		// Invalid UTF-8 becomes U+FFFD; everything else reads back as sent.
		want := map[string]string{"error": json2(e.Error)}
		if e.Description != "" {
			want["error_description"] = json2(e.Description)
		}
		if len(got) != len(want) || got["error"] != want["error"] || got["error_description"] != want["error_description"] {
			t.Errorf("body %s, want %v", body, want)
		}
	}
	// Byte for byte the body an authentication refusal always had.
	rec := httptest.NewRecorder()
	WriteHTTPError(rec, http.StatusUnauthorized, HTTPError{Error: "invalid_token", Description: "unknown API key"})
	if got := rec.Body.String(); got != `{"error":"invalid_token","error_description":"unknown API key"}`+"\n" {
		t.Errorf("body %q", got)
	}
}

// json2 is s as it reads back from JSON (invalid UTF-8 replaced).
func json2(s string) string {
	b, _ := json.Marshal(s)
	var out string
	json.Unmarshal(b, &out)
	return out
}
