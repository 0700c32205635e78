package storage

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/multitracer"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultConnectTimeout bounds one connection attempt when neither
// HAULGRAPH_DB_CONNECT_TIMEOUT nor the URL's connect_timeout says otherwise.
const DefaultConnectTimeout = 5 * time.Second

// ConnectTimeout bounds each connection attempt of the pool, so that a
// request during an outage fails within d instead of waiting on the
// kernel's TCP timeout.
func ConnectTimeout(d time.Duration) Option {
	return func(cfg *pgxpool.Config) { cfg.ConnConfig.ConnectTimeout = d }
}

// Trace hands every statement of the pool to t (telemetry.PGTracer), after
// any tracer an earlier option set.
func Trace(t pgx.QueryTracer) Option {
	return func(cfg *pgxpool.Config) {
		if cfg.ConnConfig.Tracer != nil {
			t = multitracer.New(cfg.ConnConfig.Tracer, t)
		}
		cfg.ConnConfig.Tracer = t
	}
}

// HealthCheckPeriod is how often the pool closes its idle connections that
// no longer answer (pgxpool's default is a minute). After a failover the
// idle connections to the lost primary go at the next check, and new ones
// reach whichever host of DATABASE_URL now accepts writes.
func HealthCheckPeriod(d time.Duration) Option {
	return func(cfg *pgxpool.Config) { cfg.HealthCheckPeriod = d }
}

// markLostConnections makes every connection's socket report a failed read
// or write as ConnectionLost: the driver hands a reset or a cut-off
// answer back bare, and without the mark a request caught by the loss of
// the primary would be answered 500 instead of 503. Timeouts stay as they
// are (the driver turns them into the caller's cancellation).
func markLostConnections(cfg *pgconn.Config) {
	dial := cfg.DialFunc
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return lostMarking{c}, nil
	}
}

type lostMarking struct{ net.Conn }

func (c lostMarking) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	return n, markLost(err)
}

func (c lostMarking) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	return n, markLost(err)
}

func markLost(err error) error {
	var netErr net.Error
	if err == nil || errors.As(err, &netErr) && netErr.Timeout() {
		return err
	}
	return &ConnectionLost{Err: err}
}

// ConnectionLost is a failed read or write on a database connection's
// socket (the peer reset it, or it ended mid-answer, as when the primary is
// lost). The driver returns those bare, like any other socket's, so the
// dialer wraps them in this to say they are the database's: domain.Classify
// answers 503 for it (DatabaseUnreachable).
type ConnectionLost struct{ Err error }

func (e *ConnectionLost) Error() string { return e.Err.Error() }
func (e *ConnectionLost) Unwrap() error { return e.Err }

// DatabaseUnreachable marks the error as the database's absence for
// domain.Unreachable.
func (e *ConnectionLost) DatabaseUnreachable() bool { return true }
