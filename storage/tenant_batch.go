package storage

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// setTenant binds what follows to one tenant: app.tenant_id and the role
// haulgraph_tenant, which row-level security confines to it (as InTenant).
const setTenant = "SELECT set_config('app.tenant_id', $1, true), set_config('role', 'haulgraph_tenant', true)"

// tenantBatch is the hot read paths' way to PostgreSQL: pgx directly, real
// bind parameters (so every statement text is constant and stays prepared in
// pgx's statement cache) and every query of one level in one round trip.
//
// The tenant context travels in that same round trip: pgx sends a batch as
// one pipeline closed by a single Sync, which PostgreSQL runs as one implicit
// transaction, so set_config(..., true) holds for exactly the batch's
// statements and is undone when it ends (commit or error) — no BEGIN and no
// COMMIT round trips, and a statement that forgets its tenant_id filter still
// sees one tenant.
type tenantBatch struct {
	b pgx.Batch
}

func newTenantBatch(tenant uuid.UUID) *tenantBatch {
	t := &tenantBatch{}
	t.b.Queue(setTenant, tenant.String())
	return t
}

// query queues sql; scan is called for each of its rows once the batch runs.
func (t *tenantBatch) query(sql string, scan func(pgx.Rows) error, args ...any) {
	queueRows(&t.b, sql, scan, args...)
}

// queueRows queues sql on b; scan is called for each of its rows, in order,
// when the batch's results are read (BatchResults.Close).
func queueRows(b *pgx.Batch, sql string, scan func(pgx.Rows) error, args ...any) {
	b.Queue(sql, args...).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			if err := scan(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	})
}

// run sends the batch and runs every scan, in queue order.
func (db *DB) runTenant(ctx context.Context, tenant uuid.UUID, t *tenantBatch) error {
	if tenant == uuid.Nil {
		return errors.New("storage: tenant read without a tenant")
	}
	if r := db.reader(ctx); r != db {
		// A replica that cannot be reached: the primary reads instead
		// until the health check skips it.
		if err := r.Pool.SendBatch(ctx, &t.b).Close(); err == nil || !unreachable(err) || ctx.Err() != nil {
			return err
		}
	}
	return db.Pool.SendBatch(ctx, &t.b).Close()
}
