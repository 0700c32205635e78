package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/haulgraph/haulgraph/domain/clients"
	"github.com/haulgraph/haulgraph/secretbox"
)

// signingKey is one ES256 key pair of the issuer.
type signingKey struct {
	kid      string
	priv     *ecdsa.PrivateKey
	notAfter time.Time // zero while the key is the active one
}

// keyRing caches the issuer's keys from the signing_keys table. Every
// instance reads the same rows, so a rotation made by one instance (or the
// CLI) reaches the others on the next refresh or the first unknown kid.
type keyRing struct {
	store   Store
	box     *secretbox.Box
	keepFor time.Duration // how long a retired key keeps verifying

	mu         sync.Mutex
	active     *signingKey
	byKID      map[string]*signingKey
	loadedAt   time.Time
	lastMissAt time.Time // last reload caused by an unknown kid
}

// keyRefresh bounds how stale the cache may get, and how often an unknown
// kid may send us back to the database.
const (
	keyRefresh       = time.Minute
	unknownKIDReload = 200 * time.Millisecond
	jwksRefresh      = 5 * time.Second
)

// ensure creates the first key when there is none (first start) and loads all.
func (k *keyRing) ensure(ctx context.Context) error {
	if err := k.store.EnsureSigningKey(ctx, k.newKey); err != nil {
		return fmt.Errorf("auth: signing keys: %w", err)
	}
	return k.reload(ctx)
}

// rotate retires the active key (it keeps verifying for keepFor) and makes a
// new one.
func (k *keyRing) rotate(ctx context.Context) error {
	if err := k.store.RotateSigningKey(ctx, k.keepFor, k.newKey); err != nil {
		return fmt.Errorf("auth: rotate signing key: %w", err)
	}
	return k.reload(ctx)
}

// newKey makes a key pair, sealed for storage.
func (k *keyRing) newKey() (clients.SigningKey, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return clients.SigningKey{}, err
	}
	kid, err := thumbprint(&priv.PublicKey)
	if err != nil {
		return clients.SigningKey{}, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return clients.SigningKey{}, err
	}
	return clients.SigningKey{KID: kid, Algorithm: string(jose.ES256), PrivateKey: k.box.Seal(der, []byte(kid))}, nil
}

// reload reads every key that may still verify a token.
func (k *keyRing) reload(ctx context.Context) error {
	rows, err := k.store.SigningKeys(ctx)
	if err != nil {
		return fmt.Errorf("auth: load signing keys: %w", err)
	}
	byKID := make(map[string]*signingKey, len(rows))
	var active *signingKey
	for _, r := range rows {
		der, err := k.box.Open(r.PrivateKey, []byte(r.KID))
		if err != nil {
			return fmt.Errorf("auth: signing key %s: %w", r.KID, err)
		}
		pk, err := x509.ParsePKCS8PrivateKey(der)
		if err != nil {
			return fmt.Errorf("auth: signing key %s: %w", r.KID, err)
		}
		priv, ok := pk.(*ecdsa.PrivateKey)
		if !ok {
			return fmt.Errorf("auth: signing key %s is not an ECDSA key", r.KID)
		}
		sk := &signingKey{kid: r.KID, priv: priv}
		if r.NotAfter != nil {
			sk.notAfter = *r.NotAfter
		} else if active == nil {
			active = sk
		}
		byKID[r.KID] = sk
	}
	if active == nil {
		return errors.New("auth: no active signing key")
	}
	k.mu.Lock()
	k.active, k.byKID, k.loadedAt = active, byKID, time.Now()
	k.mu.Unlock()
	return nil
}

// signer returns the key to sign with, refreshing a stale cache.
func (k *keyRing) signer(ctx context.Context) (*signingKey, error) {
	k.mu.Lock()
	stale := time.Since(k.loadedAt) > keyRefresh
	active := k.active
	k.mu.Unlock()
	if stale || active == nil {
		if err := k.reload(ctx); err != nil {
			return nil, err
		}
		k.mu.Lock()
		active = k.active
		k.mu.Unlock()
	}
	return active, nil
}

// lookup returns the public key for kid, going back to the database when
// the kid is unknown (another instance may have rotated) — at most five
// times a second, so tokens with made-up kids cannot flood the database.
func (k *keyRing) lookup(ctx context.Context, kid string) (*ecdsa.PublicKey, bool) {
	k.mu.Lock()
	sk, ok := k.byKID[kid]
	canReload := time.Since(k.lastMissAt) > unknownKIDReload
	if !ok && canReload {
		k.lastMissAt = time.Now()
	}
	k.mu.Unlock()
	if !ok && canReload {
		if err := k.reload(ctx); err == nil {
			k.mu.Lock()
			sk, ok = k.byKID[kid]
			k.mu.Unlock()
		}
	}
	if !ok || (!sk.notAfter.IsZero() && time.Now().After(sk.notAfter)) {
		return nil, false
	}
	return &sk.priv.PublicKey, true
}

// publicJWKS is the key set served at /.well-known/jwks.json.
func (k *keyRing) publicJWKS(ctx context.Context) (jose.JSONWebKeySet, error) {
	// Verifiers elsewhere fetch this after seeing a new kid: serve what the
	// database holds now, not the signing cache (which may lag a rotation).
	k.mu.Lock()
	fresh := time.Since(k.loadedAt) < jwksRefresh
	k.mu.Unlock()
	if !fresh {
		if err := k.reload(ctx); err != nil {
			return jose.JSONWebKeySet{}, err
		}
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{}}
	now := time.Now()
	// Active key first, then the retired ones still verifying.
	add := func(sk *signingKey) {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: &sk.priv.PublicKey, KeyID: sk.kid, Algorithm: string(jose.ES256), Use: "sig"})
	}
	add(k.active)
	for _, sk := range k.byKID {
		if sk != k.active && now.Before(sk.notAfter) {
			add(sk)
		}
	}
	return set, nil
}

// thumbprint is the RFC 7638 SHA-256 thumbprint of the public key: a kid
// that names the key itself.
func thumbprint(pub *ecdsa.PublicKey) (string, error) {
	jwk := jose.JSONWebKey{Key: pub}
	tp, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(tp), nil
}

// valid reports, without going to the database, whether kid is one of our
// keys and still verifies at now (cached tokens are checked against it).
func (k *keyRing) valid(kid string, now time.Time) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	sk, ok := k.byKID[kid]
	return ok && (sk.notAfter.IsZero() || now.Before(sk.notAfter))
}

// sync reloads the ring when the database's valid kids differ from it
// (another instance rotated, or a key was removed).
func (k *keyRing) sync(ctx context.Context, kids map[string]bool) {
	k.mu.Lock()
	same := sameKeys(k.byKID, kids)
	k.mu.Unlock()
	if !same {
		if err := k.reload(ctx); err != nil {
			slog.ErrorContext(ctx, "auth: reload signing keys", "err", err)
		}
	}
}
