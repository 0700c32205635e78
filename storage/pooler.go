package storage

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Poolers between HaulGraph and PostgreSQL (HAULGRAPH_POOLER).
const (
	PoolerNone      = ""          // DATABASE_URL is the server itself
	PoolerPgBouncer = "pgbouncer" // a transaction-mode pooler (pool_mode = transaction)
)

// Endpoints says how to reach the database: URL for everything that fits
// in one transaction, DirectURL (straight to the server) for what needs a
// session. Behind a transaction-mode pooler DirectURL is required.
type Endpoints struct {
	URL       string
	DirectURL string // empty: URL
	Pooler    string // PoolerNone or PoolerPgBouncer
}

// Check refuses an unknown pooler, and a pooler without the direct URL.
func (e Endpoints) Check() error {
	switch {
	case e.Pooler != PoolerNone && e.Pooler != PoolerPgBouncer:
		return fmt.Errorf("unknown pooler %q (want %q or none)", e.Pooler, PoolerPgBouncer)
	case e.Pooler != PoolerNone && e.DirectURL == "":
		return fmt.Errorf("behind %s a direct URL is required: LISTEN and the migrations' lock cannot go through a transaction pooler", e.Pooler)
	}
	return nil
}

// sessionPoolMax bounds the direct pool: one LISTEN per instance and the
// migrations at start; a few spare.
const sessionPoolMax = 4

// Connect opens the database as Open does and, when DirectURL is set, a
// small second pool to it for the Session work. Behind a transaction-mode
// pooler the pool never prepares a statement by name (a named statement
// lives in one server session, which the pooler hands to other clients
// after each transaction): pgx describes each statement text once per
// connection, caches the description and sends it unnamed with its
// parameters, so a cached read is still one round trip with the tenant's
// set_config in its batch.
func Connect(ctx context.Context, e Endpoints, opts ...Option) (*DB, error) {
	if err := e.Check(); err != nil {
		return nil, fmt.Errorf("storage: %w", err)
	}
	pooled := opts
	if e.Pooler != PoolerNone {
		pooled = append(opts[:len(opts):len(opts)], func(cfg *pgxpool.Config) {
			cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
		})
	}
	db, err := Open(ctx, e.URL, pooled...)
	if err != nil || e.DirectURL == "" {
		return db, err
	}
	cfg, err := pgxpool.ParseConfig(e.DirectURL)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("storage: parse the direct URL: %w", err)
	}
	cfg.MaxConns = sessionPoolMax
	cfg.AfterConnect = registerTypes
	for _, o := range opts {
		o(cfg)
	}
	session, err := pgxpool.NewWithConfig(ctx, cfg)
	if err == nil {
		err = session.Ping(ctx)
	}
	if err != nil {
		if session != nil {
			session.Close()
		}
		db.Close()
		return nil, fmt.Errorf("storage: connect to the direct URL: %w", err)
	}
	db.Session, db.closeSession = session, true
	return db, nil
}
