package apiclient

import "time"

// Policy is how a Client retries. The n-th retry (n from 1) waits a random
// time between half and all of BaseDelay·2ⁿ⁻¹, that backoff capped at
// MaxWait; a wait the platform asks for is honoured, plus up to 10 % (so
// that callers throttled together do not return together), also capped at
// MaxWait — and a platform wait longer than MaxWait is not waited at all:
// the error is returned at once.
type Policy struct {
	// MaxRetries is how many times a request is sent again (0: never).
	MaxRetries int
	// BaseDelay is the first backoff, doubled per retry; it is also the time
	// left for the attempt itself when the deadline is checked.
	BaseDelay time.Duration
	// MaxWait is the longest single wait before a retry.
	MaxWait time.Duration
}

// Or is p with its zero fields taken from def, as the connectors' options
// document: a negative MaxRetries means none, and a zero or negative delay
// the default.
func (p Policy) Or(def Policy) Policy {
	switch {
	case p.MaxRetries == 0:
		p.MaxRetries = def.MaxRetries
	case p.MaxRetries < 0:
		p.MaxRetries = 0
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = def.BaseDelay
	}
	if p.MaxWait <= 0 {
		p.MaxWait = def.MaxWait
	}
	return p
}

// maxShift bounds the doubling so that BaseDelay·2ⁿ cannot overflow.
const maxShift = 30

// wait is how long to wait before retry number retries+1, and false when the
// platform asks for longer than MaxWait.
func (c *Client) wait(v Verdict, retries int) (time.Duration, bool) {
	maxWait := c.policy.MaxWait
	if v.after > 0 {
		if v.after > maxWait {
			return 0, false
		}
		return min(v.after+c.jitter(v.after/10), maxWait), true
	}
	backoff := c.policy.BaseDelay << min(retries, maxShift)
	if backoff <= 0 || backoff > maxWait {
		backoff = maxWait
	}
	return backoff/2 + c.jitter(backoff-backoff/2), true
}
