// Package events is HaulGraph's event bus: the relay tails the outbox (woken
// by LISTEN/NOTIFY, polling as fallback) and fans each committed event out to
// this instance's subscription hub and to whoever asked to be woken.
package events

import (
	"sync"
	"sync/atomic"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain/eventlog"
)

// Hub fans events out to the live subscriptions of one instance. Publish
// never blocks: each subscriber's sink queues into its own bounded buffer,
// and a subscriber whose buffer is full is evicted (its sink ends) instead of
// growing memory. Sinks are called under the hub's lock, so no delivery can
// follow a subscriber's end.
type Hub struct {
	mu       sync.Mutex
	byTenant map[uuid.UUID]map[*Subscription]struct{}
	pos      eventlog.Position // of the last event handed to the hub
	count    atomic.Int64
	evicted  atomic.Int64
	// ending runs the Ended of evicted subscribers; Close waits for it.
	ending sync.WaitGroup
}

// NewHub makes an empty hub.
func NewHub() *Hub {
	return &Hub{byTenant: map[uuid.UUID]map[*Subscription]struct{}{}}
}

var _ eventlog.Stream = (*Hub)(nil)

// Subscription is one subscriber of the hub.
type Subscription struct {
	hub    *Hub
	tenant uuid.UUID
	filter eventlog.Filter
	sink   eventlog.Sink
	ended  bool // guarded by hub.mu
}

// Subscribe registers a subscriber of tenant's events that pass f.
func (h *Hub) Subscribe(tenant uuid.UUID, f eventlog.Filter, sink eventlog.Sink) eventlog.Subscription {
	s := &Subscription{hub: h, tenant: tenant, filter: f, sink: sink}
	h.mu.Lock()
	subs := h.byTenant[tenant]
	if subs == nil {
		subs = map[*Subscription]struct{}{}
		h.byTenant[tenant] = subs
	}
	subs[s] = struct{}{}
	h.mu.Unlock()
	h.count.Add(1)
	return s
}

// Publish hands ev to every matching subscriber of its tenant; only this
// tenant's subscribers are even looked at.
func (h *Hub) Publish(ev *eventlog.LiveEvent) {
	var evicted []*Subscription
	h.mu.Lock()
	if h.pos.Before(ev.Pos) {
		h.pos = ev.Pos
	}
	for s := range h.byTenant[ev.TenantID] {
		if s.filter.Matches(ev) && !s.sink.Deliver(ev) {
			h.removeLocked(s)
			evicted = append(evicted, s)
		}
	}
	h.mu.Unlock()
	for _, s := range evicted {
		h.evicted.Add(1)
		// Ending may write to a network connection: never under the lock,
		// and never in the publisher's way.
		h.ending.Go(func() { s.sink.Ended(true) })
	}
}

// Close waits until every evicted subscriber's end has run. Call it once
// nothing publishes any more (the relay has returned).
func (h *Hub) Close() { h.ending.Wait() }

// Position is the outbox position of the last event handed to the hub
// (published or passed over): every event after it reaches the subscribers
// registered now. A resuming subscriber replays from storage up to it.
func (h *Hub) Position() eventlog.Position {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.pos
}

// Advance records that the relay passed pos without publishing (events
// that are not for live subscribers, or its starting point).
func (h *Hub) Advance(pos eventlog.Position) {
	h.mu.Lock()
	if h.pos.Before(pos) {
		h.pos = pos
	}
	h.mu.Unlock()
}

// Subscribers is the number of live subscriptions.
func (h *Hub) Subscribers() int64 { return h.count.Load() }

// Evictions counts subscribers cut off for being too slow.
func (h *Hub) Evictions() int64 { return h.evicted.Load() }

// removeLocked unregisters s; it reports false when s had already ended.
func (h *Hub) removeLocked(s *Subscription) bool {
	if s.ended {
		return false
	}
	s.ended = true
	subs := h.byTenant[s.tenant]
	delete(subs, s)
	if len(subs) == 0 {
		delete(h.byTenant, s.tenant)
	}
	h.count.Add(-1)
	return true
}

// Close ends the subscription; calling it again does nothing.
func (s *Subscription) Close() {
	s.hub.mu.Lock()
	first := s.hub.removeLocked(s)
	s.hub.mu.Unlock()
	if first {
		s.sink.Ended(false)
	}
}
