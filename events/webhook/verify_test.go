package webhook

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// docs/api-contract.md §3.1: created → Pending, and no events are delivered.
func TestCreatedWebhookIsPendingAndGetsNoEvents(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rcv := newReceiver(t)
	w, secret := e.create(rcv.URL())
	if w.State != webhooks.WebhookPending || !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("created: state %s secret %q", w.State, secret)
	}
	if got := e.webhook(w.ID); got.State != webhooks.WebhookPending {
		t.Fatalf("stored state %s", got.State)
	}
	e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, true)
	e.pump()
	rcv.none(t)
	if _, challenges := rcv.Untaken(); challenges > 0 {
		t.Fatalf("creation sent a verification request: %s", rcv.NextChallenge(t).Body)
	}
	if n := e.count("SELECT count(*) FROM webhook_deliveries"); n != 0 {
		t.Fatalf("%d deliveries for a Pending webhook", n)
	}
	// The secret is stored encrypted, never in clear.
	if n := e.count("SELECT count(*) FROM webhooks WHERE position(convert_to(?, 'UTF8') in secret_ciphertext) > 0", secret); n != 0 {
		t.Fatal("the secret is stored in clear")
	}
}

// docs/api-contract.md §3.1 + §6.2: enable → Pending + verification request; a correct answer
// within 3 s → Active (Connected), and events flow.
func TestEnableSendsSpecVerificationAndActivates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rcv := newReceiver(t)
	w, _ := e.create(rcv.URL())
	var stateDuring webhooks.State
	rcv.onVerify(func(rw http.ResponseWriter, challenge string) {
		stateDuring = e.webhook(w.ID).State
		rw.Header().Set("Content-Type", "application/json")
		_, _ = rw.Write([]byte(`{"challenge":"` + challenge + `"}`))
	})
	got, err := e.svc.Enable(e.ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != webhooks.WebhookActive || got.State.Label() != "Connected" {
		t.Fatalf("after a correct answer: %s", got.State)
	}
	if stateDuring != webhooks.WebhookPending {
		t.Fatalf("state during verification %s, want Pending", stateDuring)
	}
	v := rcv.NextChallenge(t)
	h := v.Header
	for k, want := range map[string]string{
		"Content-Type": "application/json; charset=utf-8", "User-Agent": "Service-Webhook/1.0", "X-Service-Event": "webhook.verification",
	} {
		if h.Get(k) != want {
			t.Errorf("%s = %q, want %q", k, h.Get(k), want)
		}
	}
	if !regexp.MustCompile(`^00-[0-9a-f]{32}-[0-9a-f]{16}-01$`).MatchString(h.Get("traceparent")) {
		t.Errorf("traceparent %q", h.Get("traceparent"))
	}
	if h.Get("X-Service-Signature") != "" {
		t.Error("the verification request is signed; docs/api-contract.md §6.2 says it is not")
	}
	var body map[string]any
	if err := json.Unmarshal(v.Body, &body); err != nil || len(body) != 2 || body["type"] != "webhook.verification" ||
		body["challenge"] != h.Get("X-Service-Challenge") || len(h.Get("X-Service-Challenge")) < 32 {
		t.Fatalf("verification body %s (challenge header %q)", v.Body, h.Get("X-Service-Challenge"))
	}
	e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	e.pump()
	rcv.Next(t)
}

// docs/api-contract.md §3.1/§6.2: every malformed answer leaves the webhook Disabled, shown as
// failed verification, and no events are delivered.
func TestVerificationFailureModes(t *testing.T) {
	t.Parallel()
	const lateLimit = 300 * time.Millisecond
	e := newEnv(t)
	modes := map[string]func(rw http.ResponseWriter, challenge string){
		"wrong challenge": func(rw http.ResponseWriter, c string) { _, _ = rw.Write([]byte(`{"challenge":"nope"}`)) },
		"late":            nil, // a right answer after the verifier gave up (below)
		"non-200": func(rw http.ResponseWriter, c string) {
			rw.WriteHeader(201)
			_, _ = rw.Write([]byte(`{"challenge":"` + c + `"}`))
		},
		"server error": func(rw http.ResponseWriter, c string) { rw.WriteHeader(500) },
		"plain text": func(rw http.ResponseWriter, c string) {
			rw.Header().Set("Content-Type", "text/plain")
			_, _ = rw.Write([]byte(c))
		},
		"wrapped": func(rw http.ResponseWriter, c string) { _, _ = rw.Write([]byte(`{"data":{"challenge":"` + c + `"}}`)) },
		"case-changed": func(rw http.ResponseWriter, c string) {
			_, _ = rw.Write([]byte(`{"challenge":"` + strings.ToUpper(c) + `"}`))
		},
		"key case-changed": func(rw http.ResponseWriter, c string) { _, _ = rw.Write([]byte(`{"Challenge":"` + c + `"}`)) },
		"extra property":   func(rw http.ResponseWriter, c string) { _, _ = rw.Write([]byte(`{"challenge":"` + c + `","ok":true}`)) },
		"json string":      func(rw http.ResponseWriter, c string) { _, _ = rw.Write([]byte(`"` + c + `"`)) },
	}
	for name, answer := range modes {
		t.Run(name, func(t *testing.T) {
			rcv := newReceiver(t)
			svc := e.svc
			if name == "late" {
				// A verifier with a short limit stands for the 3 s one; the
				// receiver answers correctly once the verifier has hung up.
				short := *e.svc
				short.Challenger = &Challenger{Client: NewClient(ClientOptions{AllowLoopback: true}), AllowInsecure: true, Timeout: lateLimit}
				svc = &short
				gaveUp := make(chan struct{})
				defer close(gaveUp)
				answer = func(rw http.ResponseWriter, c string) {
					<-gaveUp
					_, _ = rw.Write([]byte(`{"challenge":"` + c + `"}`))
				}
			}
			rcv.onVerify(answer)
			w, _ := e.create(rcv.URL())
			start := time.Now()
			got, err := svc.Enable(e.ctx, w.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.State != webhooks.WebhookFailedVerification || got.State.Delivering() || got.State.Label() != "Failed to verify" {
				t.Fatalf("state %s (%s)", got.State, got.StateReason)
			}
			if got.StateReason != webhooks.VerificationFailed {
				t.Fatalf("reason %q (after %s)", got.StateReason, time.Since(start))
			}
			e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
			e.pump()
			rcv.none(t)
		})
	}
}

// docs/api-contract.md §3.1: URL change on Active → Pending, re-verified at the new URL; no
// delivery while Pending.
func TestURLChangeOnActiveReverifies(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	old, neu := newReceiver(t), newReceiver(t)
	w, _ := e.active(old)
	var during webhooks.State
	neu.onVerify(func(rw http.ResponseWriter, c string) {
		during = e.webhook(w.ID).State
		_, _ = rw.Write([]byte(`{"challenge":"` + c + `"}`))
	})
	url := neu.URL()
	got, err := e.svc.Update(e.ctx, w.ID, webhooks.Input{URL: &url})
	if err != nil {
		t.Fatal(err)
	}
	if during != webhooks.WebhookPending || got.State != webhooks.WebhookActive || got.URL != url {
		t.Fatalf("during %s, after %s %s", during, got.State, got.URL)
	}
	neu.NextChallenge(t)
	e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	e.pump()
	neu.Next(t)
	old.none(t)

	// A new URL that fails verification stops delivery.
	bad := newReceiver(t)
	bad.onVerify(func(rw http.ResponseWriter, c string) { rw.WriteHeader(404) })
	url = bad.URL()
	if got, err = e.svc.Update(e.ctx, w.ID, webhooks.Input{URL: &url}); err != nil || got.State != webhooks.WebhookFailedVerification {
		t.Fatalf("after a failed re-verification: %v %v", err, got)
	}
	e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	e.pump()
	bad.none(t)
	neu.none(t)
}

// docs/api-contract.md §3.1: event or IncludePreviousAttributes changes on Active stay Active,
// without verification, effective for the next event.
func TestEventAndPreviousAttributesChangesStayActive(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rcv := newReceiver(t)
	w, _ := e.active(rcv, domain.EventLoadChanged)
	on := true
	got, err := e.svc.Update(e.ctx, w.ID, webhooks.Input{EventTypes: []string{domain.EventLoadStatusChanged}, IncludePreviousAttributes: &on})
	if err != nil || got.State != webhooks.WebhookActive || !got.IncludePreviousAttributes {
		t.Fatalf("update: %v %+v", err, got)
	}
	if _, challenges := rcv.Untaken(); challenges > 0 {
		t.Fatal("an event/IncludePreviousAttributes change sent a verification request")
	}
	e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, true)
	id := e.insertEvent(e.tenant, e.sub, domain.EventLoadStatusChanged, false)
	e.pump()
	d := rcv.Next(t)
	if d.Header.Get("X-Service-Event-Id") != id {
		t.Fatalf("got %s, want only the newly subscribed %s", d.Header.Get("X-Service-Event-Id"), id)
	}
	rcv.none(t)
	// Now load.changed again, with previous attributes.
	if _, err := e.svc.Update(e.ctx, w.ID, webhooks.Input{EventTypes: []string{domain.EventLoadChanged}}); err != nil {
		t.Fatal(err)
	}
	e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, true)
	e.pump()
	if b := rcv.Next(t).Body; !strings.Contains(string(b), `"previousAttributes"`) {
		t.Fatalf("IncludePreviousAttributes on, body %s", b)
	}
}

// docs/api-contract.md §3.1: manual disable from any state → Disabled at once, config kept,
// re-enable possible.
func TestManualDisableFromEveryState(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rcv := newReceiver(t)
	pending, _ := e.create(rcv.URL())
	active, _ := e.active(rcv)
	failing := newReceiver(t)
	failing.onVerify(func(rw http.ResponseWriter, c string) { rw.WriteHeader(500) })
	failed, _ := e.create(failing.URL())
	if w, _ := e.svc.Enable(e.ctx, failed.ID); w.State != webhooks.WebhookFailedVerification {
		t.Fatalf("setup: %s", w.State)
	}
	disabled, _ := e.create(rcv.URL())
	if _, err := e.svc.Disable(e.ctx, disabled.ID); err != nil {
		t.Fatal(err)
	}
	for _, w := range []*webhooks.Webhook{pending, active, failed, disabled} {
		got, err := e.svc.Disable(e.ctx, w.ID)
		if err != nil || got.State != webhooks.WebhookDisabled {
			t.Fatalf("disable %s: %v %v", w.ID, err, got)
		}
		if got.URL != w.URL || got.Name != w.Name || len(got.EventTypes) != len(w.EventTypes) {
			t.Fatalf("configuration lost: %+v", got)
		}
	}
	e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	e.pump()
	rcv.none(t)
	// Re-enable at any time: verified again, delivering again.
	if got, err := e.svc.Enable(e.ctx, active.ID); err != nil || got.State != webhooks.WebhookActive {
		t.Fatalf("re-enable: %v %v", err, got)
	}
	rcv.NextChallenge(t)
	e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	e.pump()
	rcv.Next(t)
}

// A disable while deliveries are queued stops them at once; they stay queued.
func TestDisableStopsQueuedDeliveries(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rcv := newReceiver(t)
	w, _ := e.active(rcv)
	e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	dbtest.WaitOutboxFinal(t, e.db)
	if _, err := e.dispatcher.RunOnce(e.ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Disable(e.ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	e.pump()
	rcv.none(t)
	if n := e.count("SELECT count(*) FROM webhook_deliveries WHERE status = 'Pending'"); n != 1 {
		t.Fatalf("%d pending deliveries, want 1 kept", n)
	}
}

// A manual disable during the handshake wins over the late correct answer.
func TestDisableDuringVerificationWins(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rcv := newReceiver(t)
	w, _ := e.create(rcv.URL())
	rcv.onVerify(func(rw http.ResponseWriter, c string) {
		if _, err := e.svc.Disable(e.ctx, w.ID); err != nil {
			t.Error(err)
		}
		_, _ = rw.Write([]byte(`{"challenge":"` + c + `"}`))
	})
	got, err := e.svc.Enable(e.ctx, w.ID)
	if err != nil || got.State != webhooks.WebhookDisabled {
		t.Fatalf("after a disable during verification: %v %v", err, got.State)
	}
}
