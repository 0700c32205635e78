package auth_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/testkit"
)

// poll is the revocation poll interval the tests inject.
const poll = 100 * time.Millisecond

func withPoll(c *app.Config) { c.RevocationPoll = poll }

// eventually calls probe every poll interval until it answers 401 or
// within (a revocation must hold everywhere within 5 s) passes, and returns
// how long it took.
func eventuallyRefused(t *testing.T, probeURL, token string, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		resp, _ := callProbe(t, probeURL, token, reads.OpReadLoad)
		if resp.StatusCode == http.StatusUnauthorized {
			return time.Since(start)
		}
		if time.Since(start) > within {
			t.Fatalf("token still accepted after %v (status %d)", within, resp.StatusCode)
		}
		<-tick.C
	}
}

func revoke(t *testing.T, srv *apptest.Server, id, secret, token string) *http.Response {
	t.Helper()
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/oauth/revoke", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
	resp, body := testkit.Do(t, req)
	if resp.StatusCode != 200 {
		t.Logf("revoke: %d %s", resp.StatusCode, body)
	}
	return resp
}

// A token verified once is served from the cache (no second verification);
// revoking its client still refuses it at once on this instance.
func TestVerifiedTokenCacheAndClientRevocation(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{Configure: withPoll})
	acme := apptest.NewTenant(t, srv, "acme")
	id, secret := srv.Client(t, acme, domain.ScopeLoadRead)
	tok, err := srv.OAuth(id, secret).Token(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p := probe(t, srv)
	before := srv.Auth.Verifications()
	for range 5 {
		if resp, body := callProbe(t, p, tok.AccessToken, reads.OpReadLoad); resp.StatusCode != 200 {
			t.Fatalf("valid token refused: %d %s", resp.StatusCode, body)
		}
	}
	if n := srv.Auth.Verifications() - before; n != 1 {
		t.Fatalf("5 requests with one token verified it %d times, want once", n)
	}
	if err := srv.Auth.RevokeClient(context.Background(), acme.ID, id); err != nil {
		t.Fatal(err)
	}
	resp, body := callProbe(t, p, tok.AccessToken, reads.OpReadLoad)
	assertUnauthorized(t, resp, body, "client has been revoked")
}

// A signing key removed from the database stops verifying the tokens it
// signed, cached ones included, within the poll interval.
func TestRemovedKeyRefusesCachedTokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := apptest.Start(t, apptest.Options{Configure: withPoll})
	acme := apptest.NewTenant(t, srv, "acme")
	old := srv.Token(t, acme, domain.ScopeLoadRead)
	p := probe(t, srv)
	if resp, body := callProbe(t, p, old, reads.OpReadLoad); resp.StatusCode != 200 {
		t.Fatalf("refused: %d %s", resp.StatusCode, body)
	}
	oldKID := kidOf(t, old)
	if _, err := srv.Auth.RotateSigningKey(ctx); err != nil {
		t.Fatal(err)
	}
	fresh := srv.Token(t, acme, domain.ScopeLoadRead)
	if resp, body := callProbe(t, p, old, reads.OpReadLoad); resp.StatusCode != 200 {
		t.Fatalf("rotation refused the old key's token: %d %s", resp.StatusCode, body)
	}
	if err := srv.DB.InSystem(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, "DELETE FROM signing_keys WHERE kid = ?", oldKID)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	eventuallyRefused(t, p, old, 5*time.Second)
	resp, body := callProbe(t, p, old, reads.OpReadLoad)
	assertUnauthorized(t, resp, body, "signature")
	if resp, body := callProbe(t, p, fresh, reads.OpReadLoad); resp.StatusCode != 200 {
		t.Fatalf("the new key's token refused: %d %s", resp.StatusCode, body)
	}
}

// Revoked on one instance, refused on the other within 5 s: one token by
// its jti (POST /oauth/revoke, RFC 7009), then the whole client.
func TestRevocationReachesEveryInstance(t *testing.T) {
	t.Parallel()
	a := apptest.Start(t, apptest.Options{Configure: withPoll})
	b := apptest.Start(t, apptest.Options{DatabaseURL: a.Config.DatabaseURL, Configure: func(c *app.Config) {
		withPoll(c)
		c.PublicURL = a.URL
	}})
	acme := apptest.NewTenant(t, a, "acme")
	id, secret := a.Client(t, acme, domain.ScopeLoadRead)
	token := func() string {
		tok, err := a.OAuth(id, secret).Token(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return tok.AccessToken
	}
	first, second := token(), token()
	pa, pb := probe(t, a), probe(t, b)
	for _, p := range []string{pa, pb} { // verified and cached on both
		for _, tok := range []string{first, second} {
			if resp, body := callProbe(t, p, tok, reads.OpReadLoad); resp.StatusCode != 200 {
				t.Fatalf("refused before revocation: %d %s", resp.StatusCode, body)
			}
		}
	}

	// Another client cannot revoke it: 200 (RFC 7009 tells nothing) and no effect.
	otherID, otherSecret := a.Client(t, acme, domain.ScopeLoadRead)
	if resp := revoke(t, a, otherID, otherSecret, first); resp.StatusCode != 200 {
		t.Fatalf("revocation by another client: %d", resp.StatusCode)
	}
	if resp, body := callProbe(t, pa, first, reads.OpReadLoad); resp.StatusCode != 200 {
		t.Fatalf("another client revoked the token: %d %s", resp.StatusCode, body)
	}
	// Garbage is not an error either; a wrong secret is.
	if resp := revoke(t, a, id, secret, "not-a-token"); resp.StatusCode != 200 {
		t.Errorf("revoking garbage: %d", resp.StatusCode)
	}
	if resp := revoke(t, a, id, "hgcs_wrong", first); resp.StatusCode != 401 {
		t.Errorf("revocation with a wrong secret: %d, want 401", resp.StatusCode)
	}

	if resp := revoke(t, a, id, secret, first); resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("revoke: %d %v", resp.StatusCode, resp.Header)
	}
	resp, body := callProbe(t, pa, first, reads.OpReadLoad)
	assertUnauthorized(t, resp, body, "token has been revoked")
	took := eventuallyRefused(t, pb, first, 5*time.Second)
	t.Logf("token revocation reached the other instance in %v", took)
	// Only that token: the client's other token still works everywhere.
	for _, p := range []string{pa, pb} {
		if resp, body := callProbe(t, p, second, reads.OpReadLoad); resp.StatusCode != 200 {
			t.Fatalf("the client's other token refused: %d %s", resp.StatusCode, body)
		}
	}

	// Revoking the client (what `haulgraph clients revoke` does) ends all its tokens.
	if err := a.Auth.RevokeClient(context.Background(), acme.ID, id); err != nil {
		t.Fatal(err)
	}
	took = eventuallyRefused(t, pb, second, 5*time.Second)
	t.Logf("client revocation reached the other instance in %v", took)
	resp, body = callProbe(t, pb, second, reads.OpReadLoad)
	assertUnauthorized(t, resp, body, "client has been revoked")
}

// The discovery documents claim only what the server does (RFC 8414).
func TestDiscoveryListsOnlyWhatTheServerDoes(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	for _, path := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		resp, raw := testkit.Do(t, req)
		var doc map[string]json.RawMessage
		if resp.StatusCode != 200 || json.Unmarshal(raw, &doc) != nil {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, raw)
		}
		for _, absent := range []string{"authorization_endpoint", "subject_types_supported", "id_token_signing_alg_values_supported", "userinfo_endpoint"} {
			if _, ok := doc[absent]; ok {
				t.Errorf("%s claims %s", path, absent)
			}
		}
		want := map[string]string{
			"issuer": `"` + srv.URL + `"`, "token_endpoint": `"` + srv.URL + `/oauth/token"`,
			"revocation_endpoint": `"` + srv.URL + `/oauth/revoke"`, "response_types_supported": `[]`,
			"grant_types_supported": `["client_credentials"]`,
		}
		for k, v := range want {
			if string(doc[k]) != v {
				t.Errorf("%s: %s = %s, want %s", path, k, doc[k], v)
			}
		}
	}
}
