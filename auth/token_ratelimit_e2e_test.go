package auth_test

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time          { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }

// Secret guessing is throttled per client (the address and global buckets
// are apptest's generous ones here): after the burst the endpoint answers
// 429 in RFC 6749's error format with Retry-After and RateLimit-* headers,
// even to the right secret, while other clients are untouched; once the
// clock has moved by Retry-After the client is served again.
func TestTokenEndpointRateLimit(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.TokenRateLimit, c.TokenRateBurst = 1, 3
		c.RateLimitClock = clk.Now
	}})
	acme := apptest.NewTenant(t, srv, "acme")
	victim, secret := srv.Client(t, acme, domain.ScopeLoadRead)
	bystander, bystanderSecret := srv.Client(t, acme, domain.ScopeLoadRead)
	fields := func(id, secret string) map[string]string {
		return map[string]string{"client_id": id, "client_secret": secret, "audience": srv.Config.Audience, "grant_type": "client_credentials"}
	}
	headers := func(resp *http.Response, remaining string) {
		t.Helper()
		if resp.Header.Get("RateLimit-Limit") != "3" || resp.Header.Get("RateLimit-Remaining") != remaining {
			t.Fatalf("RateLimit-Limit %q Remaining %q, want 3 and %s", resp.Header.Get("RateLimit-Limit"), resp.Header.Get("RateLimit-Remaining"), remaining)
		}
		if _, err := strconv.Atoi(resp.Header.Get("RateLimit-Reset")); err != nil {
			t.Fatalf("RateLimit-Reset %q", resp.Header.Get("RateLimit-Reset"))
		}
	}
	refused := func(resp *http.Response, m map[string]any) int {
		t.Helper()
		assertOAuthError(t, resp, m, http.StatusTooManyRequests, "slow_down", "Retry-After")
		headers(resp, "0")
		retry, err := strconv.Atoi(resp.Header.Get("Retry-After"))
		if err != nil || retry < 1 {
			t.Fatalf("Retry-After %q", resp.Header.Get("Retry-After"))
		}
		return retry
	}

	for i := range 3 {
		resp, m := postToken(t, srv, i%2 == 0, fields(victim, "hgcs_guess"+strconv.Itoa(i)))
		assertOAuthError(t, resp, m, http.StatusUnauthorized, "invalid_client", "client authentication failed")
		headers(resp, strconv.Itoa(2-i))
	}
	resp, m := postToken(t, srv, false, fields(victim, "hgcs_guess3"))
	refused(resp, m)
	// The right secret does not get through either while the bucket is empty.
	resp, m = postToken(t, srv, true, fields(victim, secret))
	retry := refused(resp, m)

	// Another client of the same address and tenant has its own bucket.
	if _, err := srv.OAuth(bystander, bystanderSecret).Token(context.Background()); err != nil {
		t.Fatalf("another client throttled by the victim's bucket: %v", err)
	}

	clk.Advance(time.Duration(retry) * time.Second)
	tok, err := srv.OAuth(victim, secret).Token(context.Background())
	if err != nil || tok.AccessToken == "" {
		t.Fatalf("after Retry-After: %v", err)
	}
}
