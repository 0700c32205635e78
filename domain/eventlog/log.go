package eventlog

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/haulgraph/haulgraph/domain"
)

// The events API: the outbox read back for reconciliation, as
// Stripe's /v1/events. REST and GraphQL both call Log.List.

// Store is the storage port of the events API: one tenant's outbox in
// commit order.
type Store interface {
	// Locate finds where an after value points (locateAfter).
	Locator
	// ListEvents returns at most q.Limit+1 events matching q (the extra one
	// tells that more follow), oldest first.
	ListEvents(ctx context.Context, tenantID uuid.UUID, q Query) ([]LoggedEvent, error)
}

// Query selects events of one tenant after a position.
type Query struct {
	// After is an outbox position (zero: from the oldest retained event).
	After Position
	// Types is never empty: it is what the caller may see.
	Types        []string
	LoadNumber   string
	SubsidiaryID *uuid.UUID
	// Since keeps events created at or after it.
	Since *time.Time
	Limit int
}

// LoggedEvent is one stored event.
type LoggedEvent struct {
	Position     Position
	ID           string
	Type         string
	SubsidiaryID uuid.UUID
	// Payload is the stored envelope of docs/api-contract.md §6.3, previousAttributes
	// included; render it with WebhookBody.
	Payload json.RawMessage
}

// WebhookBody is the body a webhook receives for a stored envelope:
// data.diff.previousAttributes only when asked for (docs/api-contract.md §6.4). The delivery
// worker and the events API both render with it, so the API answers byte for
// byte what a receiver got.
func WebhookBody(payload []byte, includePreviousAttributes bool) ([]byte, error) {
	if includePreviousAttributes {
		return payload, nil
	}
	return domain.StripPreviousAttributes(payload)
}

// ParseEnvelope reads a stored envelope's timestamp and data.
func ParseEnvelope(payload []byte) (time.Time, domain.EventData, error) {
	var env struct {
		Timestamp string           `json:"timestamp"`
		Data      domain.EventData `json:"data"`
	}
	if err := json.Unmarshal(payload, &env); err != nil {
		return time.Time{}, domain.EventData{}, err
	}
	ts, err := time.Parse(time.RFC3339Nano, env.Timestamp)
	return ts, env.Data, err
}

// EventIDPattern is docs/api-contract.md §6.3's event id, <uuid>-<suffix>,
// unanchored (a published schema embeds it in its own pattern).
const EventIDPattern = `[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}-[0-9]{1,3}`

var eventIDPattern = regexp.MustCompile("^" + EventIDPattern + "$")

// TypeScope is the scope that lets a caller see events of a type:
// trip:read for trip.changed, load:read for the load events.
func TypeScope(eventType string) domain.Scope {
	if eventType == domain.EventTripChanged {
		return domain.ScopeTripRead
	}
	return domain.ScopeLoadRead
}

// Log is the events API service.
type Log struct {
	Store Store
	// Cursors seals the positions of the events listed (and opens after).
	Cursors *Cursors
}

// ListInput is a request of the events API as sent; the field names of
// its validation errors are GraphQL's (first, after, types, loadNumber,
// subsidiaryId).
type ListInput struct {
	First *int
	// After is a cursor of a previous answer or an event id (Stripe's
	// starting_after): the events committed after it follow.
	After        *string
	Types        []string
	LoadNumber   *string
	SubsidiaryID *string
	Since        *time.Time
}

// List answers one page of the caller's events, oldest first. Only types
// the token may read are listed (load:read, trip:read): without a types
// filter the others are left out, asking for one is FORBIDDEN.
func (l *Log) List(ctx context.Context, in ListInput) (domain.Page[LoggedEvent], error) {
	p, err := domain.Authenticated(ctx)
	if err != nil {
		return domain.Page[LoggedEvent]{}, err
	}
	var v domain.Validation
	q := Query{Limit: domain.CheckPageSize(&v, in.First), Since: in.Since}
	var afterID string
	var afterPos *Position
	after := in.After != nil && strings.TrimSpace(*in.After) != ""
	if after {
		var ok bool
		if afterID, afterPos, ok = parseAfter(l.Cursors, p.TenantID, *in.After); !ok {
			v.Add("after", malformedAfter)
		}
	}
	if domain.CheckEventTypeList(&v, "types", in.Types) {
		q.Types = in.Types
	}
	if in.LoadNumber != nil && v.CheckLoadNumber("loadNumber", "loadNumber", *in.LoadNumber) {
		q.LoadNumber = *in.LoadNumber
	}
	if in.SubsidiaryID != nil {
		q.SubsidiaryID = domain.UUIDField(&v, "subsidiaryId", *in.SubsidiaryID, true) // given, it is not blank
	}
	if err := v.Err(); err != nil {
		return domain.Page[LoggedEvent]{}, err
	}
	if q.Types, err = readableTypes(p, q.Types); err != nil {
		return domain.Page[LoggedEvent]{}, err
	}
	if after {
		if q.After, err = locateAfter(ctx, l.Store, p.TenantID, afterID, afterPos); err != nil {
			return domain.Page[LoggedEvent]{}, err
		}
	}
	events, err := l.Store.ListEvents(ctx, p.TenantID, q)
	if err != nil {
		return domain.Page[LoggedEvent]{}, err
	}
	page := domain.Page[LoggedEvent]{Items: events} // no Total: counting a log is not worth a scan
	if len(events) > q.Limit {
		page.Items, page.HasMore = events[:q.Limit], true
	}
	page.Cursors = make([]string, len(page.Items))
	for i, e := range page.Items {
		page.Cursors[i] = l.Cursors.Seal(p.TenantID, e.Position)
	}
	return page, nil
}

// readableTypes narrows the asked types (none: all) to those p may read, or
// refuses a type asked for explicitly without its scope.
func readableTypes(p *domain.Principal, asked []string) ([]string, error) {
	if len(asked) > 0 {
		for _, t := range asked {
			if s := TypeScope(t); !p.Has(s) {
				return nil, &domain.Error{Code: domain.CodeForbidden, Message: "the token lacks the scope " + string(s) + " that " + t + " events need",
					Fields: map[string][]string{"scope": {string(s)}}}
			}
		}
		return asked, nil
	}
	var out []string
	for _, t := range domain.EventTypes {
		if p.Has(TypeScope(t)) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, &domain.Error{Code: domain.CodeForbidden, Message: "the token lacks the scope load:read or trip:read that events need",
			Fields: map[string][]string{"scope": {string(domain.ScopeLoadRead)}}}
	}
	return out, nil
}
