package rest

import "github.com/haulgraph/haulgraph/domain"

// Envelope is docs/api-contract.md §2.1's paged envelope.
type Envelope[T any] struct {
	Page     int `json:"Page"`
	PageSize int `json:"PageSize"`
	Total    int `json:"Total"`
	Items    []T `json:"Items"`
}

// envelope wraps one page with the paging domain validated (Page absent: 0).
func envelope[T any](p domain.Page[T]) Envelope[T] {
	n, _ := p.Window.PageNumber()
	return Envelope[T]{Page: n, PageSize: p.Window.Limit, Total: p.Total, Items: nonNil(p.Items)}
}

// nonNil makes an empty list render as [] rather than null.
func nonNil[T any](items []T) []T {
	if items == nil {
		return []T{}
	}
	return items
}
