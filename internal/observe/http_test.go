package observe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/auth"
	"github.com/adsmcp/adsmcp/internal/mcpserver"
)

func TestRequestIDs(t *testing.T) {
	var seen string
	h := RequestIDs(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r.Header.Get(mcpserver.RequestIDHeader)
	}))
	serve := func(ids ...string) (string, string) {
		seen = ""
		req := httptest.NewRequest("POST", "/mcp", nil)
		for _, id := range ids {
			req.Header.Add(mcpserver.RequestIDHeader, id)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if n := len(req.Header.Values(mcpserver.RequestIDHeader)); n != 1 {
			t.Errorf("request has %d ids, want 1", n)
		}
		return seen, rec.Header().Get(mcpserver.RequestIDHeader)
	}

	for _, good := range []string{"abc-123", "01J9Z3.x_y-Z", strings.Repeat("a", 64)} {
		s, a := serve(good)
		if s != good || a != good {
			t.Errorf("id %q: handler saw %q, response %q; want it kept", good, s, a)
		}
	}
	for _, bad := range []string{"", "a\nb", "has space", "semi;colon", "é", strings.Repeat("a", 65), strings.Repeat("x", 1024)} {
		s, a := serve(bad)
		if s == bad || len(s) != 32 || !identifier(s) || a != s {
			t.Errorf("id %.20q: handler saw %q, response %q; want a new 32-digit id on both", bad, s, a)
		}
	}
	// No header at all.
	if s, a := serve(); len(s) != 32 || a != s {
		t.Errorf("no id: handler saw %q, response %q", s, a)
	}
	// Duplicates collapse to the first, when good.
	if s, _ := serve("first", "second"); s != "first" {
		t.Errorf("duplicate ids: saw %q, want first", s)
	}
	// Fresh ids differ.
	s1, _ := serve()
	s2, _ := serve()
	if s1 == s2 {
		t.Error("two new ids are equal")
	}
}

func jsonLogger(buf *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func logLines(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		out = append(out, m)
	}
	return out
}

func TestAccessLog(t *testing.T) {
	var buf bytes.Buffer
	p := &auth.Principal{ID: "key:ci", Tenant: "acme"}
	// authn stands in for the bearer middleware: it sets the principal on the
	// request it passes in, which AccessLog (outside) only learns through
	// NotePrincipal.
	authn := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(auth.WithPrincipal(r.Context(), p)))
		})
	}
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, `{"rows":[["secret-row-data"]]}`)
	})
	h := RequestIDs(AccessLog(jsonLogger(&buf), authn(NotePrincipal(app))))

	req := httptest.NewRequest("POST", "/mcp?api_key=sk-live-123&x=1", strings.NewReader(`{"jsonrpc":"2.0","body":"secret-body"}`))
	req.Header.Set("Authorization", "Bearer sk-live-SECRET-TOKEN")
	req.Header.Set("Cookie", "session=SECRET-COOKIE")
	req.Header.Set(mcpserver.RequestIDHeader, "req-42")
	req.RemoteAddr = "192.0.2.7:5555"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)

	raw := buf.String()
	for _, secret := range []string{"SECRET", "sk-live", "api_key", "secret-row-data", "secret-body", "Authorization", "Bearer", "Cookie"} {
		if strings.Contains(raw, secret) {
			t.Errorf("access log contains %q: %s", secret, raw)
		}
	}
	lines := logLines(t, &buf)
	if len(lines) != 1 {
		t.Fatalf("%d log lines, want 1: %s", len(lines), raw)
	}
	l := lines[0]
	want := map[string]any{
		"level": "INFO", "msg": "http request", "method": "POST", "path": "/mcp", "status": float64(202),
		"bytes": float64(len(`{"rows":[["secret-row-data"]]}`)), "request_id": "req-42",
		"principal": "key:ci", "tenant": "acme", "remote": "192.0.2.7:5555",
	}
	for k, v := range want {
		if l[k] != v {
			t.Errorf("%s = %v, want %v", k, l[k], v)
		}
	}
	if _, ok := l["elapsed_ms"].(float64); !ok {
		t.Errorf("elapsed_ms missing: %v", l)
	}
}

func TestAccessLogPrincipalFromOutside(t *testing.T) {
	// Authentication outside the access log: the context already has it.
	var buf bytes.Buffer
	h := AccessLog(jsonLogger(&buf), http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	req := httptest.NewRequest("GET", "/mcp", nil)
	req = req.WithContext(auth.WithPrincipal(req.Context(), &auth.Principal{ID: "jwt:alice"}))
	h.ServeHTTP(httptest.NewRecorder(), req)
	l := logLines(t, &buf)[0]
	if l["principal"] != "jwt:alice" || l["status"] != float64(200) || l["bytes"] != float64(0) {
		t.Errorf("line = %v", l)
	}
	if _, ok := l["tenant"]; ok {
		t.Error("empty tenant logged")
	}
	if _, ok := l["request_id"]; ok {
		t.Error("request_id logged without RequestIDs")
	}
}

func TestAccessLogLevelsAndIDInside(t *testing.T) {
	var buf bytes.Buffer
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("/boom", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "x", http.StatusBadGateway) })
	mux.HandleFunc("/panic", func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) })
	// RequestIDs inside AccessLog: the id is still logged (from the response).
	h := AccessLog(jsonLogger(&buf), RequestIDs(mux))
	for _, path := range []string{"/healthz", "/boom", "/nowhere/" + strings.Repeat("p", 500)} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil))
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("panic swallowed")
			}
		}()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/panic", nil))
	}()
	lines := logLines(t, &buf)
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4", len(lines))
	}
	for i, want := range []struct {
		level  string
		status float64
	}{{"DEBUG", 200}, {"WARN", 502}, {"INFO", 404}, {"WARN", 500}} {
		if lines[i]["level"] != want.level || lines[i]["status"] != want.status {
			t.Errorf("line %d: level %v status %v, want %v %v", i, lines[i]["level"], lines[i]["status"], want.level, want.status)
		}
		if id, _ := lines[i]["request_id"].(string); len(id) != 32 {
			t.Errorf("line %d: request_id %q", i, id)
		}
	}
	if p := lines[2]["path"].(string); len(p) > 260 {
		t.Errorf("long path logged whole (%d bytes)", len(p))
	}
}

func TestAccessLogKeepsFlusher(t *testing.T) {
	var buf bytes.Buffer
	flushed := false
	h := AccessLog(jsonLogger(&buf), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "data: x\n\n")
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Errorf("flush through the access log: %v", err)
		}
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
			flushed = true
		}
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/mcp", nil))
	if !flushed || !rec.Flushed {
		t.Error("the recorder hides http.Flusher")
	}
}

func TestReadyz(t *testing.T) {
	get := func(h http.Handler) (int, map[string]string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
		var body map[string]string
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatalf("body %q: %v", rec.Body.String(), err)
		}
		if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
		return rec.Code, body
	}

	code, body := get(Readyz(func(context.Context) error { return nil }, time.Second, -1))
	if code != 200 || body["status"] != "ready" || len(body) != 1 {
		t.Errorf("ready: %d %v", code, body)
	}
	code, body = get(Readyz(nil, 0, -1))
	if code != 200 || body["status"] != "ready" {
		t.Errorf("nil check: %d %v", code, body)
	}

	code, body = get(Readyz(func(context.Context) error {
		return errors.New("catalog not loaded\nsecond line with details " + strings.Repeat("x", 300))
	}, time.Second, -1))
	if code != 503 || body["status"] != "not ready" || body["reason"] != "catalog not loaded" {
		t.Errorf("not ready: %d %v", code, body)
	}
	_, body = get(Readyz(func(context.Context) error { return errors.New(strings.Repeat("y", 500)) }, time.Second, -1))
	if len(body["reason"]) > 125 {
		t.Errorf("reason not shortened: %d bytes", len(body["reason"]))
	}

	// A check that honours its context, and one that ignores it (it returns
	// only when the test ends): both answer at the timeout.
	testEnds := make(chan struct{})
	defer close(testEnds)
	for name, check := range map[string]func(context.Context) error{
		"honours": func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() },
		"ignores": func(context.Context) error { <-testEnds; return nil },
	} {
		start := time.Now()
		code, body = get(Readyz(check, 50*time.Millisecond, -1))
		if took := time.Since(start); took > time.Second {
			t.Errorf("%s: answered after %v, want about the 50ms timeout", name, took)
		}
		if code != 503 || !strings.Contains(body["reason"], "timed out") {
			t.Errorf("%s: %d %v, want 503 timed out", name, code, body)
		}
	}

	code, body = get(Readyz(func(context.Context) error { panic("boom") }, time.Second, -1))
	if code != 503 || body["reason"] != "check panicked" {
		t.Errorf("panicking check: %d %v", code, body)
	}
}
