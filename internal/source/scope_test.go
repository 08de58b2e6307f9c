package source

import (
	"context"
	"io"
	"slices"
	"testing"
)

type closer struct {
	name   string
	closed *[]string
}

func (c *closer) Close() error { *c.closed = append(*c.closed, c.name); return nil }

// TestScopeHoldsUntilClosed: a scope makes each value once, returns it for
// the whole call, releases every value when closed (the last made first),
// and keeps nothing afterwards.
func TestScopeHoldsUntilClosed(t *testing.T) {
	var closed []string
	ctx, sc := WithScope(context.Background())
	if ScopeFrom(ctx) != sc || ScopeFrom(context.Background()) != nil {
		t.Fatal("ScopeFrom does not find the call's scope")
	}
	made := 0
	mk := func(name string) func() io.Closer {
		return func() io.Closer { made++; return &closer{name, &closed} }
	}
	a := sc.Hold("a", mk("a"))
	if again := sc.Hold("a", mk("a")); again != a || made != 1 {
		t.Fatalf("Hold made the value again (%d made)", made)
	}
	sc.Hold("b", mk("b"))
	if err := sc.Close(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(closed, []string{"b", "a"}) {
		t.Errorf("closed %v, want [b a]", closed)
	}
	if v := sc.Hold("a", mk("a")); v != nil || made != 2 {
		t.Errorf("a closed scope still holds values: %v", v)
	}
	if err := sc.Close(); err != nil || len(closed) != 2 {
		t.Errorf("closing twice: %v, %v", err, closed)
	}
}
