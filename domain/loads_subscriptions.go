package domain

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// MaxFilterLoadNumbers bounds a subscription filter's load number list.
const MaxFilterLoadNumbers = 100

// LiveEvent is a committed event as live subscribers receive it: parsed once,
// shared read-only by every subscriber of every instance's hub.
type LiveEvent struct {
	Seq int64
	// Pos is the event's place in the outbox order (a replay cursor).
	Pos          EventPosition
	ID           string
	Type         string
	Timestamp    time.Time
	TenantID     uuid.UUID
	SubsidiaryID uuid.UUID
	Data         EventData
}

// EventFilter selects the events a subscription receives; empty lists match
// everything. The tenant is never part of it: it is the caller's.
type EventFilter struct {
	Types        []string
	LoadNumbers  []string
	Statuses     []LoadStatus
	SubsidiaryID *uuid.UUID
}

// Matches reports whether ev passes the filter (tenant already checked).
func (f EventFilter) Matches(ev *LiveEvent) bool {
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

// EventStream is the live fan-out of committed events (the hub of this
// instance).
type EventStream interface {
	Subscribe(tenant uuid.UUID, f EventFilter, sink EventSink) EventSubscription
}

// EventSink receives a subscription's events. Deliver must not block: it
// queues the event in the subscriber's bounded buffer, or reports false when
// the buffer is full, and the stream then cuts the subscriber off. Ended runs
// once when the subscription ends (evicted: it was cut off); no Deliver
// follows it.
type EventSink struct {
	Deliver func(*LiveEvent) bool
	Ended   func(evicted bool)
}

// EventSubscription is one live subscription; Close ends it (idempotent).
type EventSubscription interface {
	Close()
}

// ErrSlowConsumer ends the connection of a subscriber that fell behind.
var ErrSlowConsumer = errors.New("subscriber too slow: its event buffer overflowed")

// Subscriptions authorizes and validates live subscriptions (GraphQL
// subscriptions, and any other streaming transport).
type Subscriptions struct {
	Stream EventStream
	// Buffer is how many events one subscriber may have pending before it
	// is cut off as too slow.
	Buffer int
}

// SubscriptionInput is a subscription's filter as sent.
type SubscriptionInput struct {
	LoadNumbers  []string
	Statuses     []string
	SubsidiaryID *string
}

// Subscribe opens a subscription to events of type eventType for the caller's
// tenant: load events need load:read, trip events trip:read.
func (s *Subscriptions) Subscribe(ctx context.Context, eventType string, in SubscriptionInput, sink EventSink) (EventSubscription, error) {
	op := OpReadLoad
	if eventType == EventTripChanged {
		op = OpReadTrip
	}
	p, err := Authorize(ctx, op)
	if err != nil {
		return nil, err
	}
	f := EventFilter{Types: []string{eventType}}
	var v Validation
	if len(in.LoadNumbers) > MaxFilterLoadNumbers {
		v.Add("filter.loadNumbers", fmt.Sprintf("at most %d load numbers", MaxFilterLoadNumbers))
	}
	for _, n := range in.LoadNumbers {
		if n = strings.TrimSpace(n); n == "" || len(n) > maxLoadNumber {
			v.Add("filter.loadNumbers", loadNumberRule("each load number"))
			continue
		}
		f.LoadNumbers = append(f.LoadNumbers, n)
	}
	for _, st := range in.Statuses {
		if !slices.Contains(LoadStatuses, LoadStatus(st)) {
			v.Add("filter.statuses", "unknown load status "+quote(st))
			continue
		}
		f.Statuses = append(f.Statuses, LoadStatus(st))
	}
	if in.SubsidiaryID != nil {
		f.SubsidiaryID = uuidField(&v, "filter.subsidiaryId", *in.SubsidiaryID, false)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	release, err := acquireStream(ctx)
	if err != nil {
		return nil, err
	}
	ended := sink.Ended
	sink.Ended = func(evicted bool) { release(); ended(evicted) }
	return s.Stream.Subscribe(p.TenantID, f, sink), nil
}

// streamQuota bounds the live subscriptions of one connection.
type streamQuota struct {
	mu        sync.Mutex
	open, max int
}

type streamQuotaKey struct{}

// WithStreamQuota lets a streaming connection hold at most max subscriptions
// at a time.
func WithStreamQuota(ctx context.Context, max int) context.Context {
	return context.WithValue(ctx, streamQuotaKey{}, &streamQuota{max: max})
}

// acquireStream takes one slot of the connection's quota (none: unbounded,
// e.g. a single HTTP stream) and returns its release.
func acquireStream(ctx context.Context) (func(), error) {
	q, _ := ctx.Value(streamQuotaKey{}).(*streamQuota)
	if q == nil {
		return func() {}, nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.open >= q.max {
		return nil, &Error{Code: CodeRateLimited, Message: fmt.Sprintf("at most %d subscriptions per connection: complete one first", q.max)}
	}
	q.open++
	var once sync.Once
	return func() {
		once.Do(func() { q.mu.Lock(); q.open--; q.mu.Unlock() })
	}, nil
}

type disconnectKey struct{}

// WithDisconnect lets a streaming transport offer a way to end the caller's
// connection (a WebSocket closes with the code matching the reason).
func WithDisconnect(ctx context.Context, fn func(reason error)) context.Context {
	return context.WithValue(ctx, disconnectKey{}, fn)
}

// Disconnect ends the caller's streaming connection for reason; it reports
// false when the transport offers none (plain HTTP).
func Disconnect(ctx context.Context, reason error) bool {
	fn, _ := ctx.Value(disconnectKey{}).(func(error))
	if fn == nil {
		return false
	}
	fn(reason)
	return true
}
