package haulgraph_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/sdk/haulgraph"
)

// The retry rules need a server that fails on demand: a real net/http
// server on 127.0.0.1 answers what each test scripts. The sleeper and the
// jitter are injected: nothing waits, and the waits are recorded.

// script answers the nth request (from 0) to the API with answers[n] (the
// last one repeats); each answer is a status with its headers.
type answer struct {
	status int
	header map[string]string
	body   string
}

type api struct {
	srv      *httptest.Server
	requests atomic.Int64
}

func newAPI(t *testing.T, answers ...answer) *api {
	t.Helper()
	a := &api{}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(a.requests.Add(1)) - 1
		ans := answers[min(n, len(answers)-1)]
		w.Header().Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
		w.Header().Set("Content-Type", "application/json")
		for k, v := range ans.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(ans.status)
		body := ans.body
		if body == "" && ans.status < 400 {
			body = `{"Id":"w-1","Name":"ERP"}`
		}
		if body == "" {
			body = fmt.Sprintf(`{"type":"about:blank","title":"%s","status":%d,"traceId":"4bf92f3577b34da6a3ce929d0e0e4736"}`, http.StatusText(ans.status), ans.status)
			w.Header().Set("Content-Type", "application/problem+json")
		}
		fmt.Fprint(w, body)
	}))
	t.Cleanup(a.srv.Close)
	return a
}

// recorder is the injected sleeper: it records each wait and returns.
type recorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (r *recorder) sleep(_ context.Context, d time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waits = append(r.waits, d)
	return nil
}

func (r *recorder) get() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Duration(nil), r.waits...)
}

// client is an SDK client of base with a static token, the recorder as its
// sleeper and the largest jitter (the backoff's ceiling).
func client(t *testing.T, base string, rec *recorder, opts ...haulgraph.Option) *haulgraph.Client {
	t.Helper()
	c, err := haulgraph.New(append([]haulgraph.Option{haulgraph.WithBaseURL(base),
		haulgraph.WithAccessToken(func(context.Context) (string, error) { return "tok", nil }),
		haulgraph.WithSleeper(rec.sleep), haulgraph.WithJitter(func(n time.Duration) time.Duration { return n })}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func equal(a, b []time.Duration) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

// 429 and 503 are refused before any work: retried for a write too, after
// their Retry-After; the result carries the answer's metadata.
func TestRetryAfterForEveryMethod(t *testing.T) {
	t.Parallel()
	for _, status := range []int{429, 503} {
		a := newAPI(t, answer{status: status, header: map[string]string{"Retry-After": "7"}},
			answer{status: 201, header: map[string]string{"RateLimit-Limit": "100", "RateLimit-Remaining": "98", "RateLimit-Reset": "3"}})
		rec := &recorder{}
		w, err := client(t, a.srv.URL, rec).Webhooks.Create(context.Background(), &haulgraph.WebhookParams{Name: "ERP"})
		if err != nil || w.ID != "w-1" {
			t.Fatalf("%d: %+v %v", status, w, err)
		}
		m := w.LastResponse
		if m.StatusCode != 201 || m.Attempts != 2 || m.RequestID != "4bf92f3577b34da6a3ce929d0e0e4736" ||
			m.RateLimit != (haulgraph.RateLimit{Limit: 100, Remaining: 98, Reset: 3 * time.Second}) {
			t.Errorf("%d: metadata %+v", status, m)
		}
		if !equal(rec.get(), []time.Duration{7 * time.Second}) || a.requests.Load() != 2 {
			t.Errorf("%d: waits %v after %d requests", status, rec.get(), a.requests.Load())
		}
	}
}

// Retry-After as an HTTP date is read against the injected clock.
func TestRetryAfterDate(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	a := newAPI(t, answer{status: 503, header: map[string]string{"Retry-After": now.Add(30 * time.Second).Format(http.TimeFormat)}}, answer{status: 200})
	rec := &recorder{}
	if _, err := client(t, a.srv.URL, rec, haulgraph.WithClock(func() time.Time { return now })).Webhooks.Get(context.Background(), "w-1"); err != nil {
		t.Fatal(err)
	}
	if !equal(rec.get(), []time.Duration{30 * time.Second}) {
		t.Errorf("waits %v, want 30s", rec.get())
	}
}

// A Retry-After beyond MaxWait is not waited for: the error carries it.
func TestRetryAfterBeyondMaxWait(t *testing.T) {
	t.Parallel()
	a := newAPI(t, answer{status: 503, header: map[string]string{"Retry-After": "120"}}, answer{status: 200})
	rec := &recorder{}
	_, err := client(t, a.srv.URL, rec, haulgraph.WithMaxWait(time.Minute)).Webhooks.Get(context.Background(), "w-1")
	var e *haulgraph.Error
	if !errors.As(err, &e) || e.StatusCode != 503 || e.RetryAfter != 2*time.Minute || e.Response.Attempts != 1 || len(rec.get()) != 0 || a.requests.Load() != 1 {
		t.Errorf("%#v, waits %v", err, rec.get())
	}
}

// Without Retry-After the wait is full jitter over min(8 s, 0.5 s · 2^n);
// the retries stop at MaxRetries and the last error is returned.
func TestBackoffWithJitter(t *testing.T) {
	t.Parallel()
	a := newAPI(t, answer{status: 500})
	rec := &recorder{}
	var bounds []time.Duration
	c := client(t, a.srv.URL, rec, haulgraph.WithMaxRetries(6),
		haulgraph.WithJitter(func(n time.Duration) time.Duration { bounds = append(bounds, n); return n / 2 }))
	_, err := c.Webhooks.Get(context.Background(), "w-1")
	var e *haulgraph.Error
	if !errors.As(err, &e) || e.StatusCode != 500 || e.Response.Attempts != 7 || a.requests.Load() != 7 {
		t.Fatalf("%#v after %d requests", err, a.requests.Load())
	}
	s := time.Second
	if want := []time.Duration{s / 2, s, 2 * s, 4 * s, 8 * s, 8 * s}; !equal(bounds, want) {
		t.Errorf("jitter bounds %v, want %v", bounds, want)
	}
	if want := []time.Duration{s / 4, s / 2, s, 2 * s, 4 * s, 4 * s}; !equal(rec.get(), want) {
		t.Errorf("waits %v, want %v", rec.get(), want)
	}
	// The default jitter stays within its bound.
	c2, _ := haulgraph.New(haulgraph.WithBaseURL(a.srv.URL), haulgraph.WithAccessToken(func(context.Context) (string, error) { return "tok", nil }),
		haulgraph.WithSleeper(rec.sleep), haulgraph.WithMaxRetries(1))
	rec.waits = nil
	_, _ = c2.Webhooks.Get(context.Background(), "w-1")
	if w := rec.get(); len(w) != 1 || w[0] < 0 || w[0] > s/2 {
		t.Errorf("default jitter waited %v", w)
	}
}

// 500, 502 and 504 may come after the work was done: a write is not sent
// again, a read is; other 4xx never are.
func TestStatusRetriedOnlyWhenSafe(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, status := range []int{500, 502, 504} {
		a := newAPI(t, answer{status: status}, answer{status: 200})
		rec := &recorder{}
		_, err := client(t, a.srv.URL, rec).Webhooks.Enable(ctx, "w-1")
		var e *haulgraph.Error
		if !errors.As(err, &e) || e.StatusCode != status || a.requests.Load() != 1 || len(rec.get()) != 0 {
			t.Errorf("POST after %d: %v, %d requests", status, err, a.requests.Load())
		}
		if _, err := client(t, a.srv.URL, rec).Webhooks.Disable(ctx, "w-1"); err != nil {
			t.Errorf("disable (idempotent) after %d: %v", status, err)
		}
	}
	for _, status := range []int{400, 403, 404, 409, 422} {
		a := newAPI(t, answer{status: status}, answer{status: 200})
		_, err := client(t, a.srv.URL, &recorder{}).Webhooks.Get(ctx, "w-1")
		var e *haulgraph.Error
		if !errors.As(err, &e) || e.StatusCode != status || a.requests.Load() != 1 {
			t.Errorf("GET after %d: %v, %d requests", status, err, a.requests.Load())
		}
	}
}

// A connection never made (refused) is retried for every method.
func TestConnectionRefusedRetried(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	rec := &recorder{}
	var retries []haulgraph.RetryInfo
	c := client(t, "http://"+addr, rec, haulgraph.WithOnRetry(func(r haulgraph.RetryInfo) { retries = append(retries, r) }))
	_, err = c.Webhooks.Create(context.Background(), &haulgraph.WebhookParams{Name: "x"})
	if err == nil || len(retries) != 2 || retries[1].Attempt != 2 || !equal(rec.get(), []time.Duration{time.Second / 2, time.Second}) {
		t.Errorf("%v, retries %+v, waits %v", err, retries, rec.get())
	}
}

// A call whose token cannot be had fails with the token request's error
// after that request's own retries, not retried again around it.
func TestTokenFailureRetriedOnce(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	rec := &recorder{}
	c, err := haulgraph.New(haulgraph.WithBaseURL("http://"+addr), haulgraph.WithClientCredentials("id", "secret"), haulgraph.WithSleeper(rec.sleep))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Webhooks.List(context.Background()); err == nil || len(rec.get()) != 2 {
		t.Errorf("%v after %d waits, want the token request's 2 retries", err, len(rec.get()))
	}
}

// A connection lost after the request was sent: a write may have been
// done, so only a read is sent again.
func TestConnectionLostRetriedOnlyWhenSafe(t *testing.T) {
	t.Parallel()
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) == 1 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		fmt.Fprint(w, `{"Id":"w-1"}`)
	}))
	defer srv.Close()
	rec := &recorder{}
	if _, err := client(t, srv.URL, rec).Webhooks.Create(context.Background(), &haulgraph.WebhookParams{Name: "x"}); err == nil || requests.Load() != 1 {
		t.Errorf("a create whose connection was lost: %v after %d requests", err, requests.Load())
	}
	requests.Store(0)
	w, err := client(t, srv.URL, rec).Webhooks.Get(context.Background(), "w-1")
	if err != nil || w.LastResponse.Attempts != 2 || requests.Load() != 2 {
		t.Errorf("a read whose connection was lost: %v after %d requests", err, requests.Load())
	}
}

// Each attempt is bounded by the timeout; a read that timed out is sent
// again. A context the caller cancelled is never retried.
func TestTimeoutAndCancel(t *testing.T) {
	t.Parallel()
	var requests atomic.Int64
	var cancelCaller context.CancelFunc
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n := requests.Add(1); {
		case r.URL.Query().Get("loadNumber") == "cancel":
			cancelCaller()
			<-r.Context().Done()
		case n == 1:
			<-r.Context().Done() // held until the attempt's timeout ends it
		default:
			fmt.Fprint(w, `[]`)
		}
	}))
	defer srv.Close()
	rec := &recorder{}
	page, err := client(t, srv.URL, rec, haulgraph.WithTimeout(50*time.Millisecond)).Events.ListPage(context.Background(), nil)
	if err != nil || page.LastResponse.Attempts != 2 || len(rec.get()) != 1 {
		t.Fatalf("a read that timed out once: %v, waits %v", err, rec.get())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancelCaller = cancel
	requests.Store(0)
	rec2 := &recorder{}
	_, err = client(t, srv.URL, rec2).Events.ListPage(ctx, &haulgraph.EventListParams{LoadNumber: "cancel"})
	if !errors.Is(err, context.Canceled) || len(rec2.get()) != 0 {
		t.Errorf("cancelled by the caller: %v, waits %v", err, rec2.get())
	}
}

// A 401 (a revoked token) fetches a new client-credentials token once and
// repeats the request once, not counted as a retry; the token request is
// retried as a read.
func TestRefusedTokenRenewedOnce(t *testing.T) {
	t.Parallel()
	var tokens, calls atomic.Int64
	accept := "tok-2"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/oauth/token" {
			n := tokens.Add(1)
			if n == 2 { // the token endpoint is briefly unavailable
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(503)
				return
			}
			fmt.Fprintf(w, `{"access_token":"tok-%d","token_type":"Bearer","expires_in":3600}`, min(n, 2))
			return
		}
		calls.Add(1)
		if r.Header.Get("Authorization") != "Bearer "+accept {
			w.WriteHeader(401)
			fmt.Fprint(w, `{"title":"Unauthorized","status":401}`)
			return
		}
		fmt.Fprint(w, `{"Id":"w-1"}`)
	}))
	defer srv.Close()
	rec := &recorder{}
	c, err := haulgraph.New(haulgraph.WithBaseURL(srv.URL), haulgraph.WithClientCredentials("id", "secret"), haulgraph.WithSleeper(rec.sleep))
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.Webhooks.Create(context.Background(), &haulgraph.WebhookParams{Name: "x"})
	if err != nil || w.LastResponse.Attempts != 1 || calls.Load() != 2 || tokens.Load() != 3 || !equal(rec.get(), []time.Duration{time.Second}) {
		t.Fatalf("%v: attempts %v, %d calls, %d token requests, waits %v", err, w, calls.Load(), tokens.Load(), rec.get())
	}
	// A second refusal is returned: the token is renewed once per call.
	accept = "none"
	_, err = c.Webhooks.Get(context.Background(), "w-1")
	var e *haulgraph.Error
	if !errors.As(err, &e) || e.StatusCode != 401 || calls.Load() != 4 {
		t.Errorf("refused twice: %v after %d calls", err, calls.Load())
	}
}

// A GraphQL error in a 200 answer is the same *Error, with its code.
func TestGraphQLErrorIsError(t *testing.T) {
	t.Parallel()
	a := newAPI(t, answer{status: 200, body: `{"data":null,"errors":[{"message":"no load LD-9","path":["changeLoadStatus"],
		"extensions":{"code":"NOT_FOUND","fields":{"loadNumber":["unknown"]}}}]}`})
	_, err := client(t, a.srv.URL, &recorder{}).Loads.ChangeStatus(context.Background(), "LD-9",
		&haulgraph.LoadStatusParams{Status: haulgraph.LoadStatusDelivered})
	var e *haulgraph.Error
	if !errors.As(err, &e) || e.StatusCode != 200 || e.Code != "NOT_FOUND" || e.Detail != "no load LD-9" || e.Fields["loadNumber"][0] != "unknown" ||
		e.RequestID == "" || !haulgraph.IsNotFound(err) || a.requests.Load() != 1 {
		t.Errorf("%#v", err)
	}
}
