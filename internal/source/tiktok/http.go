package tiktok

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// maxBody bounds a response body read into memory.
const maxBody = 256 << 20

// request is one GET under /open_api/<version>.
type request struct {
	path   string // "/report/integrated/get/"
	params url.Values
}

// label is how a request appears in logs and errors: the path, never the
// query string.
func (r request) label() string { return "GET " + r.path }

// transportError is a request that got no HTTP response (or an unreadable
// one); its text has the secrets removed.
type transportError struct{ msg string }

func (e *transportError) Error() string { return e.msg }

// do sends r through the shared retrying client and returns the data of a
// successful envelope, an *APIError (TikTok's code, or an HTTP error), a
// *transportError, a *malformedError, or ctx's error. The envelope is read
// inside the retry loop: TikTok answers throttling and system errors with
// HTTP 200 and the code in the body.
func (c *Connector) do(ctx context.Context, r request) ([]byte, error) {
	var body []byte
	err := c.api.Do(ctx, r.label(), func(ctx context.Context) error {
		var err error
		var wait time.Duration
		body, wait, err = c.send(ctx, r)
		if err != nil {
			return err
		}
		if _, err := parseEnvelope(body); err != nil {
			var ae *APIError
			if errors.As(err, &ae) {
				ae.HTTPStatus = http.StatusOK
				ae.Message = c.redact(ae.Message)
				ae.RetryAfter = wait
				return ae
			}
			return &malformedError{r.label() + ": " + c.redact(err.Error())}
		}
		return nil
	})
	return body, err
}

// send makes one HTTP request (counted as a source call by c.client): the
// body of a 2xx response with its Retry-After wait (TikTok may throttle with
// HTTP 200), or an error.
func (c *Connector) send(ctx context.Context, r request) ([]byte, time.Duration, error) {
	u := c.base.JoinPath("open_api", c.opts.APIVersion, r.path)
	if strings.HasSuffix(r.path, "/") && !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	u.RawQuery = r.params.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, 0, errors.New("building " + r.label() + ": " + c.redact(err.Error()))
	}
	req.Header.Set("Access-Token", c.opts.AccessToken)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "adsmcp")
	start := time.Now()
	resp, err := c.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		msg := err.Error()
		var ue *url.Error
		if errors.As(err, &ue) {
			msg = ue.Err.Error()
		}
		return nil, 0, &transportError{msg: r.label() + ": " + c.redact(msg)}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	c.log.Debug("tiktok request", "request", r.label(), "status", resp.StatusCode, "bytes", len(body), "elapsed", time.Since(start).Round(time.Millisecond))
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		return nil, 0, &transportError{msg: r.label() + ": reading the response: " + c.redact(err.Error())}
	}
	if len(body) > maxBody {
		return nil, 0, fmt.Errorf("%s: response larger than %d MB", r.label(), maxBody>>20)
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return body, retryAfter(resp.Header), nil
	}
	ae := &APIError{Message: fmt.Sprintf("%s answered HTTP %d (%s)", r.label(), resp.StatusCode, c.redact(truncate(string(body), 200)))}
	var inner *APIError
	if _, err := parseEnvelope(body); errors.As(err, &inner) {
		ae = inner
		ae.Message = c.redact(ae.Message)
	}
	ae.HTTPStatus = resp.StatusCode
	ae.RetryAfter = retryAfter(resp.Header)
	return nil, 0, ae
}

// retryAfter is the Retry-After header's wait in seconds (capped at a day),
// or 0.
func retryAfter(h http.Header) time.Duration {
	s, err := strconv.Atoi(strings.TrimSpace(h.Get("Retry-After")))
	if err != nil || s <= 0 {
		return 0
	}
	return time.Duration(min(s, 86400)) * time.Second
}

var secretParam = regexp.MustCompile(`(?i)(access_token|access-token|secret|app_secret)=[^&\s"']*`)

// redact removes the token, the app secret and any secret parameter from s.
func (c *Connector) redact(s string) string {
	for _, secret := range []string{c.opts.AccessToken, c.opts.AppSecret} {
		if secret != "" {
			s = strings.ReplaceAll(s, secret, "[redacted]")
			s = strings.ReplaceAll(s, url.QueryEscape(secret), "[redacted]")
		}
	}
	return secretParam.ReplaceAllString(s, "$1=[redacted]")
}
