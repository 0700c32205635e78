package haulgraph

import (
	"iter"
	"net/url"
)

// Page is one page of a listing.
type Page[T any] struct {
	Items []T
	// Total counts every item the listing selects (0 when the API does
	// not say).
	Total int64
	// Next, passed as the params' After (cursor listings) or the page
	// number's successor (numbered searches), reads the next page; it is
	// "" on the last page.
	Next string
	APIResource
}

// afterOf is the after parameter of a Link rel="next" URL.
func afterOf(link string) string {
	if link == "" {
		return ""
	}
	u, err := url.Parse(link)
	if err != nil {
		return ""
	}
	return u.Query().Get("after")
}

// pages yields the items of every page: fetch("") reads the first,
// fetch(next) the one after, until a page has no Next. The first error is
// yielded once and ends the loop.
func pages[T any](fetch func(next string) (*Page[T], error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		next := ""
		for {
			p, err := fetch(next)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range p.Items {
				if !yield(it, nil) {
					return
				}
			}
			if p.Next == "" || len(p.Items) == 0 {
				return
			}
			next = p.Next
		}
	}
}
