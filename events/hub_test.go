package events

import (
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/eventlog"
)

func loadEvent(tenant uuid.UUID, number string, status domain.LoadStatus) *eventlog.LiveEvent {
	return &eventlog.LiveEvent{ID: uuid.NewString() + "-0", Type: domain.EventLoadChanged, TenantID: tenant,
		Data: domain.EventData{Load: &domain.Load{LoadNumber: number, Status: status}}}
}

// chanSink is a subscriber with a bounded buffer of n events.
type chanSink struct {
	ch      chan *eventlog.LiveEvent
	ended   chan bool
	evicted bool
}

func newSink(n int) *chanSink {
	return &chanSink{ch: make(chan *eventlog.LiveEvent, n), ended: make(chan bool, 1)}
}

func (c *chanSink) sink() eventlog.Sink {
	return eventlog.Sink{
		Deliver: func(ev *eventlog.LiveEvent) bool {
			select {
			case c.ch <- ev:
				return true
			default:
				return false
			}
		},
		Ended: func(evicted bool) { c.ended <- evicted },
	}
}

func TestHubIsolatesTenantsAndFilters(t *testing.T) {
	t.Parallel()
	h := NewHub()
	a, b := uuid.New(), uuid.New()
	all, covered, other, status := newSink(8), newSink(8), newSink(8), newSink(8)
	allSub := h.Subscribe(a, eventlog.Filter{Types: []string{domain.EventLoadChanged}}, all.sink())
	h.Subscribe(a, eventlog.Filter{Types: []string{domain.EventLoadChanged}, Statuses: []domain.LoadStatus{domain.LoadCovered}}, covered.sink())
	h.Subscribe(b, eventlog.Filter{}, other.sink())
	h.Subscribe(a, eventlog.Filter{Types: []string{domain.EventLoadStatusChanged}}, status.sink())
	h.Publish(loadEvent(a, "L1", domain.LoadOpen))
	h.Publish(loadEvent(a, "L2", domain.LoadCovered))
	if len(all.ch) != 2 || len(covered.ch) != 1 || len(other.ch) != 0 || len(status.ch) != 0 {
		t.Fatalf("fan-out: all=%d covered=%d other=%d status=%d", len(all.ch), len(covered.ch), len(other.ch), len(status.ch))
	}
	if got := <-covered.ch; got.Data.Load.LoadNumber != "L2" {
		t.Fatalf("covered got %s", got.Data.Load.LoadNumber)
	}
	allSub.Close()
	allSub.Close() // idempotent: Ended runs once
	if ev := <-all.ended; ev || len(all.ended) != 0 || h.Subscribers() != 3 {
		t.Fatalf("close: evicted=%v subscribers=%d", ev, h.Subscribers())
	}
	h.Publish(loadEvent(a, "L3", domain.LoadOpen))
	if len(all.ch) != 2 {
		t.Fatal("delivered after Close")
	}
}

func TestHubEvictsSlowSubscriber(t *testing.T) {
	t.Parallel()
	h := NewHub()
	tenant := uuid.New()
	slow, fast := newSink(4), newSink(4)
	h.Subscribe(tenant, eventlog.Filter{}, slow.sink())
	h.Subscribe(tenant, eventlog.Filter{}, fast.sink())
	for i := 0; i < 10; i++ {
		h.Publish(loadEvent(tenant, "L", domain.LoadOpen))
		<-fast.ch // the fast one keeps up
	}
	if evicted := <-slow.ended; !evicted {
		t.Fatal("slow subscriber ended without eviction")
	}
	if h.Evictions() != 1 || h.Subscribers() != 1 || len(slow.ch) != 4 {
		t.Fatalf("evictions=%d subs=%d slow buffer=%d (bound 4)", h.Evictions(), h.Subscribers(), len(slow.ch))
	}
	h.Publish(loadEvent(tenant, "L", domain.LoadOpen))
	if len(fast.ch) != 1 || len(fast.ended) != 0 {
		t.Fatal("fast subscriber stopped receiving")
	}
}

// The end of an evicted subscriber runs outside Publish, and the hub owns
// it: Close returns only once every such end has finished.
func TestHubCloseWaitsForEvictedEnds(t *testing.T) {
	t.Parallel()
	h := NewHub()
	tenant := uuid.New()
	started, release := make(chan struct{}), make(chan struct{})
	var finished atomic.Bool
	h.Subscribe(tenant, eventlog.Filter{}, eventlog.Sink{
		Deliver: func(*eventlog.LiveEvent) bool { return false }, // always full: evicted at once
		Ended: func(bool) {
			close(started)
			<-release // a slow network write
			finished.Store(true)
		},
	})
	h.Publish(&eventlog.LiveEvent{TenantID: tenant})
	<-started
	closed := make(chan bool)
	go func() { h.Close(); closed <- finished.Load() }()
	close(release)
	if !<-closed {
		t.Fatal("Close returned before the evicted subscriber's end finished")
	}
}
