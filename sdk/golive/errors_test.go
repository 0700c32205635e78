package golive

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/ratelimit"
	"github.com/haulgraph/haulgraph/sdk/haulgraph"
)

// Refusals are one type: the problem document's fields, GraphQL's code and
// fields, and the token endpoint's error, each with the request id.
func TestErrorsAreTyped(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	tenant := apptest.NewTenant(t, srv, "errs")
	ctx := context.Background()
	f := &fixture{srv: srv, tenant: tenant}
	id, secret := f.credentials(t, domain.ScopeDriverRead, domain.ScopeLoadUpdate)
	c, err := haulgraph.New(haulgraph.WithBaseURL(srv.URL), haulgraph.WithClientCredentials(id, secret))
	if err != nil {
		t.Fatal(err)
	}

	_, err = c.Statements.Get(ctx, 999999)
	var e *haulgraph.Error
	if !errors.As(err, &e) || e.StatusCode != 404 || e.Title == "" || e.Type == "" || len(e.RequestID) != 32 || !haulgraph.IsNotFound(err) ||
		e.Response == nil || e.Response.Attempts != 1 {
		t.Errorf("unknown statement: %#v", err)
	}
	_, err = c.Statements.ListPage(ctx, &haulgraph.StatementListParams{PageSize: 1000})
	if !errors.As(err, &e) || e.StatusCode != 400 || len(e.Fields) == 0 {
		t.Errorf("bad search: %#v", err)
	}
	_, err = c.Loads.Get(ctx, "NONE")
	if !errors.As(err, &e) || e.StatusCode != 403 {
		t.Errorf("a load without load:read: %#v", err)
	}
	_, err = c.Loads.ChangeStatus(ctx, "NONE", &haulgraph.LoadStatusParams{Status: haulgraph.LoadStatusCovered})
	if !errors.As(err, &e) || e.StatusCode != 200 || e.Code == "" || e.Detail == "" || e.RequestID == "" {
		t.Errorf("GraphQL refusal: %#v", err)
	}

	// A token revoked behind the client's back is refused (401); the
	// client then fetches another and the call goes through, as one attempt.
	tok1, err := c.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	revoke, _ := http.NewRequest("POST", srv.URL+"/oauth/revoke", strings.NewReader("token="+tok1.AccessToken))
	revoke.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	revoke.SetBasicAuth(id, secret)
	if res, err := http.DefaultClient.Do(revoke); err != nil || res.StatusCode != 200 {
		t.Fatalf("revoke: %v %v", res, err)
	}
	waitFor(t, "the revoked token refused", func() bool {
		req, _ := http.NewRequest("GET", srv.URL+"/api/p/v1/driver-settlement-statements/1", nil)
		req.Header.Set("Authorization", "Bearer "+tok1.AccessToken)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode == 401
	})
	_, err = c.Statements.Get(ctx, 1)
	if !haulgraph.IsNotFound(err) || !errors.As(err, &e) || e.Response.Attempts != 1 {
		t.Errorf("after the token was revoked: %v", err)
	}
	tok2, err := c.Token(ctx)
	if err != nil || tok2.AccessToken == tok1.AccessToken {
		t.Fatalf("the refused token is still in use: %v", err)
	}
	// RevokeToken of the token in use: the next call fetches another.
	if _, err := c.RevokeToken(ctx, tok2.AccessToken); err != nil {
		t.Fatal(err)
	}
	if tok3, err := c.Token(ctx); err != nil || tok3.AccessToken == tok2.AccessToken {
		t.Fatalf("the revoked token is still in use: %v", err)
	}

	bad, err := haulgraph.New(haulgraph.WithBaseURL(srv.URL), haulgraph.WithClientCredentials("hgc_nobody", "wrong"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = bad.Statements.Get(ctx, 1)
	if !errors.As(err, &e) || e.StatusCode != 401 || e.Code != "invalid_client" {
		t.Errorf("bad credentials: %#v", err)
	}
}

// clock is the rate limiter's and the SDK's shared time: the SDK's
// sleeper moves it instead of waiting.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// The server's 429 is retried after its Retry-After, waited on the injected
// sleeper, and the result counts the attempts; with retries off it is
// returned with its fields and the rate-limit headers.
func TestRetryHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	clk := &clock{now: time.Now()}
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.ClientRateLimit, c.TenantRateLimit, c.RateLimitClock = 1, 1000, clk.Now
	}})
	f := &fixture{srv: srv, tenant: apptest.NewTenant(t, srv, "retry")}
	ctx := context.Background()
	var waits []time.Duration
	var retried []int
	c := f.client(t, []domain.Scope{domain.ScopeWebhookManage},
		haulgraph.WithSleeper(func(ctx context.Context, d time.Duration) error { waits = append(waits, d); clk.advance(d); return nil }),
		haulgraph.WithOnRetry(func(r haulgraph.RetryInfo) {
			var e *haulgraph.Error
			if errors.As(r.Err, &e) {
				retried = append(retried, e.StatusCode)
			}
		}))
	for i := range 3 { // one request a second: the second and third wait
		page, err := c.Webhooks.EventTypes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := min(i+1, 2); page.LastResponse.Attempts != want {
			t.Errorf("call %d: %d attempts, want %d", i, page.LastResponse.Attempts, want)
		}
	}
	if len(waits) != 2 || waits[0] != time.Second || waits[1] != time.Second || len(retried) != 2 || retried[0] != 429 {
		t.Errorf("waits %v retries %v, want two waits of 1s after 429s", waits, retried)
	}

	once := f.client(t, []domain.Scope{domain.ScopeWebhookManage}, haulgraph.WithMaxRetries(0),
		haulgraph.WithSleeper(func(context.Context, time.Duration) error { t.Error("slept with retries off"); return nil }))
	_, _ = once.Webhooks.EventTypes(ctx)
	_, err := once.Webhooks.EventTypes(ctx)
	var e *haulgraph.Error
	if !errors.As(err, &e) || e.StatusCode != 429 || e.RetryAfter != time.Second || !haulgraph.IsRateLimited(err) ||
		e.Response.RateLimit.Limit != 1 || e.Response.RateLimit.Remaining != 0 {
		t.Errorf("retries off: %#v", err)
	}
}

// brokenStore: while broken is set, the rate limiter cannot read clients'
// buckets and the API answers 503 with Retry-After before doing anything.
type brokenStore struct {
	ratelimit.Store
	broken *atomic.Bool
}

func (s brokenStore) Lease(ctx context.Context, key string, l ratelimit.Limit, want, giveBack int, now time.Time) (int, float64, error) {
	if s.broken.Load() && strings.HasPrefix(key, "client:") {
		return 0, 0, errors.New("bucket store unreachable")
	}
	return s.Store.Lease(ctx, key, l, want, giveBack, now)
}

// The server's 503 is refused before any work, so it is retried for every
// method: a webhook created through one exists once.
func TestRetry503EveryMethod(t *testing.T) {
	t.Parallel()
	var broken atomic.Bool
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.RateLimitStore = func(s ratelimit.Store) ratelimit.Store { return brokenStore{s, &broken} }
	}})
	f := &fixture{srv: srv, tenant: apptest.NewTenant(t, srv, "unavailable")}
	ctx := context.Background()
	var waits []time.Duration
	c := f.client(t, []domain.Scope{domain.ScopeWebhookManage},
		haulgraph.WithSleeper(func(_ context.Context, d time.Duration) error {
			waits = append(waits, d)
			broken.Store(false) // the store is back by the next attempt
			return nil
		}))
	if _, err := c.Token(ctx); err != nil {
		t.Fatal(err)
	}
	broken.Store(true)
	hooks, err := c.Webhooks.List(ctx)
	if err != nil || len(waits) != 1 || waits[0] <= 0 || hooks.LastResponse.Attempts != 2 {
		t.Fatalf("a read through a 503: %v, waits %v", err, waits)
	}
	// Another client: its bucket has leased nothing yet, so the store is
	// asked (a client's bucket leases tokens ahead).
	c2 := f.client(t, []domain.Scope{domain.ScopeWebhookManage}, haulgraph.WithSleeper(func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		broken.Store(false)
		return nil
	}))
	if _, err := c2.Token(ctx); err != nil {
		t.Fatal(err)
	}
	broken.Store(true)
	hook, err := c2.Webhooks.Create(ctx, &haulgraph.WebhookParams{Name: "x", URL: "https://93.184.216.34/h",
		EventTypes: []haulgraph.EventType{haulgraph.EventLoadChanged}, SubsidiaryID: f.tenant.SubsidiaryID.String()})
	if err != nil || len(waits) != 2 || hook.LastResponse.Attempts != 2 {
		t.Fatalf("a create through a 503: %v, waits %v", err, waits)
	}
	if all, err := c2.Webhooks.List(ctx); err != nil || len(all.Items) != 1 {
		t.Errorf("after the retried create: %+v %v", all, err)
	}
}
