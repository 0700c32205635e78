package apptest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/haulgraph/haulgraph/auth"
	"github.com/haulgraph/haulgraph/domain"
)

// Tenant is a customer created for a test, with one subsidiary.
type Tenant struct {
	ID           uuid.UUID
	Slug         string
	SubsidiaryID uuid.UUID
}

// NewTenant creates tenant slug (name "Tenant <slug>") and a subsidiary
// ("<slug> Main") in srv's database.
func NewTenant(t testing.TB, srv *Server, slug string) Tenant {
	t.Helper()
	tn := Tenant{ID: uuid.New(), Slug: slug, SubsidiaryID: uuid.New()}
	err := srv.DB.InSystem(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "INSERT INTO tenants (id, slug, name) VALUES (?, ?, ?)", tn.ID, slug, "Tenant "+slug); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO subsidiaries (id, tenant_id, name) VALUES (?, ?, ?)", tn.SubsidiaryID, tn.ID, slug+" Main")
		return err
	})
	if err != nil {
		t.Fatalf("apptest: create tenant %s: %v", slug, err)
	}
	return tn
}

// Client creates a new credential set for tenant with the given scopes and
// returns its id and secret.
func (s *Server) Client(t testing.TB, tenant Tenant, scopes ...domain.Scope) (clientID, secret string) {
	t.Helper()
	c, secret, err := s.Auth.CreateClient(context.Background(), tenant.ID, auth.ClientSpec{Name: "test client", Scopes: scopes})
	if err != nil {
		t.Fatalf("apptest: create client: %v", err)
	}
	return c.ClientID, secret
}

// OAuth returns the client-credentials configuration a real integrator
// would use against this server.
func (s *Server) OAuth(clientID, secret string) *clientcredentials.Config {
	return &clientcredentials.Config{
		ClientID: clientID, ClientSecret: secret,
		TokenURL:       s.URL + "/oauth/token",
		EndpointParams: map[string][]string{"audience": {s.Config.Audience}},
	}
}

// Token returns a real access token for tenant holding exactly scopes,
// obtained from POST /oauth/token with golang.org/x/oauth2/clientcredentials.
// One client per tenant and scope set is reused, so tests stay under the
// limit of 10 credential sets per customer.
func (s *Server) Token(t testing.TB, tenant Tenant, scopes ...domain.Scope) string {
	t.Helper()
	sorted := slices.Clone(scopes)
	slices.Sort(sorted)
	// Per instance, not by its address: a finished test's Server may be
	// freed and another allocated at the same address, and seeded tenants
	// have the same ids in every database.
	key := fmt.Sprintf("%s|%s", tenant.ID, domain.JoinScopes(sorted))
	v, _ := s.clients.LoadOrStore(key, &cachedClient{})
	cc := v.(*cachedClient)
	cc.once.Do(func() { cc.id, cc.secret = s.Client(t, tenant, scopes...) })
	if cc.id == "" {
		t.Fatal("apptest: creating the client failed in another test")
	}
	tok, err := s.OAuth(cc.id, cc.secret).Token(context.Background())
	if err != nil {
		t.Fatalf("apptest: obtain token: %v", err)
	}
	if got, _ := tok.Extra("scope").(string); len(strings.Fields(got)) != len(scopes) {
		t.Fatalf("apptest: token scopes %v, asked for %v", got, scopes)
	}
	return tok.AccessToken
}

type cachedClient struct {
	once       sync.Once
	id, secret string
}
