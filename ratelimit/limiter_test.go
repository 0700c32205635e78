package ratelimit_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/ratelimit"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// clock is the limiter's injectable time: tests move it instead of sleeping.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// countingStore counts the leases that reach PostgreSQL.
type countingStore struct {
	ratelimit.PGStore
	leases atomic.Int64
}

func (s *countingStore) Lease(ctx context.Context, key string, l ratelimit.Limit, want, giveBack int, now time.Time) (int, float64, error) {
	s.leases.Add(1)
	return s.PGStore.Lease(ctx, key, l, want, giveBack, now)
}

func newClock() *clock { return &clock{t: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)} }

func TestBurstThenRefusalThenRecovery(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	clk := newClock()
	store := &countingStore{PGStore: ratelimit.PGStore{Buckets: &storage.RateLimits{DB: db}}}
	lm := ratelimit.New(store, clk.Now)
	ctx := context.Background()
	lim := ratelimit.PerSecond(10)

	for i := range 10 {
		d, err := lm.Take(ctx, "client:a", lim)
		if err != nil {
			t.Fatal(err)
		}
		if !d.Allowed || d.Limit != 10 || d.Remaining != 9-i {
			t.Fatalf("request %d: %+v, want allowed with %d remaining", i, d, 9-i)
		}
	}
	if n := store.leases.Load(); n > 5 {
		t.Fatalf("10 requests cost %d database leases, want at most 5 (leases are batched)", n)
	}
	d, err := lm.Take(ctx, "client:a", lim)
	if err != nil {
		t.Fatal(err)
	}
	if d.Allowed || d.Remaining != 0 {
		t.Fatalf("11th request: %+v, want refused", d)
	}
	if d.RetryAfter <= 0 || d.RetryAfter > 100*time.Millisecond {
		t.Fatalf("RetryAfter = %v, want (0, 100ms] at 10/s", d.RetryAfter)
	}
	// Refusals until the retry time are answered locally.
	before := store.leases.Load()
	for range 50 {
		if d, _ := lm.Take(ctx, "client:a", lim); d.Allowed {
			t.Fatal("allowed before RetryAfter elapsed")
		}
	}
	if store.leases.Load() != before {
		t.Fatal("a refused caller hammering the API reached the database")
	}
	// Another key is independent.
	if d, _ := lm.Take(ctx, "client:b", lim); !d.Allowed {
		t.Fatal("client b throttled by client a")
	}
	clk.Advance(d.RetryAfter)
	if d, _ := lm.Take(ctx, "client:a", lim); !d.Allowed {
		t.Fatalf("after RetryAfter: %+v, want allowed", d)
	}
	clk.Advance(time.Second)
	d, _ = lm.Take(ctx, "client:a", lim)
	if !d.Allowed || d.Remaining != 9 {
		t.Fatalf("after a full second: %+v, want a full bucket again", d)
	}
}

// Two instances on one database share one budget: together they never allow
// more than the bucket holds.
func TestInstancesShareTheBudget(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	clk := newClock()
	a := ratelimit.New(ratelimit.PGStore{Buckets: &storage.RateLimits{DB: db}}, clk.Now)
	b := ratelimit.New(ratelimit.PGStore{Buckets: &storage.RateLimits{DB: db}}, clk.Now)
	ctx := context.Background()
	lim := ratelimit.PerSecond(10)

	allowed := 0
	for i := range 40 {
		lm := a
		if i%2 == 1 {
			lm = b
		}
		d, err := lm.Take(ctx, "client:x", lim)
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed {
			allowed++
		}
	}
	if allowed != 10 {
		t.Fatalf("two instances allowed %d requests in one instant, want exactly the bucket (10)", allowed)
	}
}

func TestLeasedTokensExpire(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	clk := newClock()
	lm := ratelimit.New(ratelimit.PGStore{Buckets: &storage.RateLimits{DB: db}}, clk.Now)
	ctx := context.Background()
	lim := ratelimit.PerSecond(50)
	// One request leases a slice (10 tokens); the bucket then refills while
	// the slice sits unused. After the lease expires the burst stays at 50.
	if d, _ := lm.Take(ctx, "tenant:t", lim); !d.Allowed {
		t.Fatal("first request refused")
	}
	clk.Advance(5 * time.Second)
	allowed := 0
	for range 80 {
		if d, _ := lm.Take(ctx, "tenant:t", lim); d.Allowed {
			allowed++
		}
	}
	if allowed != 50 {
		t.Fatalf("allowed %d after a long pause, want the burst of 50", allowed)
	}
}

// Buckets idle for an hour are deleted (they are full, as a new one would
// be), so callers from many addresses do not accumulate rows.
func TestIdleBucketsArePruned(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	clk := newClock()
	lm := ratelimit.New(ratelimit.PGStore{Buckets: &storage.RateLimits{DB: db}}, clk.Now)
	ctx := context.Background()
	rows := func(key string) int {
		var n int
		if err := db.Pool.QueryRow(ctx, "SELECT count(*) FROM rate_limit_buckets WHERE key = $1", key).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	lm.Take(ctx, "addr:192.0.2.1", ratelimit.PerSecond(10))
	clk.Advance(30 * time.Minute)
	lm.Take(ctx, "addr:192.0.2.2", ratelimit.PerSecond(10))
	if rows("addr:192.0.2.1") != 1 {
		t.Fatal("a bucket idle for 30 minutes was pruned")
	}
	clk.Advance(2 * time.Hour)
	lm.Take(ctx, "addr:192.0.2.3", ratelimit.PerSecond(10))
	if rows("addr:192.0.2.1") != 0 || rows("addr:192.0.2.2") != 0 || rows("addr:192.0.2.3") != 1 {
		t.Fatal("idle buckets were not pruned, or the fresh one was")
	}
}

// TakeN charges n tokens at once or none; Refund returns what was not used;
// two instances charging one key never spend more than the bucket holds.
func TestTakeNAndRefundShareOneBudget(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	clk := newClock()
	a := ratelimit.New(ratelimit.PGStore{Buckets: &storage.RateLimits{DB: db}}, clk.Now)
	b := ratelimit.New(ratelimit.PGStore{Buckets: &storage.RateLimits{DB: db}}, clk.Now)
	ctx := context.Background()
	lim := ratelimit.Limit{Rate: 100, Burst: 10000}

	spent := 0
	for i := range 10 {
		lm := a
		if i%2 == 1 {
			lm = b
		}
		d, err := lm.TakeN(ctx, "cost:x", lim, 2600)
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed {
			spent += 2600
		} else if d.RetryAfter <= 0 {
			t.Fatalf("refusal %d without RetryAfter: %+v", i, d)
		}
	}
	if spent != 7800 {
		t.Fatalf("two instances granted %d points of a 10000-point budget in charges of 2600, want 7800", spent)
	}
	// An over-budget charge is refused without spending anything.
	if d, _ := a.TakeN(ctx, "cost:y", lim, 10001); d.Allowed {
		t.Fatal("a charge above the burst was granted")
	}
	if d, _ := a.TakeN(ctx, "cost:y", lim, 10000); !d.Allowed {
		t.Fatalf("the whole budget in one charge: %+v", d)
	}
	// A refund makes the points available again, on this instance at once
	// and, given back to the shared bucket once the slice expires, to all.
	if d, _ := b.TakeN(ctx, "cost:y", lim, 1); d.Allowed {
		t.Fatal("b charged from an empty bucket")
	}
	a.Refund("cost:y", lim, 6000)
	if d, _ := a.TakeN(ctx, "cost:y", lim, 5000); !d.Allowed {
		t.Fatalf("refunded points not available: %+v", d)
	}
	clk.Advance(2 * time.Second) // +200 refill; a's 1000 unspent points expire
	d, err := b.TakeN(ctx, "cost:y", lim, 1)
	if err != nil || !d.Allowed || d.Remaining != 199 {
		t.Fatalf("b after the refill: %+v %v, want 199 left", d, err)
	}
	d, err = a.TakeN(ctx, "cost:y", lim, 1)
	if err != nil || !d.Allowed || d.Remaining != 999 {
		t.Fatalf("a after its lease expired: %+v %v, want its 1000 unspent points back (999 left)", d, err)
	}
}
