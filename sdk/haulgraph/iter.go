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
	return numbered(s.Page, s.PageSize, func(p int32) ([]Statement, int64, error) {
		s.Page = p
		page, err := c.SearchStatements(ctx, s)
		if err != nil {
			return nil, 0, err
		}
		return page.Items, page.Total, nil
	})
}

// Locations yields every location the search selects, from s.Page on.
func (c *Client) Locations(ctx context.Context, s LocationSearch) iter.Seq2[Location, error] {
	var first int32
	if s.Page != nil {
		first = *s.Page
	}
	return numbered(first, s.PageSize, func(p int32) ([]Location, int64, error) {
		s.Page = &p
		page, err := c.SearchLocations(ctx, s)
		if err != nil {
			return nil, 0, err
		}
		return page.Items, page.Total, nil
	})
}

// Users yields every user the search selects, from s.Page on.
func (c *Client) Users(ctx context.Context, s UserSearch) iter.Seq2[User, error] {
	return numbered(s.Page, s.PageSize, func(p int32) ([]User, int64, error) {
		s.Page = p
		page, err := c.SearchUsers(ctx, s)
		if err != nil {
			return nil, 0, err
		}
		return page.Items, page.Total, nil
	})
}

// numbered yields the items of numbered pages of size, fetched from page
// first on, until the total is reached (or a page comes back empty).
func numbered[T any](first, size int32, fetch func(page int32) ([]T, int64, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for p := first; ; p++ {
			items, total, err := fetch(p)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			if len(items) == 0 || int64(p+1)*int64(size) >= total {
				return
			}
		}
	}
}

// Trailers yields every trailer, oldest first, following the Link header.
func (c *Client) Trailers(ctx context.Context, p ListTrailersParams) iter.Seq2[Trailer, error] {
	return linked(func(next string) ([]Trailer, string, error) {
		var page *TrailerPage
		var err error
		if next == "" {
			page, err = c.ListTrailers(ctx, p)
		} else {
			page, err = c.trailersAt(ctx, next, nil)
		}
		if err != nil {
			return nil, "", err
		}
		return page.Items, page.Next, nil
	})
}

// Events yields the tenant's events, oldest first, until the log is caught
// up (the last page has no next link). To poll, keep the last event's Id
// and pass it as After next time.
func (c *Client) Events(ctx context.Context, p ListEventsParams) iter.Seq2[EventEnvelope, error] {
	return linked(func(next string) ([]EventEnvelope, string, error) {
		var page *EventPage
		var err error
		if next == "" {
			page, err = c.ListEvents(ctx, p)
		} else {
			page, err = c.eventsAt(ctx, next, nil)
		}
		if err != nil {
			return nil, "", err
		}
		return page.Items, page.Next, nil
	})
}

// WebhookDeliveries yields a webhook's deliveries, newest first.
func (c *Client) WebhookDeliveries(ctx context.Context, id string, p ListWebhookDeliveriesParams) iter.Seq2[WebhookDelivery, error] {
	return linked(func(next string) ([]WebhookDelivery, string, error) {
		var page *DeliveryPage
		var err error
		if next == "" {
			page, err = c.ListWebhookDeliveries(ctx, id, p)
		} else {
			page, err = c.deliveriesAt(ctx, next, nil)
		}
		if err != nil {
			return nil, "", err
		}
		return page.Items, page.Next, nil
	})
}

// linked yields the items of pages that link to the next one: fetch("")
// gets the first, fetch(next) the page its predecessor linked to, until a
// page links to none.
func linked[T any](fetch func(next string) ([]T, string, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		next := ""
		for {
			items, link, err := fetch(next)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			if link == "" {
				return
			}
			next = link
		}
	}
}
