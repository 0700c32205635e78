package webhooks

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"github.com/haulgraph/haulgraph/domain"
	"strings"
)

// SignatureScheme is how a webhook's deliveries are signed. It is chosen
// when the webhook is created and fixed from then on: each scheme has its
// own kind of key (an HMAC secret or an ed25519 key pair), so a change would
// break the receiver at once; a receiver that moves to another scheme gets a
// new webhook and deletes the old one when it is ready.
type SignatureScheme string

const (
	// SchemeService is X-Service-Signature: t=…,v1=<hex HMAC-SHA256> keyed
	// by the whole "whsec_…" string (webhooksig).
	SchemeService SignatureScheme = "service"
	// SchemeStandardWebhooks is Standard Webhooks 1.0's symmetric v1: the
	// webhook-id, webhook-timestamp and webhook-signature headers, HMAC-SHA256
	// keyed by the bytes the "whsec_" secret base64-encodes.
	SchemeStandardWebhooks SignatureScheme = "standard-webhooks"
	// SchemeStandardWebhooksEd25519 is Standard Webhooks 1.0's asymmetric
	// v1a: an ed25519 signature; the receiver holds only the public key.
	SchemeStandardWebhooksEd25519 SignatureScheme = "standard-webhooks-ed25519"
)

// SignatureSchemes are the valid schemes, the default first.
var SignatureSchemes = []SignatureScheme{SchemeService, SchemeStandardWebhooks, SchemeStandardWebhooksEd25519}

// Valid reports whether s is one of SignatureSchemes.
func (s SignatureScheme) Valid() bool {
	for _, v := range SignatureSchemes {
		if s == v {
			return true
		}
	}
	return false
}

// Asymmetric reports whether the receiver verifies with a public key (the
// signing key never leaves the server).
func (s SignatureScheme) Asymmetric() bool { return s == SchemeStandardWebhooksEd25519 }

// Key prefixes of Standard Webhooks: the private key is kept sealed, the
// public key is what the API shows.
const (
	PrivateKeyPrefix = "whsk_"
	PublicKeyPrefix  = "whpk_"
)

// Key is a new signing key: Secret is what signs (stored sealed);
// Shown is what the API shows once (the secret itself for the HMAC schemes,
// "" for ed25519); PublicKey is "whpk_…" for ed25519, shown on every read.
type Key struct {
	Secret, Shown, PublicKey string
}

// NewKey returns a fresh key for the scheme. The HMAC schemes share
// the "whsec_" + base64 of 32 random bytes format (Standard Webhooks asks
// for 24 to 64 bytes behind the prefix); ed25519's private key is
// "whsk_" + base64 of Go's 64-byte private key.
func NewKey(s SignatureScheme) Key {
	if !s.Asymmetric() {
		secret := NewSecret()
		return Key{Secret: secret, Shown: secret}
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		panic("domain: no randomness: " + err.Error())
	}
	return Key{
		Secret:    PrivateKeyPrefix + base64.StdEncoding.EncodeToString(priv),
		PublicKey: PublicKeyPrefix + base64.StdEncoding.EncodeToString(pub),
	}
}

// validateScheme names the valid schemes when s is not one of them.
func validateScheme(v *domain.Validation, s *SignatureScheme) {
	if s != nil && !s.Valid() {
		names := make([]string, len(SignatureSchemes))
		for i, x := range SignatureSchemes {
			names[i] = string(x)
		}
		v.Add("signatureScheme", fmt.Sprintf("unknown signature scheme %q (valid: %s)", *s, strings.Join(names, ", ")))
	}
}
