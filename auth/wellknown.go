package auth

import (
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/haulgraph/haulgraph/domain"
)

// DiscoveryHandler serves /.well-known/openid-configuration and
// /.well-known/oauth-authorization-server (RFC 8414) for this issuer.
func (s *Service) DiscoveryHandler() http.Handler {
	// Only what this server does (RFC 8414): it issues access tokens by
	// client credentials and revokes them; it has no authorization endpoint
	// and issues no ID tokens, so it claims no response types (the REQUIRED
	// member is empty) and none of OpenID Connect's ID-token metadata. The
	// openid-configuration copy exists for verifiers that discover keys
	// there (go-oidc).
	authMethods := []string{"client_secret_basic", "client_secret_post"}
	doc := map[string]any{
		"issuer":                                     s.cfg.Issuer,
		"token_endpoint":                             s.TokenURL(),
		"token_endpoint_auth_methods_supported":      authMethods,
		"revocation_endpoint":                        s.cfg.Issuer + "/oauth/revoke",
		"revocation_endpoint_auth_methods_supported": authMethods,
		"jwks_uri":                                   s.cfg.Issuer + "/.well-known/jwks.json",
		"grant_types_supported":                      []string{"client_credentials"},
		"scopes_supported":                           domain.ScopeCatalogue,
		"response_types_supported":                   []string{},
	}
	body, _ := json.Marshal(doc)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=3600")
		_, _ = w.Write(body)
	})
}

// JWKSHandler serves /.well-known/jwks.json: the active key and every
// retired key whose tokens may still be live.
func (s *Service) JWKSHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		set, err := s.keys.publicJWKS(r.Context())
		if err != nil {
			slog.ErrorContext(r.Context(), "auth: jwks", "err", err)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"error":"server_error"}` + "\n"))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		// Short: verifiers re-fetch on an unknown kid anyway.
		w.Header().Set("Cache-Control", "public, max-age=300")
		_ = json.NewEncoder(w).Encode(set)
	})
}
