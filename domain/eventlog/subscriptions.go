package eventlog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/haulgraph/haulgraph/domain"
)

// MaxFilterLoadNumbers bounds a subscription filter's load number list.
const MaxFilterLoadNumbers = 100

// LiveEvent is a committed event as live subscribers receive it: parsed once,
// shared read-only by every subscriber of every instance's hub.
type LiveEvent struct {
	Seq int64
	// Pos is the event's place in the outbox order (a replay cursor).
	Pos          Position
	ID           string
	Type         string
	Timestamp    time.Time
	TenantID     uuid.UUID
	SubsidiaryID uuid.UUID
	Data         domain.EventData
}

// Filter selects the events a subscription receives; empty lists match
// everything. The tenant is never part of it: it is the caller's.
type Filter struct {
	Types        []string
	LoadNumbers  []string
	Statuses     []domain.LoadStatus
	SubsidiaryID *uuid.UUID
}

// Matches reports whether ev passes the filter (tenant already checked).
func (f Filter) Matches(ev *LiveEvent) bool {
	if len(f.Types) > 0 && !slices.Contains(f.Types, ev.Type) {
		return false
	}
	if f.SubsidiaryID != nil && *f.SubsidiaryID != ev.SubsidiaryID {
		return false
	}
	if ev.Data.Load == nil {
		return len(f.LoadNumbers) == 0 && len(f.Statuses) == 0
	}
	if len(f.LoadNumbers) > 0 && !slices.Contains(f.LoadNumbers, ev.Data.Load.LoadNumber) {
		return false
	}
	return len(f.Statuses) == 0 || slices.Contains(f.Statuses, ev.Data.Load.Status)
}

// Stream is the live fan-out of committed events (the hub of this
// instance).
type Stream interface {
	Subscribe(tenant uuid.UUID, f Filter, sink Sink) Subscription
}

// Sink receives a subscription's events. Deliver must not block: it
// queues the event in the subscriber's bounded buffer, or reports false when
// the buffer is full, and the stream then cuts the subscriber off. Ended runs
// once when the subscription ends (evicted: it was cut off); no Deliver
// follows it.
type Sink struct {
	Deliver func(*LiveEvent) bool
	Ended   func(evicted bool)
}

// Subscription is one live subscription; Close ends it (idempotent).
type Subscription interface {
	Close()
}

// ErrSlowConsumer ends a subscriber that fell behind (its connection, or
// its subscription when a shared execution fell behind).
var ErrSlowConsumer = errors.New("subscriber too slow: its event buffer overflowed")

// Subscriptions authorizes and validates live subscriptions (GraphQL
// subscriptions, and any other streaming transport).
type Subscriptions struct {
	Stream Stream
	// Log is the stored stream subscriptions resume from (after:).
	Log ReplayLog
	// Buffer is how many events one subscriber may have pending before it
	// is cut off as too slow.
	Buffer int
	// Cursors seals the cursors of the events delivered (and opens after:).
	Cursors *Cursors
}

// SubscriptionInput is a subscription's filter as sent.
type SubscriptionInput struct {
	LoadNumbers  []string
	Statuses     []string
	SubsidiaryID *string
}

// Subscribe opens a subscription to events of type eventType for the caller's
// tenant: load events need load:read, trip events trip:read. stream is where
// the events come from: nil for the instance's hub (s.Stream), or a
// transport's own feed when it executes one subscription for many
// subscribers or replays stored events; its Subscribe is called only once
// the subscription is authorized and valid.
func (s *Subscriptions) Subscribe(ctx context.Context, stream Stream, eventType string, in SubscriptionInput, sink Sink) (Subscription, error) {
	p, err := domain.AuthorizeScope(ctx, TypeScope(eventType))
	if err != nil {
		return nil, err
	}
	f := Filter{Types: []string{eventType}}
	var v domain.Validation
	if len(in.LoadNumbers) > MaxFilterLoadNumbers {
		v.Add("filter.loadNumbers", fmt.Sprintf("at most %d load numbers", MaxFilterLoadNumbers))
	}
	for _, n := range in.LoadNumbers {
		if v.CheckLoadNumber("filter.loadNumbers", "each load number", n) {
			f.LoadNumbers = append(f.LoadNumbers, n)
		}
	}
	for _, st := range in.Statuses {
		if !slices.Contains(domain.LoadStatuses, domain.LoadStatus(st)) {
			v.Add("filter.statuses", "unknown load status "+domain.Quote(st))
			continue
		}
		f.Statuses = append(f.Statuses, domain.LoadStatus(st))
	}
	if in.SubsidiaryID != nil {
		f.SubsidiaryID = domain.UUIDField(&v, "filter.subsidiaryId", *in.SubsidiaryID, false)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	if stream == nil {
		stream = s.Stream
	}
	return stream.Subscribe(p.TenantID, f, sink), nil
}

type streamKey struct{}

// WithStream makes the subscriptions opened by an execution with ctx read
// from stream instead of the instance's hub: a transport's own feed (a
// shared execution, a replay). GraphQL runs the resolver that subscribes,
// so the feed reaches it only through the execution's context; the
// resolver passes StreamFrom's answer to Subscribe explicitly.
func WithStream(ctx context.Context, stream Stream) context.Context {
	return context.WithValue(ctx, streamKey{}, stream)
}

// StreamFrom is ctx's stream (WithStream), nil for the instance's hub.
func StreamFrom(ctx context.Context) Stream {
	s, _ := ctx.Value(streamKey{}).(Stream)
	return s
}
