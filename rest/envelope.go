package rest

import "github.com/haulgraph/haulgraph/domain"

// Envelope is spec 2.1's paged envelope.
type Envelope[T any] struct {
	Page     int `json:"Page"`
	PageSize int `json:"PageSize"`
	Total    int `json:"Total"`
	Items    []T `json:"Items"`
}

// envelope wraps one page as the client asked for it (Page absent: 0).
func envelope[T any](page, pageSize *int, p domain.Page[T]) Envelope[T] {
	e := Envelope[T]{Total: p.Total, Items: nonNil(p.Items)}
	if page != nil {
		e.Page = *page
	}
	if pageSize != nil {
		e.PageSize = *pageSize
	}
	return e
}

// nonNil makes an empty list render as [] rather than null.
func nonNil[T any](items []T) []T {
	if items == nil {
		return []T{}
	}
	return items
}
