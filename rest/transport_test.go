package rest_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/testkit"
)

// Routes that need no token to be told apart: a supported version on a real
// route answers 401 (the route exists), an unsupported one 404.
func TestVersions(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	for _, v := range []string{"v1", "v1.0", "v2", "v2.0"} {
		res, body := testkit.Request(t, "GET", srv.URL+"/api/p/"+v+"/webhooks/event-types", nil, "")
		wantProblem(t, res, body, http.StatusUnauthorized)
		if !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Fatalf("%s: 401 without WWW-Authenticate", v)
		}
	}
	for _, v := range []string{"v3", "v1.1", "1", "V1", "v", "v2.0.0"} {
		for _, path := range []string{"/invoices", "/trailers", "/webhooks/event-types"} {
			res, body := testkit.Request(t, "GET", srv.URL+"/api/p/"+v+path, nil, "")
			p := wantProblem(t, res, body, http.StatusNotFound)
			if !strings.Contains(p.Detail, "unsupported API version") {
				t.Fatalf("%s%s: detail %q", v, path, p.Detail)
			}
		}
	}
}

func TestUnknownRouteAndMethod(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	res, body := testkit.Request(t, "GET", srv.URL+"/api/p/v1/nothing-here", nil, "")
	wantProblem(t, res, body, http.StatusNotFound)

	res, body = testkit.Request(t, "DELETE", srv.URL+"/api/p/v1/invoices", nil, "")
	wantProblem(t, res, body, http.StatusMethodNotAllowed)
	if res.Header.Get("Allow") != "GET" {
		t.Fatalf("Allow = %q, want GET", res.Header.Get("Allow"))
	}
	res, body = testkit.Request(t, "GET", srv.URL+"/api/p/v1/users/search", nil, "")
	wantProblem(t, res, body, http.StatusMethodNotAllowed)
	if res.Header.Get("Allow") != "POST" {
		t.Fatalf("Allow = %q, want POST", res.Header.Get("Allow"))
	}
	// A literal path is not a value of its wildcard sibling /webhooks/{id}.
	for _, m := range []string{"POST", "OPTIONS", "PUT", "PATCH", "DELETE"} {
		res, body = testkit.Request(t, m, srv.URL+"/api/p/v1/webhooks/event-types", nil, "")
		wantProblem(t, res, body, http.StatusMethodNotAllowed)
		if res.Header.Get("Allow") != "GET" {
			t.Fatalf("%s event-types: Allow = %q, want GET", m, res.Header.Get("Allow"))
		}
	}
	res, body = testkit.Request(t, "PUT", srv.URL+"/api/p/v1/webhooks/"+uuid.NewString(), nil, "")
	wantProblem(t, res, body, http.StatusMethodNotAllowed)
	if res.Header.Get("Allow") != "GET, PATCH, DELETE" {
		t.Fatalf("PUT webhook: Allow = %q, want GET, PATCH, DELETE", res.Header.Get("Allow"))
	}
}

func TestNotAcceptable(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	for _, accept := range []string{"text/html", "application/xml, text/plain", "application/json;q=0, text/html"} {
		res, body := testkit.Request(t, "GET", srv.URL+"/api/p/v1/trailers", map[string]string{"Accept": accept}, "")
		wantProblem(t, res, body, http.StatusNotAcceptable)
	}
}

func TestOpenAPIDocumentServed(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	res, body := testkit.Request(t, "GET", srv.URL+"/api/p/openapi.json", nil, "")
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("openapi.json: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	var doc struct {
		OpenAPI string                     `json:"openapi"`
		Paths   map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}
	for _, p := range []string{"/invoices", "/driver-settlement-statements/search", "/driver-settlement-statements/{number}",
		"/trailers", "/locations/search", "/users/search", "/loads/{loadNumber}", "/webhooks/event-types"} {
		if _, ok := doc.Paths["/api/p/v1"+p]; !ok {
			t.Errorf("openapi.json lacks %s", p)
		}
	}
}

// The trace id of an incoming traceparent is kept: echoed in the response's
// traceparent (with this server's span) and in problem documents.
func TestTraceparentPropagated(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	const trace = "4bf92f3577b34da6a3ce929d0e0e4736"
	res, body := testkit.Request(t, "GET", srv.URL+"/api/p/v1/trailers", map[string]string{"traceparent": "00-" + trace + "-00f067aa0ba902b7-01"}, "")
	p := wantProblem(t, res, body, http.StatusUnauthorized)
	if p.TraceID != trace {
		t.Fatalf("problem traceId = %q, want %q", p.TraceID, trace)
	}
	tp := res.Header.Get("traceparent")
	if !regexp.MustCompile(`^00-`+trace+`-[0-9a-f]{16}-01$`).MatchString(tp) || strings.Contains(tp, "00f067aa0ba902b7") {
		t.Fatalf("response traceparent = %q, want the same trace with this server's span", tp)
	}
	// A malformed traceparent starts a new trace.
	res, body = testkit.Request(t, "GET", srv.URL+"/api/p/v1/trailers", map[string]string{"traceparent": "00-" + strings.Repeat("0", 32) + "-00f067aa0ba902b7-01"}, "")
	p = wantProblem(t, res, body, http.StatusUnauthorized)
	if len(p.TraceID) != 32 || p.TraceID == strings.Repeat("0", 32) {
		t.Fatalf("new trace id %q", p.TraceID)
	}
}

func TestMetricsCountRequests(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	for range 3 {
		testkit.Request(t, "GET", srv.URL+"/api/p/v1/webhooks/event-types", nil, "")
	}
	testkit.Request(t, "GET", srv.URL+"/api/p/v9/trailers", nil, "")
	if res, _ := testkit.Request(t, "GET", srv.URL+"/metrics", nil, ""); res.StatusCode != http.StatusNotFound {
		t.Fatalf("public /metrics: %d, want 404 (metrics are on the admin listener)", res.StatusCode)
	}
	res, body := testkit.Request(t, "GET", srv.AdminURL+"/metrics", nil, "")
	if res.StatusCode != 200 {
		t.Fatalf("/metrics: %d", res.StatusCode)
	}
	text := string(body)
	for _, want := range []string{
		`haulgraph_http_requests_total{method="GET",route="GET /api/p/{version}/webhooks/event-types",status="401"} 3`,
		`haulgraph_http_requests_total{method="GET",route="GET /api/p/{version}/trailers",status="404"} 1`,
		`haulgraph_http_request_duration_seconds_count{method="GET",route="GET /api/p/{version}/webhooks/event-types"} 3`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// Anonymous callers are limited per address with the client limit; the
// headers are on every response and a refusal is a 429 problem with
// Retry-After. Recovery: the injected clock moves by Retry-After.
func TestRateLimitAnonymous(t *testing.T) {
	t.Parallel()
	clk := newClock()
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.ClientRateLimit = 3
		c.RateLimitClock = clk.Now
	}})
	url := srv.URL + "/api/p/v1/webhooks/event-types"
	for i := range 3 {
		res, body := testkit.Request(t, "GET", url, nil, "")
		wantProblem(t, res, body, http.StatusUnauthorized)
		if res.Header.Get("RateLimit-Limit") != "3" || res.Header.Get("RateLimit-Remaining") != strconv.Itoa(2-i) || res.Header.Get("RateLimit-Reset") == "" {
			t.Fatalf("request %d: RateLimit headers %v", i, res.Header)
		}
	}
	res, body := testkit.Request(t, "GET", url, nil, "")
	p := wantProblem(t, res, body, http.StatusTooManyRequests)
	if p.Detail == "" || res.Header.Get("RateLimit-Remaining") != "0" {
		t.Fatalf("429: %s %v", body, res.Header)
	}
	retry, err := strconv.Atoi(res.Header.Get("Retry-After"))
	if err != nil || retry < 1 {
		t.Fatalf("Retry-After = %q", res.Header.Get("Retry-After"))
	}
	if reset, _ := strconv.Atoi(res.Header.Get("RateLimit-Reset")); reset < retry {
		t.Fatalf("RateLimit-Reset %d before Retry-After %d", reset, retry)
	}
	clk.Advance(time.Duration(retry) * time.Second)
	res, body = testkit.Request(t, "GET", url, nil, "")
	wantProblem(t, res, body, http.StatusUnauthorized)
	// The refusal is counted under its route.
	_, metrics := testkit.Request(t, "GET", srv.AdminURL+"/metrics", nil, "")
	if want := `haulgraph_http_requests_total{method="GET",route="GET /api/p/{version}/webhooks/event-types",status="429"} 1`; !strings.Contains(string(metrics), want) {
		t.Fatalf("/metrics lacks %s", want)
	}
}

// The token endpoint, described in the same document, answers as described.
func TestOpenAPITokenEndpoint(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	c := newOpenAPIChecker(t, srv.URL)
	tenant := apptest.NewTenant(t, srv, "acme")
	id, secret := srv.Client(t, tenant, domain.ScopeUserRead)
	form := "application/x-www-form-urlencoded"
	for _, r := range []struct {
		ct, body string
		status   int
	}{
		{form, "grant_type=client_credentials&client_id=" + id + "&client_secret=" + secret + "&audience=" + url.QueryEscape(srv.Config.Audience), 200},
		{"application/json", `{"grant_type":"client_credentials","client_id":"` + id + `","client_secret":"` + secret + `","audience":"` + srv.Config.Audience + `"}`, 200},
		{form, "grant_type=client_credentials&client_id=" + id + "&client_secret=wrong&audience=" + url.QueryEscape(srv.Config.Audience), 401},
		{form, "grant_type=password&client_id=" + id + "&client_secret=" + secret + "&audience=" + url.QueryEscape(srv.Config.Audience), 400},
	} {
		res, body := testkit.Request(t, "POST", srv.URL+"/oauth/token", map[string]string{"Content-Type": r.ct}, r.body)
		if res.StatusCode != r.status {
			t.Fatalf("%s: %d %s, want %d", r.body, res.StatusCode, body, r.status)
		}
		c.check(t, "POST", srv.URL+"/oauth/token", r.ct, r.body, res, body)
	}
}
