package storage

import (
	"context"
	"errors"
	"time"

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
	begin  string    // "" (readTenant): no BEGIN/COMMIT, each flush its own transaction
	batch  pgx.Batch
	queued int  // statements queued since the last flush, besides BEGIN and the tenant context
	begun  bool // BEGIN has been sent
	seen   bool // a row was scanned or a flush succeeded
	// appended is DB.Appended.
	appended func(channel, eventType string, body []byte)
}

// inTenantTx runs fn in a transaction bound to one tenant (row-level
// security confines it to the tenant's rows) and commits it when fn returns
// nil; on an error whatever was sent is rolled back and what was queued is
// dropped.
func (db *DB) inTenantTx(ctx context.Context, tenant uuid.UUID, fn func(ctx context.Context, tx *Tx) error) error {
	if tenant == uuid.Nil {
		return errors.New("storage: tenant transaction without a tenant")
	}
	return db.inTx(ctx, tenant, beginWrite, fn)
}

// The BEGIN of a transaction: a read-write one, or one snapshot read only.
const (
	beginWrite    = "BEGIN"
	beginSnapshot = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"
)

// readTenant is the hot reads' form of inTenantTx: no BEGIN and no COMMIT.
// pgx sends a flush as one pipeline closed by a single Sync, which
// PostgreSQL runs as one implicit transaction, so the tenant context queued
// ahead of every flush holds for exactly that flush's statements and is
// undone when it ends: a read of one level costs one round trip, and a
// statement that forgets its tenant_id filter still sees one tenant. Reads
// of two flushes do not share a snapshot (as two statements of a READ
// COMMITTED transaction do not).
func (db *DB) readTenant(ctx context.Context, tenant uuid.UUID, fn func(ctx context.Context, tx *Tx) error) error {
	if tenant == uuid.Nil {
		return errors.New("storage: tenant read without a tenant")
	}
	return db.read(ctx, tenant, "", fn)
}

// inSystemTx runs fn as inTenantTx does, with the owner's rights across
// tenants: the token service, the outbox readers, webhook workers, tenant
// administration and seeding.
func (db *DB) inSystemTx(ctx context.Context, fn func(ctx context.Context, tx *Tx) error) error {
	return db.inTx(ctx, uuid.Nil, beginWrite, fn)
}

// inTenantSnapshot is inTenantTx reading one snapshot, read only.
func (db *DB) inTenantSnapshot(ctx context.Context, tenant uuid.UUID, fn func(ctx context.Context, tx *Tx) error) error {
	if tenant == uuid.Nil {
		return errors.New("storage: tenant transaction without a tenant")
	}
	return db.read(ctx, tenant, beginSnapshot, fn)
}

// read runs a tenant read on the database reader chooses for ctx (a healthy
// replica that has replayed the client's last write, for read-only work;
// else the primary). A replica that fails before fn has seen a result (down,
// restarting) leaves the read, whole, to the primary until the health check
// skips it.
func (db *DB) read(ctx context.Context, tenant uuid.UUID, begin string, fn func(ctx context.Context, tx *Tx) error) error {
	if r := db.reader(ctx); r != db {
		seen, err := r.run(ctx, tenant, begin, fn)
		if err == nil || seen || !unreachable(err) || ctx.Err() != nil {
			return err
		}
		readOnlyFrom(ctx).pinned.Store(db) // the request's later reads too
	}
	return db.inTx(ctx, tenant, begin, fn)
}

// inSystemPipeline is readTenant's form for the owner's work: no BEGIN and
// no COMMIT, each flush one implicit transaction (its statements commit
// together or not at all). One-statement system work (a lease, a claim, a
// recorded attempt, the relay's poll) costs what the bare statement costs.
func (db *DB) inSystemPipeline(ctx context.Context, fn func(ctx context.Context, tx *Tx) error) error {
	return db.inTx(ctx, uuid.Nil, "", fn)
}

// setTenant binds what follows to one tenant: app.tenant_id and the role
// haulgraph_tenant, which row-level security confines to it.
const setTenant = "SELECT set_config('app.tenant_id', $1, true), set_config('role', 'haulgraph_tenant', true)"

func (db *DB) inTx(ctx context.Context, tenant uuid.UUID, begin string, fn func(ctx context.Context, tx *Tx) error) error {
	_, err := db.run(ctx, tenant, begin, fn)
	if err == nil && begin == beginWrite && tenant != uuid.Nil {
		db.noteWrite(ctx)
	}
	return err
}

// run is inTx on db's own pool; seen reports whether fn saw a result (a row
// scanned or a flush that succeeded), after which it cannot run again.
func (db *DB) run(ctx context.Context, tenant uuid.UUID, begin string, fn func(ctx context.Context, tx *Tx) error) (seen bool, err error) {
	conn, err := db.Pool.Acquire(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Release() // the pool discards a connection left in a transaction
	tx := &Tx{conn: conn, tenant: tenant, begin: begin, appended: db.Appended}
	tx.start()
	if err = fn(ctx, tx); err == nil {
		if begin != "" {
			tx.batch.Queue("COMMIT")
			tx.queued++
		}
		if err = tx.flush(ctx); err == nil {
			return true, nil
		}
	}
	if tx.begun && conn.Conn().PgConn().TxStatus() != 'I' {
		// ctx may be over (a client gone): roll back anyway; a connection
		// pgx closed on cancellation is simply dropped by the pool.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		_, _ = conn.Exec(rctx, "ROLLBACK")
		cancel()
	}
	return tx.seen, err
}

// start queues what precedes the caller's statements: BEGIN once, and the
// tenant context (once, or before every flush of an implicit read).
func (t *Tx) start() {
	implicit := t.begin == ""
	if !implicit && !t.begun {
		t.batch.Queue(t.begin)
	}
	if t.tenant != uuid.Nil && (implicit || !t.begun) {
		t.batch.Queue(setTenant, t.tenant.String())
	}
}

// exec queues a statement without rows; its error comes back from the
// flush that sends it (through the returned item's Exec, when that is set).
func (t *Tx) exec(sql string, args ...any) *pgx.QueuedQuery {
	t.queued++
	return t.batch.Queue(sql, args...)
}

// execCount queues a statement and stores how many rows it touched in n
// once the flush that sends it has run.
func (t *Tx) execCount(n *int64, sql string, args ...any) {
	t.queued++
	t.batch.Queue(sql, args...).Exec(func(ct pgconn.CommandTag) error {
		*n = ct.RowsAffected()
		return nil
	})
}

// query queues sql; scan is called for each of its rows during the flush
// that sends it.
func (t *Tx) query(sql string, scan func(pgx.Rows) error, args ...any) {
	t.queued++
	queueRows(&t.batch, sql, func(r pgx.Rows) error { t.seen = true; return scan(r) }, args...)
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
	if t.queued == 0 {
		return nil
	}
	err := t.conn.SendBatch(ctx, &t.batch).Close()
	t.begun, t.seen = true, t.seen || err == nil
	t.batch, t.queued = pgx.Batch{}, 0
	t.start()
	return err
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
