package testkit

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Delivery is one request a Receiver recorded: a delivery, or a challenge.
type Delivery struct {
	Path   string
	Header http.Header
	Body   []byte
}

// Receiver is a webhook endpoint on 127.0.0.1: it answers the endpoint
// challenge (docs/api-contract.md §6.2) rightly unless AnswerChallenge says
// otherwise, and records every other request as a Delivery before
// answering it (200 unless Answer says otherwise); challenges are recorded
// apart. It stops when the test ends.
type Receiver struct {
	// URL is the endpoint's address.
	URL string

	mu              sync.Mutex
	got, challenges record
	answer          func(w http.ResponseWriter, d Delivery)
	answerChallenge func(w http.ResponseWriter, challenge string)
}

// record is requests in arrival order and how many of them were taken.
type record struct {
	all     []Delivery
	taken   int
	arrived chan struct{} // one came since the last look
}

// NewReceiver starts a Receiver until the test ends.
func NewReceiver(t testing.TB) *Receiver {
	t.Helper()
	r := &Receiver{got: record{arrived: make(chan struct{}, 1)}, challenges: record{arrived: make(chan struct{}, 1)}}
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

// AnswerChallenge makes f answer the challenges from now on (a wrong, late
// or malformed answer); nil is the right answer again.
func (r *Receiver) AnswerChallenge(f func(w http.ResponseWriter, challenge string)) {
	r.mu.Lock()
	r.answerChallenge = f
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
	return r.next(t, &r.got, bound, "webhook delivery")
}

// NextChallenge is the next challenge NextChallenge has not returned yet.
func (r *Receiver) NextChallenge(t testing.TB) Delivery {
	t.Helper()
	return r.next(t, &r.challenges, 30*time.Second, "challenge")
}

func (r *Receiver) next(t testing.TB, rec *record, bound time.Duration, what string) Delivery {
	t.Helper()
	deadline := time.NewTimer(bound)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		if rec.taken < len(rec.all) {
			d := rec.all[rec.taken]
			rec.taken++
			r.mu.Unlock()
			return d
		}
		r.mu.Unlock()
		select {
		case <-rec.arrived:
		case <-deadline.C:
			t.Fatalf("no %s within %s", what, bound)
		}
	}
}

// Received is every delivery so far.
func (r *Receiver) Received() []Delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Delivery(nil), r.got.all...)
}

// Untaken counts the deliveries and the challenges Next and NextChallenge
// have not returned yet.
func (r *Receiver) Untaken() (deliveries, challenges int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got.all) - r.got.taken, len(r.challenges.all) - r.challenges.taken
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	d := Delivery{Path: req.URL.Path, Header: req.Header.Clone(), Body: body}
	challenge := req.Header.Get("X-Service-Challenge")
	rec := &r.got
	if challenge != "" {
		rec = &r.challenges
	}
	r.mu.Lock()
	rec.all = append(rec.all, d) // before answering: an attempt that finished is recorded
	answer, answerChallenge := r.answer, r.answerChallenge
	r.mu.Unlock()
	select {
	case rec.arrived <- struct{}{}:
	default:
	}
	switch {
	case challenge != "" && answerChallenge != nil:
		answerChallenge(w, challenge)
	case challenge != "":
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"challenge": challenge})
	case answer != nil:
		answer(w, d)
	}
}
