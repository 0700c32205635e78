package storage

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/domain/eventlog"
)

// EventLog reads one tenant's outbox for the events API (eventlog.Log),
// in the tenant's transaction (RLS) and in commit order.
type EventLog struct{ DB *DB }

var _ eventlog.Store = (*EventLog)(nil)

// Locate answers eventlog.Locator, as Outbox.Locate does for resuming
// subscriptions.
func (l *EventLog) Locate(ctx context.Context, tenant uuid.UUID, id string, pos *eventlog.Position) (eventlog.Position, bool, error) {
	return (&Outbox{DB: l.DB}).Locate(ctx, tenant, id, pos)
}

// ListEvents answers eventlog.Store. As for webhook deliveries, only
// events of a subsidiary are listed. It reads Outbox's order and only final
// events (below the visibility horizon, 0010_outbox_horizon.sql), so a page
// never passes an event that commits later at a lower position; a client may
// always continue after the last event it was given.
func (l *EventLog) ListEvents(ctx context.Context, tenantID uuid.UUID, q eventlog.Query) ([]eventlog.LoggedEvent, error) {
	var rows []struct {
		Seq          int64           `bun:"seq"`
		Xact         int64           `bun:"xact"`
		ID           string          `bun:"id"`
		Type         string          `bun:"type"`
		SubsidiaryID uuid.UUID       `bun:"subsidiary_id"`
		Payload      json.RawMessage `bun:"payload"`
	}
	err := l.DB.InTenant(ctx, tenantID, func(ctx context.Context, tx bun.Tx) error {
		after := q.After
		sel := tx.NewSelect().Table("events").ColumnExpr("seq, xact::text::bigint AS xact, id, type, subsidiary_id, payload").
			Where("tenant_id = ?", tenantID).
			Where("(xact, seq) > (?::bigint::text::xid8, ?)", after.Xact, after.Seq).
			Where("xact < pg_snapshot_xmin(pg_current_snapshot())").
			Where("subsidiary_id IS NOT NULL").Where("type IN (?)", bun.In(q.Types))
		if q.SubsidiaryID != nil {
			sel = sel.Where("subsidiary_id = ?", *q.SubsidiaryID)
		}
		if q.LoadNumber != "" {
			sel = sel.Where("payload #>> '{data,load,LoadNumber}' = ?", q.LoadNumber)
		}
		if q.Since != nil {
			sel = sel.Where("created_at >= ?", *q.Since)
		}
		return sel.OrderExpr("xact, seq").Limit(int64(q.Limit+1)).Scan(ctx, &rows)
	})
	if err != nil {
		return nil, err
	}
	out := make([]eventlog.LoggedEvent, len(rows))
	for i, r := range rows {
		out[i] = eventlog.LoggedEvent{Position: eventlog.Position{Xact: r.Xact, Seq: r.Seq}, ID: r.ID, Type: r.Type,
			SubsidiaryID: r.SubsidiaryID, Payload: r.Payload}
	}
	return out, nil
}
