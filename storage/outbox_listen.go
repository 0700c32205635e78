package storage

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/haulgraph/haulgraph/domain/eventlog"
)

// Listener holds one connection listening on NotifyChannel.
type Listener struct{ conn *pgxpool.Conn }

// Listen takes a connection of the session pool (a real server session,
// also behind a transaction pooler: docs/pooler.md) and listens on
// NotifyChannel with it until Close: a commit that inserts events notifies it.
func (o *Outbox) Listen(ctx context.Context) (eventlog.Listener, error) {
	conn, err := o.DB.Session.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+NotifyChannel); err != nil {
		conn.Conn().Close(context.WithoutCancel(ctx)) //nolint:errcheck
		conn.Release()
		return nil, err
	}
	return &Listener{conn: conn}, nil
}

// Wait returns nil when a notification arrives or timeout has passed, the
// connection's error otherwise (ctx's error once ctx ends).
func (l *Listener) Wait(ctx context.Context, timeout time.Duration) error {
	wait, cancel := context.WithTimeout(ctx, timeout)
	_, err := l.conn.Conn().WaitForNotification(wait)
	cancel()
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// Close leaves the pooled connection clean, or closes it when it cannot be.
func (l *Listener) Close(ctx context.Context) {
	if _, err := l.conn.Exec(context.WithoutCancel(ctx), "UNLISTEN *"); err != nil {
		l.conn.Conn().Close(context.WithoutCancel(ctx)) //nolint:errcheck
	}
	l.conn.Release()
}
