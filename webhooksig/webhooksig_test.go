package webhooksig

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"testing"
	"time"
)

// independent recomputes the signature without the package's Sign.
func independent(secret, signed string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(signed))
	return hex.EncodeToString(m.Sum(nil))
}

func TestHeaderIsStripeSchemeAndVerifies(t *testing.T) {
	t.Parallel()
	body := []byte(`{"id":"e-0"}`)
	now := time.Unix(1700000000, 0)
	h := Header("whsec_new", "", now.Unix(), body)
	want := "t=1700000000,v1=" + independent("whsec_new", `1700000000.{"id":"e-0"}`)
	if h != want {
		t.Fatalf("header %q, want %q", h, want)
	}
	if err := VerifyAt(body, h, "whsec_new", DefaultTolerance, now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := VerifyAt(body, h, "whsec_other", DefaultTolerance, now); !errors.Is(err, ErrNoMatch) {
		t.Fatalf("wrong secret: %v", err)
	}
	if err := VerifyAt([]byte(`{"id":"e-1"}`), h, "whsec_new", DefaultTolerance, now); !errors.Is(err, ErrNoMatch) {
		t.Fatalf("changed body: %v", err)
	}
	if err := VerifyAt(body, h, "whsec_new", DefaultTolerance, now.Add(6*time.Minute)); !errors.Is(err, ErrTimestamp) {
		t.Fatalf("stale timestamp: %v", err)
	}
	for _, bad := range []string{"", "v1=abc", "t=x,v1=abc", "t=1", "garbage"} {
		if err := VerifyAt(body, bad, "whsec_new", 0, now); err == nil {
			t.Fatalf("malformed header %q verified", bad)
		}
	}
}

func TestRotationHeaderAcceptsEitherSecret(t *testing.T) {
	t.Parallel()
	body := []byte(`{}`)
	now := time.Unix(1700000000, 0)
	h := Header("whsec_new", "whsec_old", now.Unix(), body)
	want := "t=1700000000,v1=" + independent("whsec_new", "1700000000.{}") + ",v0=" + independent("whsec_old", "1700000000.{}")
	if h != want {
		t.Fatalf("header %q, want %q", h, want)
	}
	for _, s := range []string{"whsec_new", "whsec_old"} {
		if err := VerifyAt(body, h, s, DefaultTolerance, now); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}
