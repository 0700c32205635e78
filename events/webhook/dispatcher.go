package webhook

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/haulgraph/haulgraph/storage"
)

// NotifyChannel is the channel the events table's trigger notifies.
const NotifyChannel = "haulgraph_events"

// Dispatcher is a durable consumer of the outbox: it turns events into
// deliveries (storage.DispatchWebhookEvents) whenever new events are
// signalled, and every Poll in case a signal was lost. The signal is Wake
// (the events relay's waker) when set, else its own LISTEN on Pool.
type Dispatcher struct {
	Store *storage.WebhookStore
	Pool  *pgxpool.Pool
	// Wake, when set, signals new events (events.Relay.Wake); no LISTEN then.
	Wake  <-chan struct{}
	Now   func() time.Time
	Batch int
	Poll  time.Duration
	// OnDispatched is called after deliveries were created (wakes the worker).
	OnDispatched func()
	Log          *slog.Logger
}

// RunOnce dispatches until the outbox is drained, returning the events consumed.
func (d *Dispatcher) RunOnce(ctx context.Context) (int, error) {
	now, batch := time.Now, d.Batch
	if d.Now != nil {
		now = d.Now
	}
	if batch == 0 {
		batch = 500
	}
	total := 0
	for {
		n, err := d.Store.DispatchWebhookEvents(ctx, batch, now())
		total += n
		if err != nil || n < batch {
			if total > 0 && d.OnDispatched != nil {
				d.OnDispatched()
			}
			return total, err
		}
	}
}

// Run dispatches until ctx ends. It listens on a dedicated connection; when
// that fails it keeps polling and reconnects.
func (d *Dispatcher) Run(ctx context.Context) error {
	log := d.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	poll := d.Poll
	if poll == 0 {
		poll = time.Second
	}
	notified := d.Wake
	if notified == nil {
		own := make(chan struct{}, 1)
		go d.listen(ctx, own, log)
		notified = own
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		if _, err := d.RunOnce(ctx); err != nil && ctx.Err() == nil {
			log.Error("webhook dispatch", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-notified:
		case <-t.C:
		}
	}
}

// listen forwards NOTIFYs on NotifyChannel to notified (coalesced).
func (d *Dispatcher) listen(ctx context.Context, notified chan<- struct{}, log *slog.Logger) {
	for ctx.Err() == nil {
		pooled, err := d.Pool.Acquire(ctx)
		if err == nil {
			// A LISTENing connection must never go back to the pool: own it.
			conn := pooled.Hijack()
			if _, err = conn.Exec(ctx, "LISTEN "+NotifyChannel); err == nil {
				for {
					if _, err = conn.WaitForNotification(ctx); err != nil {
						break
					}
					select {
					case notified <- struct{}{}:
					default:
					}
				}
			}
			_ = conn.Close(context.WithoutCancel(ctx))
		}
		if ctx.Err() != nil {
			return
		}
		log.Warn("webhook dispatcher: LISTEN failed, polling until reconnected", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}
