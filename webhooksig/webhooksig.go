// Package webhooksig signs and verifies HaulGraph webhook deliveries. Receivers
// written in Go can import it to check the X-Service-Signature header.
//
// The scheme (docs/architecture.md) is Stripe's: the header is "t=<unix seconds>,v1=<hex>"
// where hex = lowercase hex of HMAC-SHA256(secret, "<t>.<raw body>") and the key
// is the secret string exactly as shown ("whsec_..." included). During a secret
// rotation window the header also carries ",v0=<hex>", signed with the previous
// secret. A receiver accepts the delivery when v1 or v0 matches its secret and
// t is within the tolerance of its clock.
//
// Webhooks created with a Standard Webhooks scheme are signed as standard.go
// describes instead.
package webhooksig

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Header names of a delivery.
const (
	SignatureHeader = "X-Service-Signature"
	TimestampHeader = "X-Service-Timestamp"
	EventIDHeader   = "X-Service-Event-Id"
	EventHeader     = "X-Service-Event"
	DeliveryHeader  = "X-Service-Delivery"
)

// DefaultTolerance is how far the signed timestamp may be from the receiver's
// clock (replay protection).
const DefaultTolerance = 5 * time.Minute

// Errors returned by Verify.
var (
	ErrMalformed  = errors.New("webhooksig: malformed signature header")
	ErrTimestamp  = errors.New("webhooksig: timestamp outside the tolerance")
	ErrNoMatch    = errors.New("webhooksig: no signature matches the secret")
	ErrNoSecret   = errors.New("webhooksig: empty secret")
	errNoElements = errors.New("webhooksig: header has no v1 or v0 signature")
)

// Sign returns the lowercase hex HMAC-SHA256 of "<t>.<body>" under secret.
func Sign(secret string, t int64, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(strconv.FormatInt(t, 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

// Header builds the X-Service-Signature value; previous is the secret being
// rotated out ("" when no rotation window is open).
func Header(secret, previous string, t int64, body []byte) string {
	h := "t=" + strconv.FormatInt(t, 10) + ",v1=" + Sign(secret, t, body)
	if previous != "" {
		h += ",v0=" + Sign(previous, t, body)
	}
	return h
}

// Parsed is a decoded signature header.
type Parsed struct {
	Timestamp int64
	V1, V0    []string
}

// Parse decodes "t=...,v1=...[,v0=...]"; unknown elements are ignored so the
// scheme can grow.
func Parse(header string) (Parsed, error) {
	var p Parsed
	seenT := false
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return p, ErrMalformed
		}
		switch k {
		case "t":
			ts, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return p, ErrMalformed
			}
			p.Timestamp, seenT = ts, true
		case "v1":
			p.V1 = append(p.V1, v)
		case "v0":
			p.V0 = append(p.V0, v)
		}
	}
	if !seenT {
		return p, ErrMalformed
	}
	if len(p.V1) == 0 && len(p.V0) == 0 {
		return p, errNoElements
	}
	return p, nil
}

// Verify checks header against the raw body with the receiver's secret, which
// may match either v1 (current secret) or v0 (the secret being rotated out).
func Verify(body []byte, header, secret string, tolerance time.Duration) error {
	return VerifyAt(body, header, secret, tolerance, time.Now())
}

// VerifyAt is Verify with an explicit clock.
func VerifyAt(body []byte, header, secret string, tolerance time.Duration, now time.Time) error {
	if secret == "" {
		return ErrNoSecret
	}
	p, err := Parse(header)
	if err != nil {
		return err
	}
	if tolerance > 0 {
		// In whole seconds, so that no t (however far off) overflows a
		// time.Duration: a saturated difference negated stays negative and
		// would pass (found by FuzzVerify).
		tol := int64(tolerance / time.Second)
		if n := now.Unix(); p.Timestamp < n-tol || p.Timestamp > n+tol {
			return ErrTimestamp
		}
	}
	want := []byte(Sign(secret, p.Timestamp, body))
	for _, sig := range append(p.V1, p.V0...) {
		if hmac.Equal([]byte(sig), want) {
			return nil
		}
	}
	return ErrNoMatch
}
