package auth

import (
	"context"
	"crypto/ecdsa"
)

// Test hooks: the tests forge tokens with the issuer's real key (expired,
// wrong audience, wrong issuer) to show that verification refuses them.

// SignWithActiveKey signs claims with the active key (typ at+jwt).
func (s *Service) SignWithActiveKey(ctx context.Context, claims any) (string, error) {
	k, err := s.keys.signer(ctx)
	if err != nil {
		return "", err
	}
	return sign(k, claims)
}

// SignWithKey signs claims with an arbitrary key under kid.
func SignWithKey(priv *ecdsa.PrivateKey, kid string, claims any) (string, error) {
	return sign(&signingKey{kid: kid, priv: priv}, claims)
}

// ActiveKID is the kid new tokens are signed with.
func (s *Service) ActiveKID(ctx context.Context) string {
	k, _ := s.keys.signer(ctx)
	return k.kid
}

// ReloadKeys re-reads the signing keys now (instead of at the next refresh).
func (s *Service) ReloadKeys(ctx context.Context) error { return s.keys.reload(ctx) }

// Verifications counts the full (uncached) token verifications so far.
func (s *Service) Verifications() int64 { return s.verifications.Load() }
