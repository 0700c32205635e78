package haulgraph

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// EventService reads the tenant's event log and follows it live.
type EventService struct{ c *Client }

// EventListParams selects events, oldest first. To poll, keep the last
// event's ID and pass it as After next time.
type EventListParams struct {
	// After is an event id (or a page's Next): start with what followed.
	After        string
	Limit        int
	Types        []EventType
	LoadNumber   string
	SubsidiaryID string
	// Since starts with the events emitted at or after it.
	Since                     time.Time
	IncludePreviousAttributes bool
}

func (p *EventListParams) query() url.Values {
	q := url.Values{}
	if p.After != "" {
		q.Set("after", p.After)
	}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	for _, t := range p.Types {
		q.Add("type", string(t))
	}
	if p.LoadNumber != "" {
		q.Set("loadNumber", p.LoadNumber)
	}
	if p.SubsidiaryID != "" {
		q.Set("subsidiaryId", p.SubsidiaryID)
	}
	if !p.Since.IsZero() {
		q.Set("since", p.Since.Format(time.RFC3339Nano))
	}
	if p.IncludePreviousAttributes {
		q.Set("includePreviousAttributes", "true")
	}
	return q
}

// ListPage reads one page of events; Next is "" once the log is caught up.
func (s *EventService) ListPage(ctx context.Context, p *EventListParams) (*Page[Event], error) {
	if p == nil {
		p = &EventListParams{}
	}
	return listAt[Event](ctx, s.c, s.c.restPath("events"), p.query())
}

// List yields the events p selects until the log is caught up.
func (s *EventService) List(ctx context.Context, p *EventListParams) iter.Seq2[Event, error] {
	q := EventListParams{}
	if p != nil {
		q = *p
	}
	return pages(func(next string) (*Page[Event], error) {
		if next != "" {
			q.After = next
		}
		return s.ListPage(ctx, &q)
	})
}

// listAt reads a JSON array answer with its Link and X-Total-Count headers.
func listAt[T any](ctx context.Context, c *Client, path string, q url.Values) (*Page[T], error) {
	var page Page[T]
	meta, err := c.do(ctx, request{method: http.MethodGet, path: path, query: q, idempotent: true}, &page.Items)
	if err != nil {
		return nil, err
	}
	page.LastResponse = meta
	page.Total, _ = strconv.ParseInt(meta.Header.Get("X-Total-Count"), 10, 64)
	page.Next = afterOf(nextLink(meta.Header))
	return &page, nil
}
