package haulgraph

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Webhook signature verification, for every scheme the server signs with
// (a webhook's SignatureScheme):
//
//   - service: X-Service-Signature "t=<unix>,v1=<hex>[,v0=<hex>]", the hex
//     HMAC-SHA256 of "<t>.<body>" keyed by the whsec_ secret string as shown;
//     v0 is the previous secret's during a rotation.
//   - standard-webhooks: webhook-id, webhook-timestamp and webhook-signature
//     "v1,<base64>" (space-separated list), the HMAC-SHA256 of
//     "<id>.<t>.<body>" keyed by the bytes the whsec_ secret base64-encodes.
//   - standard-webhooks-ed25519: the same headers with "v1a,<base64>", an
//     ed25519 signature checked with the whpk_ public key.

// Delivery headers.
const (
	HeaderSignature         = "X-Service-Signature"
	HeaderTimestamp         = "X-Service-Timestamp"
	HeaderEventID           = "X-Service-Event-Id"
	HeaderEvent             = "X-Service-Event"
	HeaderDelivery          = "X-Service-Delivery"
	HeaderChallenge         = "X-Service-Challenge"
	HeaderStandardID        = "webhook-id"
	HeaderStandardTimestamp = "webhook-timestamp"
	HeaderStandardSignature = "webhook-signature"
)

// DefaultWebhookTolerance is how far a signed timestamp may be from the
// receiver's clock.
const DefaultWebhookTolerance = 5 * time.Minute

// Verification errors.
var (
	ErrSignatureMalformed = errors.New("haulgraph: malformed webhook signature headers")
	ErrSignatureTimestamp = errors.New("haulgraph: webhook timestamp outside the tolerance")
	ErrSignatureMismatch  = errors.New("haulgraph: no webhook signature matches the key")
	ErrWebhookKey         = errors.New("haulgraph: webhook key not in its scheme's format")
)

// WebhookVerifier checks deliveries of one webhook.
type WebhookVerifier struct {
	// Scheme is the webhook's SignatureScheme (empty: service).
	Scheme SignatureScheme
	// Key is the whsec_ secret, or the whpk_ public key for
	// standard-webhooks-ed25519.
	Key string
	// Tolerance bounds the timestamp's distance from Now (zero:
	// DefaultWebhookTolerance).
	Tolerance time.Duration
	// Now is the receiver's clock (nil: time.Now).
	Now func() time.Time
}

// Verify checks a delivery's raw body against its headers.
func (v WebhookVerifier) Verify(body []byte, h http.Header) error {
	now := time.Now()
	if v.Now != nil {
		now = v.Now()
	}
	tol := v.Tolerance
	if tol <= 0 {
		tol = DefaultWebhookTolerance
	}
	switch v.Scheme {
	case "", SchemeService:
		return verifyService(body, h.Get(HeaderSignature), v.Key, tol, now)
	case SchemeStandardWebhooks, SchemeStandardWebhooksEd25519:
		return verifyStandard(body, h, v.Scheme, v.Key, tol, now)
	default:
		return errors.New("haulgraph: unknown signature scheme " + string(v.Scheme))
	}
}

// ConstructEvent verifies a delivery and decodes its envelope.
func (v WebhookVerifier) ConstructEvent(body []byte, h http.Header) (*Event, error) {
	if err := v.Verify(body, h); err != nil {
		return nil, err
	}
	var e Event
	if err := json.Unmarshal(body, &e); err != nil {
		return nil, errors.New("haulgraph: webhook body is not an event: " + err.Error())
	}
	return &e, nil
}

// MaxWebhookBody bounds what Handler reads of a delivery.
const MaxWebhookBody = 8 << 20

// Handler is a receiver: it answers the verification challenge (sent
// unsigned when Send Events is turned on), refuses any delivery whose
// signature does not verify (400) and hands the others to fn; an error from
// fn answers 500, so the server retries the delivery.
func (v WebhookVerifier) Handler(fn func(r *http.Request, e *Event) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, MaxWebhookBody+1))
		if err != nil || len(body) > MaxWebhookBody {
			http.Error(w, "unreadable body", http.StatusBadRequest)
			return
		}
		if r.Header.Get(HeaderEvent) == "webhook.verification" {
			var ch struct {
				Type      string `json:"type"`
				Challenge string `json:"challenge"`
			}
			if json.Unmarshal(body, &ch) != nil || ch.Challenge == "" {
				http.Error(w, "no challenge", http.StatusBadRequest)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]string{"challenge": ch.Challenge})
			return
		}
		e, err := v.ConstructEvent(body, r.Header)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := fn(r, e); err != nil {
			http.Error(w, "not processed", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

func withinTolerance(t int64, tol time.Duration, now time.Time) bool {
	// In whole seconds, so that no t overflows a Duration.
	s := int64(tol / time.Second)
	return t >= now.Unix()-s && t <= now.Unix()+s
}

func verifyService(body []byte, header, secret string, tol time.Duration, now time.Time) error {
	if secret == "" {
		return ErrWebhookKey
	}
	var t int64
	seenT := false
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return ErrSignatureMalformed
		}
		switch k {
		case "t":
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				return ErrSignatureMalformed
			}
			t, seenT = n, true
		case "v1", "v0":
			sigs = append(sigs, val)
		}
	}
	if !seenT || len(sigs) == 0 {
		return ErrSignatureMalformed
	}
	if !withinTolerance(t, tol, now) {
		return ErrSignatureTimestamp
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(strconv.FormatInt(t, 10) + "."))
	mac.Write(body)
	want := []byte(hex.EncodeToString(mac.Sum(nil)))
	for _, s := range sigs {
		if hmac.Equal([]byte(s), want) {
			return nil
		}
	}
	return ErrSignatureMismatch
}

func decodeWebhookKey(key, prefix string) ([]byte, error) {
	rest, ok := strings.CutPrefix(key, prefix)
	if !ok {
		return nil, ErrWebhookKey
	}
	b, err := base64.StdEncoding.DecodeString(rest)
	if err != nil || len(b) == 0 {
		return nil, ErrWebhookKey
	}
	return b, nil
}

func verifyStandard(body []byte, h http.Header, scheme SignatureScheme, key string, tol time.Duration, now time.Time) error {
	ed := scheme == SchemeStandardWebhooksEd25519
	prefix, version := "whsec_", "v1"
	if ed {
		prefix, version = "whpk_", "v1a"
	}
	k, err := decodeWebhookKey(key, prefix)
	if err != nil || (ed && len(k) != ed25519.PublicKeySize) {
		return ErrWebhookKey
	}
	id, ts, sigs := h.Get(HeaderStandardID), h.Get(HeaderStandardTimestamp), h.Get(HeaderStandardSignature)
	t, err := strconv.ParseInt(ts, 10, 64)
	if id == "" || sigs == "" || err != nil {
		return ErrSignatureMalformed
	}
	if !withinTolerance(t, tol, now) {
		return ErrSignatureTimestamp
	}
	content := make([]byte, 0, len(id)+len(body)+24)
	content = append(content, id...)
	content = append(content, '.')
	content = strconv.AppendInt(content, t, 10)
	content = append(content, '.')
	content = append(content, body...)
	var want []byte
	if !ed {
		mac := hmac.New(sha256.New, k)
		mac.Write(content)
		want = mac.Sum(nil)
	}
	for _, s := range strings.Fields(sigs) {
		v, b64, ok := strings.Cut(s, ",")
		if !ok || v != version {
			continue
		}
		sig, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			continue
		}
		if ed && ed25519.Verify(ed25519.PublicKey(k), content, sig) || !ed && hmac.Equal(sig, want) {
			return nil
		}
	}
	return ErrSignatureMismatch
}
