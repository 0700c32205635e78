package webhooks

import (
	"context"

	"github.com/google/uuid"
	"github.com/haulgraph/haulgraph/domain"
)

// DeliveryLog is the storage port of the paged delivery log (REST
// GET /webhooks/{id}/deliveries) and of redelivery by delivery id.
type DeliveryLog interface {
	// DeliveriesPage returns one window of the webhook's deliveries, newest
	// first, with their attempts; w.After is a cursor of a previous page.
	DeliveriesPage(ctx context.Context, tenantID, webhookID uuid.UUID, w domain.Window) (domain.Page[Delivery], error)
	// DeliveryEventID returns the event of one of the webhook's deliveries,
	// NOT_FOUND when the delivery is not the webhook's.
	DeliveryEventID(ctx context.Context, tenantID, webhookID, deliveryID uuid.UUID) (string, error)
}

// DeliveryPage lists the webhook's deliveries newest first, first (1..100,
// default 20) at a time after a cursor of a previous page.
func (s *Service) DeliveryPage(ctx context.Context, webhookID uuid.UUID, first *int, after *string) (domain.Page[Delivery], error) {
	tenantID, err := s.tenant(ctx)
	if err != nil {
		return domain.Page[Delivery]{}, err
	}
	var v domain.Validation
	w := domain.Window{Limit: domain.CheckPageSize(&v, first)}
	domain.CheckCursor(&v, "after", after)
	if after != nil {
		w.After = *after
	}
	if err := v.Err(); err != nil {
		return domain.Page[Delivery]{}, err
	}
	if _, err := s.find(ctx, tenantID, webhookID); err != nil {
		return domain.Page[Delivery]{}, err
	}
	return s.DeliveryLog.DeliveriesPage(ctx, tenantID, webhookID, w)
}

// RedeliverDelivery queues the event of one of the webhook's deliveries
// again, as Redeliver does for an event id (the caller and the webhook
// checked once).
func (s *Service) RedeliverDelivery(ctx context.Context, webhookID, deliveryID uuid.UUID) (*Delivery, error) {
	tenantID, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := s.find(ctx, tenantID, webhookID); err != nil {
		return nil, err
	}
	eventID, err := s.DeliveryLog.DeliveryEventID(ctx, tenantID, webhookID, deliveryID)
	if err != nil {
		return nil, err
	}
	return s.Store.Redeliver(ctx, tenantID, webhookID, eventID, s.now())
}

// boundAttempts keeps each delivery's first MaxDeliveryAttempts attempts:
// a delivery makes no more, and past them are only the log lines of
// stale workers that retried a claim.
func boundAttempts(ds []Delivery) {
	for i := range ds {
		if len(ds[i].Attempts) > MaxDeliveryAttempts {
			ds[i].Attempts = ds[i].Attempts[:MaxDeliveryAttempts]
		}
	}
}

func clampLimit(limit int) int {
	if limit <= 0 || limit > domain.MaxPageSize {
		return domain.MaxPageSize
	}
	return limit
}
