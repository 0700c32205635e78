package auth_test

import (
	"context"
	"crypto/sha256"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/auth"
	"github.com/haulgraph/haulgraph/domain"
)

func TestAtMostTenClientSetsPerCustomer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := apptest.Start(t, apptest.Options{})
	acme := apptest.NewTenant(t, srv, "acme")
	other := apptest.NewTenant(t, srv, "other")
	spec := auth.ClientSpec{Name: "bi", Scopes: []domain.Scope{domain.ScopeDriverRead}}

	var first string
	for i := range auth.MaxClients {
		c, _, err := srv.Auth.CreateClient(ctx, acme.ID, spec)
		if err != nil {
			t.Fatalf("client %d: %v", i+1, err)
		}
		if i == 0 {
			first = c.ClientID
		}
	}
	_, _, err := srv.Auth.CreateClient(ctx, acme.ID, spec)
	if domain.CodeOf(err) != domain.CodeConflict || !strings.Contains(err.Error(), "already holds 10 client credential sets") {
		t.Fatalf("eleventh client: %v", err)
	}
	// The limit is per customer: another tenant is unaffected.
	if _, _, err := srv.Auth.CreateClient(ctx, other.ID, spec); err != nil {
		t.Fatalf("other tenant: %v", err)
	}
	// A revoked set no longer counts.
	if err := srv.Auth.RevokeClient(ctx, acme.ID, first); err != nil {
		t.Fatal(err)
	}
	if _, _, err := srv.Auth.CreateClient(ctx, acme.ID, spec); err != nil {
		t.Fatalf("after revoking one: %v", err)
	}
	list, err := srv.Auth.ListClients(ctx, acme.ID)
	if err != nil || len(list) != 11 {
		t.Fatalf("list: %d clients, %v", len(list), err)
	}
}

func TestClientSecretIsStrongAndStoredOnlyAsHash(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := apptest.Start(t, apptest.Options{})
	acme := apptest.NewTenant(t, srv, "acme")
	c, secret, err := srv.Auth.CreateClient(ctx, acme.ID, auth.ClientSpec{Name: "erp", Scopes: []domain.Scope{domain.ScopeLoadRead}})
	if err != nil {
		t.Fatal(err)
	}
	if len(strings.TrimPrefix(secret, "hgcs_")) < 43 { // 32 bytes base64url
		t.Errorf("secret %q too short for 256 bits", secret)
	}
	var row []byte
	var found int
	err = srv.DB.InSystem(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := tx.NewRaw("SELECT secret_hash FROM api_clients WHERE client_id = ?", c.ClientID).Scan(ctx, &row); err != nil {
			return err
		}
		return tx.NewRaw("SELECT count(*) FROM api_clients WHERE position(? in row_to_json(api_clients)::text) > 0", secret).Scan(ctx, &found)
	})
	if err != nil {
		t.Fatal(err)
	}
	want := sha256.Sum256([]byte(secret))
	if string(row) != string(want[:]) || found != 0 {
		t.Errorf("stored hash %x (want sha256 of the secret); rows containing the secret: %d", row, found)
	}
}

func TestClientValidationAndEdit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := apptest.Start(t, apptest.Options{})
	acme := apptest.NewTenant(t, srv, "acme")
	past := time.Now().Add(-time.Hour)
	for name, spec := range map[string]auth.ClientSpec{
		"no name":       {Scopes: []domain.Scope{domain.ScopeLoadRead}},
		"no scopes":     {Name: "x"},
		"unknown scope": {Name: "x", Scopes: []domain.Scope{"load:fly"}},
		"past expiry":   {Name: "x", Scopes: []domain.Scope{domain.ScopeLoadRead}, ExpiresAt: &past},
		"long name":     {Name: strings.Repeat("n", 101), Scopes: []domain.Scope{domain.ScopeLoadRead}},
	} {
		if _, _, err := srv.Auth.CreateClient(ctx, acme.ID, spec); domain.CodeOf(err) != domain.CodeInvalid {
			t.Errorf("%s: %v", name, err)
		}
	}

	c, secret, err := srv.Auth.CreateClient(ctx, acme.ID, auth.ClientSpec{Name: "bi", Scopes: []domain.Scope{domain.ScopeDriverRead, domain.ScopeWebhookManage}})
	if err != nil {
		t.Fatal(err)
	}
	name := "bi dashboards"
	edited, err := srv.Auth.EditClient(ctx, acme.ID, c.ClientID, auth.ClientEdit{Name: &name, Scopes: []domain.Scope{domain.ScopeInvoiceRead}})
	if err != nil || edited.Name != name || strings.Join(edited.Scopes, " ") != "invoice:read" {
		t.Fatalf("edit: %+v %v", edited, err)
	}
	// The next token carries the edited scopes.
	tok, err := srv.OAuth(c.ClientID, secret).Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := verifyWithDiscovery(t, srv, tok.AccessToken).Scope; got != "invoice:read" {
		t.Errorf("token scope after edit %q", got)
	}
	// Another tenant cannot edit it.
	other := apptest.NewTenant(t, srv, "other")
	if _, err := srv.Auth.EditClient(ctx, other.ID, c.ClientID, auth.ClientEdit{Name: &name}); domain.CodeOf(err) != domain.CodeNotFound {
		t.Errorf("cross-tenant edit: %v", err)
	}
}

// TestClientLimitHoldsUnderConcurrentCreation: fifteen simultaneous
// creations for one customer yield exactly ten sets.
func TestClientLimitHoldsUnderConcurrentCreation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := apptest.Start(t, apptest.Options{})
	acme := apptest.NewTenant(t, srv, "acme")
	errs := make(chan error, 15)
	for range 15 {
		go func() {
			_, _, err := srv.Auth.CreateClient(ctx, acme.ID, auth.ClientSpec{Name: "race", Scopes: []domain.Scope{domain.ScopeLoadRead}})
			errs <- err
		}()
	}
	var ok, refused int
	for range 15 {
		switch err := <-errs; {
		case err == nil:
			ok++
		case domain.CodeOf(err) == domain.CodeConflict:
			refused++
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	if ok != auth.MaxClients || refused != 5 {
		t.Errorf("%d created, %d refused; want 10 and 5", ok, refused)
	}
}
