package outcome

import (
	"encoding/json"
	"net/http"
)

// HTTPError is the JSON body of every HTTP error adsmcp writes itself: the
// authentication refusals, the limits' and the HTTP server's own. One shape
// and one writer, so a client reads any of them the same way.
type HTTPError struct {
	// Error is, for an authentication refusal, its OAuth error code (RFC 6750
	// §3.1: invalid_token, insufficient_scope, …); for the server's other
	// refusals, the sentence that says what happened and what to do.
	Error string `json:"error"`
	// Description says why an authentication was refused (RFC 6750's
	// error_description); empty otherwise.
	Description string `json:"error_description,omitempty"`
}

// WriteHTTPError answers with status and e as JSON (encoding/json: every
// string escaped as JSON, never as Go), never cached or sniffed: an error
// may name a credential's problem and must not be replayed by a proxy.
func WriteHTTPError(w http.ResponseWriter, status int, e HTTPError) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	// A failed write means the client went away: nobody is left to tell.
	_ = enc.Encode(e)
}
