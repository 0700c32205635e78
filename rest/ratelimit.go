package rest

import (
	"log/slog"
	"math"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/ratelimit"
)

// RateLimits is the HTTP face of the limiter for REST and GraphQL alike
// (DESIGN.md: a bucket per client and one per tenant). It runs after the
// auth middleware, which puts the Principal in the context; anonymous
// requests are limited per remote address with the client limit.
type RateLimits struct {
	Limiter *ratelimit.Limiter
	Client  ratelimit.Limit
	Tenant  ratelimit.Limit
	Log     *slog.Logger
}

// Wrap limits next and adds the RateLimit-* headers to every response.
func (rl *RateLimits) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		var checks []check
		if p := domain.PrincipalFrom(ctx); p != nil {
			SetClient(ctx, p.ClientID)
			checks = []check{
				{"client:" + p.TenantID.String() + ":" + p.ClientID, rl.Client},
				{"tenant:" + p.TenantID.String(), rl.Tenant},
			}
		} else {
			checks = []check{{"addr:" + remoteHost(r), rl.Client}}
		}
		var binding ratelimit.Decision
		for i, c := range checks {
			d, err := rl.Limiter.Take(ctx, c.key, c.limit)
			if err != nil && ctx.Err() != nil {
				return // the caller has gone
			}
			if err != nil {
				// The database being unreachable must not take the API
				// down with it: fail open, loudly.
				rl.Log.ErrorContext(ctx, "rate limiter unavailable", "err", err)
				next.ServeHTTP(w, r)
				return
			}
			if i == 0 || !d.Allowed || d.Remaining < binding.Remaining {
				binding = d
			}
			if !d.Allowed {
				break
			}
		}
		h := w.Header()
		h.Set("RateLimit-Limit", strconv.Itoa(binding.Limit))
		h.Set("RateLimit-Remaining", strconv.Itoa(binding.Remaining))
		h.Set("RateLimit-Reset", strconv.Itoa(seconds(binding.Reset)))
		if !binding.Allowed {
			h.Set("Retry-After", strconv.Itoa(max(1, seconds(binding.RetryAfter))))
			WriteError(w, r, &domain.Error{Code: domain.CodeRateLimited, Message: "rate limit exceeded: retry after the number of seconds in Retry-After"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

type check struct {
	key   string
	limit ratelimit.Limit
}

func seconds(d time.Duration) int { return int(math.Ceil(d.Seconds())) }

func remoteHost(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
