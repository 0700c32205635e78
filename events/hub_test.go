package events

import (
	"testing"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
)

func loadEvent(tenant uuid.UUID, number string, status domain.LoadStatus) *domain.LiveEvent {
	return &domain.LiveEvent{ID: uuid.NewString() + "-0", Type: domain.EventLoadChanged, TenantID: tenant,
		Data: domain.EventData{Load: &domain.Load{LoadNumber: number, Status: status}}}
}

func TestHubIsolatesTenantsAndFilters(t *testing.T) {
	h := NewHub(8)
	a, b := uuid.New(), uuid.New()
	all := h.Subscribe(a, domain.EventFilter{Types: []string{domain.EventLoadChanged}})
	covered := h.Subscribe(a, domain.EventFilter{Types: []string{domain.EventLoadChanged}, Statuses: []domain.LoadStatus{domain.LoadCovered}})
	other := h.Subscribe(b, domain.EventFilter{})
	status := h.Subscribe(a, domain.EventFilter{Types: []string{domain.EventLoadStatusChanged}})
	h.Publish(loadEvent(a, "L1", domain.LoadOpen))
	h.Publish(loadEvent(a, "L2", domain.LoadCovered))
	if len(all.Events()) != 2 || len(covered.Events()) != 1 || len(other.Events()) != 0 || len(status.Events()) != 0 {
		t.Fatalf("fan-out: all=%d covered=%d other=%d status=%d", len(all.Events()), len(covered.Events()), len(other.Events()), len(status.Events()))
	}
	if got := <-covered.Events(); got.Data.Load.LoadNumber != "L2" {
		t.Fatalf("covered got %s", got.Data.Load.LoadNumber)
	}
	all.Close()
	all.Close() // idempotent
	if h.Subscribers() != 3 {
		t.Fatalf("subscribers = %d", h.Subscribers())
	}
}

func TestHubEvictsSlowSubscriber(t *testing.T) {
	h := NewHub(4)
	tenant := uuid.New()
	slow := h.Subscribe(tenant, domain.EventFilter{})
	fast := h.Subscribe(tenant, domain.EventFilter{})
	for i := 0; i < 10; i++ {
		h.Publish(loadEvent(tenant, "L", domain.LoadOpen))
		<-fast.Events() // the fast one keeps up
	}
	select {
	case <-slow.Done():
	default:
		t.Fatal("slow subscriber not cut off")
	}
	if !slow.Evicted() || fast.Evicted() || h.Evictions() != 1 || h.Subscribers() != 1 {
		t.Fatalf("evicted slow=%v fast=%v evictions=%d subs=%d", slow.Evicted(), fast.Evicted(), h.Evictions(), h.Subscribers())
	}
	if len(slow.Events()) != 4 {
		t.Fatalf("slow buffer holds %d, want its bound 4", len(slow.Events()))
	}
	h.Publish(loadEvent(tenant, "L", domain.LoadOpen))
	if len(fast.Events()) != 1 {
		t.Fatal("fast subscriber stopped receiving")
	}
}
