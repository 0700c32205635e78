package operation

import (
	"context"
	"net/http"
	"sync"

	"github.com/haulgraph/haulgraph/domain"
)

// Outcome lets a handler extension choose the HTTP status of a request it
// refuses before execution (the cost throttle: 429 with Retry-After), and
// the error presenter mark a request that met an unreachable database (503
// with Retry-After; resolvers run concurrently, hence the lock). The HTTP
// transports put one in the request's context and apply it to the answer.
type Outcome struct {
	mu                 sync.Mutex
	status, retryAfter int
}

type outcomeKey struct{}

// WithOutcome is ctx carrying o.
func WithOutcome(ctx context.Context, o *Outcome) context.Context {
	return context.WithValue(ctx, outcomeKey{}, o)
}

// OutcomeFrom is the request's outcome; nil outside HTTP (WebSocket).
func OutcomeFrom(ctx context.Context) *Outcome {
	o, _ := ctx.Value(outcomeKey{}).(*Outcome)
	return o
}

// Refuse makes the answer status, with Retry-After when retryAfter > 0.
func (o *Outcome) Refuse(status, retryAfter int) {
	o.mu.Lock()
	o.status, o.retryAfter = status, retryAfter
	o.mu.Unlock()
}

// unavailable makes the answer 503 with Retry-After.
func (o *Outcome) unavailable() {
	o.Refuse(http.StatusServiceUnavailable, domain.UnavailableRetryAfter)
}

// Chosen is the status chosen (0: none) and its Retry-After in seconds.
func (o *Outcome) Chosen() (status, retryAfter int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.status, o.retryAfter
}
