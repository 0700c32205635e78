package webhook

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
	"github.com/haulgraph/haulgraph/testkit"
	"github.com/haulgraph/haulgraph/webhooksig"
)

// verifyV1a checks a delivery's v1a signatures as the Standard Webhooks
// specification describes them, with crypto/ed25519 only: the official Go
// library verifies v1 and skips v1a. The signed content is
// "{webhook-id}.{webhook-timestamp}.{body}"; webhook-signature is a
// space-delimited list of "v1a,<base64 signature>"; the timestamp must be
// within 5 minutes of now.
func verifyV1a(body []byte, h http.Header, publicKey string) error {
	raw, ok := strings.CutPrefix(publicKey, "whpk_")
	if !ok {
		return errors.New("not a whpk_ key")
	}
	key, err := base64.StdEncoding.DecodeString(raw)
	if err != nil || len(key) != ed25519.PublicKeySize {
		return errors.New("malformed public key")
	}
	ts, err := strconv.ParseInt(h.Get("webhook-timestamp"), 10, 64)
	if err != nil || h.Get("webhook-id") == "" {
		return errors.New("missing headers")
	}
	if d := time.Since(time.Unix(ts, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return errors.New("timestamp outside the tolerance")
	}
	content := []byte(h.Get("webhook-id") + "." + h.Get("webhook-timestamp") + "." + string(body))
	for _, s := range strings.Split(h.Get("webhook-signature"), " ") {
		v, b64, _ := strings.Cut(s, ",")
		sig, err := base64.StdEncoding.DecodeString(b64)
		if v == "v1a" && err == nil && ed25519.Verify(key, content, sig) {
			return nil
		}
	}
	return errors.New("no matching signature")
}

// verifyWith verifies a delivery with the receiver's key in its scheme: the
// official Standard Webhooks library for v1, verifyV1a for v1a, webhooksig
// for the service scheme.
func verifyWith(scheme webhooks.SignatureScheme, d testkit.Delivery, key string) error {
	switch scheme {
	case webhooks.SchemeStandardWebhooks:
		wh, err := standardwebhooks.NewWebhook(key)
		if err != nil {
			return err
		}
		return wh.Verify(d.Body, d.Header)
	case webhooks.SchemeStandardWebhooksEd25519:
		return verifyV1a(d.Body, d.Header, key)
	}
	return webhooksig.Verify(d.Body, d.Header.Get("X-Service-Signature"), key, webhooksig.DefaultTolerance)
}

func TestSignatureSchemesThroughRetriesAndRotation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	type hook struct {
		scheme webhooks.SignatureScheme
		rcv    *receiver
		w      *webhooks.Webhook
		key    string // what the receiver verifies with
	}
	var hooks []*hook
	for _, s := range webhooks.SignatureSchemes {
		h := &hook{scheme: s, rcv: newReceiver(t)}
		h.rcv.onDeliver(func(n int) int {
			if n == 1 {
				return http.StatusInternalServerError // the first attempt fails: a retry follows
			}
			return http.StatusOK
		})
		name, url, scheme := "erp "+string(s), h.rcv.URL(), s
		w, secret, err := e.svc.Create(e.ctx, webhooks.Input{Name: &name, URL: &url, EventTypes: []string{domain.EventLoadChanged},
			SubsidiaryID: &e.sub, SignatureScheme: &scheme})
		if err != nil {
			t.Fatal(err)
		}
		if w.SignatureScheme != s || e.webhook(w.ID).SignatureScheme != s {
			t.Fatalf("scheme %q, read back %q, want %q", w.SignatureScheme, e.webhook(w.ID).SignatureScheme, s)
		}
		h.key = secret
		if s.Asymmetric() {
			if secret != "" || !strings.HasPrefix(w.PublicKey, "whpk_") || e.webhook(w.ID).PublicKey != w.PublicKey {
				t.Fatalf("ed25519: secret %q shown, public key %q, read %q", secret, w.PublicKey, e.webhook(w.ID).PublicKey)
			}
			h.key = w.PublicKey
			// The private key is sealed: its prefix is nowhere in the row.
			if n := e.count("SELECT count(*) FROM webhooks WHERE id = ? AND position('whsk_'::bytea in secret_ciphertext) > 0", w.ID); n != 0 {
				t.Fatal("the private key is stored in the clear")
			}
		} else {
			raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
			if !strings.HasPrefix(secret, "whsec_") || err != nil || len(raw) != 32 || w.PublicKey != "" {
				t.Fatalf("secret %q (%d bytes, %v), public key %q", secret, len(raw), err, w.PublicKey)
			}
		}
		// The verification handshake is the same for every scheme.
		if w, err = e.svc.Enable(e.ctx, w.ID); err != nil || w.State != webhooks.WebhookActive {
			t.Fatalf("enable %s: %v %+v", s, err, w)
		}
		if v := h.rcv.NextChallenge(t); v.Header.Get("X-Service-Challenge") == "" || v.Header.Get("webhook-signature") != "" {
			t.Fatalf("verification headers %v", v.Header)
		}
		h.w = w
		hooks = append(hooks, h)
	}

	eventID := e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	e.pump()
	for _, h := range hooks {
		for attempt := 1; attempt <= 2; attempt++ {
			d := h.rcv.Next(t)
			if d.Header.Get("X-Service-Event-Id") != eventID || d.Header.Get("X-Service-Event") != domain.EventLoadChanged {
				t.Fatalf("%s attempt %d: headers %v", h.scheme, attempt, d.Header)
			}
			if err := verifyWith(h.scheme, d, h.key); err != nil {
				t.Fatalf("%s attempt %d: %v (headers %v)", h.scheme, attempt, err, d.Header)
			}
			standard := h.scheme != webhooks.SchemeService
			if standard {
				sigs := strings.Split(d.Header.Get("webhook-signature"), " ")
				ts, _ := strconv.ParseInt(d.Header.Get("webhook-timestamp"), 10, 64)
				if d.Header.Get("webhook-id") != eventID || ts != e.clk.Now().Unix() || len(sigs) != 1 || d.Header.Get("X-Service-Signature") != "" {
					t.Fatalf("%s attempt %d: headers %v", h.scheme, attempt, d.Header)
				}
				// Refused by the same verifier: a changed body, another key, another id.
				tampered := testkit.Delivery{Header: d.Header, Body: bytes.Replace(d.Body, []byte(eventID), []byte("x"+eventID[1:]), 1)}
				if err := verifyWith(h.scheme, tampered, h.key); err == nil {
					t.Fatalf("%s: a tampered body verified", h.scheme)
				}
				other := webhooks.NewKey(h.scheme)
				otherKey := other.Shown + other.PublicKey
				if err := verifyWith(h.scheme, d, otherKey); err == nil {
					t.Fatalf("%s: another key verified", h.scheme)
				}
			} else if d.Header.Get("webhook-signature") != "" {
				t.Fatalf("service scheme sent Standard Webhooks headers: %v", d.Header)
			}
		}
		if h.scheme == webhooks.SchemeStandardWebhooks {
			wh, _ := standardwebhooks.NewWebhook(webhooks.NewSecret())
			d := testkit.Delivery{Header: http.Header{}, Body: []byte("{}")}
			d.Header.Set("webhook-id", eventID)
			d.Header.Set("webhook-timestamp", strconv.FormatInt(time.Now().Unix(), 10))
			d.Header.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(make([]byte, 32)))
			if err := wh.Verify(d.Body, d.Header); !errors.Is(err, standardwebhooks.ErrNoMatchingSignature) {
				t.Fatalf("a forged signature: %v", err)
			}
		}
		// The delivery log shows the scheme of the delivery and of each attempt.
		ds, err := e.svc.Deliveries(e.ctx, h.w.ID, 10)
		if err != nil || len(ds) != 1 || ds[0].Status != webhooks.DeliveryDelivered || ds[0].SignatureScheme != h.scheme || len(ds[0].Attempts) != 2 {
			t.Fatalf("%s deliveries %+v: %v", h.scheme, ds, err)
		}
		for _, a := range ds[0].Attempts {
			if a.SignatureScheme != h.scheme {
				t.Fatalf("%s attempt signed with %q", h.scheme, a.SignatureScheme)
			}
		}
	}

	// A rotation: deliveries carry a signature by each key, so a receiver
	// holding either verifies them.
	window := time.Hour
	newKeys := map[webhooks.SignatureScheme]string{}
	for _, h := range hooks {
		w, secret, err := e.svc.RegenerateSecret(e.ctx, h.w.ID, &window)
		if err != nil {
			t.Fatal(err)
		}
		newKeys[h.scheme] = secret
		if h.scheme.Asymmetric() {
			if secret != "" || w.PublicKey == h.key || !strings.HasPrefix(w.PublicKey, "whpk_") || e.webhook(w.ID).PublicKey != w.PublicKey {
				t.Fatalf("rotated ed25519: secret %q, public key %q (was %q)", secret, w.PublicKey, h.key)
			}
			newKeys[h.scheme] = w.PublicKey
		}
	}
	e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	e.pump()
	for _, h := range hooks {
		d := h.rcv.Next(t)
		if h.scheme != webhooks.SchemeService {
			if n := len(strings.Split(d.Header.Get("webhook-signature"), " ")); n != 2 {
				t.Fatalf("%s during rotation: %d signatures in %q", h.scheme, n, d.Header.Get("webhook-signature"))
			}
		}
		for _, key := range []string{h.key, newKeys[h.scheme]} {
			if err := verifyWith(h.scheme, d, key); err != nil {
				t.Fatalf("%s during rotation: %v", h.scheme, err)
			}
		}
		h.key = newKeys[h.scheme]
	}

	// An old delivery (its timestamp 10 minutes back, as a replay's) is
	// refused by the same verifiers.
	e.clk.Add(-10 * time.Minute)
	e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	e.pump()
	for _, h := range hooks {
		d := h.rcv.Next(t)
		err := verifyWith(h.scheme, d, h.key)
		switch {
		case h.scheme == webhooks.SchemeStandardWebhooks && !errors.Is(err, standardwebhooks.ErrMessageTooOld):
			t.Fatalf("an old v1 delivery: %v", err)
		case err == nil:
			t.Fatalf("%s: an old delivery verified", h.scheme)
		}
	}
}
