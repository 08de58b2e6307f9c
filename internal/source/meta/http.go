package meta

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/internal/source/apiclient"
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

// do sends r through the shared retrying client (docs/meta.md "Rate limits,
// retries and the deadline"): throttled and transient failures are retried
// as retryVerdict says. It returns the body of a 2xx response, an *APIError,
// a *transportError, or ctx's error.
func (c *Connector) do(ctx context.Context, r request) ([]byte, error) {
	var body []byte
	err := c.api.Do(ctx, r.label(), func(ctx context.Context) error {
		var err error
		body, err = c.send(ctx, r)
		return err
	})
	return body, err
}

// sleep waits d or until ctx ends (between polls of an async report run).
func sleep(ctx context.Context, d time.Duration) error { return apiclient.Sleep(ctx, d) }

// send makes one HTTP request (counted as a source call by c.client).
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
