// Package events is HaulGraph's event bus: the relay tails the outbox (woken
// by LISTEN/NOTIFY, polling as fallback) and fans each committed event out to
// this instance's subscription hub and to whoever asked to be woken.
package events

import (
	"sync"
	"sync/atomic"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
)

// DefaultBuffer is how many events a subscriber may have pending before it is
// cut off.
const DefaultBuffer = 64

// Hub fans events out to the live subscriptions of one instance. Each
// subscriber has a bounded buffer; Publish never blocks: a subscriber whose
// buffer is full is evicted (its Done closes) instead of growing memory.
type Hub struct {
	buffer   int
	mu       sync.Mutex
	byTenant map[uuid.UUID]map[*Subscription]struct{}
	count    atomic.Int64
	evicted  atomic.Int64
}

// NewHub makes a hub whose subscribers buffer up to buffer events.
func NewHub(buffer int) *Hub {
	if buffer <= 0 {
		buffer = DefaultBuffer
	}
	return &Hub{buffer: buffer, byTenant: map[uuid.UUID]map[*Subscription]struct{}{}}
}

var _ domain.EventStream = (*Hub)(nil)

// Subscription is one subscriber of the hub.
type Subscription struct {
	hub     *Hub
	tenant  uuid.UUID
	filter  domain.EventFilter
	ch      chan *domain.LiveEvent
	done    chan struct{}
	evicted atomic.Bool
	closed  bool // guarded by hub.mu
}

// Subscribe registers a subscriber of tenant's events that pass f.
func (h *Hub) Subscribe(tenant uuid.UUID, f domain.EventFilter) domain.EventSubscription {
	s := &Subscription{hub: h, tenant: tenant, filter: f, ch: make(chan *domain.LiveEvent, h.buffer), done: make(chan struct{})}
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

// Publish hands ev to every matching subscriber of its tenant without
// blocking; only this tenant's subscribers are even looked at.
func (h *Hub) Publish(ev *domain.LiveEvent) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.byTenant[ev.TenantID] {
		if !s.filter.Matches(ev) {
			continue
		}
		select {
		case s.ch <- ev:
		default:
			s.evicted.Store(true)
			h.evicted.Add(1)
			h.removeLocked(s)
		}
	}
}

// Subscribers is the number of live subscriptions.
func (h *Hub) Subscribers() int64 { return h.count.Load() }

// Evictions counts subscribers cut off for being too slow.
func (h *Hub) Evictions() int64 { return h.evicted.Load() }

func (h *Hub) removeLocked(s *Subscription) {
	if s.closed {
		return
	}
	s.closed = true
	subs := h.byTenant[s.tenant]
	delete(subs, s)
	if len(subs) == 0 {
		delete(h.byTenant, s.tenant)
	}
	close(s.done)
	h.count.Add(-1)
}

// Events delivers the subscriber's events; it is never closed: select on Done.
func (s *Subscription) Events() <-chan *domain.LiveEvent { return s.ch }

// Done closes when the subscription ends (Close or eviction).
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Evicted reports whether the hub cut the subscriber off for being too slow.
func (s *Subscription) Evicted() bool { return s.evicted.Load() }

// Close ends the subscription; calling it again does nothing.
func (s *Subscription) Close() {
	s.hub.mu.Lock()
	s.hub.removeLocked(s)
	s.hub.mu.Unlock()
}
