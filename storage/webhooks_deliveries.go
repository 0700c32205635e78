package storage

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// Redeliver queues a new delivery of eventID (an event of the webhook's
// tenant and subsidiary), due now.
func (s *WebhookStore) Redeliver(ctx context.Context, tenantID, webhookID uuid.UUID, eventID string, now time.Time) (*webhooks.Delivery, error) {
	d := &webhooks.Delivery{ID: uuid.New(), WebhookID: webhookID, EventID: eventID, Status: webhooks.DeliveryPending, NextAttemptAt: &now, CreatedAt: now}
	err := s.db.inTenantTx(ctx, tenantID, func(ctx context.Context, tx *Tx) error {
		exists := queueWebhookExists(tx, tenantID, webhookID)
		inserted := false
		tx.query(`INSERT INTO webhook_deliveries
			(id, tenant_id, webhook_id, event_id, event_seq, status, next_attempt_at, include_previous_attributes, redelivery, created_at, signature_scheme, load_key)
			SELECT $1, e.tenant_id, w.id, e.id, e.seq, `+pendingSQL+`, $2, w.include_previous_attributes, true, $2, w.signature_scheme, `+loadKeySQL+`
			FROM events e JOIN webhooks w ON w.tenant_id = e.tenant_id AND w.subsidiary_id = e.subsidiary_id
			WHERE e.tenant_id = $3 AND e.id = $4 AND w.id = $5
			RETURNING (SELECT type FROM events WHERE id = $4), signature_scheme`, func(r pgx.Rows) error {
			inserted = true
			return r.Scan(&d.EventType, &d.SignatureScheme)
		}, d.ID, now, tenantID, eventID, webhookID)
		if err := tx.flush(ctx); err != nil {
			return err
		}
		if err := exists(); err != nil {
			return err
		}
		if !inserted {
			return domain.NotFound("event %s not found for this webhook's subsidiary", eventID)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

type deliveryRow struct {
	ID            uuid.UUID  `db:"id"`
	WebhookID     uuid.UUID  `db:"webhook_id"`
	EventID       string     `db:"event_id"`
	EventType     string     `db:"event_type"`
	Status        string     `db:"status"`
	Attempt       int        `db:"attempt"`
	NextAttemptAt *time.Time `db:"next_attempt_at"`
	CreatedAt     time.Time  `db:"created_at"`
	Scheme        string     `db:"signature_scheme"`
}

const deliveryColumns = "d.id, d.webhook_id, d.event_id, e.type AS event_type, d.status, d.attempt, d.next_attempt_at, d.created_at, d.signature_scheme"

func scanDelivery(r pgx.Rows) (deliveryRow, error) {
	return pgx.RowToStructByName[deliveryRow](r)
}

// ListDeliveries returns the webhook's latest deliveries and their attempts.
func (s *WebhookStore) ListDeliveries(ctx context.Context, tenantID, webhookID uuid.UUID, limit int) ([]webhooks.Delivery, error) {
	m, err := s.ListDeliveriesFor(ctx, tenantID, []uuid.UUID{webhookID}, limit)
	return m[webhookID], err
}

// ListDeliveriesFor returns the latest deliveries (at most limit each) of
// several webhooks with their attempts: two round trips, whatever the
// numbers.
func (s *WebhookStore) ListDeliveriesFor(ctx context.Context, tenantID uuid.UUID, webhookIDs []uuid.UUID, limit int) (map[uuid.UUID][]webhooks.Delivery, error) {
	var rows []deliveryRow
	var attempts map[uuid.UUID][]webhooks.Attempt
	err := s.db.readTenant(ctx, tenantID, func(ctx context.Context, tx *Tx) error {
		tx.query(`SELECT `+deliveryColumns+` FROM (
			SELECT d.*, row_number() OVER (PARTITION BY d.webhook_id ORDER BY d.created_at DESC, d.id) AS n
			FROM webhook_deliveries d WHERE d.tenant_id = $1 AND d.webhook_id = ANY($2)) d
			JOIN events e ON e.seq = d.event_seq
			WHERE d.n <= $3 ORDER BY d.webhook_id, d.created_at DESC, d.id`, func(r pgx.Rows) error {
			d, err := scanDelivery(r)
			rows = append(rows, d)
			return err
		}, tenantID, webhookIDs, limit)
		if err := tx.flush(ctx); err != nil {
			return err
		}
		attempts = queueAttempts(tx, tenantID, rows)
		return nil
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

// queueWebhookExists queues the check that the tenant has the webhook; the
// returned func answers NotFound, once the flush has run, when it has not.
func queueWebhookExists(tx *Tx, tenantID, webhookID uuid.UUID) func() error {
	found := false
	tx.query("SELECT true FROM webhooks WHERE tenant_id = $1 AND id = $2", func(r pgx.Rows) error { found = true; return nil }, tenantID, webhookID)
	return func() error {
		if !found {
			return domain.NotFound("webhook %s not found", webhookID)
		}
		return nil
	}
}

// RecoverDeliveries is webhooks.Store's: the webhook's Failed deliveries
// created since become Pending, due now, with a fresh retry chain
// (chain_base = the attempts made so far; claimDeliveries counts the chain
// from it). The statement is the rule's one place.
func (s *WebhookStore) RecoverDeliveries(ctx context.Context, tenantID, webhookID uuid.UUID, since, now time.Time) (int, error) {
	var n int64
	err := s.db.inTenantTx(ctx, tenantID, func(ctx context.Context, tx *Tx) error {
		exists := queueWebhookExists(tx, tenantID, webhookID)
		// The first of each load is due now, the others of its load wait
		// behind it (as dispatched ones do) and so does one whose load is
		// busy.
		tx.execCount(&n, `UPDATE webhook_deliveries d SET status = `+pendingSQL+`, chain_base = d.attempt, updated_at = $1,
			next_attempt_at = CASE WHEN d.load_key IS NULL OR r.place = 1 AND NOT `+loadBusySQL+` THEN $1::timestamptz END
			FROM (SELECT id, row_number() OVER (PARTITION BY load_key ORDER BY event_seq) AS place FROM webhook_deliveries
				WHERE tenant_id = $2 AND webhook_id = $3 AND status = `+sqlLiteral(webhooks.DeliveryFailed)+` AND created_at >= $4) r
			WHERE d.id = r.id`, now, tenantID, webhookID, since)
		if err := tx.flush(ctx); err != nil {
			return err
		}
		return exists() // rolls the update back: it touched nothing of another tenant
	})
	return int(n), err
}
