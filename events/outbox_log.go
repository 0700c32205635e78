package events

import (
	"context"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/storage"
)

// OutboxLog is the outbox as resuming subscriptions read it (eventlog.ReplayLog).
type OutboxLog struct{ Outbox *storage.Outbox }

var _ eventlog.ReplayLog = OutboxLog{}

func (l OutboxLog) Locate(ctx context.Context, tenant uuid.UUID, id string, pos *eventlog.Position) (eventlog.Position, bool, error) {
	return l.Outbox.Locate(ctx, tenant, id, pos)
}

func (l OutboxLog) Page(ctx context.Context, tenant uuid.UUID, types []string, after, upTo eventlog.Position, limit int) ([]*eventlog.LiveEvent, error) {
	rows, err := l.Outbox.TenantPage(ctx, tenant, types, after, upTo, limit)
	if err != nil {
		return nil, err
	}
	out := make([]*eventlog.LiveEvent, 0, len(rows))
	for i := range rows {
		ev, err := Parse(&rows[i])
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, nil
}
