package webhooks

import (
	"slices"

	"github.com/google/uuid"
)

// RoutableEvent is what routing needs of an outbox event.
type RoutableEvent struct {
	Seq          int64
	ID           string
	TenantID     uuid.UUID
	SubsidiaryID *uuid.UUID // nil: the event belongs to no subsidiary
	Type         string
}

// Route is one delivery to create: this event to this webhook.
type Route struct {
	Event   RoutableEvent
	Webhook *Webhook
}

// RouteEvents decides which webhooks deliver which events (docs/api-contract.md §6):
// an Active webhook of the event's tenant and subsidiary that subscribes to
// its type. An event of no subsidiary goes to no webhook, since every
// webhook belongs to one. Routes come in event order, then webhook order.
func RouteEvents(events []RoutableEvent, hooks []Webhook) []Route {
	type key struct{ tenant, subsidiary uuid.UUID }
	bySubsidiary := map[key][]*Webhook{}
	for i := range hooks {
		w := &hooks[i]
		if !w.State.Delivering() {
			continue
		}
		k := key{w.TenantID, w.SubsidiaryID}
		bySubsidiary[k] = append(bySubsidiary[k], w)
	}
	var routes []Route
	for _, e := range events {
		if e.SubsidiaryID == nil {
			continue
		}
		for _, w := range bySubsidiary[key{e.TenantID, *e.SubsidiaryID}] {
			if slices.Contains(w.EventTypes, e.Type) {
				routes = append(routes, Route{Event: e, Webhook: w})
			}
		}
	}
	return routes
}
