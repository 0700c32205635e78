package rest_test

import (
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/apptest"
)

// startServer starts an instance with the default (generous) test limits.
func startServer(t *testing.T) *apptest.Server { return apptest.Start(t, apptest.Options{}) }

// problem is the RFC 9457 body the tests inspect.
type problem struct {
	Type    string              `json:"type"`
	Title   string              `json:"title"`
	Status  int                 `json:"status"`
	Detail  string              `json:"detail"`
	TraceID string              `json:"traceId"`
	Errors  map[string][]string `json:"errors"`
}

// wantProblem asserts status and problem+json, returning the document.
func wantProblem(t *testing.T, res *http.Response, body []byte, status int) problem {
	t.Helper()
	if res.StatusCode != status {
		t.Fatalf("%s %s: status %d, want %d; body %s", res.Request.Method, res.Request.URL, res.StatusCode, status, body)
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("%s: Content-Type %q, want application/problem+json", res.Request.URL, ct)
	}
	var p problem
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("problem body %s: %v", body, err)
	}
	if p.Status != status || p.Title == "" || p.Type == "" {
		t.Fatalf("problem document incomplete: %s", body)
	}
	return p
}

// clock is the rate limiter's injected time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) Advance(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }
