package domain

import (
	"context"
	"strings"

	"github.com/google/uuid"
)

// CodeCursorExpired refuses a resume from an event that is no longer kept.
const CodeCursorExpired Code = "CURSOR_EXPIRED"

// ReplayLog is the stored event stream (the outbox, kept 30 days) as a
// resuming subscriber reads it; every read is one tenant's.
type ReplayLog interface {
	// Locate finds an event of tenant by id, or else by position (pos not
	// nil). found is false when tenant has no such event; foreign then
	// reports that another tenant has it.
	Locate(ctx context.Context, tenant uuid.UUID, id string, pos *EventPosition) (at EventPosition, found, foreign bool, err error)
	// Page returns up to limit events of tenant of the given types after
	// `after` and up to `upTo` included, in outbox order.
	Page(ctx context.Context, tenant uuid.UUID, types []string, after, upTo EventPosition, limit int) ([]*LiveEvent, error)
}

// ResumeAt reads a subscription's after: argument — an event's cursor (the
// same as the events API's) or its id — as the position to replay after. The event must be the caller's: a
// malformed cursor or another tenant's is BAD_USER_INPUT, one no longer kept
// (or unknown) CURSOR_EXPIRED; never a silent fresh start.
func (s *Subscriptions) ResumeAt(ctx context.Context, cursor string) (EventPosition, error) {
	p, err := Authenticated(ctx)
	if err != nil {
		return EventPosition{}, err
	}
	var pos *EventPosition
	id := ""
	if eventIDPattern.MatchString(cursor) {
		id = strings.ToLower(cursor)
	} else if at, ok := DecodeEventCursor(cursor); ok {
		pos = &at
	} else {
		return EventPosition{}, fieldError("after", "not an event cursor or event id: pass the cursor (or id) of an event you received")
	}
	if s.Log == nil {
		return EventPosition{}, &Error{Code: CodeInternal, Message: "resuming is not configured"}
	}
	at, found, foreign, err := s.Log.Locate(ctx, p.TenantID, id, pos)
	switch {
	case err != nil:
		return EventPosition{}, err
	case foreign:
		return EventPosition{}, fieldError("after", "the cursor is not one of your events")
	case !found:
		return EventPosition{}, &Error{Code: CodeCursorExpired,
			Message: "after: the event is no longer kept (events are kept 30 days): subscribe without after and reconcile with a query"}
	}
	return at, nil
}

// Replay returns the next events, at most limit, after `after` and up to
// `upTo` that a subscription with filter f receives, in outbox order; more
// reports that the page was full (read on after the last event returned).
// Only the caller's tenant is read.
func (s *Subscriptions) Replay(ctx context.Context, f EventFilter, after, upTo EventPosition, limit int) (events []*LiveEvent, last EventPosition, more bool, err error) {
	p, err := Authenticated(ctx)
	if err != nil {
		return nil, after, false, err
	}
	page, err := s.Log.Page(ctx, p.TenantID, f.Types, after, upTo, limit)
	if err != nil || len(page) == 0 {
		return nil, after, false, err
	}
	for _, ev := range page {
		if f.Matches(ev) {
			events = append(events, ev)
		}
	}
	return events, page[len(page)-1].Pos, len(page) == limit, nil
}
