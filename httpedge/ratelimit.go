// Package httpedge is the server's HTTP edge, shared by REST, GraphQL's
// transports and the token endpoint: request observation (logs, metrics,
// traces), the client's address, the rate limits and their refusals, and the
// Bearer challenge. It imports no transport; the transports import it.
package httpedge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/ratelimit"
)

// RateLimits is the HTTP face of the limiter for REST, GraphQL and the token
// endpoint alike (docs/architecture.md: a bucket per client and one per tenant). Wrap
// runs after the auth middleware, which puts the Principal in the context;
// anonymous requests are limited per remote address with the client limit.
type RateLimits struct {
	Limiter *ratelimit.Limiter
	Client  ratelimit.Limit
	Tenant  ratelimit.Limit
	Log     *slog.Logger
	// Refuse writes a refusal in the transport's error format: a 429
	// (RateLimited; the RateLimit-* and Retry-After headers are already
	// set) or a 503 (domain.ErrUnavailable: the limiter could not answer).
	// Nil: problem+json.
	Refuse Refusal
	// Refused is told the kind of every bucket that refuses (client,
	// tenant, address, token): metrics. Nil counts nothing.
	Refused func(kind string)
}

// Refusal answers a request the limits refused (err is RateLimited or
// domain.ErrUnavailable).
type Refusal func(w http.ResponseWriter, r *http.Request, err *domain.Error)

// RateLimited is the error every refused request is answered with.
var RateLimited = &domain.Error{Code: domain.CodeRateLimited, Message: "rate limit exceeded: retry after the number of seconds in Retry-After"}

// Check is one bucket a request spends a token of.
type Check struct {
	Key   string
	Limit ratelimit.Limit
	// Limiter holds the bucket; nil is RateLimits.Limiter (shared by the
	// instances).
	Limiter *ratelimit.Limiter
}

// Refusing returns the same limits (same buckets) answering refusals with
// refuse: one limiter, an error format per transport.
func (rl *RateLimits) Refusing(refuse Refusal) *RateLimits {
	c := *rl
	c.Refuse = refuse
	return &c
}

// Wrap limits next by the caller's client and tenant buckets and adds the
// RateLimit-* headers to every response.
func (rl *RateLimits) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rl.admit(w, r, false) {
			next.ServeHTTP(w, r)
		}
	})
}

// AdmitTenant is Wrap's admission for a request that spends its tenant's
// bucket alone, none of its client's (a conditional GET answered 304): it
// answers a refusal itself and reports whether the request goes on.
func (rl *RateLimits) AdmitTenant(w http.ResponseWriter, r *http.Request) bool {
	return rl.admit(w, r, true)
}

// admit names the caller's client for the request's log line, spends its
// buckets (its tenant's alone when tenantOnly; an anonymous request its
// address's) and answers a refusal.
func (rl *RateLimits) admit(w http.ResponseWriter, r *http.Request, tenantOnly bool) bool {
	ctx := r.Context()
	var checks []Check
	switch p := domain.PrincipalFrom(ctx); {
	case p == nil:
		checks = []Check{{Key: "addr:" + ClientHost(r), Limit: rl.Client}}
	case tenantOnly:
		SetClient(ctx, p.ClientID)
		checks = []Check{rl.tenantCheck(p)}
	default:
		SetClient(ctx, p.ClientID)
		checks = rl.principalChecks(p)
	}
	if err := rl.AdmitOrRefuse(w, r, checks...); err != nil {
		if ctx.Err() == nil { // nobody to answer when the caller has gone
			rl.Refuse(w, r, err.(*domain.Error))
		}
		return false
	}
	return true
}

// principalChecks are the buckets an authenticated caller spends from.
func (rl *RateLimits) principalChecks(p *domain.Principal) []Check {
	return []Check{{Key: "client:" + p.TenantID.String() + ":" + p.ClientID, Limit: rl.Client}, rl.tenantCheck(p)}
}

func (rl *RateLimits) tenantCheck(p *domain.Principal) Check {
	return Check{Key: "tenant:" + p.TenantID.String(), Limit: rl.Tenant}
}

// AdmitOperation charges one operation of a streaming connection (a
// GraphQL WebSocket message) to the caller's client and tenant buckets, the
// same an HTTP request spends from. A refusal is RateLimited with the wait
// in its message; with the limiter's database unreachable it refuses with
// domain.ErrUnavailable (a limiter never fails open).
func (rl *RateLimits) AdmitOperation(ctx context.Context) error {
	p := domain.PrincipalFrom(ctx)
	if p == nil {
		return nil
	}
	for _, c := range rl.principalChecks(p) {
		d, err := rl.Limiter.Take(ctx, c.Key, c.Limit)
		if err != nil {
			if ctx.Err() == nil {
				rl.Log.ErrorContext(ctx, "rate limiter unavailable", "err", err)
			}
			return domain.ErrUnavailable
		}
		if !d.Allowed {
			rl.count(c.Key)
			return &domain.Error{Code: domain.CodeRateLimited, Message: fmt.Sprintf(
				"rate limit exceeded: retry in %d s", max(1, seconds(d.RetryAfter)))}
		}
	}
	return nil
}

// AdmitOrRefuse spends a token of every bucket in checks (stopping at the
// first that refuses) and sets the RateLimit-* headers of the binding bucket
// on w, and Retry-After when refused: nil admits, RateLimited refuses, and a
// limiter that cannot answer refuses with domain.ErrUnavailable — a limiter
// never fails open. The caller answers a refusal itself.
func (rl *RateLimits) AdmitOrRefuse(w http.ResponseWriter, r *http.Request, checks ...Check) error {
	allowed, err := rl.take(w, r, checks)
	switch {
	case err != nil:
		return domain.ErrUnavailable
	case !allowed:
		return RateLimited
	}
	return nil
}

// take is AdmitOrRefuse's work; a limiter's error is logged and returned.
func (rl *RateLimits) take(w http.ResponseWriter, r *http.Request, checks []Check) (bool, error) {
	ctx := r.Context()
	var binding ratelimit.Decision
	var refusing string
	for i, c := range checks {
		lm := c.Limiter
		if lm == nil {
			lm = rl.Limiter
		}
		d, err := lm.Take(ctx, c.Key, c.Limit)
		if errors.Is(err, ratelimit.ErrFull) { // a flood of new keys, not a fault
			rl.count(c.Key)
			return false, err
		}
		if err != nil {
			if ctx.Err() == nil {
				rl.Log.ErrorContext(ctx, "rate limiter unavailable", "err", err)
			}
			return false, err
		}
		if i == 0 || !d.Allowed || d.Remaining < binding.Remaining {
			binding = d
		}
		if !d.Allowed {
			refusing = c.Key
			break
		}
	}
	if refusing != "" {
		rl.count(refusing)
	}
	h := w.Header()
	h.Set("RateLimit-Limit", strconv.Itoa(binding.Limit))
	h.Set("RateLimit-Remaining", strconv.Itoa(binding.Remaining))
	h.Set("RateLimit-Reset", strconv.Itoa(seconds(binding.Reset)))
	if !binding.Allowed {
		RetryAfter(h, max(1, seconds(binding.RetryAfter)))
	}
	return binding.Allowed, nil
}

// count tells Refused the kind of the bucket key that refused: its prefix
// ("client:", "tenant:", "addr:", "token:").
func (rl *RateLimits) count(key string) {
	if rl.Refused == nil {
		return
	}
	kind, _, _ := strings.Cut(key, ":")
	if kind == "addr" {
		kind = "address"
	}
	rl.Refused(kind)
}

func seconds(d time.Duration) int { return int(math.Ceil(d.Seconds())) }
