package storage

import (
	"context"
	"net"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgxpool"
)

// RoundTrips counts the round trips between a pool and PostgreSQL on the
// wire, whatever issued them (queries, batches, prepares, BEGIN/COMMIT, the
// statement cache's deallocations): a write that follows a read, or is a
// connection's first, starts one. Tests and benchmarks read it; production
// leaves it off.
type RoundTrips struct{ n atomic.Int64 }

// Load returns the round trips counted so far.
func (r *RoundTrips) Load() int64 { return r.n.Load() }

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
	}
}

// countingConn tells writes that start a round trip from those that
// continue one (a pipeline's several flushes before it reads).
type countingConn struct {
	net.Conn
	rt      *RoundTrips
	writing atomic.Bool
}

func (c *countingConn) Write(p []byte) (int, error) {
	if !c.writing.Swap(true) {
		c.rt.n.Add(1)
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
