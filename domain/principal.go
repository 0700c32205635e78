package domain

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
)

// Principal is who is calling: the verified token's tenant, client and scopes.
type Principal struct {
	TenantID  uuid.UUID
	ClientID  string
	Scopes    []Scope
	ExpiresAt time.Time
}

// Has reports whether the principal holds scope s (the empty scope: always).
func (p *Principal) Has(s Scope) bool { return s == "" || slices.Contains(p.Scopes, s) }

// MaxClientIDLen bounds a client_id: ours are 20 bytes, so a longer one
// names no client.
const MaxClientIDLen = 128

// CheckClientID is the rule every client_id meets, the token endpoint's and
// a verified token's (whoever issued it): the text rule (no NUL, no control
// character, valid UTF-8) and at most MaxClientIDLen bytes. The error's
// message follows "client_id".
func CheckClientID(id string) error {
	if err := CheckText(id); err != nil {
		return err
	}
	if Length(id) > MaxClientIDLen {
		return fmt.Errorf("is longer than %d characters", MaxClientIDLen)
	}
	return nil
}

// MaxAccessTokenLength bounds an access token as read (an Authorization
// header, a revocation request): ours are far shorter.
const MaxAccessTokenLength = 8 << 10

// OAuthFields bounds the fields of a token or revocation request, in
// characters, besides client_id (CheckClientID) and grant_type (one
// value): one request's fields at their bounds, written in ASCII, fit the
// endpoints' 16 KiB body, so the bound on the body is one no field reaches
// alone. The OpenAPI document states each as maxLength.
var OAuthFields = []struct {
	Name      string
	MaxLength int
}{{"client_secret", 128}, {"audience", 2048}, {"scope", 1024}, {"token", MaxAccessTokenLength}, {"token_type_hint", 32}}

type principalKey struct{}

// WithPrincipal stores p in ctx.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the caller, or nil when the request is anonymous.
func PrincipalFrom(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}

type authFailureKey struct{}

// WithAuthFailure records why the presented bearer token was refused (expired,
// wrong audience, ...), so the 401 can say so.
func WithAuthFailure(ctx context.Context, reason string) context.Context {
	return context.WithValue(ctx, authFailureKey{}, reason)
}

type authUnavailableKey struct{}

// WithAuthUnavailable records that the presented token could not be checked
// because the database cannot be reached: Authenticated answers
// ErrUnavailable, not a 401.
func WithAuthUnavailable(ctx context.Context) context.Context {
	return context.WithValue(ctx, authUnavailableKey{}, true)
}

// CredentialsPresented reports whether the request carried a bearer token at
// all (valid or refused). RFC 6750 §3.1: a request without credentials is
// challenged without an error code; only a refused token is invalid_token.
func CredentialsPresented(ctx context.Context) bool {
	if PrincipalFrom(ctx) != nil {
		return true
	}
	reason, _ := ctx.Value(authFailureKey{}).(string)
	return reason != ""
}

// Authenticated returns the caller or the UNAUTHENTICATED error explaining why
// there is none.
func Authenticated(ctx context.Context) (*Principal, error) {
	if p := PrincipalFrom(ctx); p != nil {
		return p, nil
	}
	if unavailable, _ := ctx.Value(authUnavailableKey{}).(bool); unavailable {
		return nil, ErrUnavailable
	}
	msg := "a valid bearer token is required"
	if reason, _ := ctx.Value(authFailureKey{}).(string); reason != "" {
		msg = "the bearer token was refused: " + reason
	}
	return nil, &Error{Code: CodeUnauthenticated, Message: msg}
}

// Authorize checks that ctx's caller may perform op, returning the principal.
func Authorize(ctx context.Context, op Operation) (*Principal, error) {
	return AuthorizeScope(ctx, op.Scope)
}

// AuthorizeScope checks that ctx's caller holds scope (GraphQL's @hasScope
// and Authorize): the one place a FORBIDDEN error is built.
func AuthorizeScope(ctx context.Context, scope Scope) (*Principal, error) {
	p, err := Authenticated(ctx)
	if err != nil {
		return nil, err
	}
	if !p.Has(scope) {
		return nil, &Error{Code: CodeForbidden, Message: "the token lacks the scope " + string(scope), Fields: map[string][]string{"scope": {string(scope)}}}
	}
	return p, nil
}
