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

var _ webhooks.DeliveryLog = (*WebhookStore)(nil)

// deliveryKeys are the delivery log's sort key, newest first.
var deliveryKeys = []string{"timestamptz", "uuid"}

// DeliveriesPage answers webhooks.DeliveryLog: newest first by
// (created_at, id), keyset-paged, attempts in one more query.
func (s *WebhookStore) DeliveriesPage(ctx context.Context, tenantID, webhookID uuid.UUID, w domain.Window) (domain.Page[webhooks.Delivery], error) {
	var page domain.Page[webhooks.Delivery]
	where, args := "", []any{tenantID, webhookID}
	if w.After != "" {
		parts, err := decodeCursor(w.After, deliveryKeys)
		if err != nil {
			return page, err
		}
		where = "AND (d.created_at, d.id) < (?::timestamptz, ?::uuid)"
		args = append(args, parts[0], parts[1])
	}
	var rows []deliveryRow
	attempts := map[uuid.UUID][]webhooks.Attempt{}
	err := s.db.InTenant(ctx, tenantID, func(ctx context.Context, tx bun.Tx) error {
		if err := tx.NewRaw(`SELECT d.id, d.webhook_id, d.event_id, e.type AS event_type, d.status, d.attempt, d.next_attempt_at, d.created_at, d.signature_scheme
			FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq
			WHERE d.tenant_id = ? AND d.webhook_id = ? `+where+`
			ORDER BY d.created_at DESC, d.id DESC LIMIT ?`, append(args, w.Limit+1)...).Scan(ctx, &rows); err != nil {
			return err
		}
		rows, page.HasMore = trim(rows, w.Limit)
		var err error
		attempts, err = attemptsOf(ctx, tx, tenantID, rows)
		return err
	})
	if err != nil {
		return page, err
	}
	for _, r := range rows {
		page.Items = append(page.Items, r.delivery(attempts[r.ID]))
		page.Cursors = append(page.Cursors, encodeCursor(r.CreatedAt.UTC().Format(time.RFC3339Nano), r.ID.String()))
	}
	return page, nil
}

// attemptsOf loads the attempts of the deliveries, by delivery, in order.
func attemptsOf(ctx context.Context, tx bun.Tx, tenantID uuid.UUID, deliveries []deliveryRow) (map[uuid.UUID][]webhooks.Attempt, error) {
	out := map[uuid.UUID][]webhooks.Attempt{}
	if len(deliveries) == 0 {
		return out, nil
	}
	ids := make([]uuid.UUID, len(deliveries))
	for i, d := range deliveries {
		ids[i] = d.ID
	}
	var rows []attemptRow
	if err := tx.NewRaw(`SELECT id, delivery_id, attempt, status_code, latency_ms, error, attempted_at, signature_scheme FROM webhook_attempts
		WHERE tenant_id = ? AND delivery_id IN (?) ORDER BY delivery_id, attempt`, tenantID, bun.In(ids)).Scan(ctx, &rows); err != nil {
		return nil, err
	}
	for _, a := range rows {
		da := webhooks.Attempt{ID: a.ID, Attempt: a.Attempt, StatusCode: a.StatusCode, LatencyMS: a.LatencyMS, AttemptedAt: a.AttemptedAt,
			SignatureScheme: webhooks.SignatureScheme(a.SignatureScheme)}
		if a.Error != nil {
			da.Error = *a.Error
		}
		out[a.DeliveryID] = append(out[a.DeliveryID], da)
	}
	return out, nil
}

// DeliveryEventID answers webhooks.DeliveryLog.
func (s *WebhookStore) DeliveryEventID(ctx context.Context, tenantID, webhookID, deliveryID uuid.UUID) (string, error) {
	var id string
	err := s.db.InTenant(ctx, tenantID, func(ctx context.Context, tx bun.Tx) error {
		return tx.QueryRowContext(ctx, "SELECT event_id FROM webhook_deliveries WHERE tenant_id = ? AND webhook_id = ? AND id = ?",
			tenantID, webhookID, deliveryID).Scan(&id)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return "", domain.NotFound("delivery %s of webhook %s not found", deliveryID, webhookID)
	}
	return id, err
}
