package domain

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
