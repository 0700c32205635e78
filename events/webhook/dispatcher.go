package webhook

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// Dispatcher runs the loop of the outbox's durable webhook consumer: it has
// webhooks.Deliveries turn events into deliveries whenever new events are
// signalled, and every Poll in case a signal was lost. The signal is the
// events relay's waker (events.Relay.Wake): the relay holds the instance's one
// LISTEN.
type Dispatcher struct {
	// Store is the delivery store (storage.WebhookStore).
	Store webhooks.DeliveryStore
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
	batch := d.Batch
	if batch == 0 {
		batch = 500
	}
	svc := &webhooks.Deliveries{Store: d.Store, Now: d.Now}
	total := 0
	for {
		n, err := svc.Dispatch(ctx, batch)
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
			if domain.Permanent(err) {
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
