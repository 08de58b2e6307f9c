package limits

import (
	"testing"
	"time"
)

// TestKeyedReserve: a key gets its burst, then a retry-after; a token given
// back (an authenticated request) does not count; keys are independent.
func TestKeyedReserve(t *testing.T) {
	k := NewKeyed(60) // burst 10, one a second
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	k.now = c.Now
	for i := range 10 {
		if _, _, ok := k.Reserve("a"); !ok {
			t.Fatalf("request %d of the burst refused", i+1)
		}
	}
	_, retry, ok := k.Reserve("a")
	if ok || retry < time.Second {
		t.Fatalf("11th request: ok=%v retry=%v, want a refusal with retry >= 1s", ok, retry)
	}
	if _, _, ok := k.Reserve("b"); !ok {
		t.Fatal("another key was refused")
	}
	c.Advance(time.Second)
	giveBack, _, ok := k.Reserve("a")
	if !ok {
		t.Fatal("a second later: refused")
	}
	giveBack()
	if _, _, ok := k.Reserve("a"); !ok {
		t.Fatal("the token given back was not there")
	}
	c.Advance(time.Hour)
	k.Reserve("c") // sweeps
	if n := k.Len(); n != 1 {
		t.Errorf("after an hour: %d keys kept, want 1 (only c)", n)
	}
}

func TestClientKey(t *testing.T) {
	for in, want := range map[string]string{
		"192.0.2.7:5000":             "192.0.2.7",
		"[2001:db8:1:2:3:4:5:6]:443": "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::1]:443": "2001:db8:1:2::/64",
		"[::ffff:192.0.2.7]:80":      "192.0.2.7",
		"not-an-address":             "not-an-address",
	} {
		if got := ClientKey(in); got != want {
			t.Errorf("ClientKey(%q) = %q, want %q", in, got, want)
		}
	}
}
