package storage

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
	"github.com/haulgraph/haulgraph/secretbox"
)

// WebhookStore keeps webhook configurations, their encrypted secrets, and
// their deliveries. Management methods run in the caller's tenant (RLS);
// the delivery methods (webhooks_dispatch.go) run as the system.
type WebhookStore struct {
	db  *DB
	box *secretbox.Box
}

// NewWebhookStore encrypts secrets with box.
func NewWebhookStore(db *DB, box *secretbox.Box) *WebhookStore {
	return &WebhookStore{db: db, box: box}
}

var _ webhooks.Store = (*WebhookStore)(nil)

// secretAAD binds a sealed secret to its webhook: a ciphertext copied to
// another row does not open.
func secretAAD(webhookID uuid.UUID) []byte { return webhookID[:] }

// webhookColumns are the columns management reads (never the secrets),
// named as webhooks.Webhook's fields. rotation_ends_at is the end of a
// rotation as saved: webhooks.RotationLasts decides whether it still runs.
const webhookColumns = `id, tenant_id, subsidiary_id, name, url, event_types, include_previous_attributes,
	state, state_reason, signature_scheme, coalesce(public_key, '') AS public_key,
	CASE WHEN previous_secret_ciphertext IS NOT NULL THEN previous_secret_expires_at END AS rotation_ends_at,
	failing_since, created_at, updated_at, type, broker`

// scanWebhook reads webhookColumns by name.
func scanWebhook(r pgx.Rows) (webhooks.Webhook, error) {
	return pgx.RowToStructByName[webhooks.Webhook](r)
}

// SubsidiaryExists reports whether the subsidiary belongs to the tenant.
func (s *WebhookStore) SubsidiaryExists(ctx context.Context, tenantID, subsidiaryID uuid.UUID) (bool, error) {
	var ok bool
	err := s.db.readTenant(ctx, tenantID, func(ctx context.Context, tx *Tx) error {
		tx.query("SELECT EXISTS (SELECT 1 FROM subsidiaries WHERE tenant_id = $1 AND id = $2)",
			func(r pgx.Rows) error { return r.Scan(&ok) }, tenantID, subsidiaryID)
		return nil
	})
	return ok, err
}

// CountWebhooks counts the tenant's webhooks.
func (s *WebhookStore) CountWebhooks(ctx context.Context, tenantID uuid.UUID) (int, error) {
	var n int
	err := s.db.readTenant(ctx, tenantID, func(ctx context.Context, tx *Tx) error {
		tx.query("SELECT count(*) FROM webhooks WHERE tenant_id = $1", func(r pgx.Rows) error { return r.Scan(&n) }, tenantID)
		return nil
	})
	return n, err
}

// CreateWebhook stores w, a webhook, with its secret encrypted.
func (s *WebhookStore) CreateWebhook(ctx context.Context, w *webhooks.Webhook, secret string) error {
	return s.insertWebhook(ctx, w, webhooks.TypeWebhook, secret, nil)
}

// insertWebhook stores w as of type t, its secret sealed, with its sealed
// credentials (nil: none).
func (s *WebhookStore) insertWebhook(ctx context.Context, w *webhooks.Webhook, t webhooks.Type, secret string, credentials []byte) error {
	return s.db.inTenantTx(ctx, w.TenantID, func(ctx context.Context, tx *Tx) error {
		tx.exec(`INSERT INTO webhooks (id, tenant_id, subsidiary_id, name, url, event_types, include_previous_attributes,
			signature_scheme, public_key, state, state_reason, secret_ciphertext, created_at, updated_at, type, broker, credentials_ciphertext)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
			w.ID, w.TenantID, w.SubsidiaryID, w.Name, w.URL, w.EventTypes, w.IncludePreviousAttributes,
			string(w.SignatureScheme), nullable(w.PublicKey), string(w.State), w.StateReason,
			s.box.Seal([]byte(secret), secretAAD(w.ID)), w.CreatedAt, w.UpdatedAt, string(t), w.Broker, credentials)
		return nil
	})
}

// GetWebhook returns one webhook of the tenant, NOT_FOUND otherwise.
func (s *WebhookStore) GetWebhook(ctx context.Context, tenantID, id uuid.UUID) (*webhooks.Webhook, error) {
	var out *webhooks.Webhook
	err := s.db.readTenant(ctx, tenantID, func(ctx context.Context, tx *Tx) error {
		tx.query("SELECT "+webhookColumns+" FROM webhooks WHERE tenant_id = $1 AND id = $2", func(r pgx.Rows) error {
			w, err := scanWebhook(r)
			out = &w
			return err
		}, tenantID, id)
		return nil
	})
	if err == nil && out == nil {
		return nil, domain.NotFound("webhook %s not found", id)
	}
	return out, err
}

// ListWebhooks returns the tenant's webhooks, oldest first.
func (s *WebhookStore) ListWebhooks(ctx context.Context, tenantID uuid.UUID, limit int) ([]webhooks.Webhook, error) {
	out := []webhooks.Webhook{}
	err := s.db.readTenant(ctx, tenantID, func(ctx context.Context, tx *Tx) error {
		tx.query("SELECT "+webhookColumns+" FROM webhooks WHERE tenant_id = $1 ORDER BY created_at, id LIMIT $2", func(r pgx.Rows) error {
			w, err := scanWebhook(r)
			out = append(out, w)
			return err
		}, tenantID, limit)
		return nil
	})
	return out, err
}

// ChangeWebhook is webhooks.Store's one write shape: it locks the
// webhook and reads it, change decides, and the store saves the result, in
// one tenant transaction of two round trips.
func (s *WebhookStore) ChangeWebhook(ctx context.Context, tenantID, id uuid.UUID, change func(w *webhooks.Webhook) error) (*webhooks.Webhook, error) {
	var out *webhooks.Webhook
	err := s.db.inTenantTx(ctx, tenantID, func(ctx context.Context, tx *Tx) error {
		tx.query("SELECT "+webhookColumns+" FROM webhooks WHERE tenant_id = $1 AND id = $2 FOR UPDATE", func(r pgx.Rows) error {
			w, err := scanWebhook(r)
			out = &w
			return err
		}, tenantID, id)
		if err := tx.flush(ctx); err != nil {
			return err
		}
		if out == nil {
			return domain.NotFound("webhook %s not found", id)
		}
		if err := change(out); err != nil {
			return err
		}
		tx.exec(`UPDATE webhooks SET name = $3, url = $4, event_types = $5, include_previous_attributes = $6,
			state = $7, state_reason = $8, failing_since = $9, updated_at = $10
			WHERE tenant_id = $1 AND id = $2`, tenantID, id, out.Name, out.URL, out.EventTypes, out.IncludePreviousAttributes,
			string(out.State), out.StateReason, out.FailingSince, out.UpdatedAt)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// RotateWebhookSecret replaces the secret (and the public key), keeping the
// old secret until ends.
func (s *WebhookStore) RotateWebhookSecret(ctx context.Context, tenantID, id uuid.UUID, secret, publicKey string, ends *time.Time) error {
	var n int64
	err := s.db.inTenantTx(ctx, tenantID, func(ctx context.Context, tx *Tx) error {
		tx.execCount(&n, `UPDATE webhooks SET
			previous_secret_ciphertext = CASE WHEN $1::timestamptz IS NULL THEN NULL ELSE secret_ciphertext END,
			previous_secret_expires_at = $1::timestamptz, secret_ciphertext = $2, public_key = $3, updated_at = now()
			WHERE tenant_id = $4 AND id = $5`, ends, s.box.Seal([]byte(secret), secretAAD(id)), nullable(publicKey), tenantID, id)
		return nil
	})
	return notFoundIfNone(n, err, id)
}

// DeleteWebhook removes the webhook (deliveries and attempts cascade).
func (s *WebhookStore) DeleteWebhook(ctx context.Context, tenantID, id uuid.UUID) error {
	var n int64
	err := s.db.inTenantTx(ctx, tenantID, func(ctx context.Context, tx *Tx) error {
		tx.execCount(&n, "DELETE FROM webhooks WHERE tenant_id = $1 AND id = $2", tenantID, id)
		return nil
	})
	return notFoundIfNone(n, err, id)
}

// nullable stores "" as NULL.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func notFoundIfNone(n int64, err error, id uuid.UUID) error {
	if err == nil && n == 0 {
		return domain.NotFound("webhook %s not found", id)
	}
	return err
}
