package testkit

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Delivery is one request a Receiver recorded (challenges are not).
type Delivery struct {
	Path   string
	Header http.Header
	Body   []byte
}

// Receiver is a webhook endpoint on 127.0.0.1: it answers the endpoint
// challenge (docs/api-contract.md §6.2) and records every other request as
// a Delivery before answering it (200 unless Answer says otherwise). It
// stops when the test ends.
type Receiver struct {
	// URL is the endpoint's address.
	URL string
	// Challenges counts the challenges answered.
	Challenges atomic.Int64

	mu      sync.Mutex
	got     []Delivery
	read    int           // how many of got Next returned
	arrived chan struct{} // a delivery came since Next last looked
	answer  func(w http.ResponseWriter, d Delivery)
}

// NewReceiver starts a Receiver until the test ends.
func NewReceiver(t testing.TB) *Receiver {
	t.Helper()
	r := &Receiver{arrived: make(chan struct{}, 1)}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	r.URL = srv.URL
	t.Cleanup(srv.Close)
	return r
}

// Answer makes f answer the deliveries from now on (a status, a slow or a
// dropped answer); nil is the plain 200 again.
func (r *Receiver) Answer(f func(w http.ResponseWriter, d Delivery)) {
	r.mu.Lock()
	r.answer = f
	r.mu.Unlock()
}

// Next is the next delivery Next has not returned yet, in arrival order;
// none within 30 s (a loaded machine) fails the test.
func (r *Receiver) Next(t testing.TB) Delivery {
	t.Helper()
	return r.NextWithin(t, 30*time.Second)
}

// NextWithin is Next with its own bound.
func (r *Receiver) NextWithin(t testing.TB, bound time.Duration) Delivery {
	t.Helper()
	deadline := time.NewTimer(bound)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		if r.read < len(r.got) {
			d := r.got[r.read]
			r.read++
			r.mu.Unlock()
			return d
		}
		r.mu.Unlock()
		select {
		case <-r.arrived:
		case <-deadline.C:
			t.Fatalf("no webhook delivery within %s", bound)
		}
	}
}

// Received is every delivery so far.
func (r *Receiver) Received() []Delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Delivery(nil), r.got...)
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	if c := req.Header.Get("X-Service-Challenge"); c != "" {
		r.Challenges.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"challenge": c})
		return
	}
	body, _ := io.ReadAll(req.Body)
	d := Delivery{Path: req.URL.Path, Header: req.Header.Clone(), Body: body}
	r.mu.Lock()
	r.got = append(r.got, d) // before answering: an attempt that finished is recorded
	answer := r.answer
	r.mu.Unlock()
	select {
	case r.arrived <- struct{}{}:
	default:
	}
	if answer != nil {
		answer(w, d)
	}
}
