package app

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"

	"github.com/haulgraph/haulgraph/auth"
	"github.com/haulgraph/haulgraph/rest"
	"github.com/haulgraph/haulgraph/secretbox"
	"github.com/haulgraph/haulgraph/storage"
)

// DemoKeyFile is the demo's generated master key, in Config.DemoDir:
// created once, 0600, next to the private database.
const DemoKeyFile = "encryption.key"

// DemoClientFile holds the demo client's credentials, in Config.DemoDir.
const DemoClientFile = "demo-client.json"

// ErrNoEncryptionKey: outside the demo a missing key is an operator's
// mistake, never a reason to invent one (a key made up in the working
// directory seals secrets no other process can open).
var ErrNoEncryptionKey = errors.New("HAULGRAPH_ENCRYPTION_KEY is not set: give every instance and the CLI the same key, base64 of 32 random bytes (make one with: openssl rand -base64 32)")

// withEncryptionKey fills cfg.EncryptionKey from the demo's key file when
// the environment gave none and this is the demo; otherwise it is required.
func withEncryptionKey(cfg Config) (Config, error) {
	if cfg.EncryptionKey != "" {
		return cfg, nil
	}
	if cfg.DemoDir == "" {
		return cfg, ErrNoEncryptionKey
	}
	key, err := secretbox.LoadOrCreateKeyFile(filepath.Join(cfg.DemoDir, DemoKeyFile))
	cfg.EncryptionKey = key
	return cfg, err
}

// wireAuth starts the token service (first start: makes the signing key)
// and mounts the token endpoint, discovery, JWKS and the legacy route.
// a.Auth.Middleware is what every API transport wraps itself with.
// throttle rate-limits the token endpoint (httpedge.RateLimits.TokenThrottle).
func (a *App) wireAuth(ctx context.Context, mux *http.ServeMux, throttle func(http.ResponseWriter, *http.Request, string) error) error {
	svc, err := auth.New(ctx, &storage.Auth{DB: a.DB}, auth.Config{
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
