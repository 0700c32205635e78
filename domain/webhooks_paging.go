package domain

import (
	"context"

	"github.com/google/uuid"
)

// WebhookDeliveryLog is the storage port of the paged delivery log (REST
// GET /webhooks/{id}/deliveries) and of redelivery by delivery id.
type WebhookDeliveryLog interface {
	// DeliveriesPage returns one window of the webhook's deliveries, newest
	// first, with their attempts; w.After is a cursor of a previous page.
	DeliveriesPage(ctx context.Context, tenantID, webhookID uuid.UUID, w Window) (Page[WebhookDelivery], error)
	// DeliveryEventID returns the event of one of the webhook's deliveries,
	// NOT_FOUND when the delivery is not the webhook's.
	DeliveryEventID(ctx context.Context, tenantID, webhookID, deliveryID uuid.UUID) (string, error)
}

// DeliveryPage lists the webhook's deliveries newest first, first (1..100,
// default 20) at a time after a cursor of a previous page.
func (s *Webhooks) DeliveryPage(ctx context.Context, webhookID uuid.UUID, first *int, after *string) (Page[WebhookDelivery], error) {
	tenantID, err := s.tenant(ctx)
	if err != nil {
		return Page[WebhookDelivery]{}, err
	}
	var v Validation
	w := Window{Limit: CheckPageSize(&v, first)}
	if after != nil {
		w.After = *after
	}
	if err := v.Err(); err != nil {
		return Page[WebhookDelivery]{}, err
	}
	if _, err := s.Store.GetWebhook(ctx, tenantID, webhookID); err != nil {
		return Page[WebhookDelivery]{}, err
	}
	return s.DeliveryLog.DeliveriesPage(ctx, tenantID, webhookID, w)
}

// RedeliverDelivery queues the event of one of the webhook's deliveries
// again, as Redeliver does for an event id.
func (s *Webhooks) RedeliverDelivery(ctx context.Context, webhookID, deliveryID uuid.UUID) (*WebhookDelivery, error) {
	tenantID, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	eventID, err := s.DeliveryLog.DeliveryEventID(ctx, tenantID, webhookID, deliveryID)
	if err != nil {
		return nil, err
	}
	return s.Redeliver(ctx, webhookID, eventID)
}
