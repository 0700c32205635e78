package auth_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/coreos/go-oidc/v3/oidc"
	jose "github.com/go-jose/go-jose/v4"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

// tokenClaims are the claims docs/architecture.md promises in an access token.
type tokenClaims struct {
	Iss      string `json:"iss"`
	Sub      string `json:"sub"`
	Aud      string `json:"aud"`
	Iat      int64  `json:"iat"`
	Exp      int64  `json:"exp"`
	JTI      string `json:"jti"`
	ClientID string `json:"client_id"`
	TenantID string `json:"tenant_id"`
	Scope    string `json:"scope"`
}

// verifyWithDiscovery verifies token the way an outside resource server
// would: go-oidc discovery against the running server, ES256 only.
func verifyWithDiscovery(t *testing.T, srv *apptest.Server, token string) tokenClaims {
	t.Helper()
	ctx := context.Background()
	p, err := oidc.NewProvider(ctx, srv.URL)
	if err != nil {
		t.Fatalf("discovery: %v", err)
	}
	idt, err := p.Verifier(&oidc.Config{ClientID: srv.Config.Audience, SupportedSigningAlgs: []string{"ES256"}}).Verify(ctx, token)
	if err != nil {
		t.Fatalf("go-oidc refused the token: %v", err)
	}
	var c tokenClaims
	if err := idt.Claims(&c); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestClientCredentialsTokenIsAVerifiableAccessToken(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	acme := apptest.NewTenant(t, srv, "acme")
	id, secret := srv.Client(t, acme, domain.ScopeLoadRead, domain.ScopeInvoiceRead)

	tok, err := srv.OAuth(id, secret).Token(context.Background())
	if err != nil {
		t.Fatalf("clientcredentials: %v", err)
	}
	if tok.TokenType != "Bearer" || tok.Expiry.IsZero() {
		t.Errorf("token_type %q, expiry %v", tok.TokenType, tok.Expiry)
	}
	if got := tok.Extra("scope"); got != "invoice:read load:read" {
		t.Errorf("response scope = %v", got)
	}

	c := verifyWithDiscovery(t, srv, tok.AccessToken)
	if c.Iss != srv.URL || c.Aud != srv.Config.Audience || c.Sub != id || c.ClientID != id ||
		c.TenantID != acme.ID.String() || c.Scope != "invoice:read load:read" || c.JTI == "" || c.Exp-c.Iat != 3600 {
		t.Errorf("claims = %+v", c)
	}

	jws, err := jose.ParseSigned(tok.AccessToken, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	h := jws.Signatures[0].Protected
	if h.ExtraHeaders[jose.HeaderType] != "at+jwt" || h.KeyID == "" || h.Algorithm != "ES256" {
		t.Errorf("header typ=%v kid=%q alg=%q", h.ExtraHeaders[jose.HeaderType], h.KeyID, h.Algorithm)
	}

	// The API's middleware accepts it and places tenant, client and scopes in the context.
	resp, body := callProbe(t, probe(t, srv), tok.AccessToken, reads.OpReadLoad)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("probe: %d %s", resp.StatusCode, body)
	}
	var p domain.Principal
	_ = json.Unmarshal(body, &p)
	if p.TenantID != acme.ID || p.ClientID != id || domain.JoinScopes(p.Scopes) != "invoice:read load:read" {
		t.Errorf("principal = %+v", p)
	}
}

func TestJSONAndFormGiveTheSameClaims(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	acme := apptest.NewTenant(t, srv, "acme")
	id, secret := srv.Client(t, acme, domain.ScopeTrailerRead, domain.ScopeDriverRead)
	fields := map[string]string{"client_id": id, "client_secret": secret, "audience": srv.Config.Audience,
		"grant_type": "client_credentials", "scope": "trailer:read"}

	var claims [2]tokenClaims
	for i, asJSON := range []bool{true, false} {
		resp, m := postToken(t, srv, asJSON, fields)
		if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("json=%v: %d %v cache-control %q", asJSON, resp.StatusCode, m, resp.Header.Get("Cache-Control"))
		}
		if m["token_type"] != "Bearer" || m["expires_in"] != 3600.0 || m["scope"] != "driver:read trailer:read" {
			t.Errorf("json=%v: response %v", asJSON, m)
		}
		claims[i] = verifyWithDiscovery(t, srv, m["access_token"].(string))
	}
	for i := range claims { // per-token values differ by design
		claims[i].JTI, claims[i].Iat, claims[i].Exp = "", 0, 0
	}
	if claims[0] != claims[1] {
		t.Errorf("JSON claims %+v\nform claims %+v", claims[0], claims[1])
	}
	if !strings.Contains(claims[0].Scope, "trailer:read") {
		t.Errorf("scope %q", claims[0].Scope)
	}
}
