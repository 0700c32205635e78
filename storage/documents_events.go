package storage

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/domain"
)

// DocumentLoadChanged is the event bus's LoadChangedFunc: in the upload's
// transaction the load's UpdatedAt moves and its load.changed goes to the
// outbox, so the document and its event commit together or not at all.
func DocumentLoadChanged(now func() time.Time) LoadChangedFunc {
	if now == nil {
		now = time.Now
	}
	return func(ctx context.Context, tx bun.Tx, tenantID, loadID uuid.UUID) error {
		at := now().UTC()
		// The row lock orders this with the load's other writes, so
		// snapshots and events follow one another.
		if _, err := tx.ExecContext(ctx, `UPDATE loads SET updated_at = ? WHERE tenant_id = ? AND id = ?`, at, tenantID, loadID); err != nil {
			return err
		}
		loads, err := loadsWhere(ctx, tx, tenantID, "l.id = ?", loadID)
		if err != nil {
			return err
		}
		if len(loads) == 0 {
			return domain.NotFound("load not found")
		}
		return appendEvents(ctx, tx, []domain.Event{domain.DocumentLoadEvent(uuid.New(), at, tenantID, &loads[0])})
	}
}
