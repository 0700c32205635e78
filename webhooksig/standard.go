package webhooksig

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Standard Webhooks 1.0 (www.standardwebhooks.com): the headers of a
// webhook whose scheme is standard-webhooks or standard-webhooks-ed25519.
// The signed content is "{webhook-id}.{webhook-timestamp}.{body}";
// webhook-signature is a space-separated list of "v1,<base64 HMAC-SHA256>"
// (key: the bytes a "whsec_" secret base64-encodes) or "v1a,<base64 ed25519
// signature>" (verified with the "whpk_" public key). During a rotation the
// list holds a signature by the new key and one by the old.
const (
	StandardIDHeader        = "webhook-id"
	StandardTimestampHeader = "webhook-timestamp"
	StandardSignatureHeader = "webhook-signature"
)

// Key prefixes of Standard Webhooks.
const (
	SecretPrefix     = "whsec_"
	PrivateKeyPrefix = "whsk_"
	PublicKeyPrefix  = "whpk_"
)

// ErrKey is a key not in its scheme's format.
var ErrKey = errors.New("webhooksig: malformed key")

func standardContent(id string, t int64, body []byte) []byte {
	b := make([]byte, 0, len(id)+len(body)+24)
	b = append(b, id...)
	b = append(b, '.')
	b = strconv.AppendInt(b, t, 10)
	b = append(b, '.')
	return append(b, body...)
}

func decodeKey(key, prefix string) ([]byte, error) {
	rest, ok := strings.CutPrefix(key, prefix)
	if !ok {
		return nil, ErrKey
	}
	b, err := base64.StdEncoding.DecodeString(rest)
	if err != nil || len(b) == 0 {
		return nil, ErrKey
	}
	return b, nil
}

// SignStandard returns "v1,<base64>" for a "whsec_" secret.
func SignStandard(secret, id string, t int64, body []byte) (string, error) {
	key, err := decodeKey(secret, SecretPrefix)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write(standardContent(id, t, body))
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// SignStandardEd25519 returns "v1a,<base64>" for a "whsk_" private key
// (base64 of the 64-byte ed25519 private key).
func SignStandardEd25519(privateKey, id string, t int64, body []byte) (string, error) {
	key, err := decodeKey(privateKey, PrivateKeyPrefix)
	if err != nil || len(key) != ed25519.PrivateKeySize {
		return "", ErrKey
	}
	sig := ed25519.Sign(ed25519.PrivateKey(key), standardContent(id, t, body))
	return "v1a," + base64.StdEncoding.EncodeToString(sig), nil
}

// StandardSignatures is the webhook-signature value: the signature by key,
// then the one by previous ("" outside a rotation window), space-separated.
func StandardSignatures(sign func(key, id string, t int64, body []byte) (string, error), key, previous, id string, t int64, body []byte) (string, error) {
	h, err := sign(key, id, t, body)
	if err != nil || previous == "" {
		return h, err
	}
	old, err := sign(previous, id, t, body)
	if err != nil {
		return "", err
	}
	return h + " " + old, nil
}

// VerifyStandardEd25519 checks the v1a signatures of a delivery against a
// "whpk_" public key, with the webhook-timestamp within tolerance of now
// (the official Go library of Standard Webhooks checks v1 only).
func VerifyStandardEd25519(body []byte, h http.Header, publicKey string, tolerance time.Duration, now time.Time) error {
	key, err := decodeKey(publicKey, PublicKeyPrefix)
	if err != nil || len(key) != ed25519.PublicKeySize {
		return ErrKey
	}
	id, ts, sigs := h.Get(StandardIDHeader), h.Get(StandardTimestampHeader), h.Get(StandardSignatureHeader)
	t, err := strconv.ParseInt(ts, 10, 64)
	if id == "" || sigs == "" || err != nil {
		return ErrMalformed
	}
	if tol := int64(tolerance / time.Second); t < now.Unix()-tol || t > now.Unix()+tol {
		return ErrTimestamp
	}
	content := standardContent(id, t, body)
	for _, s := range strings.Split(sigs, " ") {
		v, b64, ok := strings.Cut(s, ",")
		if !ok || v != "v1a" {
			continue
		}
		if sig, err := base64.StdEncoding.DecodeString(b64); err == nil && ed25519.Verify(ed25519.PublicKey(key), content, sig) {
			return nil
		}
	}
	return ErrNoMatch
}
