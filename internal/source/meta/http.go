package meta

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/internal/source"
)

// maxBody bounds a response body read into memory.
const maxBody = 256 << 20

// request is one Graph API request: a path under the API version with its
// parameters, or a paging URL Meta returned.
type request struct {
	method string
	path   string // "/act_1/insights", under /<version>
	params url.Values
	next   string // a paging.next URL, instead of path and params
}

// label is how a request appears in logs and errors: method and path, never
// the query string.
func (r request) label() string {
	if r.next != "" {
		if u, err := url.Parse(r.next); err == nil {
			return r.method + " " + u.Path + " (next page)"
		}
		return r.method + " (next page)"
	}
	return r.method + " " + r.path
}

// transportError is a request that got no HTTP response (or an unreadable
// one); its text has the URL's secrets removed.
type transportError struct{ msg string }

func (e *transportError) Error() string { return e.msg }

// do sends r, retrying throttled and transient failures with backoff and
// jitter (or the wait Meta's usage headers announce) as long as the wait fits
// in ctx's deadline and Options.MaxRetryWait. It returns the body of a 2xx
// response, an *APIError, a *transportError, or ctx's error.
func (c *Connector) do(ctx context.Context, r request) ([]byte, error) {
	for attempt := 0; ; attempt++ {
		if err := c.limiter.Wait(ctx); err != nil {
			return nil, err
		}
		body, err := c.send(ctx, r)
		if err == nil {
			return body, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		wait, retry := c.retryWait(err, attempt)
		if !retry {
			return nil, err
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) <= wait {
			c.log.Warn("meta request failed; no time left to retry", "request", r.label(), "error", c.redact(err.Error()), "wait", wait)
			return nil, err
		}
		c.log.Warn("meta request failed; retrying", "request", r.label(), "attempt", attempt+1, "wait", wait, "error", c.redact(err.Error()))
		if err := sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// retryWait says whether err is worth another attempt and after how long.
func (c *Connector) retryWait(err error, attempt int) (time.Duration, bool) {
	if attempt >= c.opts.MaxRetries {
		return 0, false
	}
	var ae *APIError
	switch {
	case errors.As(err, &ae):
		if !ae.throttled() && !ae.transient() {
			return 0, false
		}
		if ae.RetryAfter > 0 {
			if ae.RetryAfter > c.opts.MaxRetryWait {
				return 0, false
			}
			// Access returns after RetryAfter: wait that, plus up to 10%.
			return ae.RetryAfter + jitter(ae.RetryAfter/10), true
		}
	case errors.As(err, new(*transportError)):
	default:
		return 0, false
	}
	backoff := c.opts.RetryBaseDelay << min(attempt, 16)
	wait := backoff/2 + jitter(backoff/2)
	if wait > c.opts.MaxRetryWait {
		wait = c.opts.MaxRetryWait
	}
	return wait, true
}

func jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return rand.N(d + 1)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// send makes one HTTP request and counts it as a source call.
func (c *Connector) send(ctx context.Context, r request) ([]byte, error) {
	u, err := c.url(r)
	if err != nil {
		return nil, err
	}
	var req *http.Request
	if r.method == http.MethodPost {
		form := u.Query()
		u.RawQuery = ""
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, u.String(), strings.NewReader(form.Encode()))
		if err == nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
	} else {
		req, err = http.NewRequestWithContext(ctx, r.method, u.String(), nil)
	}
	if err != nil {
		return nil, errors.New("building " + r.label() + ": " + c.redact(err.Error()))
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "adsmcp")
	source.CountCall(ctx)
	start := time.Now()
	resp, err := c.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := err.Error()
		var ue *url.Error
		if errors.As(err, &ue) {
			msg = ue.Err.Error()
		}
		return nil, &transportError{msg: r.label() + ": " + c.redact(msg)}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	c.log.Debug("meta request", "request", r.label(), "status", resp.StatusCode, "bytes", len(body), "elapsed", time.Since(start).Round(time.Millisecond))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &transportError{msg: r.label() + ": reading the response: " + c.redact(err.Error())}
	}
	if len(body) > maxBody {
		return nil, fmt.Errorf("%s: response larger than %d MB", r.label(), maxBody>>20)
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return body, nil
	}
	ae, perr := ParseError(body)
	if perr != nil {
		ae = &APIError{Message: fmt.Sprintf("%s answered HTTP %d without a Graph error (%s)", r.label(), resp.StatusCode, c.redact(truncate(string(body), 200)))}
		if resp.StatusCode == http.StatusTooManyRequests {
			ae.Code = 4
		}
	}
	ae.HTTPStatus = resp.StatusCode
	ae.Message = c.redact(ae.Message)
	ae.UserMessage = c.redact(ae.UserMessage)
	ae.RetryAfter = regainAccess(resp.Header)
	return nil, ae
}

// url is the request's full URL with the token (and proof) as parameters. A
// paging URL must point at the configured API host: the token is never sent
// anywhere else.
func (c *Connector) url(r request) (*url.URL, error) {
	var u *url.URL
	if r.next != "" {
		var err error
		u, err = url.Parse(r.next)
		if err != nil || u.Scheme != c.base.Scheme || u.Host != c.base.Host {
			return nil, errors.New("Meta returned a paging URL outside " + c.base.Scheme + "://" + c.base.Host + "; refusing to follow it")
		}
	} else {
		u = c.base.JoinPath(c.opts.APIVersion, r.path)
		u.RawQuery = r.params.Encode()
	}
	q := u.Query()
	q.Set("access_token", c.opts.AccessToken)
	if c.proof != "" {
		q.Set("appsecret_proof", c.proof)
	} else {
		q.Del("appsecret_proof")
	}
	u.RawQuery = q.Encode()
	return u, nil
}

var secretParam = regexp.MustCompile(`(?i)(access_token|appsecret_proof|client_secret)=[^&\s"']*`)

// redact removes the token and any secret parameter from s.
func (c *Connector) redact(s string) string {
	if t := c.opts.AccessToken; t != "" {
		s = strings.ReplaceAll(s, t, "[redacted]")
		s = strings.ReplaceAll(s, url.QueryEscape(t), "[redacted]")
	}
	if c.opts.AppSecret != "" {
		s = strings.ReplaceAll(s, c.opts.AppSecret, "[redacted]")
	}
	return secretParam.ReplaceAllString(s, "$1=[redacted]")
}

func appSecretProof(token, secret string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(token))
	return hex.EncodeToString(m.Sum(nil))
}
