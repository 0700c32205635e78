package webhook

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// drain takes n deliveries off the receiver (each waits bounded).
func (r *receiver) drain(t *testing.T, n int) {
	t.Helper()
	for range n {
		r.Next(t)
	}
	r.none(t)
}

// A receiver that was down gets its backlog within seconds of its first
// success, not at the next scheduled retry (+5 min), and at a bounded pace:
// at most webhooks.RecoveryBurst within the first RecoveryWindow.
func TestReceiverThatComesBackGetsPendingDeliveriesWithinSeconds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.worker.Schedule = webhooks.DeliveryRetrySchedule
	rcv := newReceiver(t)
	var down atomic.Bool
	down.Store(true)
	rcv.onDeliver(func(int) int {
		if down.Load() {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})
	e.active(rcv)
	const backlog = webhooks.RecoveryBurst + 10
	for range backlog {
		e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	}
	e.pump()
	rcv.drain(t, backlog) // attempt 1 fails
	e.clk.Add(5 * time.Second)
	e.pump()
	rcv.drain(t, backlog) // attempt 2 fails: the next is 5 minutes away
	if n := e.count("SELECT count(*) FROM webhook_deliveries WHERE status = 'Pending' AND next_attempt_at = ?", e.clk.Now().Add(5*time.Minute)); n != backlog {
		t.Fatalf("%d deliveries wait for the +5 min retry, want %d", n, backlog)
	}

	// The receiver is back; a new event is its first success.
	down.Store(false)
	e.clk.Add(3 * time.Second)
	comeback := e.clk.Now()
	e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	e.pump()
	sent := rcv.pending() // the new event, and the first retry due at once
	rcv.drain(t, sent)
	window := comeback.Add(webhooks.RecoveryWindow)
	if n := e.count("SELECT count(*) FROM webhook_deliveries WHERE status = 'Pending' AND next_attempt_at <= ?", window); n != webhooks.RecoveryBurst {
		t.Fatalf("%d retries brought into the first %s, want the burst of %d", n, webhooks.RecoveryWindow, webhooks.RecoveryBurst)
	}
	// Second by second the brought-forward retries are sent, at most a
	// burst per window, and their successes bring the rest forward.
	for i := 0; e.count("SELECT count(*) FROM webhook_deliveries WHERE status = 'Delivered'") < backlog+1; i++ {
		if i == 5 {
			t.Fatal("the backlog was not delivered within 5 windows")
		}
		e.clk.Add(webhooks.RecoveryWindow)
		e.pump()
		n := rcv.pending()
		if n == 0 || n > webhooks.RecoveryBurst {
			t.Fatalf("%d deliveries in one recovery window", n)
		}
		rcv.drain(t, n)
	}
	if took := e.clk.Now().Sub(comeback); took > 3*time.Second {
		t.Fatalf("the backlog took %s after the comeback", took)
	}
}

// Recover re-queues the failed deliveries since a time, each with a fresh
// retry chain; older failures, other webhooks and other tenants are left
// alone, and since is validated.
func TestRecoverRequeuesFailedDeliveries(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rcv := newReceiver(t)
	var down atomic.Bool
	down.Store(true)
	rcv.onDeliver(func(int) int {
		if down.Load() {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	w, _ := e.active(rcv)
	old := e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	e.pump()
	rcv.drain(t, 4) // 1 + 3 retries of the env's schedule: Failed
	e.clk.Add(time.Hour)
	since := e.clk.Now()
	recent := []string{e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false), e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)}
	e.pump()
	rcv.drain(t, 8)
	if n := e.count("SELECT count(*) FROM webhook_deliveries WHERE status = 'Failed'"); n != 3 {
		t.Fatalf("%d failed deliveries, want 3", n)
	}

	// Refusals.
	if _, err := e.svc.Recover(e.ctx, w.ID, time.Time{}); domain.CodeOf(err) != domain.CodeInvalid {
		t.Fatalf("zero since: %v", err)
	}
	if _, err := e.svc.Recover(e.ctx, w.ID, e.clk.Now().Add(time.Minute)); domain.CodeOf(err) != domain.CodeInvalid {
		t.Fatalf("future since: %v", err)
	}
	if _, err := e.svc.Recover(e.ctx, w.ID, e.clk.Now().Add(-31*24*time.Hour)); domain.CodeOf(err) != domain.CodeInvalid {
		t.Fatalf("since beyond the history: %v", err)
	}
	if _, err := e.svc.Recover(e.ctx, uuid.New(), since); domain.CodeOf(err) != domain.CodeNotFound {
		t.Fatalf("unknown webhook: %v", err)
	}
	other, _ := e.seedTenant("globex")
	if _, err := e.svc.Recover(e.as(other), w.ID, since); domain.CodeOf(err) != domain.CodeNotFound {
		t.Fatalf("another tenant's webhook: %v", err)
	}

	// Still down: the recovered deliveries get a fresh chain (retried, not
	// failed after one more attempt).
	n, err := e.svc.Recover(e.ctx, w.ID, since)
	if err != nil || n != 2 {
		t.Fatalf("recover: %d %v", n, err)
	}
	e.pump()
	rcv.drain(t, 8)
	down.Store(false)
	if n, err = e.svc.Recover(e.ctx, w.ID, since); err != nil || n != 2 {
		t.Fatalf("second recover: %d %v", n, err)
	}
	e.pump()
	got := map[string]bool{}
	for range 2 {
		got[rcv.Next(t).Header.Get("X-Service-Event-Id")] = true
	}
	rcv.none(t)
	if !got[recent[0]] || !got[recent[1]] {
		t.Fatalf("recovered %v, want %v", got, recent)
	}
	if n := e.count("SELECT count(*) FROM webhook_deliveries WHERE status = 'Failed' AND event_id = ?", old); n != 1 {
		t.Fatal("a failure before since was re-queued")
	}
	if n, err := e.svc.Recover(e.ctx, w.ID, since); err != nil || n != 0 {
		t.Fatalf("nothing left to recover: %d %v", n, err)
	}
}
