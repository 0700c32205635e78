package ratelimit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/ratelimit"
)

// A MemStore behind the limiter grants a bucket's burst, refuses, refills
// with the clock, and with no room for a new key refuses it (ErrFull)
// until a bucket is full again and can be forgotten.
func TestMemStore(t *testing.T) {
	t.Parallel()
	clk := newClock()
	store := ratelimit.NewMemStore(2)
	lm := ratelimit.New(store, clk.Now)
	ctx := context.Background()
	lim := ratelimit.Limit{Rate: 1, Burst: 5}
	for i := range 5 {
		if d, err := lm.Take(ctx, "a", lim); err != nil || !d.Allowed {
			t.Fatalf("take %d: %+v %v", i, d, err)
		}
	}
	d, err := lm.Take(ctx, "a", lim)
	if err != nil || d.Allowed || d.RetryAfter != time.Second {
		t.Fatalf("sixth take: %+v %v, want refused for 1s", d, err)
	}
	if d, err := lm.Take(ctx, "b", lim); err != nil || !d.Allowed {
		t.Fatalf("b: %+v %v", d, err)
	}
	if _, err := lm.Take(ctx, "c", lim); !errors.Is(err, ratelimit.ErrFull) {
		t.Fatalf("a third key in a store of two: %v, want ErrFull", err)
	}
	clk.Advance(time.Second)
	if d, err := lm.Take(ctx, "a", lim); err != nil || !d.Allowed {
		t.Fatalf("after a second: %+v %v", d, err)
	}
	clk.Advance(10 * time.Second) // every bucket is full again
	if d, err := lm.Take(ctx, "c", lim); err != nil || !d.Allowed {
		t.Fatalf("c once the others are full: %+v %v", d, err)
	}
	if n := store.Len(); n > 2 {
		t.Fatalf("%d buckets in a store of two", n)
	}
	if n, _ := store.Prune(ctx, clk.Now().Add(time.Hour)); n == 0 || store.Len() != 0 {
		t.Fatalf("prune forgot %d, %d left", n, store.Len())
	}
}
