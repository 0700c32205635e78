package storage

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
	"github.com/haulgraph/haulgraph/secretbox"
)

// WebhookStore keeps webhook configurations, their encrypted secrets, and
// their deliveries. Management methods run in the caller's tenant (RLS);
// the delivery methods (webhooks_delivery.go) run as the system.
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

type webhookRow struct {
	bun.BaseModel `bun:"table:webhooks"`

	ID                        uuid.UUID  `bun:"id,pk"`
	TenantID                  uuid.UUID  `bun:"tenant_id"`
	SubsidiaryID              uuid.UUID  `bun:"subsidiary_id"`
	Name                      string     `bun:"name"`
	URL                       string     `bun:"url"`
	EventTypes                []string   `bun:"event_types,array"`
	IncludePreviousAttributes bool       `bun:"include_previous_attributes"`
	SignatureScheme           string     `bun:"signature_scheme"`
	PublicKey                 *string    `bun:"public_key"`
	State                     string     `bun:"state"`
	StateReason               string     `bun:"state_reason"`
	SecretCiphertext          []byte     `bun:"secret_ciphertext"`
	PreviousSecretCiphertext  []byte     `bun:"previous_secret_ciphertext"`
	PreviousSecretExpiresAt   *time.Time `bun:"previous_secret_expires_at"`
	FailingSince              *time.Time `bun:"failing_since"`
	CreatedAt                 time.Time  `bun:"created_at"`
	UpdatedAt                 time.Time  `bun:"updated_at"`
}

func (r *webhookRow) domain() webhooks.Webhook {
	w := webhooks.Webhook{
		ID: r.ID, TenantID: r.TenantID, SubsidiaryID: r.SubsidiaryID, Name: r.Name, URL: r.URL,
		EventTypes: r.EventTypes, IncludePreviousAttributes: r.IncludePreviousAttributes,
		State: webhooks.State(r.State), StateReason: r.StateReason, FailingSince: r.FailingSince,
		SignatureScheme: webhooks.SignatureScheme(r.SignatureScheme), CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
	if r.PublicKey != nil {
		w.PublicKey = *r.PublicKey
	}
	if r.PreviousSecretCiphertext != nil && r.PreviousSecretExpiresAt != nil && r.PreviousSecretExpiresAt.After(time.Now()) {
		w.RotationEndsAt = r.PreviousSecretExpiresAt
	}
	return w
}

// webhookColumns are the columns management reads (never the secrets).
var webhookColumns = []string{"id", "tenant_id", "subsidiary_id", "name", "url", "event_types", "include_previous_attributes",
	"state", "state_reason", "signature_scheme", "public_key", "previous_secret_expires_at", "previous_secret_ciphertext", "failing_since", "created_at", "updated_at"}

// SubsidiaryExists reports whether the subsidiary belongs to the tenant.
func (s *WebhookStore) SubsidiaryExists(ctx context.Context, tenantID, subsidiaryID uuid.UUID) (bool, error) {
	var ok bool
	err := s.db.InTenant(ctx, tenantID, func(ctx context.Context, tx bun.Tx) error {
		return tx.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM subsidiaries WHERE tenant_id = ? AND id = ?)", tenantID, subsidiaryID).Scan(&ok)
	})
	return ok, err
}

// CountWebhooks counts the tenant's webhooks.
func (s *WebhookStore) CountWebhooks(ctx context.Context, tenantID uuid.UUID) (int, error) {
	var n int
	err := s.db.InTenant(ctx, tenantID, func(ctx context.Context, tx bun.Tx) error {
		c, err := tx.NewSelect().Model((*webhookRow)(nil)).Where("tenant_id = ?", tenantID).Count(ctx)
		n = int(c)
		return err
	})
	return n, err
}

// CreateWebhook stores w with its secret encrypted.
func (s *WebhookStore) CreateWebhook(ctx context.Context, w *webhooks.Webhook, secret string) error {
	row := &webhookRow{
		ID: w.ID, TenantID: w.TenantID, SubsidiaryID: w.SubsidiaryID, Name: w.Name, URL: w.URL, EventTypes: w.EventTypes,
		IncludePreviousAttributes: w.IncludePreviousAttributes, State: string(w.State),
		SignatureScheme: string(w.SignatureScheme), PublicKey: nullable(w.PublicKey),
		SecretCiphertext: s.box.Seal([]byte(secret), secretAAD(w.ID)), CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt,
	}
	return s.db.InTenant(ctx, w.TenantID, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewInsert().Model(row).ExcludeColumn("previous_secret_ciphertext", "previous_secret_expires_at", "failing_since").Exec(ctx)
		return err
	})
}

// GetWebhook returns one webhook of the tenant, NOT_FOUND otherwise.
func (s *WebhookStore) GetWebhook(ctx context.Context, tenantID, id uuid.UUID) (*webhooks.Webhook, error) {
	var row webhookRow
	err := s.db.InTenant(ctx, tenantID, func(ctx context.Context, tx bun.Tx) error {
		return tx.NewSelect().Model(&row).Column(webhookColumns...).Where("tenant_id = ? AND id = ?", tenantID, id).Scan(ctx)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, domain.NotFound("webhook %s not found", id)
	}
	if err != nil {
		return nil, err
	}
	w := row.domain()
	return &w, nil
}

// ListWebhooks returns the tenant's webhooks, oldest first.
func (s *WebhookStore) ListWebhooks(ctx context.Context, tenantID uuid.UUID, limit int) ([]webhooks.Webhook, error) {
	var rows []webhookRow
	err := s.db.InTenant(ctx, tenantID, func(ctx context.Context, tx bun.Tx) error {
		return tx.NewSelect().Model(&rows).Column(webhookColumns...).Where("tenant_id = ?", tenantID).
			OrderExpr("created_at, id").Limit(int64(limit)).Scan(ctx)
	})
	out := make([]webhooks.Webhook, len(rows))
	for i := range rows {
		out[i] = rows[i].domain()
	}
	return out, err
}

// UpdateWebhook saves name, URL, events, IncludePreviousAttributes and state.
func (s *WebhookStore) UpdateWebhook(ctx context.Context, w *webhooks.Webhook) error {
	return s.db.InTenant(ctx, w.TenantID, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model((*webhookRow)(nil)).
			Set("name = ?", w.Name).Set("url = ?", w.URL).Set("event_types = ?", pgdialect.Array(w.EventTypes)).
			Set("include_previous_attributes = ?", w.IncludePreviousAttributes).Set("state = ?", string(w.State)).
			Set("updated_at = ?", w.UpdatedAt).
			Where("tenant_id = ? AND id = ?", w.TenantID, w.ID).Exec(ctx)
		return notFoundIfNone(res, err, w.ID)
	})
}

// SetWebhookState is a compare-and-set on (state, url).
func (s *WebhookStore) SetWebhookState(ctx context.Context, tenantID, id uuid.UUID, from webhooks.State, url string, to webhooks.State, reason string) (bool, error) {
	var n int64
	err := s.db.InTenant(ctx, tenantID, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE webhooks SET state = ?, state_reason = ?, updated_at = now(),
			failing_since = CASE WHEN ? = 'Active' THEN NULL ELSE failing_since END
			WHERE tenant_id = ? AND id = ? AND state = ? AND url = ?`, string(to), reason, string(to), tenantID, id, string(from), url)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n == 1, err
}

// RotateWebhookSecret replaces the secret (and the public key), keeping the
// old secret until ends.
func (s *WebhookStore) RotateWebhookSecret(ctx context.Context, tenantID, id uuid.UUID, secret, publicKey string, ends *time.Time) error {
	return s.db.InTenant(ctx, tenantID, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE webhooks SET
			previous_secret_ciphertext = CASE WHEN ?::timestamptz IS NULL THEN NULL ELSE secret_ciphertext END,
			previous_secret_expires_at = ?::timestamptz, secret_ciphertext = ?, public_key = ?, updated_at = now()
			WHERE tenant_id = ? AND id = ?`, ends, ends, s.box.Seal([]byte(secret), secretAAD(id)), nullable(publicKey), tenantID, id)
		return notFoundIfNone(res, err, id)
	})
}

// DeleteWebhook removes the webhook (deliveries and attempts cascade).
func (s *WebhookStore) DeleteWebhook(ctx context.Context, tenantID, id uuid.UUID) error {
	return s.db.InTenant(ctx, tenantID, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.ExecContext(ctx, "DELETE FROM webhooks WHERE tenant_id = ? AND id = ?", tenantID, id)
		return notFoundIfNone(res, err, id)
	})
}

// nullable stores "" as NULL.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func notFoundIfNone(res sql.Result, err error, id uuid.UUID) error {
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return domain.NotFound("webhook %s not found", id)
	}
	return nil
}
