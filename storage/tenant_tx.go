package storage

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// TenantTx is a tenant transaction on pgx that sends its statements in as few
// round trips as the caller allows: statements are queued, and go out in one
// pipeline when the caller needs rows it queued (flush) or commits. BEGIN
// and the tenant context (setTenant) are queued first, so they travel with
// the first flush. A write costs one round trip per read it must see before
// writing on, plus the commit's.
//
// A queued statement's error is reported by the flush that sent it. Texts are
// constant with bind parameters, so pgx prepares each once per connection.
type TenantTx struct {
	conn   *pgxpool.Conn
	tenant uuid.UUID
	batch  pgx.Batch
	begun  bool // BEGIN has been sent
}

// inTenantTx runs fn in a TenantTx and commits it when fn returns nil; on an
// error whatever was sent is rolled back and what was queued is dropped.
func (db *DB) inTenantTx(ctx context.Context, tenant uuid.UUID, fn func(ctx context.Context, tx *TenantTx) error) error {
	if tenant == uuid.Nil {
		return errors.New("storage: tenant transaction without a tenant")
	}
	conn, err := db.Pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release() // the pool discards a connection left in a transaction
	tx := &TenantTx{conn: conn, tenant: tenant}
	tx.batch.Queue("BEGIN")
	tx.batch.Queue(setTenant, tenant.String())
	if err = fn(ctx, tx); err == nil {
		tx.batch.Queue("COMMIT")
		if err = tx.flush(ctx); err == nil {
			db.noteWrite(ctx)
			return nil
		}
	}
	if tx.begun && conn.Conn().PgConn().TxStatus() != 'I' {
		_, _ = conn.Exec(ctx, "ROLLBACK")
	}
	return err
}

// exec queues a statement without rows; its error comes back from the
// flush that sends it (through the returned item's Fn, when that is set).
func (t *TenantTx) exec(sql string, args ...any) *pgx.QueuedQuery {
	return t.batch.Queue(sql, args...)
}

// query queues sql; scan is called for each of its rows during the flush
// that sends it.
func (t *TenantTx) query(sql string, scan func(pgx.Rows) error, args ...any) {
	queueRows(&t.batch, sql, scan, args...)
}

// flush sends everything queued and reads every result in order.
func (t *TenantTx) flush(ctx context.Context) error {
	if t.batch.Len() == 0 {
		return nil
	}
	t.begun = true
	err := t.conn.SendBatch(ctx, &t.batch).Close()
	t.batch = pgx.Batch{}
	return err
}
