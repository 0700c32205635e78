package storage

import (
	"context"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain/eventlog"
)

// The outbox behind eventlog's ports: the relay's live tail
// (eventlog.Outbox) and the stored stream resuming subscriptions replay
// (eventlog.ReplayLog). They hand events over as stored; parsing them is
// eventlog's.

var (
	_ eventlog.Outbox    = (*Outbox)(nil)
	_ eventlog.ReplayLog = (*EventLog)(nil)
)

// Tail is eventlog.Outbox's read: After's events as stored.
func (o *Outbox) Tail(ctx context.Context, pos eventlog.Position, limit int) ([]eventlog.StoredEvent, bool, error) {
	rows, held, err := o.After(ctx, pos, limit)
	return storedEvents(rows), held, err
}

// Page is eventlog.ReplayLog's: Outbox.TenantPage's events as stored.
func (l *EventLog) Page(ctx context.Context, tenant uuid.UUID, types []string, after, upTo eventlog.Position, limit int) ([]eventlog.StoredEvent, error) {
	rows, err := (&Outbox{DB: l.DB}).TenantPage(ctx, tenant, types, after, upTo, limit)
	return storedEvents(rows), err
}

func storedEvents(rows []OutboxEvent) []eventlog.StoredEvent {
	if len(rows) == 0 {
		return nil
	}
	out := make([]eventlog.StoredEvent, len(rows))
	for i := range rows {
		e := &rows[i]
		out[i] = eventlog.StoredEvent{Pos: e.Pos(), ID: e.ID, TenantID: e.TenantID, SubsidiaryID: e.SubsidiaryID, Type: e.Type,
			Payload: e.Payload, CreatedAt: e.CreatedAt}
		if e.Traceparent != nil {
			out[i].Traceparent = *e.Traceparent
		}
	}
	return out
}
