package haulgraph

import (
	"encoding/json"
	"time"
)

// Event is a business event, whichever way it arrives: the events listing
// (Events.List), a live subscription (Events.Subscribe) or a webhook
// delivery (WebhookVerifier). Its id is the same in every transport and on
// every redelivery.
type Event struct {
	ID   string    `json:"id"`
	Type EventType `json:"type"`
	// Timestamp is when the write that emitted it committed.
	Timestamp time.Time `json:"timestamp"`
	Version   string    `json:"version"`
	// Cursor is where the event is in the tenant's stream (subscriptions
	// only): Subscribe resumes after it.
	Cursor string    `json:"cursor,omitempty"`
	Data   EventData `json:"data"`
}

// EventData is what an event carries: the load after the write, the trip
// for trip.changed, and what changed (absent on creation and on
// load.status.changed).
type EventData struct {
	Load *Load      `json:"load"`
	Trip *Trip      `json:"trip,omitempty"`
	Diff *EventDiff `json:"diff,omitempty"`
}

// EventDiff is what a write changed.
type EventDiff struct {
	Changes []EventChange `json:"changes"`
	// PreviousAttributes holds the changed fields' earlier values, when
	// asked for (IncludePreviousAttributes), keyed by field name.
	PreviousAttributes map[string]json.RawMessage `json:"previousAttributes,omitempty"`
}

// EventChange is one change of a diff: its kind and, for a change to a
// part of the load, which part.
type EventChange struct {
	Kind   string `json:"kind"`
	Target *struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	} `json:"target,omitempty"`
}
