package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/telemetry"
)

// Relay tails the outbox of one instance: it starts at the outbox head, the
// last final event (live subscribers want what happens from now on, and a
// resuming one replays the rest; durable consumers keep their own cursor),
// wakes on the outbox's commit notifications, polls
// as a fallback, publishes each committed event once to the hub, and wakes
// every registered waker (webhook delivery workers) after each new batch.
type Relay struct {
	// Outbox is the tail's port (storage.Outbox).
	Outbox eventlog.Outbox
	Hub    *Hub
	Log    *slog.Logger
	// Poll is the fallback interval when no notification arrives (default 1s).
	Poll time.Duration
	// Batch is how many events one read takes (default 500).
	Batch int
	// Tracer, when set, records a span per batch relayed (telemetry).
	Tracer trace.Tracer
	// Retry is the pause before the relay listens again after losing its
	// connection or its database (default 1s): during a failover it keeps
	// trying until the new primary answers, then drains from its position.
	Retry time.Duration

	pos        eventlog.Position
	posAt      time.Time // when the event at pos was written; zero: not relayed by this instance
	listened   bool      // a listen has begun: the next one is a reconnection
	positioned bool
	ready      chan struct{}
	once       sync.Once
	mu         sync.Mutex
	wakers     map[chan struct{}]struct{}
}

func (r *Relay) init() {
	r.once.Do(func() {
		r.ready = make(chan struct{})
		r.wakers = map[chan struct{}]struct{}{}
	})
}

// Ready closes once the relay knows its start position and listens: a write
// committed after that reaches this instance's subscribers.
func (r *Relay) Ready() <-chan struct{} { r.init(); return r.ready }

// Wake registers a waker: the returned channel receives (coalesced, never
// blocking the relay) after every batch of new events, so a durable consumer
// can consume at once instead of waiting for its poll.
// Call stop to unregister.
func (r *Relay) Wake() (wake <-chan struct{}, stop func()) {
	r.init()
	ch := make(chan struct{}, 1)
	r.mu.Lock()
	r.wakers[ch] = struct{}{}
	r.mu.Unlock()
	return ch, func() {
		r.mu.Lock()
		delete(r.wakers, ch)
		r.mu.Unlock()
	}
}

func (r *Relay) wakeAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for ch := range r.wakers {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// Position fixes where the tail starts: the outbox head now, the last final
// event. Every event not final when Position returns (eventlog.Outbox)
// reaches the hub (the app calls it before serving, so no write accepted by
// any instance falls between), those that had already committed behind an
// older open transaction included: the hub's position is where a resuming
// subscriber's replay ends and its live events begin, so the relay publishes
// every event after it, never passes one over.
func (r *Relay) Position(ctx context.Context) error {
	head, err := r.Outbox.Head(ctx)
	if err != nil {
		return err
	}
	r.pos, r.positioned = head, true
	r.Hub.Advance(head) // where resuming subscribers' replays end, so far
	return nil
}

// Run relays until ctx ends (it then returns nil), reconnecting the
// listener when it drops and retrying while the database cannot answer. An
// error that retrying cannot mend (the outbox or its columns missing, no
// privilege on them: the schema is not the one this build migrates to) ends
// it: Run returns it, and the instance stops instead of serving
// subscriptions that would never receive an event.
func (r *Relay) Run(ctx context.Context) error {
	r.init()
	if r.Poll <= 0 {
		r.Poll = time.Second
	}
	if r.Batch <= 0 {
		r.Batch = 500
	}
	if r.Retry <= 0 {
		r.Retry = time.Second
	}
	for !r.positioned {
		if err := r.Position(ctx); err != nil {
			if domain.Permanent(err) {
				return fmt.Errorf("positioning at the outbox head: %w", err)
			}
			if !r.pause(ctx, err) {
				return nil
			}
		}
	}
	for {
		err := r.listen(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if domain.Permanent(err) || errors.Is(err, ErrOutboxLost) {
			return err
		}
		if !r.pause(ctx, err) {
			return nil
		}
	}
}

// ErrOutboxLost ends Run when the database, on reconnection, lacks the
// last event this instance published: it lost committed transactions (a
// failover to a standby they had not reached: asynchronous replication).
// Positions past what the database has are not positions in it any more
// (it reuses the lost transaction ids), so the instance stops; started
// again it tails from the new head (docs/failover.md).
var ErrOutboxLost = errors.New("the database lacks events this instance published: it lost committed transactions; restart the instance")

// lostWindow bounds the age of the last published event the reconnection
// check looks for: history older than it may have been pruned.
const lostWindow = 24 * time.Hour

func (r *Relay) pause(ctx context.Context, err error) bool {
	r.Log.Warn("event relay: retrying", "err", err)
	select {
	case <-ctx.Done():
		return false
	case <-time.After(r.Retry):
		return true
	}
}

// listen holds one connection in LISTEN and drains the outbox on every
// notification or poll tick.
func (r *Relay) listen(ctx context.Context) error {
	l, err := r.Outbox.Listen(ctx)
	if err != nil {
		return err
	}
	defer l.Close(ctx)
	if r.listened && !r.posAt.IsZero() && time.Since(r.posAt) < lostWindow {
		has, err := r.Outbox.Has(ctx, r.pos)
		if err != nil {
			return err
		}
		if !has {
			return fmt.Errorf("event relay: the event at %d/%d: %w", r.pos.Xact, r.pos.Seq, ErrOutboxLost)
		}
	}
	r.listened = true
	select {
	case <-r.ready:
	default:
		close(r.ready)
	}
	held := time.Duration(0)
	for {
		// Drain first: events committed while we (re)connected are not lost.
		waiting, err := r.drain(ctx)
		if err != nil {
			return err
		}
		// Events held back by an older open transaction become readable when
		// it ends, which need not NOTIFY (it may write no event): look again
		// soon, backing off from 1 ms up to Poll.
		timeout := r.Poll
		if waiting {
			held = min(max(2*held, time.Millisecond), r.Poll)
			timeout = held
		} else {
			held = 0
		}
		if err := l.Wait(ctx, timeout); err != nil {
			return err
		}
	}
}

// drain publishes every final event after the relay's position; waiting
// reports committed events held back behind an open transaction.
func (r *Relay) drain(ctx context.Context) (waiting bool, err error) {
	for {
		batch, held, err := r.Outbox.Tail(ctx, r.pos, r.Batch)
		if err != nil {
			return false, err
		}
		span := r.batchSpan(ctx, batch)
		for i := range batch {
			ev, err := batch[i].Live()
			if err != nil {
				r.Log.Error("event relay: unreadable event skipped", "seq", batch[i].Pos.Seq, "id", batch[i].ID, "err", err)
				r.Hub.Advance(batch[i].Pos)
			} else {
				r.Hub.Publish(ev)
			}
			r.pos, r.posAt = batch[i].Pos, batch[i].CreatedAt
		}
		if len(batch) > 0 {
			r.wakeAll()
		}
		if span != nil {
			span.End()
		}
		if len(batch) < r.Batch {
			return held, nil
		}
	}
}

// batchSpan starts the span of a batch read from the outbox: a child of
// its writer's span when every traced event in it comes from one trace (a
// write's events, the usual batch), and linked to each writer's span.
func (r *Relay) batchSpan(ctx context.Context, batch []eventlog.StoredEvent) trace.Span {
	if r.Tracer == nil || len(batch) == 0 {
		return nil
	}
	var links []trace.Link
	parent, one := trace.SpanContext{}, true
	for i := range batch {
		if batch[i].Traceparent == "" {
			continue
		}
		sc := trace.SpanContextFromContext(telemetry.Remote(ctx, batch[i].Traceparent))
		if !sc.IsValid() {
			continue
		}
		switch {
		case !parent.IsValid():
			parent = sc
		case sc.TraceID() != parent.TraceID():
			one = false
		}
		links = append(links, trace.Link{SpanContext: sc})
	}
	if one && parent.IsValid() {
		ctx = trace.ContextWithRemoteSpanContext(ctx, parent)
	}
	_, span := r.Tracer.Start(ctx, "outbox relay", trace.WithSpanKind(trace.SpanKindConsumer), trace.WithLinks(links...),
		trace.WithAttributes(attribute.Int("messaging.batch.message_count", len(batch)),
			attribute.Int64("outbox.first_seq", batch[0].Pos.Seq), attribute.Int64("outbox.last_seq", batch[len(batch)-1].Pos.Seq)))
	return span
}
