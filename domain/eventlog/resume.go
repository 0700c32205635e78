package eventlog

import (
	"context"
	"strings"

	"github.com/google/uuid"
	"github.com/haulgraph/haulgraph/domain"
)

// CodeCursorExpired refuses a resume from an event that is no longer kept.
const CodeCursorExpired domain.Code = "CURSOR_EXPIRED"

// Locator finds a tenant's stored event by id or by position.
type Locator interface {
	// Locate finds an event of tenant by id, or else by position (pos not
	// nil); found is false when tenant has no such event. Only tenant's
	// events are read: whether another tenant has one is never asked.
	Locate(ctx context.Context, tenant uuid.UUID, id string, pos *Position) (at Position, found bool, err error)
}

// ReplayLog is the stored event stream (the outbox, kept 30 days) as a
// resuming subscriber reads it; every read is one tenant's.
type ReplayLog interface {
	Locator
	// Page returns up to limit events of tenant of the given types after
	// `after` and up to `upTo` included, in outbox order, as stored.
	Page(ctx context.Context, tenant uuid.UUID, types []string, after, upTo Position, limit int) ([]StoredEvent, error)
}

// afterRule is what a valid after names, for the messages that refuse one.
const (
	afterRule      = "pass the cursor (or the id, <uuid>-<n>) of an event you received"
	malformedAfter = "not an event cursor or event id: " + afterRule
)

// parseAfter reads an after value of tenant's — an event's sealed cursor
// (the events API's and the subscriptions' are the same) or its id —
// without looking it up; ok is false when it is neither. A cursor sealed for
// another tenant, altered or of the old unsealed form is not a cursor: it is
// refused as garbage is, before any lookup.
func parseAfter(cursors *Cursors, tenant uuid.UUID, s string) (id string, pos *Position, ok bool) {
	s = strings.TrimSpace(s)
	if eventIDPattern.MatchString(s) {
		return strings.ToLower(s), nil, true
	}
	if at, ok := cursors.Open(tenant, s); ok {
		return "", &at, true
	}
	return "", nil, false
}

// locateAfter is the one rule for where an after value (read by parseAfter)
// resumes, for subscriptions and the events API alike: an event of the
// tenant's no longer kept (pruned after 30 days), or an id the tenant has no
// event of (another tenant's included), is CURSOR_EXPIRED, never a silent
// fresh start.
func locateAfter(ctx context.Context, loc Locator, tenant uuid.UUID, id string, pos *Position) (Position, error) {
	if loc == nil {
		return Position{}, &domain.Error{Code: domain.CodeInternal, Message: "resuming is not configured"}
	}
	at, found, err := loc.Locate(ctx, tenant, id, pos)
	switch {
	case err != nil:
		return Position{}, err
	case !found:
		msg := "the event is no longer kept (events are kept 30 days) or never existed: start again without after and reconcile"
		return Position{}, &domain.Error{Code: CodeCursorExpired, Message: "after: " + msg, Fields: map[string][]string{"after": {msg}}}
	}
	return at, nil
}

// ResumeAt reads a subscription's after: argument as the position to
// replay after (parseAfter, locateAfter).
func (s *Subscriptions) ResumeAt(ctx context.Context, cursor string) (Position, error) {
	p, err := domain.Authenticated(ctx)
	if err != nil {
		return Position{}, err
	}
	id, pos, ok := parseAfter(s.Cursors, p.TenantID, cursor)
	if !ok {
		return Position{}, domain.FieldError("after", malformedAfter)
	}
	return locateAfter(ctx, s.Log, p.TenantID, id, pos)
}

// Cursor is ev's cursor (Cursors.Seal), as subscriptions deliver it.
func (s *Subscriptions) Cursor(ev *LiveEvent) string { return s.Cursors.Seal(ev.TenantID, ev.Pos) }

// Replay returns the next events, at most limit, after `after` and up to
// `upTo` that a subscription with filter f receives, in outbox order; more
// reports that the page was full (read on after the last event returned).
// Only the caller's tenant is read.
func (s *Subscriptions) Replay(ctx context.Context, f Filter, after, upTo Position, limit int) (events []*LiveEvent, last Position, more bool, err error) {
	p, err := domain.Authenticated(ctx)
	if err != nil {
		return nil, after, false, err
	}
	page, err := s.Log.Page(ctx, p.TenantID, f.Types, after, upTo, limit)
	if err != nil || len(page) == 0 {
		return nil, after, false, err
	}
	for i := range page {
		ev, err := page[i].Live()
		if err != nil {
			return nil, after, false, err
		}
		if f.Matches(ev) {
			events = append(events, ev)
		}
	}
	return events, page[len(page)-1].Pos, len(page) == limit, nil
}
