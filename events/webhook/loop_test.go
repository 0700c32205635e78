package webhook

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
	"github.com/haulgraph/haulgraph/webhooksig"
)

// The dispatcher and the worker over an in-memory webhooks.DeliveryStore:
// their loops, the HTTP requests and what webhooks.Deliveries decides of
// each answer, without PostgreSQL (the tests beside this one run the same
// loops over storage).
func TestLoopsOverTheDeliveryPortWithoutADatabase(t *testing.T) {
	t.Parallel()
	const secret = "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ="
	var busyAnswers atomic.Bool // /busy answers 500 until set
	badSignatures := atomic.Int32{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if webhooksig.Verify(body, r.Header.Get(webhooksig.SignatureHeader), secret, time.Hour) != nil {
			badSignatures.Add(1)
		}
		switch {
		case r.URL.Path == "/gone":
			w.WriteHeader(http.StatusGone)
		case r.URL.Path == "/busy" && !busyAnswers.Load():
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	defer srv.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "http://" + closed.Addr().String() + "/"
	closed.Close()

	tenant, sub := uuid.New(), uuid.New()
	m := &memStore{secret: secret, endpoint: map[uuid.UUID]string{}}
	hook := func(name, url string, state webhooks.State) uuid.UUID {
		id := uuid.New()
		m.hooks = append(m.hooks, webhooks.Webhook{ID: id, TenantID: tenant, SubsidiaryID: sub, Name: name, State: state,
			EventTypes: []string{domain.EventLoadChanged}})
		m.endpoint[id] = url
		return id
	}
	hook("ok", srv.URL+"/ok", webhooks.WebhookActive)
	busy := hook("busy", srv.URL+"/busy", webhooks.WebhookActive)
	gone := hook("gone", srv.URL+"/gone", webhooks.WebhookActive)
	hook("closed", closedURL, webhooks.WebhookActive)
	hook("disabled", srv.URL+"/ok", webhooks.WebhookDisabled)
	m.events = []webhooks.RoutableEvent{
		{Seq: 1, ID: "e-load", TenantID: tenant, SubsidiaryID: &sub, Type: domain.EventLoadChanged},
		{Seq: 2, ID: "e-trip", TenantID: tenant, SubsidiaryID: &sub, Type: domain.EventTripChanged}, // no webhook wants it
		{Seq: 3, ID: "e-nosub", TenantID: tenant, Type: domain.EventLoadChanged},                    // of no subsidiary
	}

	clk := &clock{now: time.Now().Truncate(time.Second)}
	woken := 0
	d := &Dispatcher{Store: m, Now: clk.Now, Batch: 2, OnDispatched: func() { woken++ }}
	if n, err := d.RunOnce(context.Background()); err != nil || n != 3 || m.dispatches != 2 || woken != 1 {
		t.Fatalf("dispatch: %d events in %d batches, woken %d times (%v); want 3 in 2, once", n, m.dispatches, woken, err)
	}
	if len(m.deliveries) != 4 {
		t.Fatalf("%d deliveries, want one per Active webhook of load.changed (4)", len(m.deliveries))
	}
	for _, dl := range m.deliveries {
		if dl.EventID != "e-load" || dl.Status != webhooks.DeliveryPending || !dl.Due.Equal(clk.Now()) {
			t.Fatalf("queued %s %s due %s, want e-load Pending due now", dl.EventID, dl.Status, dl.Due)
		}
	}

	var mu sync.Mutex
	var outcomes []string
	w := &Worker{Store: m, Client: NewClient(ClientOptions{AllowLoopback: true}), AllowInsecure: true, Now: clk.Now,
		Schedule: []time.Duration{time.Minute}, Attempted: func(o string) { mu.Lock(); outcomes = append(outcomes, o); mu.Unlock() }}
	if n, err := w.RunOnce(context.Background()); err != nil || n != 4 {
		t.Fatalf("first round: %d attempts, %v", n, err)
	}
	slices.Sort(outcomes)
	if want := []string{"delivered", "error", "gone", "rejected"}; !slices.Equal(outcomes, want) {
		t.Errorf("outcomes %v, want %v", outcomes, want)
	}
	if n := badSignatures.Load(); n != 0 {
		t.Errorf("%d requests not signed with the webhook's secret", n)
	}
	want := map[uuid.UUID]string{busy: webhooks.DeliveryPending, gone: webhooks.DeliveryFailed}
	for _, dl := range m.deliveries {
		switch {
		case dl.URL == srv.URL+"/ok" && dl.Status != webhooks.DeliveryDelivered:
			t.Errorf("the 200 left its delivery %s", dl.Status)
		case dl.URL == closedURL && (dl.Status != webhooks.DeliveryPending || !dl.Due.Equal(clk.Now().Add(time.Minute))):
			t.Errorf("no answer: %s due %s, want a retry in a minute", dl.Status, dl.Due)
		case want[dl.WebhookID] != "" && dl.Status != want[dl.WebhookID]:
			t.Errorf("%s: %s, want %s", m.endpoint[dl.WebhookID], dl.Status, want[dl.WebhookID])
		}
	}
	for _, r := range m.recorded {
		if r.Log.StatusCode == nil && r.Log.Error != NoAnswer {
			t.Errorf("no answer logged as %q, want %q", r.Log.Error, NoAnswer)
		}
	}
	if !m.active(busy) || m.active(gone) {
		t.Errorf("after a 500 and a 410: busy active %v, gone active %v; want the 410's webhook alone disabled", m.active(busy), m.active(gone))
	}

	// A minute on, the busy endpoint answers: delivered on its retry, it
	// is back and its waiting retries come forward; the closed one's chain
	// is spent.
	busyAnswers.Store(true)
	clk.Add(time.Minute)
	if n, err := w.RunOnce(context.Background()); err != nil || n != 2 {
		t.Fatalf("second round: %d attempts, %v; want the two retries", n, err)
	}
	for _, dl := range m.deliveries {
		if dl.WebhookID == busy && dl.Status != webhooks.DeliveryDelivered || dl.URL == closedURL && dl.Status != webhooks.DeliveryFailed {
			t.Errorf("%s after its retry: %s", dl.URL, dl.Status)
		}
	}
	if !slices.Equal(m.forwarded, []uuid.UUID{busy}) {
		t.Errorf("retries brought forward for %v, want the endpoint that came back alone (%s)", m.forwarded, busy)
	}
}

// An error no retry mends (a schema that does not match the code) stops
// both loops, which return it; the timeout only bounds a failing test.
func TestLoopsStopOnAPermanentStoreError(t *testing.T) {
	t.Parallel()
	undefined := &pgconn.PgError{Code: "42P01", Message: `relation "webhook_deliveries" does not exist`}
	m := &memStore{fail: undefined}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w := &Worker{Store: m, Client: http.DefaultClient, Poll: time.Hour}
	if err := w.Run(ctx); !errors.Is(err, undefined) {
		t.Errorf("worker: %v, want the store's %v", err, undefined)
	}
	d := &Dispatcher{Store: m, Poll: time.Hour}
	if err := d.Run(ctx); !errors.Is(err, undefined) {
		t.Errorf("dispatcher: %v, want the store's %v", err, undefined)
	}
}

// The release of waiting deliveries does not wait for an idle loop: it
// runs while the only loop is busy sending.
func TestWaitingDeliveriesAreReleasedWhileEveryLoopSends(t *testing.T) {
	t.Parallel()
	arrived, hold := make(chan struct{}, 1), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select {
		case <-hold:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	hook := uuid.New()
	m := &memStore{released: make(chan struct{}, 1),
		hooks: []webhooks.Webhook{{ID: hook, State: webhooks.WebhookActive}},
		deliveries: []*memDelivery{{Status: webhooks.DeliveryPending, ClaimedDelivery: webhooks.ClaimedDelivery{
			ID: uuid.New(), WebhookID: hook, EventID: "e", EventType: domain.EventLoadChanged, URL: srv.URL, Payload: []byte(`{"id":"e","data":{}}`)}}}}
	w := &Worker{Store: m, Client: srv.Client(), AllowInsecure: true, Loops: 1, Poll: time.Millisecond, Timeout: time.Hour}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	defer func() {
		cancel()
		close(hold)
		if err := <-done; err != nil {
			t.Errorf("worker: %v", err)
		}
	}()

	select {
	case <-arrived: // the only loop sends, held
	case <-time.After(10 * time.Second):
		t.Fatal("the delivery was never sent")
	}
	select {
	case <-m.released: // one before the send held the loop does not count
	default:
	}
	select {
	case <-m.released:
	case <-time.After(10 * time.Second):
		t.Fatal("no release while the loop sends")
	}
}
