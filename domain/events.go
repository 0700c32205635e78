package domain

import (
	"slices"
	"strings"
)

// Event types of docs/api-contract.md §6.1.
const (
	EventWebhookVerification = "webhook.verification"
	EventLoadChanged         = "load.changed"
	EventLoadStatusChanged   = "load.status.changed"
	EventTripChanged         = "trip.changed"
)

// EventTypes are the business event types a webhook can subscribe to, in the
// order of the event-type list (docs/api-contract.md §4.8).
var EventTypes = []string{EventLoadChanged, EventLoadStatusChanged, EventTripChanged}

// EventPayloadVersion is the envelope's version field (docs/api-contract.md §6.3).
const EventPayloadVersion = "v1"

// CheckEventTypeList records in v why types is not a list of event types:
// each one of EventTypes, spelt exactly, none repeated (so at most
// len(EventTypes)). It reports whether the list is fine.
func CheckEventTypeList(v *Validation, field string, types []string) bool {
	ok := true
	for i, t := range types {
		switch {
		case !slices.Contains(EventTypes, t):
			v.Add(field, "unknown event type "+Quote(t)+" (valid: "+strings.Join(EventTypes, ", ")+")")
			ok = false
		case slices.Contains(types[:i], t):
			v.Add(field, "event type "+Quote(t)+" is given more than once")
			ok = false
		}
	}
	return ok
}
