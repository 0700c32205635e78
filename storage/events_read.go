package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/domain"
)

// EventLog reads one tenant's outbox for the events API (domain.EventLog),
// in the tenant's transaction (RLS) and in commit order.
type EventLog struct{ DB *DB }

var _ domain.EventLogStore = (*EventLog)(nil)

// ListEvents answers domain.EventLogStore. As for webhook deliveries, only
// events of a subsidiary are listed. Commit order is seq order: seq values
// commit in order (0004_events.sql), so a page never skips an event that
// commits later with a lower position.
func (l *EventLog) ListEvents(ctx context.Context, tenantID uuid.UUID, q domain.EventQuery) ([]domain.LoggedEvent, error) {
	var rows []struct {
		Seq          int64           `bun:"seq"`
		ID           string          `bun:"id"`
		Type         string          `bun:"type"`
		SubsidiaryID uuid.UUID       `bun:"subsidiary_id"`
		Payload      json.RawMessage `bun:"payload"`
	}
	err := l.DB.InTenant(ctx, tenantID, func(ctx context.Context, tx bun.Tx) error {
		after := q.After
		if q.AfterEventID != "" {
			err := tx.QueryRowContext(ctx, "SELECT seq FROM events WHERE tenant_id = ? AND id = ?", tenantID, q.AfterEventID).Scan(&after)
			if errors.Is(err, sql.ErrNoRows) {
				var v domain.Validation
				v.Add("after", "no event "+q.AfterEventID+" (events are kept 30 days)")
				return v.Err()
			}
			if err != nil {
				return err
			}
		}
		sel := tx.NewSelect().Table("events").Column("seq", "id", "type", "subsidiary_id", "payload").
			Where("tenant_id = ?", tenantID).Where("seq > ?", after).Where("subsidiary_id IS NOT NULL").
			Where("type IN (?)", bun.In(q.Types))
		if q.SubsidiaryID != nil {
			sel = sel.Where("subsidiary_id = ?", *q.SubsidiaryID)
		}
		if q.LoadNumber != "" {
			sel = sel.Where("payload #>> '{data,load,LoadNumber}' = ?", q.LoadNumber)
		}
		if q.Since != nil {
			sel = sel.Where("created_at >= ?", *q.Since)
		}
		return sel.Order("seq").Limit(int64(q.Limit+1)).Scan(ctx, &rows)
	})
	if err != nil {
		return nil, err
	}
	out := make([]domain.LoggedEvent, len(rows))
	for i, r := range rows {
		out[i] = domain.LoggedEvent{Position: r.Seq, ID: r.ID, Type: r.Type, SubsidiaryID: r.SubsidiaryID, Payload: r.Payload}
	}
	return out, nil
}
