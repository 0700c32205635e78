package haulgraph

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// InvoiceService reads invoices.
type InvoiceService struct{ c *Client }

// InvoiceParams name an invoice by ID or by Number.
type InvoiceParams struct {
	ID     string
	Number string
}

// Get reads one invoice.
func (s *InvoiceService) Get(ctx context.Context, p *InvoiceParams) (*Invoice, error) {
	q := url.Values{}
	if p.ID != "" {
		q.Set("id", p.ID)
	}
	if p.Number != "" {
		q.Set("invoiceNumber", p.Number)
	}
	var inv Invoice
	meta, err := s.c.do(ctx, request{method: http.MethodGet, path: s.c.restPath("invoices"), query: q, idempotent: true}, &inv)
	if err != nil {
		return nil, err
	}
	inv.LastResponse = meta
	return &inv, nil
}

// TrailerService reads the fleet's trailers.
type TrailerService struct{ c *Client }

// TrailerListParams page the trailers, oldest first.
type TrailerListParams struct {
	Limit int
	After string
}

// ListPage reads one page of trailers (Total: every trailer).
func (s *TrailerService) ListPage(ctx context.Context, p *TrailerListParams) (*Page[Trailer], error) {
	q := url.Values{}
	if p != nil && p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	if p != nil && p.After != "" {
		q.Set("after", p.After)
	}
	return listAt[Trailer](ctx, s.c, s.c.restPath("trailers"), q)
}

// List yields every trailer.
func (s *TrailerService) List(ctx context.Context, p *TrailerListParams) iter.Seq2[Trailer, error] {
	q := TrailerListParams{}
	if p != nil {
		q = *p
	}
	return pages(func(next string) (*Page[Trailer], error) {
		if next != "" {
			q.After = next
		}
		return s.ListPage(ctx, &q)
	})
}

// LocationService searches locations.
type LocationService struct{ c *Client }

// LocationListParams select locations; every field is optional.
type LocationListParams struct {
	Statuses       []string
	IDs            []string
	CreatedFrom    time.Time
	CreatedTo      time.Time
	Page, PageSize int
}

// ListPage reads one page of locations.
func (s *LocationService) ListPage(ctx context.Context, p *LocationListParams) (*Page[Location], error) {
	if p == nil {
		p = &LocationListParams{}
	}
	v := map[string]any{"Page": p.Page, "PageSize": pageSize(p.PageSize)}
	if len(p.Statuses) > 0 {
		v["Status"] = p.Statuses
	}
	if len(p.IDs) > 0 {
		v["LocationIds"] = p.IDs
	}
	if !p.CreatedFrom.IsZero() || !p.CreatedTo.IsZero() {
		r := map[string]time.Time{}
		if !p.CreatedFrom.IsZero() {
			r["Start"] = p.CreatedFrom
		}
		if !p.CreatedTo.IsZero() {
			r["End"] = p.CreatedTo
		}
		v["CreatedDateRange"] = r
	}
	return searchPage[Location](ctx, s.c, "locations/search", v, p.Page)
}

// List yields every location p selects, from p.Page on.
func (s *LocationService) List(ctx context.Context, p *LocationListParams) iter.Seq2[Location, error] {
	q := LocationListParams{}
	if p != nil {
		q = *p
	}
	return pages(func(next string) (*Page[Location], error) {
		if next != "" {
			q.Page, _ = strconv.Atoi(next)
		}
		return s.ListPage(ctx, &q)
	})
}

// UserService searches the tenant's users.
type UserService struct{ c *Client }

// UserListParams select users by keyword (name, user name, email).
type UserListParams struct {
	Keyword        string
	Page, PageSize int
}

// ListPage reads one page of users.
func (s *UserService) ListPage(ctx context.Context, p *UserListParams) (*Page[User], error) {
	if p == nil {
		p = &UserListParams{}
	}
	v := map[string]any{"Page": p.Page, "PageSize": pageSize(p.PageSize)}
	if p.Keyword != "" {
		v["Keyword"] = p.Keyword
	}
	return searchPage[User](ctx, s.c, "users/search", v, p.Page)
}

// List yields every user p selects, from p.Page on.
func (s *UserService) List(ctx context.Context, p *UserListParams) iter.Seq2[User, error] {
	q := UserListParams{}
	if p != nil {
		q = *p
	}
	return pages(func(next string) (*Page[User], error) {
		if next != "" {
			q.Page, _ = strconv.Atoi(next)
		}
		return s.ListPage(ctx, &q)
	})
}

func pageSize(n int) int {
	if n <= 0 {
		return 50
	}
	return n
}

// searchPage posts a numbered search and reads its page.
func searchPage[T any](ctx context.Context, c *Client, route string, body map[string]any, number int) (*Page[T], error) {
	var page Page[T]
	meta, err := c.do(ctx, request{method: http.MethodPost, path: c.restPath(route), body: jsonBody(body),
		ctype: "application/json", idempotent: true}, &page)
	if err != nil {
		return nil, err
	}
	page.LastResponse = meta
	if int64(number+1)*int64(body["PageSize"].(int)) < page.Total && len(page.Items) > 0 {
		page.Next = strconv.Itoa(number + 1)
	}
	return &page, nil
}
