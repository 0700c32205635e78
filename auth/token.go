package auth

import (
	"context"
	"encoding/json"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/google/uuid"
)

// TokenType is the JWT typ of an access token (RFC 9068).
const TokenType = "at+jwt"

// accessClaims are the claims of an access token (RFC 9068 plus tenant_id).
// Scope is a pointer because a missing claim means something (a legacy
// token, docs/api-contract.md §5.4) and differs from an empty one.
type accessClaims struct {
	Issuer   string  `json:"iss"`
	Subject  string  `json:"sub"`
	Audience string  `json:"aud"`
	IssuedAt int64   `json:"iat"`
	Expiry   int64   `json:"exp"`
	JTI      string  `json:"jti"`
	ClientID string  `json:"client_id"`
	TenantID string  `json:"tenant_id"`
	Scope    *string `json:"scope,omitempty"`
}

// mint signs an access token for c. A nil scope makes a legacy token.
func (s *Service) mint(ctx context.Context, c *Client, scope *string) (token string, expiresIn int64, err error) {
	key, err := s.keys.signer(ctx)
	if err != nil {
		return "", 0, err
	}
	now := time.Now()
	claims := accessClaims{
		Issuer: s.cfg.Issuer, Subject: c.ClientID, Audience: s.cfg.Audience,
		IssuedAt: now.Unix(), Expiry: now.Add(s.cfg.TokenTTL).Unix(),
		JTI: uuid.NewString(), ClientID: c.ClientID, TenantID: c.TenantID.String(), Scope: scope,
	}
	token, err = sign(key, claims)
	return token, int64(s.cfg.TokenTTL.Seconds()), err
}

// sign serializes claims as a compact ES256 JWS with kid and typ at+jwt.
func sign(key *signingKey, claims any) (string, error) {
	signer, err := jose.NewSigner(
		jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: key.priv, KeyID: key.kid}},
		(&jose.SignerOptions{}).WithType(TokenType))
	if err != nil {
		return "", err
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		return "", err
	}
	return jws.CompactSerialize()
}
