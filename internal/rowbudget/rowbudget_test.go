package rowbudget

import (
	"errors"
	"sync"
	"testing"
)

func TestPerCallBound(t *testing.T) {
	b := New(1000, 5000)
	l := b.Lease()
	if err := l.Take(600); err != nil {
		t.Fatal(err)
	}
	var e *ExceededError
	if err := l.Take(500); !errors.As(err, &e) || e.Scope != "call" || e.Limit != 1000 {
		t.Fatalf("over the call's bound: %v", err)
	}
	if l.Held() != 600 || b.InUse() != 600 {
		t.Errorf("a refused take was reserved: held %d, in use %d", l.Held(), b.InUse())
	}
	l.Release()
	l.Release()
	if b.InUse() != 0 {
		t.Errorf("in use %d after release", b.InUse())
	}
}

// Calls in flight share InFlight; past it a call is refused once it holds more
// than the floor, so a small call is still answered.
func TestServerBoundKeepsRoomForSmallCalls(t *testing.T) {
	b := New(1000, 2000)
	b.Floor = 100
	big1, big2, big3 := b.Lease(), b.Lease(), b.Lease()
	if big1.Take(1000) != nil || big2.Take(1000) != nil {
		t.Fatal("two calls within the server's bound were refused")
	}
	var e *ExceededError
	if err := big3.Take(500); !errors.As(err, &e) || e.Scope != "server" {
		t.Fatalf("a third big call: %v, want the server's bound", err)
	}
	small := b.Lease()
	if err := small.Take(80); err != nil {
		t.Errorf("a small call was refused: %v", err)
	}
	if p := b.Peak(); p > b.InFlight+b.Floor {
		t.Errorf("peak %d over in-flight %d + floor %d", p, b.InFlight, b.Floor)
	}
}

// Under concurrency the rows held never exceed InFlight plus a floor per call.
func TestConcurrentPeakIsBounded(t *testing.T) {
	b := New(10_000, 30_000)
	var wg sync.WaitGroup
	const calls = 16
	for range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := b.Lease()
			defer l.Release()
			for l.Take(512) == nil {
			}
		}()
	}
	wg.Wait()
	if p := b.Peak(); p > b.InFlight+calls*b.Floor {
		t.Errorf("peak %d rows, bound %d", p, b.InFlight+calls*b.Floor)
	}
	if b.InUse() != 0 {
		t.Errorf("in use %d after every call released", b.InUse())
	}
}

func TestNilBudgetNeverRefuses(t *testing.T) {
	var b *Budget
	l := b.Lease()
	if err := l.Take(1 << 40); err != nil {
		t.Fatal(err)
	}
	l.Release()
}
