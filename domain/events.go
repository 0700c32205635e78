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

// Channels an event leaves by, named to whoever watches emitted payloads
// (app.Config.EmittedEvent): the same names as the AsyncAPI document's.
const (
	ChannelWebhook    = "webhook"
	ChannelEventsAPI  = "eventsApi"
	ChannelGraphQLWS  = "graphqlWs"
	ChannelGraphQLSSE = "graphqlSse"
	// ChannelOutbox is no transport: the envelope as a write appends it to
	// the outbox (previousAttributes included), before any channel sends it.
	ChannelOutbox = "outbox"
)

// EmitFunc is told every event payload as it is written to a channel.
type EmitFunc func(channel, eventType string, body []byte)
