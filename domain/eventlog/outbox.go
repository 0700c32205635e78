package eventlog

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// Outbox is the storage port of the live tail (the events relay): the
// outbox across tenants, in Position order. Every read returns only final
// events, those no transaction still open can precede, so a reader may
// always advance to the last event it was given; an event that commits late
// holds readers back, it is never skipped.
type Outbox interface {
	// Head is where a live tail starts: the last final event (the zero
	// position when there is none). Every event after it is for the tail to
	// publish, those that had committed but were not final yet included
	// (their writers got ahead of an older transaction still open).
	Head(ctx context.Context) (Position, error)
	// Tail reads up to limit final events after pos. held reports, when
	// fewer came back, that committed events after them wait for an older
	// transaction to end: read again shortly rather than at the next
	// notification, which that transaction need not send.
	Tail(ctx context.Context, pos Position, limit int) (events []StoredEvent, held bool, err error)
	// Has reports whether the event at pos is in the outbox (a database
	// without the last event a relay published lost committed
	// transactions).
	Has(ctx context.Context, pos Position) (bool, error)
	// Listen starts listening for the notification of every commit that
	// writes events.
	Listen(ctx context.Context) (Listener, error)
}

// Listener waits for commit notifications.
type Listener interface {
	// Wait returns nil when a notification arrives or timeout has passed,
	// the connection's error otherwise (ctx's once ctx ends).
	Wait(ctx context.Context, timeout time.Duration) error
	// Close stops listening.
	Close(ctx context.Context)
}

// StoredEvent is one event of the outbox as it is stored: the envelope of
// docs/api-contract.md §6.3 (Payload, with data.diff.previousAttributes) and
// where it belongs.
type StoredEvent struct {
	Pos          Position
	ID           string
	TenantID     uuid.UUID
	SubsidiaryID *uuid.UUID // nil: of no subsidiary
	Type         string
	Payload      json.RawMessage
	CreatedAt    time.Time
	// Traceparent is the W3C trace context of the write, "" when none is known.
	Traceparent string
}

// Live reads the stored envelope into the live event every subscriber
// shares.
func (e *StoredEvent) Live() (*LiveEvent, error) {
	ts, data, err := ParseEnvelope(e.Payload)
	if err != nil {
		return nil, fmt.Errorf("event %s: %w", e.ID, err)
	}
	ev := &LiveEvent{Seq: e.Pos.Seq, Pos: e.Pos, ID: e.ID, Type: e.Type, Timestamp: ts, TenantID: e.TenantID, Data: data}
	if e.SubsidiaryID != nil {
		ev.SubsidiaryID = *e.SubsidiaryID
	}
	return ev, nil
}

// ChannelOutbox names, to whoever watches emitted payloads, the envelope
// as a write appends it to the outbox (previousAttributes included),
// before any channel sends it. It is no transport.
const ChannelOutbox = "outbox"
