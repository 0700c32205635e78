package rest

import (
	"net/http"
	"time"

	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// webhookRoutes are REST webhook management (webhook:manage): the
// same domain service as the GraphQL mutations and the CLI.
func webhookRoutes(svc *webhooks.Service) []Route {
	h := &webhookHandlers{svc: svc, decode: decodeInput[webhookBody], render: renderWebhook, renderSecret: renderWebhookSecret}
	return []Route{
		{Method: http.MethodPost, Path: "/webhooks", Handle: h.create},
		{Method: http.MethodGet, Path: "/webhooks", Handle: h.list},
		{Method: http.MethodGet, Path: "/webhooks/{id}", Handle: h.get},
		{Method: http.MethodPatch, Path: "/webhooks/{id}", Handle: h.update},
		{Method: http.MethodDelete, Path: "/webhooks/{id}", Handle: h.delete},
		{Method: http.MethodPost, Path: "/webhooks/{id}/enable", Handle: h.enable},
		{Method: http.MethodPost, Path: "/webhooks/{id}/disable", Handle: h.disable},
		{Method: http.MethodPost, Path: "/webhooks/{id}/rotate-secret", Handle: h.rotateSecret},
		{Method: http.MethodGet, Path: "/webhooks/{id}/deliveries", Handle: h.deliveries},
		{Method: http.MethodPost, Path: "/webhooks/{id}/deliveries/{deliveryId}/redeliver", Handle: h.redeliver},
		{Method: http.MethodPost, Path: "/webhooks/{id}/recover", Handle: h.recover},
	}
}

// webhookHandlers serve the webhook routes and the event-destination
// routes alike: the body, and the shape of the answers, are the routes'.
type webhookHandlers struct {
	svc *webhooks.Service
	// decode reads a create or update body.
	decode       func(w http.ResponseWriter, r *http.Request) (webhooks.Input, error)
	render       func(*webhooks.Webhook) any
	renderSecret func(*webhooks.Webhook, string) any
}

func renderWebhook(w *webhooks.Webhook) any { return toWebhookJSON(w) }
func renderWebhookSecret(w *webhooks.Webhook, secret string) any {
	return webhookWithSecretJSON{toWebhookJSON(w), secret}
}

// decodeInput reads a body of type B (its fields, no others) as input.
func decodeInput[B interface {
	input() (webhooks.Input, error)
}](w http.ResponseWriter, r *http.Request) (webhooks.Input, error) {
	var b B
	if err := decodeJSON(w, r, &b); err != nil {
		return webhooks.Input{}, err
	}
	return b.input()
}

// POST /webhooks: 201 with the webhook (Pending) and its secret, shown once.
func (h *webhookHandlers) create(w http.ResponseWriter, r *http.Request) error {
	in, err := h.decode(w, r)
	if err != nil {
		return err
	}
	wh, secret, err := h.svc.Create(r.Context(), in)
	if err != nil {
		return renameFields(err, webhookFields)
	}
	w.Header().Set("Location", r.URL.Path+"/"+wh.ID.String())
	w.Header().Set("Cache-Control", "no-store")
	WriteJSON(w, http.StatusCreated, h.renderSecret(wh, secret))
	return nil
}

// GET /webhooks: the tenant's webhooks (at most 100), oldest first.
func (h *webhookHandlers) list(w http.ResponseWriter, r *http.Request) error {
	ws, err := h.svc.List(r.Context())
	if err != nil {
		return err
	}
	out := make([]any, len(ws))
	for i := range ws {
		out[i] = h.render(&ws[i])
	}
	WriteJSON(w, http.StatusOK, out)
	return nil
}

// GET /webhooks/{id}.
func (h *webhookHandlers) get(w http.ResponseWriter, r *http.Request) error {
	id, err := pathUUID(r, "id")
	if err != nil {
		return err
	}
	return h.answer(w)(h.svc.Get(r.Context(), id))
}

// PATCH /webhooks/{id}: only the fields sent change; a URL change on an
// Active webhook re-verifies it (the answer shows the resulting state).
func (h *webhookHandlers) update(w http.ResponseWriter, r *http.Request) error {
	id, err := pathUUID(r, "id")
	if err != nil {
		return err
	}
	in, err := h.decode(w, r)
	if err != nil {
		return err
	}
	return h.answer(w)(h.svc.Update(r.Context(), id, in))
}

// DELETE /webhooks/{id}: 204.
func (h *webhookHandlers) delete(w http.ResponseWriter, r *http.Request) error {
	id, err := pathUUID(r, "id")
	if err != nil {
		return err
	}
	if err := h.svc.Delete(r.Context(), id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// POST /webhooks/{id}/enable: runs the verification (docs/api-contract.md §6.2) and answers
// the resulting state: Active, or FailedVerification with the reason.
func (h *webhookHandlers) enable(w http.ResponseWriter, r *http.Request) error {
	id, err := pathUUID(r, "id")
	if err != nil {
		return err
	}
	return h.answer(w)(h.svc.Enable(r.Context(), id))
}

// POST /webhooks/{id}/disable.
func (h *webhookHandlers) disable(w http.ResponseWriter, r *http.Request) error {
	id, err := pathUUID(r, "id")
	if err != nil {
		return err
	}
	return h.answer(w)(h.svc.Disable(r.Context(), id))
}

// POST /webhooks/{id}/rotate-secret {"RotationWindow": seconds} (body
// optional): the new secret, shown once; the old one signs v0 until the
// window ends.
func (h *webhookHandlers) rotateSecret(w http.ResponseWriter, r *http.Request) error {
	id, err := pathUUID(r, "id")
	if err != nil {
		return err
	}
	var b rotateBody
	if r.ContentLength != 0 || r.Header.Get("Content-Type") != "" {
		if err := decodeJSON(w, r, &b); err != nil {
			return err
		}
	}
	var f fields
	var window *time.Duration
	if n := f.Number("RotationWindow", b.RotationWindow); n != nil {
		d := time.Duration(*n) * time.Second
		window = &d
	}
	if err := f.Err(); err != nil {
		return err
	}
	wh, secret, err := h.svc.RegenerateSecret(r.Context(), id, window)
	if err != nil {
		return renameFields(err, webhookFields)
	}
	w.Header().Set("Cache-Control", "no-store")
	WriteJSON(w, http.StatusOK, h.renderSecret(wh, secret))
	return nil
}

// GET /webhooks/{id}/deliveries?limit=&after=: newest first, with attempts;
// Link rel="next" while more follow.
func (h *webhookHandlers) deliveries(w http.ResponseWriter, r *http.Request) error {
	id, err := pathUUID(r, "id")
	if err != nil {
		return err
	}
	q := r.URL.Query()
	var f fields
	first := f.Int("limit", queryParam(q, "limit"))
	if err := f.Err(); err != nil {
		return err
	}
	page, err := h.svc.DeliveryPage(r.Context(), id, first, queryParam(q, "after"))
	if err != nil {
		return renameFields(err, webhookFields)
	}
	out := make([]deliveryJSON, len(page.Items))
	for i := range page.Items {
		out[i] = toDeliveryJSON(&page.Items[i])
	}
	if page.HasMore {
		w.Header().Set("Link", "<"+nextURL(r, page.Cursors[len(page.Cursors)-1])+`>; rel="next"`)
	}
	WriteJSON(w, http.StatusOK, out)
	return nil
}

// POST /webhooks/{id}/deliveries/{deliveryId}/redeliver: 202 with the new
// delivery of the same event (same event id).
func (h *webhookHandlers) redeliver(w http.ResponseWriter, r *http.Request) error {
	id, err := pathUUID(r, "id")
	if err != nil {
		return err
	}
	deliveryID, err := pathUUID(r, "deliveryId")
	if err != nil {
		return err
	}
	d, err := h.svc.RedeliverDelivery(r.Context(), id, deliveryID)
	if err != nil {
		return renameFields(err, webhookFields)
	}
	WriteJSON(w, http.StatusAccepted, toDeliveryJSON(d))
	return nil
}

// POST /webhooks/{id}/recover {"Since": date-time}: re-queues every failed
// delivery created since then (at most 30 days back), each due now with a
// fresh retry chain; 202 with how many.
func (h *webhookHandlers) recover(w http.ResponseWriter, r *http.Request) error {
	id, err := pathUUID(r, "id")
	if err != nil {
		return err
	}
	var b recoverBody
	if err := decodeJSON(w, r, &b); err != nil {
		return err
	}
	var f fields
	var since time.Time
	if t := f.DateTime("Since", b.Since); t != nil {
		since = *t
	}
	if err := f.Err(); err != nil {
		return err
	}
	n, err := h.svc.Recover(r.Context(), id, since)
	if err != nil {
		return renameFields(err, webhookFields)
	}
	WriteJSON(w, http.StatusAccepted, recoveredJSON{Requeued: n})
	return nil
}

// answer writes a webhook or the error.
func (h *webhookHandlers) answer(w http.ResponseWriter) func(*webhooks.Webhook, error) error {
	return func(wh *webhooks.Webhook, err error) error {
		if err != nil {
			return renameFields(err, webhookFields)
		}
		WriteJSON(w, http.StatusOK, h.render(wh))
		return nil
	}
}

// input converts the body of a webhook route (no destination fields: they
// are unknown fields there); a malformed SubsidiaryId is named.
func (b webhookBody) input() (webhooks.Input, error) {
	var f fields
	in := webhooks.Input{Name: b.Name, URL: b.Url, EventTypes: b.EventTypes, IncludePreviousAttributes: b.IncludePreviousAttributes,
		SubsidiaryID: f.UUID("SubsidiaryId", b.SubsidiaryId)}
	if b.SignatureScheme != nil {
		s := webhooks.SignatureScheme(*b.SignatureScheme)
		in.SignatureScheme = &s
	}
	return in, f.Err()
}
