package webhook

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// memStore is webhooks.DeliveryStore in memory, for the loops' tests that
// need no PostgreSQL: an outbox with a cursor, webhooks, deliveries, and
// what was recorded. It keeps the port's contract (claims lease, a stale
// attempt does not move its delivery) without the SQL.
type memStore struct {
	mu         sync.Mutex
	events     []webhooks.RoutableEvent
	cursor     int
	hooks      []webhooks.Webhook
	endpoint   map[uuid.UUID]string // webhook → URL
	secret     string
	deliveries []*memDelivery
	recorded   []memRecord
	forwarded  []uuid.UUID // webhooks whose retries were brought forward
	dispatches int
	fail       error // every method answers it when set
	// released, when set, is told (without waiting) of every ReleaseWaiting.
	released chan struct{}
}

type memDelivery struct {
	webhooks.ClaimedDelivery
	Status string
	Due    time.Time
}

type memRecord struct {
	Log      webhooks.AttemptLog
	Decision webhooks.AttemptDecision
	Delivery uuid.UUID
}

var _ webhooks.DeliveryStore = (*memStore)(nil)

func (m *memStore) DispatchEvents(_ context.Context, limit int,
	route func([]webhooks.RoutableEvent, []webhooks.Webhook) []webhooks.NewDelivery) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return 0, m.fail
	}
	m.dispatches++
	batch := m.events[m.cursor:min(m.cursor+limit, len(m.events))]
	for _, d := range route(batch, m.hooks) {
		m.deliveries = append(m.deliveries, &memDelivery{Status: d.Status, Due: d.Due, ClaimedDelivery: webhooks.ClaimedDelivery{
			ID: uuid.New(), TenantID: d.Event.TenantID, WebhookID: d.Webhook.ID, EventID: d.Event.ID, EventType: d.Event.Type,
			URL: m.endpoint[d.Webhook.ID], Secret: m.secret, Payload: []byte(`{"id":"` + d.Event.ID + `","data":{}}`),
		}})
	}
	m.cursor += len(batch)
	return len(batch), nil
}

func (m *memStore) ClaimDeliveries(_ context.Context, now, leaseUntil time.Time, limit int) ([]webhooks.ClaimedDelivery, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return nil, m.fail
	}
	due := []*memDelivery{}
	for _, d := range m.deliveries {
		if d.Status == webhooks.DeliveryPending && !d.Due.After(now) && m.active(d.WebhookID) {
			due = append(due, d)
		}
	}
	sort.SliceStable(due, func(i, j int) bool { return due[i].Due.Before(due[j].Due) })
	var out []webhooks.ClaimedDelivery
	for _, d := range due[:min(limit, len(due))] {
		d.Attempt++
		d.ChainAttempt++
		d.Due = leaseUntil
		out = append(out, d.ClaimedDelivery)
	}
	return out, nil
}

func (m *memStore) active(id uuid.UUID) bool {
	for _, w := range m.hooks {
		if w.ID == id {
			return w.State == webhooks.WebhookActive
		}
	}
	return false
}

func (m *memStore) RecordAttempt(_ context.Context, c webhooks.ClaimedDelivery, l webhooks.AttemptLog, d webhooks.AttemptDecision) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return false, m.fail
	}
	m.recorded = append(m.recorded, memRecord{Log: l, Decision: d, Delivery: c.ID})
	for _, dl := range m.deliveries {
		if dl.ID != c.ID || dl.Attempt != c.Attempt || dl.Status != webhooks.DeliveryPending {
			continue
		}
		dl.Status = d.Status
		if d.NextAttemptAt != nil {
			dl.Due = *d.NextAttemptAt
		}
		for i := range m.hooks {
			if w := &m.hooks[i]; w.ID == c.WebhookID && d.Disable && w.State == d.From {
				w.State, w.StateReason = d.To, d.Reason
			}
		}
		return true, nil
	}
	return false, nil
}

func (m *memStore) BringForward(_ context.Context, webhookID uuid.UUID, horizon time.Time, limit int,
	plan func(int, []uuid.UUID) map[uuid.UUID]time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.forwarded = append(m.forwarded, webhookID)
	dueSoon, waiting := 0, []uuid.UUID{}
	for _, d := range m.deliveries {
		switch {
		case d.WebhookID != webhookID || d.Status != webhooks.DeliveryPending:
		case !d.Due.After(horizon):
			dueSoon++
		case len(waiting) < limit:
			waiting = append(waiting, d.ID)
		}
	}
	moves := plan(dueSoon, waiting)
	for _, d := range m.deliveries {
		if at, ok := moves[d.ID]; ok {
			d.Due = at
		}
	}
	return nil
}

func (m *memStore) PruneHistory(context.Context, time.Time) (int64, error) { return 0, m.fail }

// ReleaseWaiting has nothing to release: memStore queues no delivery behind another.
func (m *memStore) ReleaseWaiting(context.Context, time.Time) (int64, error) {
	select {
	case m.released <- struct{}{}:
	default:
	}
	return 0, nil
}

// status is the delivery of the event's status.
func (m *memStore) status(eventID string) (string, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, d := range m.deliveries {
		if d.EventID == eventID {
			return d.Status, d.Attempt
		}
	}
	return "", 0
}
