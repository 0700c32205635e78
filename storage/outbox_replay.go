package storage

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/domain/eventlog"
)

// Reads of one tenant's stored events, for subscriptions resuming after an
// event (eventlog.ReplayLog: EventLog.Page). They run as the tenant (RLS).

// Locate finds tenant's event by id or, with id empty, at pos. Only the
// tenant's events are read: whether another tenant has one is no fact a
// caller may learn.
func (o *Outbox) Locate(ctx context.Context, tenant uuid.UUID, id string, pos *eventlog.Position) (at eventlog.Position, found bool, err error) {
	where, args := "id = $2", []any{tenant, id}
	if id == "" && pos != nil {
		where, args = "xact = $2::bigint::text::xid8 AND seq = $3", []any{tenant, pos.Xact, pos.Seq}
	}
	err = o.DB.readTenant(ctx, tenant, func(ctx context.Context, tx *Tx) error {
		tx.query("SELECT xact::text::bigint, seq FROM events WHERE tenant_id = $1 AND "+where,
			func(r pgx.Rows) error { found = true; return r.Scan(&at.Xact, &at.Seq) }, args...)
		return nil
	})
	return at, found && err == nil, err
}

// TenantPage returns up to limit of tenant's events of types after `after`
// and up to `upTo` included, in outbox order. Positions up to a relay's are
// final (below the visibility horizon), so no event can appear among them
// later.
func (o *Outbox) TenantPage(ctx context.Context, tenant uuid.UUID, types []string, after, upTo eventlog.Position, limit int) ([]OutboxEvent, error) {
	var out []OutboxEvent
	err := o.DB.readTenant(ctx, tenant, func(ctx context.Context, tx *Tx) error {
		tx.query("SELECT "+outboxColumns+` FROM events
			WHERE tenant_id = $1 AND type = ANY($2)
			  AND (xact, seq) > ($3::bigint::text::xid8, $4) AND (xact, seq) <= ($5::bigint::text::xid8, $6)
			ORDER BY xact, seq LIMIT $7`, func(r pgx.Rows) error {
			e, err := scanOutbox(r)
			out = append(out, e)
			return err
		}, tenant, types, after.Xact, after.Seq, upTo.Xact, upTo.Seq, limit)
		return nil
	})
	return out, err
}
