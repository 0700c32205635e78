package app

import (
	"context"
	"net/http"

	"github.com/haulgraph/haulgraph/auth"
	"github.com/haulgraph/haulgraph/rest"
	"github.com/haulgraph/haulgraph/secretbox"
)

// devEncryptionKeyFile holds the generated key when HAULGRAPH_ENCRYPTION_KEY
// is unset (make run): created once, 0600, next to the private database.
const devEncryptionKeyFile = ".data/encryption.key"

// withEncryptionKey fills cfg.EncryptionKey from the development key file
// when the environment gave none.
func withEncryptionKey(cfg Config) (Config, error) {
	if cfg.EncryptionKey != "" {
		return cfg, nil
	}
	key, err := secretbox.LoadOrCreateKeyFile(devEncryptionKeyFile)
	cfg.EncryptionKey = key
	return cfg, err
}

// wireAuth starts the token service (first start: makes the signing key)
// and mounts the token endpoint, discovery, JWKS and the legacy route.
// a.Auth.Middleware is what every API transport wraps itself with.
// throttle rate-limits the token endpoint (rest.RateLimits.TokenThrottle).
func (a *App) wireAuth(ctx context.Context, mux *http.ServeMux, throttle func(http.ResponseWriter, *http.Request, string) bool) error {
	svc, err := auth.New(ctx, a.DB, auth.Config{
		Issuer:         a.Config.PublicURL,
		TrustedIssuer:  a.Config.IssuerURL,
		Audience:       a.Config.Audience,
		TokenTTL:       a.Config.TokenTTL,
		LegacyCutoff:   a.Config.LegacyCutoff,
		EncryptionKey:  a.Config.EncryptionKey,
		Throttle:       throttle,
		RevocationPoll: a.Config.RevocationPoll,
		CountToken:     a.Metrics.TokenRequest,
	})
	if err != nil {
		return err
	}
	a.Auth = svc
	// Any method: the handlers answer other methods with a JSON 405.
	mux.Handle("/oauth/token", svc.TokenHandler())
	mux.Handle("/oauth/revoke", svc.RevocationHandler())
	mux.Handle("GET /.well-known/openid-configuration", svc.DiscoveryHandler())
	mux.Handle("GET /.well-known/oauth-authorization-server", svc.DiscoveryHandler())
	mux.Handle("GET /.well-known/jwks.json", svc.JWKSHandler())
	mux.Handle("POST /api/authentication/{tenant_id}/token", rest.LegacyToken(a.Config.LegacyCutoff, svc.LegacyTokenHandler()))
	return nil
}
