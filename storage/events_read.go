package storage

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

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
		Seq          int64           `db:"seq"`
		Xact         int64           `db:"xact"`
		ID           string          `db:"id"`
		Type         string          `db:"type"`
		SubsidiaryID uuid.UUID       `db:"subsidiary_id"`
		Payload      json.RawMessage `db:"payload"`
	}
	err := l.DB.readTenant(ctx, tenantID, func(ctx context.Context, tx *Tx) error {
		after := q.After
		where := `tenant_id = $1 AND (xact, seq) > ($2::bigint::text::xid8, $3) AND xact < pg_snapshot_xmin(pg_current_snapshot())
			AND subsidiary_id IS NOT NULL AND type = ANY($4)`
		args := params{tenantID, after.Xact, after.Seq, q.Types}
		if q.SubsidiaryID != nil {
			where += " AND subsidiary_id = " + args.bind(*q.SubsidiaryID)
		}
		if q.LoadNumber != "" {
			where += " AND payload #>> '{data,load,LoadNumber}' = " + args.bind(q.LoadNumber)
		}
		if q.Since != nil {
			where += " AND created_at >= " + args.bind(*q.Since)
		}
		selectRows(tx, &rows, "SELECT seq, xact::text::bigint AS xact, id, type, subsidiary_id, payload FROM events WHERE "+where+
			" ORDER BY xact, seq LIMIT "+args.bind(q.Limit+1), args...)
		return nil
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
