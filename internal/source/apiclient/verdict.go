package apiclient

import "time"

// Verdict is what a connector's Classify makes of a failed attempt: the only
// platform-specific part of retrying.
type Verdict struct {
	retry bool
	now   bool
	after time.Duration
}

// Permanent: sending the request again would fail the same way (a rejected
// request, a refused credential).
var Permanent = Verdict{}

// RetryNow: send again at once, without waiting and without counting a retry
// — for a failure the connector has just repaired, such as an access token it
// refreshed. Classify must say it at most once per call, or Do loops.
var RetryNow = Verdict{now: true}

// Retry: the request may succeed if sent again after the platform's wait
// hint, or, when the platform gave none (hint 0), after the Policy's backoff.
func Retry(hint time.Duration) Verdict { return Verdict{retry: true, after: max(hint, 0)} }
