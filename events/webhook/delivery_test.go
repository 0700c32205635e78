package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
	"github.com/haulgraph/haulgraph/webhooksig"
)

// hmacHex is computed here, independently of the project's signing helper.
func hmacHex(secret, signed string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(signed))
	return hex.EncodeToString(m.Sum(nil))
}

// sigParts splits "t=..,v1=..,v0=.." by hand.
func sigParts(t *testing.T, h string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range strings.Split(h, ",") {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			t.Fatalf("malformed signature %q", h)
		}
		out[k] = v
	}
	return out
}

func TestDeliveryHeadersAndIndependentSignature(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rcv := newReceiver(t)
	_, secret := e.active(rcv)
	id := e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, true)
	e.pump()
	d := rcv.Next(t)
	h := d.Header
	if h.Get("X-Service-Event-Id") != id || h.Get("X-Service-Event") != "load.changed" || h.Get("X-Service-Delivery") == "" ||
		h.Get("Content-Type") != "application/json; charset=utf-8" || h.Get("User-Agent") != "Service-Webhook/1.0" || h.Get("traceparent") == "" {
		t.Fatalf("headers %v", h)
	}
	sig := sigParts(t, h.Get("X-Service-Signature"))
	if len(sig) != 2 || sig["t"] != h.Get("X-Service-Timestamp") {
		t.Fatalf("signature %q, timestamp %q", h.Get("X-Service-Signature"), h.Get("X-Service-Timestamp"))
	}
	if ts, _ := strconv.ParseInt(sig["t"], 10, 64); ts != e.clk.Now().Unix() {
		t.Fatalf("t=%s, want the worker clock's %d", sig["t"], e.clk.Now().Unix())
	}
	if want := hmacHex(secret, sig["t"]+"."+string(d.Body)); sig["v1"] != want {
		t.Fatalf("v1 %s, independent HMAC %s", sig["v1"], want)
	}
	if err := webhooksig.VerifyAt(d.Body, h.Get("X-Service-Signature"), secret, webhooksig.DefaultTolerance, e.clk.Now()); err != nil {
		t.Fatalf("webhooksig: %v", err)
	}
	var env struct {
		ID, Type, Version string
		Data              struct {
			Load map[string]any
			Diff map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal(d.Body, &env); err != nil || env.ID != id || env.Version != "v1" || env.Data.Load == nil {
		t.Fatalf("envelope %s: %v", d.Body, err)
	}
	if _, ok := env.Data.Diff["changes"]; !ok {
		t.Fatalf("diff.changes missing: %s", d.Body)
	}
	if _, ok := env.Data.Diff["previousAttributes"]; ok {
		t.Fatalf("previousAttributes sent although the webhook did not ask: %s", d.Body)
	}
}

func TestRotationDualSignaturesThenV1Only(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rcv := newReceiver(t)
	w, oldSecret := e.active(rcv)
	window := time.Hour
	got, newSecret, err := e.svc.RegenerateSecret(e.ctx, w.ID, &window)
	if err != nil || got.State != webhooks.WebhookActive || newSecret == oldSecret || !strings.HasPrefix(newSecret, "whsec_") {
		t.Fatalf("regenerate: %v %+v", err, got)
	}
	if got.RotationEndsAt == nil {
		t.Fatal("no rotation window reported")
	}
	if _, challenges := rcv.Untaken(); challenges > 0 {
		t.Fatal("regeneration re-verified")
	}
	e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	e.pump()
	d := rcv.Next(t)
	sig := sigParts(t, d.Header.Get("X-Service-Signature"))
	if sig["v1"] != hmacHex(newSecret, sig["t"]+"."+string(d.Body)) || sig["v0"] != hmacHex(oldSecret, sig["t"]+"."+string(d.Body)) {
		t.Fatalf("during the window: %v", sig)
	}
	for _, s := range []string{oldSecret, newSecret} {
		if err := webhooksig.VerifyAt(d.Body, d.Header.Get("X-Service-Signature"), s, time.Minute, e.clk.Now()); err != nil {
			t.Fatalf("receiver with %s: %v", s[:10], err)
		}
	}
	e.clk.Add(window + time.Second)
	// The rotation is over by the service's clock (webhooks.RotationLasts
	// decides; storage keeps the end as saved).
	if got, err := e.svc.Get(e.ctx, w.ID); err != nil || got.RotationEndsAt != nil {
		t.Fatalf("after the window: rotation still shown (%v, %v)", err, got)
	}
	e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	e.pump()
	d = rcv.Next(t)
	sig = sigParts(t, d.Header.Get("X-Service-Signature"))
	if _, ok := sig["v0"]; ok || sig["v1"] != hmacHex(newSecret, sig["t"]+"."+string(d.Body)) {
		t.Fatalf("after the window: %v", sig)
	}
	if err := webhooksig.VerifyAt(d.Body, d.Header.Get("X-Service-Signature"), oldSecret, time.Minute, e.clk.Now()); err == nil {
		t.Fatal("the old secret still verifies after the window")
	}
	// Window 0: no dual signature at all.
	zero := time.Duration(0)
	_, third, err := e.svc.RegenerateSecret(e.ctx, w.ID, &zero)
	if err != nil {
		t.Fatal(err)
	}
	e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	e.pump()
	d = rcv.Next(t)
	sig = sigParts(t, d.Header.Get("X-Service-Signature"))
	if _, ok := sig["v0"]; ok || sig["v1"] != hmacHex(third, sig["t"]+"."+string(d.Body)) {
		t.Fatalf("rotation without window: %v", sig)
	}
}

func TestFailingTwiceThenSuccessSameEventIDAndLoggedAttempts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rcv := newReceiver(t)
	rcv.onDeliver(func(n int) int {
		if n <= 2 {
			return http.StatusServiceUnavailable
		}
		return http.StatusNoContent
	})
	w, _ := e.active(rcv)
	id := e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	e.pump()
	attemptIDs := map[string]bool{}
	for i := 0; i < 3; i++ {
		d := rcv.Next(t)
		if d.Header.Get("X-Service-Event-Id") != id {
			t.Fatalf("attempt %d carried event id %s, want %s", i+1, d.Header.Get("X-Service-Event-Id"), id)
		}
		attemptIDs[d.Header.Get("X-Service-Delivery")] = true
	}
	rcv.none(t)
	if len(attemptIDs) != 3 {
		t.Fatalf("X-Service-Delivery values %v, want one per attempt", attemptIDs)
	}
	ds, err := e.svc.Deliveries(e.ctx, w.ID, 10)
	if err != nil || len(ds) != 1 {
		t.Fatalf("deliveries: %v %d", err, len(ds))
	}
	d := ds[0]
	if d.Status != webhooks.DeliveryDelivered || d.EventID != id || len(d.Attempts) != 3 {
		t.Fatalf("delivery %+v", d)
	}
	for i, a := range d.Attempts {
		want := 503
		if i == 2 {
			want = 204
		}
		if a.Attempt != i+1 || a.StatusCode == nil || *a.StatusCode != want || (want == 503) != (a.Error != "") || !attemptIDs[a.ID.String()] {
			t.Fatalf("attempt %d: %+v", i+1, a)
		}
	}
}

// DESIGN schedule: the next attempt time is stored, and nothing is sent
// before it; non-2xx (including 3xx) is failure; after the last retry the
// chain fails.
func TestRetryScheduleIsStoredAndChainEnds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.worker.Schedule = webhooks.DeliveryRetrySchedule
	rcv := newReceiver(t)
	rcv.onDeliver(func(int) int { return http.StatusFound })
	e.active(rcv)
	e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	for i, delay := range webhooks.DeliveryRetrySchedule {
		e.pump()
		rcv.Next(t)
		var next time.Time
		if err := e.db.Bun.QueryRowContext(context.Background(), "SELECT next_attempt_at FROM webhook_deliveries").Scan(&next); err != nil {
			t.Fatal(err)
		}
		if want := e.clk.Now().Add(delay); !next.Equal(want) {
			t.Fatalf("after attempt %d: next attempt %s, want %s", i+1, next, want)
		}
		e.clk.Add(delay - time.Second)
		e.pump()
		rcv.none(t) // not due yet
		e.clk.Add(time.Second)
	}
	e.pump()
	rcv.Next(t) // the 8th and last attempt
	if n := e.count("SELECT count(*) FROM webhook_deliveries WHERE status = 'Failed' AND next_attempt_at IS NULL AND attempt = 8"); n != 1 {
		t.Fatal("the chain did not end Failed after 8 attempts")
	}
	e.clk.Add(24 * time.Hour)
	e.pump()
	rcv.none(t)
}

func TestGoneDisablesEndpoint(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rcv := newReceiver(t)
	rcv.onDeliver(func(int) int { return http.StatusGone })
	w, _ := e.active(rcv)
	e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	e.pump()
	rcv.Next(t)
	got := e.webhook(w.ID)
	if got.State != webhooks.WebhookDisabled || !strings.Contains(got.StateReason, "410") {
		t.Fatalf("after 410: %s %q", got.State, got.StateReason)
	}
	e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	e.pump()
	rcv.none(t)
}

// DESIGN: an endpoint whose deliveries all fail for 5 days is disabled; a
// success in between resets the count.
func TestAutoDisableAfterFiveDaysOfFailures(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.worker.Schedule = []time.Duration{time.Hour, time.Hour, time.Hour}
	rcv := newReceiver(t)
	fail := true
	var mu sync.Mutex
	rcv.onDeliver(func(int) int {
		mu.Lock()
		defer mu.Unlock()
		if fail {
			return 500
		}
		return 200
	})
	w, _ := e.active(rcv)
	e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	e.pump()
	rcv.Next(t)
	e.clk.Add(4 * 24 * time.Hour)
	e.pump()
	rcv.Next(t)
	if got := e.webhook(w.ID); got.State != webhooks.WebhookActive || got.FailingSince == nil {
		t.Fatalf("after 4 days: %s %v", got.State, got.FailingSince)
	}
	e.clk.Add(24 * time.Hour)
	e.pump()
	rcv.Next(t)
	got := e.webhook(w.ID)
	if got.State != webhooks.WebhookDisabled || !strings.Contains(got.StateReason, "5 days") {
		t.Fatalf("after 5 days of failures: %s %q", got.State, got.StateReason)
	}
	// A success resets the failure clock.
	if _, err := e.svc.Enable(e.ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	rcv.NextChallenge(t)
	mu.Lock()
	fail = false
	mu.Unlock()
	e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	e.pump()
	for rcv.pending() > 0 {
		rcv.Next(t)
	}
	if got := e.webhook(w.ID); got.FailingSince != nil || got.State != webhooks.WebhookActive {
		t.Fatalf("after a success: %s %v", got.State, got.FailingSince)
	}
}

func TestDeliveryTimeout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.worker.Timeout = 300 * time.Millisecond
	release := make(chan struct{})
	rcv := newReceiver(t)
	rcv.onDeliver(func(n int) int {
		if n == 1 {
			<-release // hangs past the worker's timeout
		}
		return 200
	})
	defer close(release)
	w, _ := e.active(rcv)
	e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	e.pump()
	rcv.Next(t) // the retry; the hung first request is still parked in the receiver
	ds, _ := e.svc.Deliveries(e.ctx, w.ID, 10)
	if len(ds) != 1 || ds[0].Status != webhooks.DeliveryDelivered || len(ds[0].Attempts) != 2 || ds[0].Attempts[0].Error != NoAnswer {
		t.Fatalf("deliveries %+v", ds)
	}
}

func TestRedeliverSameEventID(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rcv := newReceiver(t)
	w, _ := e.active(rcv)
	id := e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	e.pump()
	rcv.Next(t)
	d, err := e.svc.Redeliver(e.ctx, w.ID, id)
	if err != nil || d.EventID != id || d.EventType != domain.EventLoadChanged {
		t.Fatalf("redeliver: %v %+v", err, d)
	}
	e.pump()
	if got := rcv.Next(t).Header.Get("X-Service-Event-Id"); got != id {
		t.Fatalf("redelivered %s", got)
	}
	if _, err := e.svc.Redeliver(e.ctx, w.ID, "nope-0"); domain.CodeOf(err) != domain.CodeNotFound {
		t.Fatalf("unknown event: %v", err)
	}
	// Another tenant's event is not redeliverable, nor is its webhook visible.
	other, otherSub := e.seedTenant("globex")
	otherEvent := e.insertEvent(other, otherSub, domain.EventLoadChanged, false)
	if _, err := e.svc.Redeliver(e.ctx, w.ID, otherEvent); domain.CodeOf(err) != domain.CodeNotFound {
		t.Fatalf("other tenant's event: %v", err)
	}
	if _, err := e.svc.Get(e.as(other), w.ID); domain.CodeOf(err) != domain.CodeNotFound {
		t.Fatalf("other tenant reads the webhook: %v", err)
	}
}

// Attempt logs are kept 30 days.
func TestHistoryIsPrunedAfter30Days(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	rcv := newReceiver(t)
	e.active(rcv)
	delivered := e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	e.pump()
	rcv.Next(t)
	if n, err := e.store.PruneHistory(ctx, e.clk.Now().Add(-30*24*time.Hour)); err != nil || n != 0 {
		t.Fatalf("pruned fresh history: %d %v", n, err)
	}
	// An event no consumer has read yet stays, however old.
	unread := e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	// Attempt, delivery and the delivered event go.
	if n, err := e.store.PruneHistory(ctx, e.clk.Now().Add(time.Hour)); err != nil || n != 3 {
		t.Fatalf("pruned %d rows of old history, want 3 (attempt, delivery, event): %v", n, err)
	}
	var left []string
	if err := e.db.Bun.NewSelect().Table("events").Column("id").Scan(ctx, &left); err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0] != unread || left[0] == delivered {
		t.Fatalf("events left after pruning: %v, want only the unread %s", left, unread)
	}
}
