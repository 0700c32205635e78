package auth

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/haulgraph/haulgraph/domain"
)

// Middleware verifies the request's bearer token and records the outcome in
// the context: a valid token → domain.WithPrincipal; a token presented but
// refused → domain.WithAuthFailure with the reason; no token → neither. It
// never answers itself: REST (rest.WriteError) and GraphQL report through
// domain.Authorize, so each speaks its own error format.
func (s *Service) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := r.Header.Get("Authorization")
		if h == "" {
			next.ServeHTTP(w, r)
			return
		}
		ctx := r.Context()
		raw, ok := bearer(h)
		if !ok {
			next.ServeHTTP(w, r.WithContext(domain.WithAuthFailure(ctx, `malformed Authorization header: expected "Bearer <token>"`)))
			return
		}
		p, err := s.VerifyToken(ctx, raw)
		if err != nil {
			var it *InvalidTokenError
			reason := "the token could not be verified now; try again"
			switch {
			case errors.As(err, &it):
				reason = it.Reason
			case domain.CodeOf(err) == domain.CodeUnavailable:
				// Not the token's fault: the transports answer 503.
				next.ServeHTTP(w, r.WithContext(domain.WithAuthUnavailable(ctx)))
				return
			default:
				slog.ErrorContext(ctx, "auth: verify token", "err", err)
			}
			next.ServeHTTP(w, r.WithContext(domain.WithAuthFailure(ctx, reason)))
			return
		}
		next.ServeHTTP(w, r.WithContext(domain.WithPrincipal(ctx, p)))
	})
}

// bearer extracts the token of an "Authorization: Bearer <token>" header
// (the scheme is case-insensitive, RFC 7235).
func bearer(h string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(h), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" || strings.ContainsAny(token, " \t") {
		return "", false
	}
	return token, true
}
