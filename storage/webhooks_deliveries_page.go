package storage

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
)

var _ webhooks.DeliveryLog = (*WebhookStore)(nil)

// deliveryKeys are the delivery log's sort key, newest first.
var deliveryKeys = []string{"timestamptz", "uuid"}

// DeliveriesPage answers webhooks.DeliveryLog: newest first by
// (created_at, id), keyset-paged, attempts in one more round trip.
func (s *WebhookStore) DeliveriesPage(ctx context.Context, tenantID, webhookID uuid.UUID, w domain.Window) (domain.Page[webhooks.Delivery], error) {
	var page domain.Page[webhooks.Delivery]
	where, args := "", []any{tenantID, webhookID, w.Limit + 1}
	if w.After != "" {
		parts, err := decodeCursor(w.After, deliveryKeys)
		if err != nil {
			return page, err
		}
		where = "AND (d.created_at, d.id) < ($4::timestamptz, $5::uuid)"
		args = append(args, parts[0], parts[1])
	}
	var rows []deliveryRow
	var attempts map[uuid.UUID][]webhooks.Attempt
	err := s.db.readTenant(ctx, tenantID, func(ctx context.Context, tx *Tx) error {
		tx.query(`SELECT `+deliveryColumns+`
			FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq
			WHERE d.tenant_id = $1 AND d.webhook_id = $2 `+where+`
			ORDER BY d.created_at DESC, d.id DESC LIMIT $3`, func(r pgx.Rows) error {
			d, err := scanDelivery(r)
			rows = append(rows, d)
			return err
		}, args...)
		if err := tx.flush(ctx); err != nil {
			return err
		}
		rows, page.HasMore = trim(rows, w.Limit)
		attempts = queueAttempts(tx, tenantID, rows)
		return nil
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

// attemptRow is an attempt with the delivery it belongs to.
type attemptRow struct {
	DeliveryID uuid.UUID `db:"delivery_id"`
	webhooks.Attempt
}

// queueAttempts queues the read of the deliveries' attempts; the map fills,
// by delivery and in order, when the flush that sends it runs.
func queueAttempts(tx *Tx, tenantID uuid.UUID, deliveries []deliveryRow) map[uuid.UUID][]webhooks.Attempt {
	out := map[uuid.UUID][]webhooks.Attempt{}
	if len(deliveries) == 0 {
		return out
	}
	ids := make([]uuid.UUID, len(deliveries))
	for i, d := range deliveries {
		ids[i] = d.ID
	}
	tx.query(`SELECT delivery_id, id, attempt, status_code, latency_ms, coalesce(error, '') AS error, attempted_at, signature_scheme
		FROM webhook_attempts WHERE tenant_id = $1 AND delivery_id = ANY($2) ORDER BY delivery_id, attempt`, func(r pgx.Rows) error {
		a, err := pgx.RowToStructByName[attemptRow](r)
		out[a.DeliveryID] = append(out[a.DeliveryID], a.Attempt)
		return err
	}, tenantID, ids)
	return out
}

// DeliveryEventID answers webhooks.DeliveryLog.
func (s *WebhookStore) DeliveryEventID(ctx context.Context, tenantID, webhookID, deliveryID uuid.UUID) (string, error) {
	var id string
	found := false
	err := s.db.readTenant(ctx, tenantID, func(ctx context.Context, tx *Tx) error {
		tx.query("SELECT event_id FROM webhook_deliveries WHERE tenant_id = $1 AND webhook_id = $2 AND id = $3",
			func(r pgx.Rows) error { found = true; return r.Scan(&id) }, tenantID, webhookID, deliveryID)
		return nil
	})
	if err == nil && !found {
		return "", domain.NotFound("delivery %s of webhook %s not found", deliveryID, webhookID)
	}
	return id, err
}
