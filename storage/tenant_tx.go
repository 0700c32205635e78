package storage

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Tx is the one way a transaction reaches PostgreSQL: pgx, constant texts
// with bind parameters (pgx prepares each once per connection), statements
// sent in as few round trips as the caller allows. Statements are queued and
// go out in one pipeline when the caller needs rows it queued (flush) or
// commits. BEGIN and, for a tenant, its context (setTenant) are queued
// first, so they travel with the first flush: a transaction that only
// queues costs one round trip, a write one per read it must see before
// writing on, plus the commit's.
//
// A queued statement's error is reported by the flush that sent it.
type Tx struct {
	conn   *pgxpool.Conn
	tenant uuid.UUID // uuid.Nil in a system transaction
	batch  pgx.Batch
	begun  bool // BEGIN has been sent
}

// inTenantTx runs fn in a transaction bound to one tenant (row-level
// security confines it to the tenant's rows) and commits it when fn returns
// nil; on an error whatever was sent is rolled back and what was queued is
// dropped.
func (db *DB) inTenantTx(ctx context.Context, tenant uuid.UUID, fn func(ctx context.Context, tx *Tx) error) error {
	if tenant == uuid.Nil {
		return errors.New("storage: tenant transaction without a tenant")
	}
	return db.inTx(ctx, tenant, fn)
}

// inSystemTx runs fn as inTenantTx does, with the owner's rights across
// tenants: the token service, the outbox readers, webhook workers, tenant
// administration and seeding.
func (db *DB) inSystemTx(ctx context.Context, fn func(ctx context.Context, tx *Tx) error) error {
	return db.inTx(ctx, uuid.Nil, fn)
}

func (db *DB) inTx(ctx context.Context, tenant uuid.UUID, fn func(ctx context.Context, tx *Tx) error) error {
	conn, err := db.Pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release() // the pool discards a connection left in a transaction
	tx := &Tx{conn: conn, tenant: tenant}
	tx.batch.Queue("BEGIN")
	if tenant != uuid.Nil {
		tx.batch.Queue(setTenant, tenant.String())
	}
	if err = fn(ctx, tx); err == nil {
		tx.batch.Queue("COMMIT")
		if err = tx.flush(ctx); err == nil {
			return nil
		}
	}
	if tx.begun && conn.Conn().PgConn().TxStatus() != 'I' {
		_, _ = conn.Exec(ctx, "ROLLBACK")
	}
	return err
}

// exec queues a statement without rows; its error comes back from the
// flush that sends it (through the returned item's Exec, when that is set).
func (t *Tx) exec(sql string, args ...any) *pgx.QueuedQuery {
	return t.batch.Queue(sql, args...)
}

// execCount queues a statement and stores how many rows it touched in n
// once the flush that sends it has run.
func (t *Tx) execCount(n *int64, sql string, args ...any) {
	t.batch.Queue(sql, args...).Exec(func(ct pgconn.CommandTag) error {
		*n = ct.RowsAffected()
		return nil
	})
}

// query queues sql; scan is called for each of its rows during the flush
// that sends it.
func (t *Tx) query(sql string, scan func(pgx.Rows) error, args ...any) {
	queueRows(&t.batch, sql, scan, args...)
}

// queryRow queues sql and flushes: found reports whether it returned a row,
// scanned into dest.
func (t *Tx) queryRow(ctx context.Context, sql string, dest []any, args ...any) (found bool, err error) {
	t.query(sql, func(r pgx.Rows) error { found = true; return r.Scan(dest...) }, args...)
	err = t.flush(ctx)
	return found, err
}

// flush sends everything queued and reads every result in order.
func (t *Tx) flush(ctx context.Context) error {
	if t.batch.Len() == 0 {
		return nil
	}
	t.begun = true
	err := t.conn.SendBatch(ctx, &t.batch).Close()
	t.batch = pgx.Batch{}
	return err
}
