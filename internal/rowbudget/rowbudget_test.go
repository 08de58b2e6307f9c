package rowbudget

import (
	"errors"
	"sync"
	"testing"
)

func TestPerCallBound(t *testing.T) {
	b := New(1000, 5000)
	l := b.Lease()
	if n, err := l.Take(600); err != nil || n != 600 {
		t.Fatal(n, err)
	}
	if n, err := l.Take(500); err != nil || n != 400 {
		t.Fatalf("a take crossing the bound: %d %v, want the 400 left", n, err)
	}
	var e *ExceededError
	if _, err := l.Take(1); !errors.As(err, &e) || e.Scope != "call" || e.Limit != 1000 || e.Read != 1000 {
		t.Fatalf("over the call's bound: %v", err)
	}
	if l.Held() != 1000 || b.InUse() != 1000 {
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
	if _, err := big1.Take(1000); err != nil {
		t.Fatal(err)
	}
	if _, err := big2.Take(1000); err != nil {
		t.Fatal("two calls within the server's bound were refused")
	}
	if n, err := big3.Take(500); err != nil || n != 100 {
		t.Fatalf("a third big call: %d %v, want its floor of 100", n, err)
	}
	var e *ExceededError
	if _, err := big3.Take(1); !errors.As(err, &e) || e.Scope != "server" || e.Read != 100 {
		t.Fatalf("past its floor: %v, want the server's bound", err)
	}
	small := b.Lease()
	if n, err := small.Take(80); err != nil || n != 80 {
		t.Errorf("a small call was refused: %d %v", n, err)
	}
	// Past InFlight, each call holds at most its floor.
	if p := b.Peak(); p > b.InFlight+2*b.Floor {
		t.Errorf("peak %d over in-flight %d + a floor of %d for each of the two calls past it", p, b.InFlight, b.Floor)
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
			for {
				if _, err := l.Take(512); err != nil {
					break
				}
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
	if n, err := l.Take(1 << 40); err != nil || n != 1<<40 {
		t.Fatal(n, err)
	}
	l.Release()
}

// Rows are reserved in chunks, but a call is refused only for a row past its
// bound: a chunk that would cross the bound is granted up to it.
func TestChunksStopAtTheBoundNotBefore(t *testing.T) {
	b := New(1500, 10_000)
	l := b.Lease()
	got := int64(0)
	for {
		n, err := l.Take(1024)
		if err != nil {
			var e *ExceededError
			if !errors.As(err, &e) || e.Scope != "call" || e.Read != 1500 {
				t.Fatalf("refusal %v, want the call's bound after 1500 rows", err)
			}
			break
		}
		got += n
	}
	if got != 1500 {
		t.Errorf("granted %d rows, want exactly the bound 1500", got)
	}
}
