package auth_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
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
		// Admitted, the client's bucket does not show: its headers would
		// tell which client ids exist.
		if resp.Header.Get("RateLimit-Limit") == "3" {
			t.Fatalf("a refused secret shows the client's bucket")
		}
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

// The RateLimit-* headers of a refused credential are the caller's buckets'
// whatever the client_id: an existing client with a wrong secret, a revoked
// one, another tenant's and one that never existed read the same (with the
// default limits the client bucket's 20 used to show for existing ids and
// the address bucket's 30 for the rest), on every way to send credentials
// and on /oauth/revoke.
func TestTokenRateLimitHeadersSameForEveryClientID(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.TokenRateLimit, c.TokenRateBurst = 5, 20 // the defaults
		c.TokenAddressRateLimit, c.TokenAddressRateBurst = 5, 30
		c.TokenGlobalRateLimit, c.TokenGlobalRateBurst = 100, 500
		c.RateLimitClock = clk.Now
	}})
	acme, bolt := apptest.NewTenant(t, srv, "acme"), apptest.NewTenant(t, srv, "bolt")
	existing, _ := srv.Client(t, acme, domain.ScopeLoadRead)
	revoked, _ := srv.Client(t, acme, domain.ScopeLoadRead)
	if err := srv.Auth.RevokeClient(context.Background(), acme.ID, revoked); err != nil {
		t.Fatal(err)
	}
	other, _ := srv.Client(t, bolt, domain.ScopeLoadRead)
	fields := func(id, secret string) map[string]string {
		return map[string]string{"client_id": id, "client_secret": secret, "audience": srv.Config.Audience, "grant_type": "client_credentials"}
	}
	basic := func(path, id, secret string, extra url.Values) *http.Request {
		extra.Set("grant_type", "client_credentials")
		extra.Set("audience", srv.Config.Audience)
		req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(extra.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(id, secret)
		return req
	}
	unknown := "hgc_" + strings.Repeat("x", 16)
	type answer struct{ limit, remaining string }
	var got []answer
	for _, id := range []string{existing, unknown, revoked, other} {
		secret := "hgcs_wrong"
		for _, asJSON := range []bool{true, false} {
			resp, m := postToken(t, srv, asJSON, fields(id, secret))
			assertOAuthError(t, resp, m, http.StatusUnauthorized, "invalid_client", "client authentication failed")
			got = append(got, answer{resp.Header.Get("RateLimit-Limit"), resp.Header.Get("RateLimit-Remaining")})
		}
		for _, path := range []string{"/oauth/token", "/oauth/revoke"} {
			resp, m := postRaw(t, basic(path, id, secret, url.Values{"token": {"x"}}))
			if resp.StatusCode != http.StatusUnauthorized || m["error"] != "invalid_client" {
				t.Fatalf("%s %s: %d %v", path, id, resp.StatusCode, m)
			}
			got = append(got, answer{resp.Header.Get("RateLimit-Limit"), resp.Header.Get("RateLimit-Remaining")})
		}
	}
	// The clock stands still: every answer is the address bucket's, one
	// token fewer each time.
	for i, a := range got {
		if want := (answer{"30", strconv.Itoa(29 - i)}); a != want {
			t.Fatalf("answers' RateLimit-Limit/Remaining %v, want 30 and 29 down by one each", got)
		}
	}
}

// Failed secrets are limited alike whatever client_id they name: an
// existing client, one that never existed, a revoked one and another
// tenant's are each refused after the same number of wrong secrets, with
// the same status, error and headers on every answer up to and including
// the first 429 (with the default limits the existing id used to be
// refused after its own bucket's 20, the others after the address's 30).
// Each kind runs on a server of its own, so that each starts with full
// address and global buckets.
func TestTokenRateLimitSameCountForEveryClientID(t *testing.T) {
	t.Parallel()
	type answer struct {
		status                       int
		err, limit, remaining, reset string
		retryAfter                   string
	}
	kinds := []string{"existing", "unknown", "revoked", "other tenant's"}
	runs := make([][]answer, len(kinds))
	t.Run("kinds", func(t *testing.T) { // returns once every kind has run
		for i, kind := range kinds {
			t.Run(kind, func(t *testing.T) {
				t.Parallel()
				clk := &clock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
				srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
					c.TokenRateLimit, c.TokenRateBurst = 5, 20 // the defaults
					c.TokenAddressRateLimit, c.TokenAddressRateBurst = 5, 30
					c.TokenGlobalRateLimit, c.TokenGlobalRateBurst = 100, 500
					c.RateLimitClock = clk.Now // no refill during the test
				}})
				acme := apptest.NewTenant(t, srv, "acme")
				id, _ := srv.Client(t, acme, domain.ScopeLoadRead)
				switch kind {
				case "unknown":
					id = "hgc_" + strings.Repeat("q", 26)
				case "revoked":
					if err := srv.Auth.RevokeClient(context.Background(), acme.ID, id); err != nil {
						t.Fatal(err)
					}
				case "other tenant's":
					id, _ = srv.Client(t, apptest.NewTenant(t, srv, "bolt"), domain.ScopeLoadRead)
				}
				for n := range 40 {
					resp, m := postToken(t, srv, n%2 == 0, map[string]string{"client_id": id, "client_secret": "hgcs_wrong" + strconv.Itoa(n),
						"audience": srv.Config.Audience, "grant_type": "client_credentials"})
					h := resp.Header
					e, _ := m["error"].(string)
					runs[i] = append(runs[i], answer{resp.StatusCode, e, h.Get("RateLimit-Limit"), h.Get("RateLimit-Remaining"), h.Get("RateLimit-Reset"), h.Get("Retry-After")})
					if resp.StatusCode == http.StatusTooManyRequests {
						return
					}
				}
			})
		}
	})
	for i, run := range runs {
		t.Logf("%s: refused after %d wrong secrets (%+v)", kinds[i], len(run)-1, run[len(run)-1])
	}
	for i, run := range runs {
		if len(run) != 21 || run[20].status != http.StatusTooManyRequests {
			t.Errorf("%s: the first 429 is answer %d, want 21 (the client bucket's burst of 20, then refused)", kinds[i], len(run))
		}
		if !slices.Equal(run, runs[0]) {
			t.Errorf("%s answered otherwise than %s:\n%+v\n%+v", kinds[i], kinds[0], run, runs[0])
		}
	}
}
