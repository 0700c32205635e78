package operation

import (
	"context"
	"fmt"
	"math"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/ratelimit"
)

// ThrottleStatus is Shopify's extensions.cost.throttleStatus: a leaky bucket
// of query-cost points per API client.
type ThrottleStatus struct {
	MaximumAvailable   float64 `json:"maximumAvailable"`
	CurrentlyAvailable float64 `json:"currentlyAvailable"`
	RestoreRate        float64 `json:"restoreRate"`
}

// Throttle is the query-cost budget: per API client a bucket of Budget
// points refilling at Refill points a second, kept in the shared limiter
// (PostgreSQL) so that every instance spends from the same bucket. A query
// is charged its requested cost before it runs and refunded the difference
// to its actual cost afterwards. HTTP operations are charged by the cost
// extension; other transports (WebSocket subscribe messages) use Charge and
// Refund with the caller's context.
type Throttle struct {
	limiter *ratelimit.Limiter
	limit   ratelimit.Limit
	// Refused is told of every charge refused (metrics); nil: nobody.
	Refused func()
}

// NewThrottle makes the budget over lm: budget points per client, refilled
// at refill points a second.
func NewThrottle(lm *ratelimit.Limiter, budget int, refill float64) *Throttle {
	return &Throttle{limiter: lm, limit: ratelimit.Limit{Rate: refill, Burst: budget}}
}

// Budget is the bucket's size: no single query may cost more.
func (t *Throttle) Budget() int { return t.limit.Burst }

// budgetKey names the caller's bucket; anonymous callers never execute
// (the endpoint answers 401 first), so they share one key harmlessly.
func budgetKey(ctx context.Context) string {
	if p := domain.PrincipalFrom(ctx); p != nil {
		return "gqlcost:" + p.TenantID.String() + ":" + p.ClientID
	}
	return "gqlcost:"
}

// Charge takes cost points from the caller's bucket, or none when fewer are
// available (allowed false; retryAfter is the wait in seconds). An error
// means the limiter's store is unreachable: callers refuse the operation
// (503), as the request rate limits do.
func (t *Throttle) Charge(ctx context.Context, cost int) (status ThrottleStatus, allowed bool, retryAfter int, err error) {
	d, err := t.limiter.TakeN(ctx, budgetKey(ctx), t.limit, cost)
	if err != nil {
		return t.status(t.limit.Burst), true, 0, fmt.Errorf("graphql cost budget: %w", err)
	}
	if !d.Allowed && t.Refused != nil {
		t.Refused()
	}
	return t.status(d.Remaining), d.Allowed, max(1, int(math.Ceil(d.RetryAfter.Seconds()))), nil
}

// Refund returns points charged but not spent and reports the bucket.
func (t *Throttle) Refund(ctx context.Context, points int) ThrottleStatus {
	d := t.limiter.Refund(budgetKey(ctx), t.limit, points)
	return t.status(d.Remaining)
}

func (t *Throttle) status(remaining int) ThrottleStatus {
	return ThrottleStatus{MaximumAvailable: float64(t.limit.Burst), CurrentlyAvailable: float64(remaining), RestoreRate: t.limit.Rate}
}
