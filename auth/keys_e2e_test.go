package auth_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

func kidOf(t *testing.T, token string) string {
	t.Helper()
	jws, err := jose.ParseSigned(token, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	return jws.Signatures[0].Protected.KeyID
}

func jwksKIDs(t *testing.T, srv *apptest.Server) map[string]bool {
	t.Helper()
	resp, err := http.Get(srv.URL + "/.well-known/jwks.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, k := range set.Keys {
		if k.IsPublic() && k.Algorithm == "ES256" && k.Use == "sig" {
			out[k.KeyID] = true
		} else {
			t.Errorf("JWKS entry %s is not a public ES256 signing key", k.KeyID)
		}
	}
	return out
}

func TestKeyRotationKeepsOldTokensValidUntilTheyExpire(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := apptest.Start(t, apptest.Options{})
	// A second instance on the same database and issuer: rotation made by
	// one must reach the other without a restart.
	peer := apptest.Start(t, apptest.Options{DatabaseURL: srv.Config.DatabaseURL, Configure: func(c *app.Config) { c.PublicURL = srv.URL }})
	acme := apptest.NewTenant(t, srv, "acme")
	before := srv.Token(t, acme, domain.ScopeLoadRead)
	oldKID := kidOf(t, before)

	newKID, err := srv.Auth.RotateSigningKey(ctx)
	if err != nil || newKID == oldKID {
		t.Fatalf("rotate: %q %v", newKID, err)
	}
	after := srv.Token(t, acme, domain.ScopeLoadRead)
	if kidOf(t, after) != newKID {
		t.Fatalf("new tokens signed by %s, want %s", kidOf(t, after), newKID)
	}
	if kids := jwksKIDs(t, srv); !kids[oldKID] || !kids[newKID] || len(kids) != 2 {
		t.Errorf("JWKS kids %v, want old and new", kids)
	}
	for _, s := range []*apptest.Server{srv, peer} {
		p := probe(t, s)
		for name, tok := range map[string]string{"old-key token": before, "new-key token": after} {
			if resp, body := callProbe(t, p, tok, reads.OpReadLoad); resp.StatusCode != 200 {
				t.Errorf("%s refused: %d %s", name, resp.StatusCode, body)
			}
		}
	}
	verifyWithDiscovery(t, srv, before) // an outside verifier too

	// Once the old key's last token has expired, it leaves the JWKS and verifies nothing.
	if err := srv.DB.InSystem(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, "UPDATE signing_keys SET not_after = now() - interval '1 second' WHERE kid = ?", oldKID)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := srv.Auth.ReloadKeys(ctx); err != nil {
		t.Fatal(err)
	}
	if kids := jwksKIDs(t, srv); kids[oldKID] || !kids[newKID] {
		t.Errorf("JWKS kids %v after the old key's end", kids)
	}
	resp, body := callProbe(t, probe(t, srv), before, reads.OpReadLoad)
	assertUnauthorized(t, resp, body, "signature")
}

func TestSigningKeyIsSealedAtRestAndSurvivesRestart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := apptest.Start(t, apptest.Options{})
	acme := apptest.NewTenant(t, srv, "acme")
	tok := srv.Token(t, acme, domain.ScopeLoadRead)

	var keys []struct {
		KID        string `bun:"kid"`
		PrivateKey []byte `bun:"private_key"`
	}
	if err := srv.DB.InSystem(ctx, func(ctx context.Context, tx bun.Tx) error {
		return tx.NewRaw("SELECT kid, private_key FROM signing_keys").Scan(ctx, &keys)
	}); err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || keys[0].KID != kidOf(t, tok) {
		t.Fatalf("keys %v", keys)
	}
	if _, err := x509.ParsePKCS8PrivateKey(keys[0].PrivateKey); err == nil {
		t.Error("the private key is stored in clear")
	}

	// A restarted instance on the same database keeps the key (same kid).
	again := apptest.Start(t, apptest.Options{DatabaseURL: srv.Config.DatabaseURL, Configure: func(c *app.Config) { c.PublicURL = srv.URL }})
	if resp, body := callProbe(t, probe(t, again), tok, reads.OpReadLoad); resp.StatusCode != 200 {
		t.Errorf("restarted instance refused the token: %d %s", resp.StatusCode, body)
	}
	// And one with another encryption key refuses to start rather than minting with garbage.
	_, err := app.New(ctx, func() app.Config {
		c := again.Config
		c.EncryptionKey = "MTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTE="
		return c
	}(), srv.Log)
	if err == nil {
		t.Error("an instance with the wrong encryption key started")
	}
}
