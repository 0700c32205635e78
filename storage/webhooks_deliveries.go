package storage

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// Redeliver queues a new delivery of eventID (an event of the webhook's
// tenant and subsidiary), due now.
func (s *WebhookStore) Redeliver(ctx context.Context, tenantID, webhookID uuid.UUID, eventID string, now time.Time) (*webhooks.Delivery, error) {
	d := &webhooks.Delivery{ID: uuid.New(), WebhookID: webhookID, EventID: eventID, Status: webhooks.DeliveryPending, NextAttemptAt: &now, CreatedAt: now}
	err := s.db.InTenant(ctx, tenantID, func(ctx context.Context, tx bun.Tx) error {
		if err := webhookExists(ctx, tx, tenantID, webhookID); err != nil {
			return err
		}
		err := tx.QueryRowContext(ctx, `INSERT INTO webhook_deliveries
			(id, tenant_id, webhook_id, event_id, event_seq, status, next_attempt_at, include_previous_attributes, redelivery, created_at, signature_scheme)
			SELECT ?, e.tenant_id, w.id, e.id, e.seq, 'Pending', ?, w.include_previous_attributes, true, ?, w.signature_scheme
			FROM events e JOIN webhooks w ON w.tenant_id = e.tenant_id AND w.subsidiary_id = e.subsidiary_id
			WHERE e.tenant_id = ? AND e.id = ? AND w.id = ?
			RETURNING (SELECT type FROM events WHERE id = ?), signature_scheme`,
			d.ID, now, now, tenantID, eventID, webhookID, eventID).Scan(&d.EventType, &d.SignatureScheme)
		if errors.Is(err, sql.ErrNoRows) {
			return domain.NotFound("event %s not found for this webhook's subsidiary", eventID)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

type deliveryRow struct {
	ID            uuid.UUID  `bun:"id"`
	WebhookID     uuid.UUID  `bun:"webhook_id"`
	EventID       string     `bun:"event_id"`
	EventType     string     `bun:"event_type"`
	Status        string     `bun:"status"`
	Attempt       int        `bun:"attempt"`
	NextAttemptAt *time.Time `bun:"next_attempt_at"`
	CreatedAt     time.Time  `bun:"created_at"`
	Scheme        string     `bun:"signature_scheme"`
}

type attemptRow struct {
	ID          uuid.UUID `bun:"id"`
	DeliveryID  uuid.UUID `bun:"delivery_id"`
	Attempt     int       `bun:"attempt"`
	StatusCode  *int      `bun:"status_code"`
	LatencyMS   int       `bun:"latency_ms"`
	Error       *string   `bun:"error"`
	AttemptedAt time.Time `bun:"attempted_at"`
	// SignatureScheme is what the attempt was signed with.
	SignatureScheme string `bun:"signature_scheme"`
}

// ListDeliveries returns the webhook's latest deliveries and their attempts.
func (s *WebhookStore) ListDeliveries(ctx context.Context, tenantID, webhookID uuid.UUID, limit int) ([]webhooks.Delivery, error) {
	m, err := s.ListDeliveriesFor(ctx, tenantID, []uuid.UUID{webhookID}, limit)
	return m[webhookID], err
}

// ListDeliveriesFor returns the latest deliveries (at most limit each) of
// several webhooks with their attempts: two queries, whatever the numbers.
func (s *WebhookStore) ListDeliveriesFor(ctx context.Context, tenantID uuid.UUID, webhookIDs []uuid.UUID, limit int) (map[uuid.UUID][]webhooks.Delivery, error) {
	var rows []deliveryRow
	var attempts map[uuid.UUID][]webhooks.Attempt
	err := s.db.InTenant(ctx, tenantID, func(ctx context.Context, tx bun.Tx) error {
		if err := tx.NewRaw(`SELECT id, webhook_id, event_id, event_type, status, attempt, next_attempt_at, created_at, signature_scheme FROM (
			SELECT d.id, d.webhook_id, d.event_id, e.type AS event_type, d.status, d.attempt, d.next_attempt_at, d.created_at, d.signature_scheme,
			       row_number() OVER (PARTITION BY d.webhook_id ORDER BY d.created_at DESC, d.id) AS n
			FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq
			WHERE d.tenant_id = ? AND d.webhook_id IN (?)) r
			WHERE n <= ? ORDER BY webhook_id, created_at DESC, id`, tenantID, bun.In(webhookIDs), limit).Scan(ctx, &rows); err != nil {
			return err
		}
		var err error
		attempts, err = attemptsOf(ctx, tx, tenantID, rows)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := map[uuid.UUID][]webhooks.Delivery{}
	for _, r := range rows {
		out[r.WebhookID] = append(out[r.WebhookID], r.delivery(attempts[r.ID]))
	}
	return out, nil
}

// delivery is the row with its attempts as the domain sees it.
func (r deliveryRow) delivery(attempts []webhooks.Attempt) webhooks.Delivery {
	return webhooks.Delivery{ID: r.ID, WebhookID: r.WebhookID, EventID: r.EventID, EventType: r.EventType,
		Status: r.Status, Attempt: r.Attempt, NextAttemptAt: r.NextAttemptAt, CreatedAt: r.CreatedAt,
		SignatureScheme: webhooks.SignatureScheme(r.Scheme), Attempts: attempts}
}

// webhookExists answers NotFound for a webhook the tenant does not have.
func webhookExists(ctx context.Context, tx bun.Tx, tenantID, webhookID uuid.UUID) error {
	var found bool
	err := tx.QueryRowContext(ctx, "SELECT true FROM webhooks WHERE tenant_id = ? AND id = ?", tenantID, webhookID).Scan(&found)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.NotFound("webhook %s not found", webhookID)
	}
	return err
}

// RecoverDeliveries is webhooks.Store's: the webhook's Failed deliveries
// created since become Pending, due now, with a fresh retry chain
// (chain_base = the attempts made so far).
func (s *WebhookStore) RecoverDeliveries(ctx context.Context, tenantID, webhookID uuid.UUID, since, now time.Time) (int, error) {
	var n int64
	err := s.db.InTenant(ctx, tenantID, func(ctx context.Context, tx bun.Tx) error {
		if err := webhookExists(ctx, tx, tenantID, webhookID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET status = 'Pending', next_attempt_at = ?, chain_base = attempt, updated_at = ?
			WHERE tenant_id = ? AND webhook_id = ? AND status = 'Failed' AND created_at >= ?`, now, now, tenantID, webhookID, since)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), err
}
