package webhooks

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// store is the Store as the service answers from it: a secret rotation is
// shown only while it lasts (RotationLasts).
func (s *Service) store() Store { return rotationShown{s.Store, s.now()} }

type rotationShown struct {
	Store
	now time.Time
}

func (r rotationShown) shown(w *Webhook) {
	if w != nil && !RotationLasts(w.RotationEndsAt, r.now) {
		w.RotationEndsAt = nil
	}
}

func (r rotationShown) GetWebhook(ctx context.Context, tenantID, id uuid.UUID) (*Webhook, error) {
	w, err := r.Store.GetWebhook(ctx, tenantID, id)
	r.shown(w)
	return w, err
}

func (r rotationShown) ListWebhooks(ctx context.Context, tenantID uuid.UUID, limit int) ([]Webhook, error) {
	ws, err := r.Store.ListWebhooks(ctx, tenantID, limit)
	for i := range ws {
		r.shown(&ws[i])
	}
	return ws, err
}

func (r rotationShown) ChangeWebhook(ctx context.Context, tenantID, id uuid.UUID, change func(w *Webhook) error) (*Webhook, error) {
	w, err := r.Store.ChangeWebhook(ctx, tenantID, id, change)
	r.shown(w)
	return w, err
}
