package limits

import (
	"testing"
	"time"
)

// TestKeyedTake: a key gets its burst, then a retry-after that takes
// nothing; tokens come back at the rate; keys are independent; idle keys are
// forgotten.
func TestKeyedTake(t *testing.T) {
	k := NewKeyed(60) // burst 10, one a second
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	k.now = c.Now
	for i := range 10 {
		if _, ok := k.Take("a"); !ok {
			t.Fatalf("request %d of the burst refused", i+1)
		}
	}
	retry, ok := k.Take("a")
	if ok || retry < time.Second {
		t.Fatalf("11th request: ok=%v retry=%v, want a refusal with retry >= 1s", ok, retry)
	}
	if _, ok := k.Take("b"); !ok {
		t.Fatal("another key was refused")
	}
	c.Advance(time.Second)
	if _, ok := k.Take("a"); !ok {
		t.Fatal("a second later: refused (a refusal took a token)")
	}
	if _, ok := k.Take("a"); ok {
		t.Fatal("a second later: two tokens, want one")
	}
	c.Advance(time.Hour)
	k.Take("c") // sweeps
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
