package rest_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/testkit"
)

// Per client and per tenant buckets (docs/architecture.md), with the headers on every
// response, 429 problem+json with Retry-After, and recovery once the
// injected clock has moved by Retry-After.
func TestRateLimitPerClientAndTenant(t *testing.T) {
	t.Parallel()
	clk := newClock()
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.ClientRateLimit, c.TenantRateLimit = 3, 5
		c.RateLimitClock = clk.Now
	}})
	acme := apptest.NewTenant(t, srv, "acme")
	other := apptest.NewTenant(t, srv, "other")
	one := srv.Token(t, acme, domain.ScopeUserRead)
	two := srv.Token(t, acme, domain.ScopeTrailerRead)
	three := srv.Token(t, other, domain.ScopeUserRead)
	get := func(tok string) (*http.Response, []byte) {
		return testkit.Request(t, "GET", srv.URL+"/api/p/v1/webhooks/event-types", map[string]string{"Authorization": "Bearer " + tok}, "")
	}
	headers := func(res *http.Response, limit, remaining string) {
		t.Helper()
		if res.Header.Get("RateLimit-Limit") != limit || res.Header.Get("RateLimit-Remaining") != remaining {
			t.Fatalf("RateLimit-Limit %q Remaining %q, want %s and %s", res.Header.Get("RateLimit-Limit"), res.Header.Get("RateLimit-Remaining"), limit, remaining)
		}
		if _, err := strconv.Atoi(res.Header.Get("RateLimit-Reset")); err != nil {
			t.Fatalf("RateLimit-Reset %q", res.Header.Get("RateLimit-Reset"))
		}
	}

	// Client one: its own bucket of 3 binds.
	for i := range 3 {
		res, body := get(one)
		if res.StatusCode != 200 {
			t.Fatalf("request %d: %d %s", i, res.StatusCode, body)
		}
		headers(res, "3", strconv.Itoa(2-i))
	}
	res, body := get(one)
	wantProblem(t, res, body, http.StatusTooManyRequests)
	headers(res, "3", "0")
	retry, err := strconv.Atoi(res.Header.Get("Retry-After"))
	if err != nil || retry < 1 {
		t.Fatalf("Retry-After %q", res.Header.Get("Retry-After"))
	}

	// Client two of the same tenant: the tenant's bucket (5, 3 spent) binds.
	res, _ = get(two)
	if res.StatusCode != 200 {
		t.Fatalf("client two refused while the tenant has budget: %d", res.StatusCode)
	}
	headers(res, "5", "1")
	res, _ = get(two)
	headers(res, "5", "0")
	res, body = get(two)
	wantProblem(t, res, body, http.StatusTooManyRequests)
	headers(res, "5", "0")
	if res.Header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}

	// Another tenant is untouched.
	res, _ = get(three)
	if res.StatusCode != 200 {
		t.Fatalf("tenant other throttled by acme: %d", res.StatusCode)
	}
	headers(res, "3", "2")
	// GraphQL spends from the same buckets, with the same headers.
	res, body = testkit.Request(t, "POST", srv.URL+"/graphql", map[string]string{"Authorization": "Bearer " + three, "Content-Type": "application/json"}, `{"query":"{ eventTypes }"}`)
	if res.StatusCode != 200 {
		t.Fatalf("GraphQL: %d %s", res.StatusCode, body)
	}
	headers(res, "3", "1")
	testkit.Request(t, "GET", srv.URL+"/api/p/v1/webhooks/event-types", map[string]string{"Authorization": "Bearer " + three}, "")
	res, body = testkit.Request(t, "POST", srv.URL+"/graphql", map[string]string{"Authorization": "Bearer " + three, "Content-Type": "application/json"}, `{"query":"{ eventTypes }"}`)
	wantGraphQLRateLimited(t, res, body)
	headers(res, "3", "0")

	// Recovery: after Retry-After the client is served again.
	clk.Advance(time.Duration(retry) * time.Second)
	if res, body := get(one); res.StatusCode != 200 {
		t.Fatalf("after Retry-After: %d %s", res.StatusCode, body)
	}
}

// Two instances on one database do not double a caller's budget.
func TestRateLimitSharedAcrossInstances(t *testing.T) {
	t.Parallel()
	clk := newClock()
	configure := func(c *app.Config) {
		c.ClientRateLimit = 4
		c.RateLimitClock = clk.Now
	}
	a := apptest.Start(t, apptest.Options{Configure: configure})
	b := apptest.Start(t, apptest.Options{DatabaseURL: a.Config.DatabaseURL, Configure: configure})
	served := 0
	for i := range 12 {
		srv := a
		if i%2 == 1 {
			srv = b
		}
		res, _ := testkit.Request(t, "GET", srv.URL+"/api/p/v1/webhooks/event-types", nil, "")
		switch res.StatusCode {
		case http.StatusUnauthorized:
			served++
		case http.StatusTooManyRequests:
		default:
			t.Fatalf("status %d", res.StatusCode)
		}
	}
	if served != 4 {
		t.Fatalf("two instances served %d requests of one caller in one instant, want the budget of 4", served)
	}
}

// wantGraphQLRateLimited checks that /graphql refuses in its own format: a
// GraphQL error with extensions.code RATE_LIMITED, status 429 and
// Retry-After, not a problem document.
func wantGraphQLRateLimited(t *testing.T, res *http.Response, body []byte) {
	t.Helper()
	var got struct {
		Errors []struct {
			Message    string         `json:"message"`
			Extensions map[string]any `json:"extensions"`
		} `json:"errors"`
	}
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GraphQL refusal: %d %s %s", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	if err := json.Unmarshal(body, &got); err != nil || len(got.Errors) != 1 || got.Errors[0].Extensions["code"] != "RATE_LIMITED" || got.Errors[0].Message == "" {
		t.Fatalf("GraphQL refusal body %s", body)
	}
	if retry, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || retry < 1 {
		t.Fatalf("Retry-After %q", res.Header.Get("Retry-After"))
	}
}
