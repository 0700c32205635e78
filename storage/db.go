// Package storage is HaulGraph's PostgreSQL layer over pgx: embedded
// migrations, tenant-isolated transactions and the repositories of each
// domain. Rows are described by pgx's db tags, parameters are $N; bun is
// kept only for the test fixtures (DB.Bun, InTenant, InSystem).
package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// DB is the one handle to PostgreSQL: the pgx pool, which every statement
// of storage reaches through a Tx (tenant_tx.go), and bun over it for the
// test fixtures and benches.
type DB struct {
	Bun  *bun.DB
	Pool *pgxpool.Pool
	// Session is where work that needs one server session for longer than
	// a transaction goes (LISTEN, the migrations' session advisory lock):
	// Pool itself, or a pool straight to the server when Pool goes through
	// a transaction-mode pooler (Connect).
	Session      *pgxpool.Pool
	closeSession bool
	// replicas takes read-only tenant work when set (OpenReplicas).
	replicas *Replicas
	// Appended, when set, is told every envelope a write appends to the
	// outbox (eventlog.ChannelOutbox), whichever area emits it: tests check
	// each against the published schemas. Set it before the first write.
	Appended func(channel, eventType string, body []byte)
}

// Open connects to the database at url and checks that it answers.
func Open(ctx context.Context, url string, opts ...Option) (*DB, error) {
	return open(ctx, url, true, opts...)
}

func open(ctx context.Context, url string, ping bool, opts ...Option) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("storage: parse DATABASE_URL: %w", err)
	}
	if cfg.MaxConns < 20 {
		cfg.MaxConns = 20
	}
	cfg.AfterConnect = registerTypes
	markLostConnections(&cfg.ConnConfig.Config)
	for _, o := range opts {
		o(cfg)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("storage: connect: %w", err)
	}
	// A replica (no ping) connects on first use: one down at start-up is
	// only skipped.
	if ping {
		if err := pool.Ping(ctx); err != nil {
			pool.Close()
			return nil, fmt.Errorf("storage: ping: %w", err)
		}
	}
	sqldb := stdlib.OpenDBFromPool(pool)
	return &DB{Bun: bun.NewDB(sqldb, pgdialect.New()), Pool: pool, Session: pool}, nil
}

// registerTypes puts HaulGraph's codecs in every new connection's type map:
// ids as 16 bytes (registerUUID), amounts straight into decimals
// (registerNumeric).
func registerTypes(_ context.Context, c *pgx.Conn) error {
	registerUUID(c.TypeMap())
	registerNumeric(c.TypeMap())
	return nil
}

// Close releases every connection, the replicas' too.
func (db *DB) Close() {
	if db.replicas != nil {
		db.replicas.close()
	}
	_ = db.Bun.Close()
	db.Pool.Close()
	if db.closeSession {
		db.Session.Close()
	}
}

// Ping reports whether the database answers.
func (db *DB) Ping(ctx context.Context) error { return db.Pool.Ping(ctx) }

// InTenant runs fn in a bun transaction bound to one tenant (the role
// haulgraph_tenant, which row-level security confines to app.tenant_id).
// Storage itself goes through Tx (TestOneWayToTheDatabase); this is for
// test fixtures and benches that write rows with bun.
func (db *DB) InTenant(ctx context.Context, tenantID uuid.UUID, fn func(ctx context.Context, tx bun.Tx) error) error {
	if tenantID == uuid.Nil {
		return errors.New("storage: tenant transaction without a tenant")
	}
	if r := db.reader(ctx); r != db {
		// A replica that cannot be reached before fn began: the primary
		// reads instead until the health check skips it.
		began := false
		err := r.InTenant(ctx, tenantID, func(ctx context.Context, tx bun.Tx) error { began = true; return fn(ctx, tx) })
		if err == nil || began || !unreachable(err) || ctx.Err() != nil {
			return err
		}
	}
	err := db.Bun.RunInTx(ctx, &sql.TxOptions{}, func(ctx context.Context, tx bun.Tx) error {
		// One round trip: the tenant and SET LOCAL ROLE (the "role" setting).
		if _, err := tx.ExecContext(ctx, "SELECT set_config('app.tenant_id', ?, true), set_config('role', 'haulgraph_tenant', true)", tenantID.String()); err != nil {
			return err
		}
		return fn(ctx, tx)
	})
	if err == nil {
		db.noteWrite(ctx)
	}
	return err
}

// InSystem runs fn in a bun transaction with the owner's rights, across
// tenants: for test fixtures and benches, as InTenant.
func (db *DB) InSystem(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	return db.Bun.RunInTx(ctx, &sql.TxOptions{}, fn)
}
