package googleads

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 1 << 20

// search runs a GAQL query with searchStream on customer cid, handing each
// batch's rows to fn. fn sees the rows of every attempt (a retried stream
// starts over), so it must be idempotent; else use searchAttempts.
func (c *Connector) search(ctx context.Context, cid, gaql string, fn func([]row) error) error {
	return c.searchAttempts(ctx, cid, gaql, nil, fn)
}

// searchAttempts is search with begin called before each attempt (to reset
// what fn accumulated).
func (c *Connector) searchAttempts(ctx context.Context, cid, gaql string, begin func(), fn func([]row) error) error {
	body, err := json.Marshal(map[string]string{"query": gaql})
	if err != nil {
		return err
	}
	return c.do(ctx, http.MethodPost, "/customers/"+cid+"/googleAds:searchStream", body, func(resp *http.Response) error {
		if begin != nil {
			begin()
		}
		return readStream(resp.Body, fn)
	})
}

// listAccessible calls customers:listAccessibleCustomers.
func (c *Connector) listAccessible(ctx context.Context) ([]string, error) {
	var ids []string
	err := c.do(ctx, http.MethodGet, "/customers:listAccessibleCustomers", nil, func(resp *http.Response) error {
		b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
		if err != nil {
			return &streamError{msg: "listAccessibleCustomers: " + jsonErr(err).Error()}
		}
		ids, err = parseAccessible(b)
		return err
	})
	return ids, err
}

// do sends a request through the shared retrying client (docs/googleads.md
// "Errors"), retrying as retryVerdict says, and hands a 200 response to
// handle. A refused access token is refreshed and the request sent again
// once, without counting as a retry.
func (c *Connector) do(ctx context.Context, method, path string, body []byte, handle func(*http.Response) error) error {
	url := c.base + "/" + c.version + path
	refreshed := false
	return c.api.Do(ctx, method+" "+path, func(ctx context.Context) error {
		return c.attempt(ctx, method, url, body, handle, &refreshed)
	})
}

// errRetryNow: the access token was refused and has been dropped; try again
// with a fresh one.
var errRetryNow = errors.New("retry with a fresh access token")

// attempt sends the request once; the shared client has already waited for
// the rate limit.
func (c *Connector) attempt(ctx context.Context, method, url string, body []byte, handle func(*http.Response) error, refreshed *bool) error {
	tok, err := c.tokens.get(ctx)
	if err != nil {
		return err
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "adsmcp (+https://github.com/adsmcp/adsmcp)")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.developerToken != "" {
		req.Header.Set("developer-token", c.developerToken)
	}
	if c.login != "" {
		req.Header.Set("login-customer-id", c.login)
	}
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		c.log.Debug("google ads request", "method", method, "path", req.URL.Path, "error", err)
		return err
	}
	defer resp.Body.Close()
	c.log.Debug("google ads request", "method", method, "path", req.URL.Path, "status", resp.StatusCode,
		"request_id", resp.Header.Get("request-id"), "ms", time.Since(start).Milliseconds())
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		e := parseError(resp.StatusCode, resp.Header, b)
		if resp.StatusCode == http.StatusUnauthorized && !*refreshed && c.tokens.invalidate(tok) {
			*refreshed = true
			c.log.Info("google ads refused the access token; refreshing it once", "error", e)
			return errRetryNow
		}
		return e
	}
	if err := handle(resp); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	return nil
}

// tokens holds the current access token.
type tokens struct {
	mu sync.Mutex
	// src is a caller's token source; otherwise conf and refresh.
	src     oauth2.TokenSource
	conf    *oauth2.Config
	refresh string
	client  *http.Client
	tok     *oauth2.Token
}

// get returns a valid access token, refreshing it within ctx when needed.
func (t *tokens) get(ctx context.Context) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tok.Valid() {
		return t.tok.AccessToken, nil
	}
	type result struct {
		tok *oauth2.Token
		err error
	}
	ch := make(chan result, 1)
	go func() {
		var r result
		if t.src != nil {
			r.tok, r.err = t.src.Token()
		} else {
			// A token source per refresh, so that the request runs within ctx
			// (its deadline, its source_calls) through the counting client.
			rctx := context.WithValue(ctx, oauth2.HTTPClient, t.client)
			r.tok, r.err = t.conf.TokenSource(rctx, &oauth2.Token{RefreshToken: t.refresh}).Token()
		}
		ch <- r
	}()
	var r result
	select {
	case r = <-ch:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	if r.err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		te := &tokenError{Err: r.err}
		var re *oauth2.RetrieveError
		if errors.As(r.err, &re) {
			te.Code, te.Description = re.ErrorCode, re.ErrorDescription
			te.Err = errors.New("token endpoint error") // the raw body stays out of messages
			if re.Response != nil {
				te.HTTPStatus = re.Response.StatusCode
			}
		}
		return "", te
	}
	if r.tok == nil || r.tok.AccessToken == "" {
		return "", &tokenError{Err: errors.New("the token source returned no access token")}
	}
	t.tok = r.tok
	return t.tok.AccessToken, nil
}

// invalidate drops the access token the API refused, and reports whether a new
// one can be had (only the refresh-token flow can force one).
func (t *tokens) invalidate(access string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tok != nil && t.tok.AccessToken == access {
		t.tok = nil
	}
	return t.conf != nil
}
