// Package auth is HaulGraph's OAuth 2.0 client-credentials issuer (docs/api-contract.md §5,
// docs/architecture.md): client credential sets, ES256 signing keys kept sealed in the
// database, the token endpoint, discovery and JWKS, and the bearer-token
// verification (go-oidc) that puts the caller's tenant, client and scopes
// into every API request's context.
package auth

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/haulgraph/haulgraph/domain/clients"
	"github.com/haulgraph/haulgraph/secretbox"
)

// Config is what the auth service needs from the application configuration.
type Config struct {
	// Issuer is this server's issuer URL (its public URL); tokens it mints
	// carry it as iss.
	Issuer string
	// TrustedIssuer is the issuer whose tokens the API accepts; empty means
	// Issuer. Another URL makes the API verify against that issuer's
	// discovery document and JWKS (HAULGRAPH_ISSUER_URL).
	TrustedIssuer string
	Audience      string
	TokenTTL      time.Duration
	// LegacyCutoff ends the legacy flow (docs/api-contract.md §5.4).
	LegacyCutoff  time.Time
	EncryptionKey string
	// Throttle charges a token or revocation request, first to the
	// caller's buckets (clientID ""), then, once clientID is known to name
	// a client, to that client's, and sets the rate-limit headers. An error
	// of code domain.CodeRateLimited refuses with 429 slow_down, any other
	// with 503 temporarily_unavailable. Nil admits every request.
	Throttle func(w http.ResponseWriter, r *http.Request, clientID string) error
	// CountToken is told the outcome of every token request: "issued" or
	// the OAuth error code answered (metrics); nil counts nothing.
	CountToken func(outcome string)
	// RevocationPoll bounds how long a revocation made elsewhere takes to
	// reach this instance; zero means DefaultRevocationPoll.
	RevocationPoll time.Duration
}

// Service issues and verifies access tokens and manages client credentials.
type Service struct {
	cfg      Config
	store    Store
	keys     *keyRing
	verifier func(context.Context) (*oidc.IDTokenVerifier, error)

	cache         *tokenCache
	revocations   *revocationList
	verifications atomic.Int64 // full (uncached) verifications, for tests
}

// keyGrace is added to a retired key's life for clock skew and for tokens
// minted by an instance that had not yet noticed the rotation.
const keyGrace = 5 * time.Minute

// Store is the clients area's port: client credentials, sealed signing
// keys and revocations.
type Store = clients.Store

// New creates the service, generating the first signing key on first start.
func New(ctx context.Context, store Store, cfg Config) (*Service, error) {
	cfg.Issuer = strings.TrimSuffix(cfg.Issuer, "/")
	cfg.TrustedIssuer = strings.TrimSuffix(cfg.TrustedIssuer, "/")
	if cfg.TrustedIssuer == "" {
		cfg.TrustedIssuer = cfg.Issuer
	}
	if cfg.Issuer == "" || cfg.Audience == "" || cfg.TokenTTL <= 0 {
		return nil, fmt.Errorf("auth: issuer, audience and a positive token lifetime are required")
	}
	box, err := secretbox.New(cfg.EncryptionKey)
	if err != nil {
		return nil, fmt.Errorf("auth: HAULGRAPH_ENCRYPTION_KEY: %w", err)
	}
	if cfg.RevocationPoll <= 0 {
		cfg.RevocationPoll = DefaultRevocationPoll
	}
	s := &Service{cfg: cfg, store: store, keys: &keyRing{store: store, box: box, keepFor: cfg.TokenTTL + keyGrace}, cache: newTokenCache()}
	if err := s.keys.ensure(ctx); err != nil {
		return nil, err
	}
	s.revocations = &revocationList{store: store, interval: cfg.RevocationPoll, horizon: cfg.TokenTTL + keyGrace, onKeys: s.keys.sync}
	if err := s.revocations.refresh(ctx); err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	s.verifier = s.newVerifier()
	return s, nil
}

// RotateSigningKey makes a new signing key; the previous one keeps verifying
// (and stays in the JWKS) until every token it signed has expired.
func (s *Service) RotateSigningKey(ctx context.Context) (kid string, err error) {
	if err := s.keys.rotate(ctx); err != nil {
		return "", err
	}
	k, err := s.keys.signer(ctx)
	if err != nil {
		return "", err
	}
	return k.kid, nil
}

// Audience is the audience tokens must carry.
func (s *Service) Audience() string { return s.cfg.Audience }

// TokenURL is this server's token endpoint.
func (s *Service) TokenURL() string { return s.cfg.Issuer + "/oauth/token" }
