package haulgraph

import (
	"context"
	"iter"
)

// Iterators over paged results: each fetches a page as the loop reaches
// it and stops at the first error (yielded once). Break out of the loop to
// stop early.

// Statements yields every statement the search selects, from s.Page on.
func (c *Client) Statements(ctx context.Context, s StatementSearch) iter.Seq2[Statement, error] {
	return func(yield func(Statement, error) bool) {
		for {
			page, err := c.SearchStatements(ctx, s)
			if err != nil {
				yield(Statement{}, err)
				return
			}
			for _, it := range page.Items {
				if !yield(it, nil) {
					return
				}
			}
			s.Page++
			if len(page.Items) == 0 || int64(s.Page)*int64(s.PageSize) >= page.Total {
				return
			}
		}
	}
}

// Locations yields every location the search selects, from s.Page on.
func (c *Client) Locations(ctx context.Context, s LocationSearch) iter.Seq2[Location, error] {
	return func(yield func(Location, error) bool) {
		var p int32
		if s.Page != nil {
			p = *s.Page
		}
		for {
			s.Page = &p
			page, err := c.SearchLocations(ctx, s)
			if err != nil {
				yield(Location{}, err)
				return
			}
			for _, it := range page.Items {
				if !yield(it, nil) {
					return
				}
			}
			p++
			if len(page.Items) == 0 || int64(p)*int64(s.PageSize) >= page.Total {
				return
			}
		}
	}
}

// Users yields every user the search selects, from s.Page on.
func (c *Client) Users(ctx context.Context, s UserSearch) iter.Seq2[User, error] {
	return func(yield func(User, error) bool) {
		for {
			page, err := c.SearchUsers(ctx, s)
			if err != nil {
				yield(User{}, err)
				return
			}
			for _, it := range page.Items {
				if !yield(it, nil) {
					return
				}
			}
			s.Page++
			if len(page.Items) == 0 || int64(s.Page)*int64(s.PageSize) >= page.Total {
				return
			}
		}
	}
}

// Trailers yields every trailer, oldest first, following the Link header.
func (c *Client) Trailers(ctx context.Context, p ListTrailersParams) iter.Seq2[Trailer, error] {
	return func(yield func(Trailer, error) bool) {
		page, err := c.ListTrailers(ctx, p)
		for {
			if err != nil {
				yield(Trailer{}, err)
				return
			}
			for _, it := range page.Items {
				if !yield(it, nil) {
					return
				}
			}
			if page.Next == "" {
				return
			}
			page, err = c.trailersAt(ctx, page.Next, nil)
		}
	}
}

// Events yields the tenant's events, oldest first, until the log is caught
// up (the last page has no next link). To poll, keep the last event's Id
// and pass it as After next time.
func (c *Client) Events(ctx context.Context, p ListEventsParams) iter.Seq2[EventEnvelope, error] {
	return func(yield func(EventEnvelope, error) bool) {
		page, err := c.ListEvents(ctx, p)
		for {
			if err != nil {
				yield(EventEnvelope{}, err)
				return
			}
			for _, it := range page.Items {
				if !yield(it, nil) {
					return
				}
			}
			if page.Next == "" {
				return
			}
			page, err = c.eventsAt(ctx, page.Next, nil)
		}
	}
}

// WebhookDeliveries yields a webhook's deliveries, newest first.
func (c *Client) WebhookDeliveries(ctx context.Context, id string, p ListWebhookDeliveriesParams) iter.Seq2[WebhookDelivery, error] {
	return func(yield func(WebhookDelivery, error) bool) {
		page, err := c.ListWebhookDeliveries(ctx, id, p)
		for {
			if err != nil {
				yield(WebhookDelivery{}, err)
				return
			}
			for _, it := range page.Items {
				if !yield(it, nil) {
					return
				}
			}
			if page.Next == "" {
				return
			}
			page, err = c.deliveriesAt(ctx, page.Next, nil)
		}
	}
}
