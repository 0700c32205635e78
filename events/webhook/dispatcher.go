package webhook

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/haulgraph/haulgraph/storage"
)

// Dispatcher is a durable consumer of the outbox: it turns events into
// deliveries (storage.DispatchWebhookEvents) whenever new events are
// signalled, and every Poll in case a signal was lost. The signal is the
// events relay's waker (events.Relay.Wake): the relay holds the instance's one
// LISTEN.
type Dispatcher struct {
	Store *storage.WebhookStore
	// Wake signals new events (events.Relay.Wake); nil: Poll alone.
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

// Run dispatches until ctx ends: on every Wake and every Poll.
func (d *Dispatcher) Run(ctx context.Context) error {
	log := d.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	poll := d.Poll
	if poll == 0 {
		poll = time.Second
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		if _, err := d.RunOnce(ctx); err != nil && ctx.Err() == nil {
			if storage.Permanent(err) {
				return err // the database does not match the code: retrying cannot help
			}
			log.Error("webhook dispatch", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-d.Wake:
		case <-t.C:
		}
	}
}
