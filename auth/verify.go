package auth

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	jose "github.com/go-jose/go-jose/v4"
	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
)

// Accepted signing algorithms: our own issuer signs ES256 only; an external
// issuer may also use RS256. "none" and HMAC algorithms are never accepted.
var (
	ownAlgs      = []string{string(jose.ES256)}
	externalAlgs = []string{string(jose.ES256), string(jose.RS256)}
)

// maxTokenLen bounds what we parse from an Authorization header.
const maxTokenLen = domain.MaxAccessTokenLength

// InvalidTokenError says why a bearer token was refused; its message is
// safe to show the client.
type InvalidTokenError struct{ Reason string }

func (e *InvalidTokenError) Error() string { return e.Reason }

func invalid(format string, args ...any) error {
	return &InvalidTokenError{Reason: fmt.Sprintf(format, args...)}
}

// clockLeeway is the clock skew tolerated between issuer and verifier: the
// same 5 minutes go-oidc allows on nbf, applied to iat here.
const clockLeeway = 5 * time.Minute

// VerifyToken checks a raw access token (signature, algorithm, issuer,
// audience, expiry through go-oidc; compact form, typ, claim types, iat,
// tenant and scope here) and returns the caller. A token verified once is
// served from the verified-token cache until it expires; revocation and the
// removal of its signing key are checked on every call. Errors are
// *InvalidTokenError unless the key set is unreachable. The HTTP middleware
// and the WebSocket connection_init both use it.
func (s *Service) VerifyToken(ctx context.Context, raw string) (*domain.Principal, error) {
	if len(raw) > maxTokenLen {
		return nil, invalid("the token is too long")
	}
	key := sha256.Sum256([]byte(raw))
	now := time.Now()
	v := s.cache.get(key, now)
	if v == nil {
		var err error
		if v, err = s.verify(ctx, raw, now); err != nil {
			return nil, err
		}
		s.cache.put(key, v, now)
	}
	if err := s.stillValid(ctx, v, now); err != nil {
		return nil, err
	}
	return v.p, nil
}

// stillValid makes the checks whose answer can change while a token lives.
func (s *Service) stillValid(ctx context.Context, v *verified, now time.Time) error {
	client, token := s.revocations.revoked(ctx, v.client, v.jti)
	switch {
	case client:
		return invalid("the token's client has been revoked")
	case token:
		return invalid("the token has been revoked")
	case v.kid != "" && !s.keys.valid(v.kid, now):
		return invalid("the token's signature does not verify against the issuer's keys")
	}
	return nil
}

// verify is the full verification of a token not in the cache.
func (s *Service) verify(ctx context.Context, raw string, now time.Time) (*verified, error) {
	s.verifications.Add(1)
	algs := ownAlgs
	own := s.cfg.TrustedIssuer == s.cfg.Issuer
	if !own {
		algs = externalAlgs
	}
	// Only the compact serialization is an access token (RFC 9068, RFC 7519
	// §7.2); go-jose's ParseSigned would also take the JSON serialization.
	jws, err := jose.ParseSignedCompact(raw, toJoseAlgs(algs))
	if err != nil {
		if strings.Contains(err.Error(), "algorithm") {
			return nil, invalid("the token's signing algorithm is not accepted (allowed: %s)", strings.Join(algs, ", "))
		}
		return nil, invalid("the token is malformed: an access token is a compact JWS (header.payload.signature)")
	}
	if len(jws.Signatures) != 1 {
		return nil, invalid("the token must carry exactly one signature")
	}
	if typ, _ := jws.Signatures[0].Protected.ExtraHeaders[jose.HeaderType].(string); !isAccessTokenType(typ) {
		return nil, invalid("the token is not an access token (typ must be at+jwt)")
	}
	ver, err := s.verifier(ctx)
	if err != nil {
		return nil, err
	}
	tok, err := ver.Verify(ctx, raw)
	if err != nil {
		return nil, describeVerifyError(err)
	}
	// go-oidc has checked iss, aud (string or array), exp and nbf; read the rest.
	var c struct {
		Subject  string          `json:"sub"`
		ClientID string          `json:"client_id"`
		TenantID string          `json:"tenant_id"`
		JTI      string          `json:"jti"`
		Scope    *string         `json:"scope"`
		Exp      json.RawMessage `json:"exp"`
		IssuedAt json.RawMessage `json:"iat"`
		NotBef   json.RawMessage `json:"nbf"`
	}
	if err := tok.Claims(&c); err != nil {
		return nil, invalid("the token's claims are malformed")
	}
	// RFC 7519 NumericDate: a JSON number (go-oidc would take "123" too).
	for name, v := range map[string]json.RawMessage{"exp": c.Exp, "iat": c.IssuedAt, "nbf": c.NotBef} {
		if v == nil {
			continue
		}
		if !isJSONNumber(v) {
			return nil, invalid("the token's %s claim must be a number (seconds since the epoch)", name)
		}
		// go-oidc converts 1e308 to a time before the epoch: a date
		// out of range would pass every comparison.
		if !isNumericDate(v) {
			return nil, invalid("the token's %s claim is not a date between 1970 and 9999", name)
		}
	}
	if !tok.IssuedAt.IsZero() && tok.IssuedAt.After(now.Add(clockLeeway)) {
		return nil, invalid("the token's iat is in the future")
	}
	if c.ClientID == "" {
		c.ClientID = c.Subject
	}
	tenant, err := uuid.Parse(c.TenantID)
	if err != nil || tenant == uuid.Nil || c.ClientID == "" {
		return nil, invalid("the token lacks a valid tenant_id or client_id claim")
	}
	// The token endpoint's rule for client ids holds for every issuer's.
	if err := domain.CheckClientID(c.ClientID); err != nil {
		return nil, invalid("the token's client_id claim %s", err.Error())
	}
	v := &verified{
		p:     &domain.Principal{TenantID: tenant, ClientID: c.ClientID, ExpiresAt: tok.Expiry},
		until: tok.Expiry, jti: c.JTI, client: c.ClientID,
	}
	if own {
		v.kid = jws.Signatures[0].Header.KeyID
	}
	if c.Scope != nil {
		v.p.Scopes = domain.ParseScopes(*c.Scope)
		return v, nil
	}
	// A legacy token (no scope claim) acts with every read scope until the
	// transition ends (docs/api-contract.md §5.4).
	if !now.Before(s.cfg.LegacyCutoff) {
		return nil, invalid("the token has no scope claim: legacy tokens are no longer accepted, the transition ended on %s; obtain a token from /oauth/token",
			lastDay(s.cfg.LegacyCutoff))
	}
	v.p.Scopes = append([]domain.Scope(nil), domain.ReadScopes...)
	if s.cfg.LegacyCutoff.Before(v.until) {
		v.until = s.cfg.LegacyCutoff
	}
	return v, nil
}

// isJSONNumber reports whether raw is a JSON number literal (not a string).
func isJSONNumber(raw json.RawMessage) bool {
	var n json.Number
	return len(raw) > 0 && raw[0] != '"' && json.Unmarshal(raw, &n) == nil
}

// maxNumericDate is 9999-12-31T23:59:59Z.
const maxNumericDate = 253402300799

// isNumericDate reports whether raw, a JSON number, is a date go-oidc
// converts faithfully: 0 to maxNumericDate seconds.
func isNumericDate(raw json.RawMessage) bool {
	f, err := strconv.ParseFloat(string(raw), 64)
	return err == nil && f >= 0 && f <= maxNumericDate
}

// lastDay is the last day before cutoff, as docs/api-contract.md §5.4 names it (2025-07-31).
func lastDay(cutoff time.Time) string {
	return cutoff.UTC().Add(-time.Nanosecond).Format(time.DateOnly)
}

func isAccessTokenType(typ string) bool {
	return strings.EqualFold(typ, TokenType) || strings.EqualFold(typ, "application/"+TokenType)
}

// describeVerifyError turns go-oidc's error into a client-safe reason.
func describeVerifyError(err error) error {
	var expired *oidc.TokenExpiredError
	msg := err.Error()
	switch {
	case errors.As(err, &expired):
		return invalid("the token expired at %s", expired.Expiry.UTC().Format(time.RFC3339))
	case strings.Contains(msg, "issued by a different provider"):
		return invalid("the token was issued by another issuer")
	case strings.Contains(msg, "expected audience"):
		return invalid("the token is for another audience")
	case strings.Contains(msg, "nbf"):
		return invalid("the token is not valid yet")
	case strings.Contains(msg, "fetching keys"):
		return fmt.Errorf("auth: the issuer's key set is unreachable: %w", err)
	case strings.Contains(msg, "verify signature"):
		return invalid("the token's signature does not verify against the issuer's keys")
	}
	return invalid("the token is invalid")
}

// newVerifier builds the go-oidc verifier. For our own issuer the keys come
// from the database through dbKeySet; for an external issuer they come from
// its discovery document, fetched on first use and retried until it answers
// (an API may start before its issuer).
func (s *Service) newVerifier() func(context.Context) (*oidc.IDTokenVerifier, error) {
	cfg := &oidc.Config{ClientID: s.cfg.Audience, SupportedSigningAlgs: ownAlgs}
	if s.cfg.TrustedIssuer == s.cfg.Issuer {
		v := oidc.NewVerifier(s.cfg.Issuer, &dbKeySet{keys: s.keys}, cfg)
		return func(context.Context) (*oidc.IDTokenVerifier, error) { return v, nil }
	}
	cfg.SupportedSigningAlgs = externalAlgs
	// The client bounds every discovery and JWKS request; the context is
	// go-oidc's configuration bag, so it carries no deadline of its own.
	base := oidc.ClientContext(context.Background(), &http.Client{Timeout: 10 * time.Second})
	var (
		mu       sync.Mutex
		v        *oidc.IDTokenVerifier
		failedAt time.Time
		lastErr  error
	)
	return func(context.Context) (*oidc.IDTokenVerifier, error) {
		mu.Lock()
		defer mu.Unlock()
		if v != nil {
			return v, nil
		}
		if time.Since(failedAt) < discoveryRetry { // do not hammer an issuer that is down
			return nil, lastErr
		}
		ctx, cancel := context.WithTimeout(base, 10*time.Second)
		defer cancel()
		p, err := oidc.NewProvider(ctx, s.cfg.TrustedIssuer)
		if err != nil {
			failedAt, lastErr = time.Now(), fmt.Errorf("auth: discover issuer %s: %w", s.cfg.TrustedIssuer, err)
			return nil, lastErr
		}
		v = p.Verifier(cfg)
		return v, nil
	}
}

// discoveryRetry spaces out discovery attempts against an unreachable issuer.
const discoveryRetry = 5 * time.Second

// dbKeySet is go-oidc's KeySet over our own signing keys.
type dbKeySet struct{ keys *keyRing }

func (d *dbKeySet) VerifySignature(ctx context.Context, raw string) ([]byte, error) {
	jws, err := jose.ParseSignedCompact(raw, toJoseAlgs(ownAlgs))
	if err != nil {
		return nil, err
	}
	kid := jws.Signatures[0].Header.KeyID
	pub, ok := d.keys.lookup(ctx, kid)
	if !ok {
		return nil, fmt.Errorf("unknown signing key %q", kid)
	}
	return jws.Verify(pub)
}

func toJoseAlgs(algs []string) []jose.SignatureAlgorithm {
	out := make([]jose.SignatureAlgorithm, len(algs))
	for i, a := range algs {
		out[i] = jose.SignatureAlgorithm(a)
	}
	return out
}
