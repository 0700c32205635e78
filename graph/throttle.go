package graph

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/haulgraph/haulgraph/domain"
)

// ThrottleStatus is Shopify's extensions.cost.throttleStatus: a leaky bucket
// of query-cost points per API client.
type ThrottleStatus struct {
	MaximumAvailable   float64 `json:"maximumAvailable"`
	CurrentlyAvailable float64 `json:"currentlyAvailable"`
	RestoreRate        float64 `json:"restoreRate"`
}

// Throttle charges each client's query cost against a bucket that refills at
// RestoreRate points per second. The requested cost is charged up front and
// the difference to the actual cost refunded afterwards.
type Throttle struct {
	Max, RestoreRate float64
	now              func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	points float64
	at     time.Time
}

// NewThrottle makes a bucket of max points per client refilling at rate/s.
func NewThrottle(max, rate float64) *Throttle {
	return &Throttle{Max: max, RestoreRate: rate, now: time.Now, buckets: map[string]*bucket{}}
}

func clientKey(ctx context.Context) string {
	if p := domain.PrincipalFrom(ctx); p != nil {
		return p.TenantID.String() + "/" + p.ClientID
	}
	return ""
}

func (t *Throttle) refill(key string) *bucket {
	now := t.now()
	b, ok := t.buckets[key]
	if !ok {
		b = &bucket{points: t.Max, at: now}
		t.buckets[key] = b
	}
	b.points = math.Min(t.Max, b.points+now.Sub(b.at).Seconds()*t.RestoreRate)
	b.at = now
	return b
}

// Charge takes cost points from the caller's bucket, or refuses when fewer
// are available.
func (t *Throttle) Charge(ctx context.Context, cost int) (ThrottleStatus, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.refill(clientKey(ctx))
	ok := float64(cost) <= b.points
	if ok {
		b.points -= float64(cost)
	}
	return t.status(b), ok
}

// Refund returns points charged but not spent.
func (t *Throttle) Refund(ctx context.Context, points int) ThrottleStatus {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.refill(clientKey(ctx))
	if points > 0 {
		b.points = math.Min(t.Max, b.points+float64(points))
	}
	return t.status(b)
}

func (t *Throttle) status(b *bucket) ThrottleStatus {
	return ThrottleStatus{MaximumAvailable: t.Max, CurrentlyAvailable: math.Floor(b.points), RestoreRate: t.RestoreRate}
}
