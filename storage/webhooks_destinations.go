package storage

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// The broker destinations of WebhookStore: webhooks.DestinationStore. A
// destination is a webhooks row with a type, its broker settings (broker)
// and its sealed credentials.

var _ webhooks.DestinationStore = (*WebhookStore)(nil)

// credentialsAAD binds sealed credentials to their destination and column:
// a ciphertext copied to another row, or from the secret's column, does not
// open.
func credentialsAAD(id uuid.UUID) []byte { return append(id[:], "credentials"...) }

// TenantSlug is the tenant's slug (the second token of NATS subjects).
func (s *WebhookStore) TenantSlug(ctx context.Context, tenantID uuid.UUID) (string, error) {
	var slug string
	err := s.db.readTenant(ctx, tenantID, func(ctx context.Context, tx *Tx) error {
		tx.query("SELECT slug FROM tenants WHERE id = $1", func(r pgx.Rows) error { return r.Scan(&slug) }, tenantID)
		return nil
	})
	if err == nil && slug == "" {
		return "", domain.NotFound("tenant %s not found", tenantID)
	}
	return slug, err
}

// CreateDestination stores w of any type, its secret and credentials
// sealed.
func (s *WebhookStore) CreateDestination(ctx context.Context, w *webhooks.Webhook, secret string, creds webhooks.Credentials) error {
	plain, err := json.Marshal(creds)
	if err != nil {
		return err
	}
	return s.insertWebhook(ctx, w, w.Type, secret, s.box.Seal(plain, credentialsAAD(w.ID)))
}

// DestinationCredentials opens the credentials of the tenant's destination.
func (s *WebhookStore) DestinationCredentials(ctx context.Context, tenantID, id uuid.UUID) (webhooks.Credentials, error) {
	var sealed []byte
	found := false
	err := s.db.readTenant(ctx, tenantID, func(ctx context.Context, tx *Tx) error {
		tx.query("SELECT credentials_ciphertext FROM webhooks WHERE tenant_id = $1 AND id = $2", func(r pgx.Rows) error {
			found = true
			return r.Scan(&sealed)
		}, tenantID, id)
		return nil
	})
	if err != nil {
		return webhooks.Credentials{}, err
	}
	if !found {
		return webhooks.Credentials{}, domain.NotFound("webhook %s not found", id)
	}
	return s.openCredentials(id, sealed)
}

func (s *WebhookStore) openCredentials(id uuid.UUID, sealed []byte) (webhooks.Credentials, error) {
	var c webhooks.Credentials
	if sealed == nil {
		return c, nil
	}
	plain, err := s.box.Open(sealed, credentialsAAD(id))
	if err != nil {
		return c, fmt.Errorf("destination %s: %w", id, err)
	}
	return c, json.Unmarshal(plain, &c)
}

// openTarget completes a claimed broker delivery: its settings and opened
// credentials (the URL and tenant slug were scanned).
func (s *WebhookStore) openTarget(c *webhooks.ClaimedDelivery, broker *webhooks.Broker, sealed []byte) error {
	if !c.Type.IsBroker() {
		return nil
	}
	creds, err := s.openCredentials(c.WebhookID, sealed)
	if err != nil {
		return err
	}
	c.Target.Type, c.Target.URL, c.Target.Credentials = c.Type, c.URL, creds
	if broker != nil {
		c.Target.Broker = *broker
	}
	return nil
}
