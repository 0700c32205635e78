package storage

import (
	"context"
	"net"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/haulgraph/haulgraph/domain"
)

// RoundTrips counts the round trips between a pool and PostgreSQL on the
// wire, whatever issued them (queries, batches, prepares, BEGIN/COMMIT, the
// statement cache's deallocations): a write that follows a read, or is a
// connection's first, starts one. Tests and benchmarks read it; production
// leaves it off.
type RoundTrips struct {
	all, callers atomic.Int64
}

// Load returns every round trip counted so far.
func (r *RoundTrips) Load() int64 { return r.all.Load() }

// Callers returns the round trips made on behalf of API callers (a
// principal in the context), which leaves out background workers.
func (r *RoundTrips) Callers() int64 { return r.callers.Load() }

// Option tunes Open.
type Option func(*pgxpool.Config)

// CountRoundTrips makes every connection of the pool count on rt.
func CountRoundTrips(rt *RoundTrips) Option {
	return func(cfg *pgxpool.Config) {
		dial := cfg.ConnConfig.DialFunc
		cfg.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &countingConn{Conn: c, rt: rt}, nil
		}
		cfg.ConnConfig.Tracer = callerTracer{}
	}
}

// countingConn tells writes that start a round trip from those that
// continue one (a pipeline's several flushes before it reads).
type countingConn struct {
	net.Conn
	rt      *RoundTrips
	writing atomic.Bool
	caller  atomic.Bool // the call in progress is an API caller's
}

func (c *countingConn) Write(p []byte) (int, error) {
	if !c.writing.Swap(true) {
		c.rt.all.Add(1)
		if c.caller.Load() {
			c.rt.callers.Add(1)
		}
	}
	return c.Conn.Write(p)
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.writing.Store(false)
	}
	return n, err
}

// callerTracer marks a connection as working for an API caller from the
// start of a query or batch to its end (prepares and deallocations of the
// statement cache happen within).
type callerTracer struct{}

func mark(ctx context.Context, conn *pgx.Conn, on bool) {
	if c, ok := conn.PgConn().Conn().(*countingConn); ok {
		c.caller.Store(on && domain.PrincipalFrom(ctx) != nil)
	}
}

func (callerTracer) TraceQueryStart(ctx context.Context, conn *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	mark(ctx, conn, true)
	return ctx
}

func (callerTracer) TraceQueryEnd(ctx context.Context, conn *pgx.Conn, _ pgx.TraceQueryEndData) {
	mark(ctx, conn, false)
}

func (callerTracer) TraceBatchStart(ctx context.Context, conn *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	mark(ctx, conn, true)
	return ctx
}

func (callerTracer) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

func (callerTracer) TraceBatchEnd(ctx context.Context, conn *pgx.Conn, _ pgx.TraceBatchEndData) {
	mark(ctx, conn, false)
}
