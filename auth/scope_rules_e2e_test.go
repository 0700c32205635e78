package auth_test

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
)

// The four scope rules of docs/api-contract.md §5.2, one test each, through the real client.

var granted = []domain.Scope{domain.ScopeLoadRead, domain.ScopeInvoiceRead, domain.ScopeLoadUpdate}

const grantedClaim = "invoice:read load:read load:update" // catalogue order

func scopeClient(t *testing.T) (*apptest.Server, string, string) {
	srv := apptest.Start(t, apptest.Options{})
	acme := apptest.NewTenant(t, srv, "acme")
	id, secret := srv.Client(t, acme, granted...)
	return srv, id, secret
}

func TestScopeRule1TokenCarriesAllGrantedScopesWhenNoneAsked(t *testing.T) {
	t.Parallel()
	srv, id, secret := scopeClient(t)
	tok, err := srv.OAuth(id, secret).Token(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c := verifyWithDiscovery(t, srv, tok.AccessToken); c.Scope != grantedClaim {
		t.Errorf("scope claim %q, want %q", c.Scope, grantedClaim)
	}
}

func TestScopeRule2AskingForFewerNeverNarrows(t *testing.T) {
	t.Parallel()
	srv, id, secret := scopeClient(t)
	cfg := srv.OAuth(id, secret)
	cfg.Scopes = []string{"load:read"}
	tok, err := cfg.Token(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c := verifyWithDiscovery(t, srv, tok.AccessToken); c.Scope != grantedClaim {
		t.Errorf("scope claim %q, want all granted %q", c.Scope, grantedClaim)
	}
	if tok.Extra("scope") != grantedClaim {
		t.Errorf("response scope %v", tok.Extra("scope"))
	}
}

func TestScopeRule3AnyUngrantedScopeFailsNamingIt(t *testing.T) {
	t.Parallel()
	srv, id, secret := scopeClient(t)
	cfg := srv.OAuth(id, secret)
	cfg.Scopes = []string{"load:read", "trailer:read", "nonsense:scope"}
	_, err := cfg.Token(context.Background())
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		t.Fatalf("want a refusal, got %v", err)
	}
	if re.Response.StatusCode != 403 || re.ErrorCode != "access_denied" {
		t.Fatalf("status %d error %q", re.Response.StatusCode, re.ErrorCode)
	}
	if !strings.Contains(re.ErrorDescription, "trailer:read nonsense:scope") || strings.Contains(re.ErrorDescription, "load:read") {
		t.Errorf("description %q must name exactly the ungranted scopes", re.ErrorDescription)
	}
	// The same through a JSON body (docs/api-contract.md §5.2: equivalent scope enforcement).
	resp, m := postToken(t, srv, true, map[string]string{"client_id": id, "client_secret": secret,
		"audience": srv.Config.Audience, "grant_type": "client_credentials", "scope": "trailer:read load:read"})
	assertOAuthError(t, resp, m, 403, "access_denied", "trailer:read")
}

func TestScopeRule4ScopeClaimIsSpaceSeparatedEntityPermission(t *testing.T) {
	t.Parallel()
	srv, id, secret := scopeClient(t)
	tok, err := srv.OAuth(id, secret).Token(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	claim := verifyWithDiscovery(t, srv, tok.AccessToken).Scope
	shape := regexp.MustCompile(`^[a-z]+:[a-z]+( [a-z]+:[a-z]+)*$`)
	if !shape.MatchString(claim) {
		t.Fatalf("scope claim %q is not space-separated <entity>:<permission>", claim)
	}
	got := strings.Split(claim, " ")
	for _, g := range granted {
		if !slices.Contains(got, string(g)) {
			t.Errorf("scope claim %q lacks %s", claim, g)
		}
	}
}
