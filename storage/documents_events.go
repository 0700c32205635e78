package storage

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/documents"
)

// DocumentLoadChanged is the event bus's LoadChangedFunc: in the upload's
// transaction the load's UpdatedAt moves and its load.changed goes to the
// outbox, so the document and its event commit together or not at all.
func DocumentLoadChanged(now func() time.Time) LoadChangedFunc {
	if now == nil {
		now = time.Now
	}
	return func(ctx context.Context, tx *Tx, loadID uuid.UUID) error {
		at := now().UTC()
		// The row lock (taken by the caller before its first write) orders
		// this with the load's other writes, so snapshots and events follow
		// one another.
		tx.exec("UPDATE loads SET updated_at = $3 WHERE tenant_id = $1 AND id = $2", tx.tenant, loadID, at)
		read := tx.queueLoads(loadByID, loadID)
		if err := tx.flush(ctx); err != nil {
			return err
		}
		loads := read.Loads()
		if len(loads) == 0 {
			return domain.NotFound("load not found")
		}
		return tx.appendEvents(ctx, []domain.Event{documents.LoadEvent(uuid.New(), at, tx.tenant, &loads[0])})
	}
}
