package haulgraph

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// WebhookService manages the tenant's webhooks and their deliveries
// (scope webhook:manage).
type WebhookService struct{ c *Client }

// WebhookParams is a new webhook. It starts Pending: Enable verifies the
// endpoint and turns delivery on.
type WebhookParams struct {
	Name         string
	URL          string
	EventTypes   []EventType
	SubsidiaryID string
	// SignatureScheme defaults to SchemeService.
	SignatureScheme           SignatureScheme
	IncludePreviousAttributes bool
}

// WebhookUpdateParams changes the fields set (nil leaves one as it is).
type WebhookUpdateParams struct {
	Name                      *string
	URL                       *string
	EventTypes                []EventType
	SignatureScheme           *SignatureScheme
	IncludePreviousAttributes *bool
}

// RotateSecretParams: the previous secret keeps signing (as v0) for
// RotationWindow (default 24 h, at most 7 days; whole seconds).
type RotateSecretParams struct {
	RotationWindow time.Duration
}

// DeliveryListParams pages a webhook's deliveries, newest first.
type DeliveryListParams struct {
	Limit int
	After string
}

// RecoverParams re-queues the failed deliveries created since Since.
type RecoverParams struct {
	Since time.Time
}

// Recovered is how many deliveries Recover queued again.
type Recovered struct {
	Requeued int64 `json:"Requeued"`
	APIResource
}

func (s *WebhookService) path(id, action string) string {
	p := s.c.restPath("webhooks/" + url.PathEscape(id))
	if action != "" {
		p += "/" + action
	}
	return p
}

// webhook sends r and decodes a Webhook.
func (s *WebhookService) webhook(ctx context.Context, r request) (*Webhook, error) {
	var w Webhook
	meta, err := s.c.do(ctx, r, &w)
	if err != nil {
		return nil, err
	}
	w.LastResponse = meta
	return &w, nil
}

// EventTypes lists the event types a webhook can subscribe to.
func (s *WebhookService) EventTypes(ctx context.Context) (*Page[EventType], error) {
	return listAt[EventType](ctx, s.c, s.c.restPath("webhooks/event-types"), nil)
}

// List lists the webhooks (secrets are never listed).
func (s *WebhookService) List(ctx context.Context) (*Page[Webhook], error) {
	return listAt[Webhook](ctx, s.c, s.c.restPath("webhooks"), nil)
}

// Get reads one webhook.
func (s *WebhookService) Get(ctx context.Context, id string) (*Webhook, error) {
	return s.webhook(ctx, request{method: http.MethodGet, path: s.path(id, ""), idempotent: true})
}

// Create creates a Pending webhook. Its answer is the only one that shows
// the signing secret (Secret) or, for SchemeStandardWebhooksEd25519, the
// public key (PublicKey).
func (s *WebhookService) Create(ctx context.Context, p *WebhookParams) (*Webhook, error) {
	v := map[string]any{"Name": p.Name, "Url": p.URL, "EventTypes": p.EventTypes, "SubsidiaryId": p.SubsidiaryID}
	if p.SignatureScheme != "" {
		v["SignatureScheme"] = p.SignatureScheme
	}
	if p.IncludePreviousAttributes {
		v["IncludePreviousAttributes"] = true
	}
	return s.webhook(ctx, request{method: http.MethodPost, path: s.c.restPath("webhooks"), body: jsonBody(v), ctype: "application/json"})
}

// Update changes the fields set in p.
func (s *WebhookService) Update(ctx context.Context, id string, p *WebhookUpdateParams) (*Webhook, error) {
	v := map[string]any{}
	if p.Name != nil {
		v["Name"] = *p.Name
	}
	if p.URL != nil {
		v["Url"] = *p.URL
	}
	if p.EventTypes != nil {
		v["EventTypes"] = p.EventTypes
	}
	if p.SignatureScheme != nil {
		v["SignatureScheme"] = *p.SignatureScheme
	}
	if p.IncludePreviousAttributes != nil {
		v["IncludePreviousAttributes"] = *p.IncludePreviousAttributes
	}
	// Setting the same fields twice leaves the same webhook.
	return s.webhook(ctx, request{method: http.MethodPatch, path: s.path(id, ""), body: jsonBody(v), ctype: "application/json", idempotent: true})
}

// Delete deletes a webhook with its deliveries.
func (s *WebhookService) Delete(ctx context.Context, id string) (*Response, error) {
	return s.c.do(ctx, request{method: http.MethodDelete, path: s.path(id, ""), idempotent: true}, nil)
}

// Enable turns delivery on: the server verifies the endpoint (a challenge
// the receiver echoes) and answers the resulting state (WebhookActive or
// WebhookFailedVerification).
func (s *WebhookService) Enable(ctx context.Context, id string) (*Webhook, error) {
	return s.webhook(ctx, request{method: http.MethodPost, path: s.path(id, "enable")})
}

// Disable stops delivery at once.
func (s *WebhookService) Disable(ctx context.Context, id string) (*Webhook, error) {
	return s.webhook(ctx, request{method: http.MethodPost, path: s.path(id, "disable"), idempotent: true})
}

// RotateSecret issues a new signing secret, shown once in Secret; p may be
// nil.
func (s *WebhookService) RotateSecret(ctx context.Context, id string, p *RotateSecretParams) (*Webhook, error) {
	r := request{method: http.MethodPost, path: s.path(id, "rotate-secret")}
	if p != nil && p.RotationWindow > 0 {
		r.body, r.ctype = jsonBody(map[string]int64{"RotationWindow": int64(p.RotationWindow / time.Second)}), "application/json"
	}
	return s.webhook(ctx, r)
}

// ListDeliveriesPage reads one page of a webhook's deliveries.
func (s *WebhookService) ListDeliveriesPage(ctx context.Context, id string, p *DeliveryListParams) (*Page[Delivery], error) {
	q := url.Values{}
	if p != nil && p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	if p != nil && p.After != "" {
		q.Set("after", p.After)
	}
	return listAt[Delivery](ctx, s.c, s.path(id, "deliveries"), q)
}

// ListDeliveries yields a webhook's deliveries, newest first.
func (s *WebhookService) ListDeliveries(ctx context.Context, id string, p *DeliveryListParams) iter.Seq2[Delivery, error] {
	q := DeliveryListParams{}
	if p != nil {
		q = *p
	}
	return pages(func(next string) (*Page[Delivery], error) {
		if next != "" {
			q.After = next
		}
		return s.ListDeliveriesPage(ctx, id, &q)
	})
}

// Redeliver queues a delivery's event again (with the same event id).
func (s *WebhookService) Redeliver(ctx context.Context, id, deliveryID string) (*Delivery, error) {
	var d Delivery
	meta, err := s.c.do(ctx, request{method: http.MethodPost, path: s.path(id, "deliveries/"+url.PathEscape(deliveryID)+"/redeliver")}, &d)
	if err != nil {
		return nil, err
	}
	d.LastResponse = meta
	return &d, nil
}

// Recover re-queues every failed delivery created since p.Since.
func (s *WebhookService) Recover(ctx context.Context, id string, p *RecoverParams) (*Recovered, error) {
	var out Recovered
	meta, err := s.c.do(ctx, request{method: http.MethodPost, path: s.path(id, "recover"),
		body: jsonBody(map[string]time.Time{"Since": p.Since}), ctype: "application/json"}, &out)
	if err != nil {
		return nil, err
	}
	out.LastResponse = meta
	return &out, nil
}
