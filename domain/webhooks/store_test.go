package webhooks_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
	"github.com/haulgraph/haulgraph/secretbox"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// A webhook is created Pending with its secret shown once, is the tenant's
// alone, and an internal address is refused before anything is stored.
func TestCreateOverTheStore(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	box, err := secretbox.New(secretbox.NewKey())
	if err != nil {
		t.Fatal(err)
	}
	bg := context.Background()
	tenants := [2]uuid.UUID{uuid.New(), uuid.New()}
	sub := uuid.New()
	var ctxs [2]context.Context
	for i, id := range tenants {
		if _, err := db.Pool.Exec(bg, `INSERT INTO tenants (id, slug, name) VALUES ($1, $2, 'T')`, id, "t-"+id.String()[:8]); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if _, err := db.Pool.Exec(bg, `INSERT INTO subsidiaries (id, tenant_id, name) VALUES ($1, $2, 'North')`, sub, id); err != nil {
				t.Fatal(err)
			}
		}
		ctxs[i] = domain.WithPrincipal(bg, &domain.Principal{TenantID: id, ClientID: "c", Scopes: []domain.Scope{domain.ScopeWebhookManage}})
	}
	svc := &webhooks.Service{Store: storage.NewWebhookStore(db, box)}
	name, url := "orders", "https://8.8.8.8/hooks"
	w, secret, err := svc.Create(ctxs[0], webhooks.Input{Name: &name, URL: &url, SubsidiaryID: &sub, EventTypes: []string{domain.EventLoadChanged}})
	if err != nil {
		t.Fatal(err)
	}
	if w.State != webhooks.WebhookPending || !strings.HasPrefix(secret, webhooks.SecretPrefix) {
		t.Errorf("created %s with secret %.6q…, want %s and a %s secret", w.State, secret, webhooks.WebhookPending, webhooks.SecretPrefix)
	}
	if got, err := svc.Get(ctxs[0], w.ID); err != nil || got.State != webhooks.WebhookPending {
		t.Errorf("read back: %v, %v", got, err)
	}
	if _, err := svc.Get(ctxs[1], w.ID); domain.CodeOf(err) != domain.CodeNotFound {
		t.Errorf("another tenant reads it: %v, want %s", err, domain.CodeNotFound)
	}
	internal := "https://10.0.0.5/hooks"
	if _, _, err := svc.Create(ctxs[0], webhooks.Input{Name: &name, URL: &internal, SubsidiaryID: &sub, EventTypes: []string{domain.EventLoadChanged}}); domain.CodeOf(err) != domain.CodeInvalid {
		t.Errorf("an internal address: %v, want %s", err, domain.CodeInvalid)
	}
	if list, err := svc.List(ctxs[0]); err != nil || len(list) != 1 {
		t.Errorf("the tenant has %d webhooks (%v), want the one created", len(list), err)
	}
}
