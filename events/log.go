package events

import (
	"context"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage"
)

// Log is the outbox as resuming subscriptions read it (domain.ReplayLog).
type Log struct{ Outbox *storage.Outbox }

var _ domain.ReplayLog = Log{}

func (l Log) Locate(ctx context.Context, tenant uuid.UUID, id string, pos *domain.EventPosition) (domain.EventPosition, bool, error) {
	return l.Outbox.Locate(ctx, tenant, id, pos)
}

func (l Log) Page(ctx context.Context, tenant uuid.UUID, types []string, after, upTo domain.EventPosition, limit int) ([]*domain.LiveEvent, error) {
	rows, err := l.Outbox.TenantPage(ctx, tenant, types, after, upTo, limit)
	if err != nil {
		return nil, err
	}
	out := make([]*domain.LiveEvent, 0, len(rows))
	for i := range rows {
		ev, err := Parse(&rows[i])
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, nil
}
