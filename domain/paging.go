package domain

import (
	"fmt"
	"math"
)

// MaxPageSize bounds every list (docs/api-contract.md §8 for statements; docs/security.md: every list
// is bounded).
const MaxPageSize = 100

// DefaultPageSize is the window of a list asked for without a size.
const DefaultPageSize = 20

// Window selects part of an ordered list: an offset page (Page/PageSize) or,
// for Relay connections, the items after a keyset cursor. Storage answers
// both with one query per list.
type Window struct {
	Limit  int
	Offset int
	// After is an opaque keyset position returned in Page.Cursors; when set,
	// Offset is ignored.
	After string
	// Keyset marks Relay paging (first/after): the window has no page number.
	Keyset bool
}

// PageNumber is the 0-based page of an offset window; ok is false for a
// keyset window. Both transports' envelopes take it from here.
func (w Window) PageNumber() (n int, ok bool) {
	if w.Keyset {
		return 0, false
	}
	if w.Limit == 0 {
		return 0, true
	}
	return w.Offset / w.Limit, true
}

// HasPrevious reports whether items precede the window.
func (w Window) HasPrevious() bool {
	if w.Keyset {
		return w.After != ""
	}
	return w.Offset > 0
}

// Page is one window of a list with the total of all matching items.
type Page[T any] struct {
	Items []T
	// Cursors[i] is the keyset position of Items[i].
	Cursors []string
	Total   int
	// HasMore reports whether items follow the window.
	HasMore bool
	// Window is the validated window this page answers (set by Reads).
	Window Window
}

// Answering records the window a page answers.
func Answering[T any](w Window) func(Page[T], error) (Page[T], error) {
	return func(p Page[T], err error) (Page[T], error) {
		p.Window = w
		return p, err
	}
}

// offsetWindow validates contract-style Page/PageSize paging (Page 0-based).
func offsetWindow(v *Validation, page, pageSize *int, requirePage bool, maxSize int) Window {
	w := Window{}
	switch {
	case pageSize == nil:
		v.Add("PageSize", "PageSize is required")
	case *pageSize <= 0:
		v.Add("PageSize", "PageSize must be greater than 0")
	case maxSize > 0 && *pageSize > maxSize:
		v.Add("PageSize", fmt.Sprintf("PageSize must be at most %d", maxSize))
	default:
		w.Limit = *pageSize
	}
	if page == nil {
		if requirePage {
			v.Add("Page", "Page is required")
		}
	} else if *page < 0 || *page > MaxPage {
		v.Add("Page", fmt.Sprintf("Page must be between 0 and %d", MaxPage))
	} else {
		w.Offset = *page * w.Limit
	}
	return w
}

// MaxOffset bounds how deep offset paging reaches (Page × PageSize).
const MaxOffset = math.MaxInt32

// MaxPage is the last page number: a bound of its own, not one that
// depends on PageSize, so that Page × PageSize never exceeds MaxOffset.
const MaxPage = MaxOffset / MaxPageSize

// CursorWindow validates Relay paging (first/after): first in 1..100.
func CursorWindow(first *int, after *string) (Window, error) {
	var v Validation
	w := CheckCursorWindow(&v, first, after)
	return w, v.Err()
}

// CheckCursorWindow validates a Relay page (first/after) into v.
func CheckCursorWindow(v *Validation, first *int, after *string) Window {
	w := Window{Limit: DefaultPageSize, Keyset: true}
	if first != nil {
		if *first <= 0 || *first > MaxPageSize {
			v.Add("first", fmt.Sprintf("first must be between 1 and %d", MaxPageSize))
		}
		w.Limit = *first
	}
	if after != nil {
		w.After = *after
	}
	return w
}

// CheckListWindow validates a list's paging: Page/PageSize (the API contract's) or
// first/after (Relay), never both.
func CheckListWindow(v *Validation, page, pageSize, first *int, after *string, requirePage bool) Window {
	if first == nil && after == nil {
		return offsetWindow(v, page, pageSize, requirePage, MaxPageSize)
	}
	if page != nil || pageSize != nil {
		v.Add("first", "page by Page/PageSize or by first/after, not both")
	}
	return CheckCursorWindow(v, first, after)
}

// PageWindow validates a list that the API contract does not page (GraphQL trailers):
// page/pageSize (pageSize 1–100) or first/after; neither means the first 20.
func PageWindow(page, pageSize, first *int, after *string) (Window, error) {
	var v Validation
	var w Window
	if page == nil && pageSize == nil {
		w = CheckCursorWindow(&v, first, after)
	} else {
		w = CheckListWindow(&v, page, pageSize, first, after, false)
	}
	return w, v.Err()
}

// MaxWholeList bounds a list the API contract returns whole (REST trailers, a bare
// array): larger lists are read in slices of at most this many, each after
// the cursor of the previous slice's last item.
const MaxWholeList = 1000

// WholeListWindow validates the slice of a whole list a client asks for:
// limit in 1..MaxWholeList (nil: MaxWholeList), after a cursor of a previous
// slice (nil or empty: from the start; storage rejects a forged one).
func WholeListWindow(limit *int, after *string) (Window, error) {
	var v Validation
	w := Window{Limit: MaxWholeList, Keyset: true}
	if limit != nil {
		if *limit < 1 || *limit > MaxWholeList {
			v.Add("limit", fmt.Sprintf("limit must be between 1 and %d", MaxWholeList))
		}
		w.Limit = *limit
	}
	w.After = CheckCursor(&v, "after", after)
	return w, v.Err()
}

// CheckPageSize validates the size of a forward page (first, REST's limit):
// 1..MaxPageSize, DefaultPageSize when absent. The message names no
// parameter, as transports name it differently.
func CheckPageSize(v *Validation, first *int) int {
	if first == nil {
		return DefaultPageSize
	}
	if *first < 1 || *first > MaxPageSize {
		v.Add("first", fmt.Sprintf("the page size must be between 1 and %d", MaxPageSize))
	}
	return *first
}

// MaxCursorLength bounds a list cursor (the after of REST's Link headers):
// base64url characters, at most this many.
const MaxCursorLength = 512

// CheckCursor is the window's After: after ("" when nil), refused in v when
// no list could have issued it: longer than MaxCursorLength or not
// base64url. Empty is no cursor. Storage still refuses a well-formed cursor
// it did not issue; this check runs first, so that a malformed cursor is a
// 400 whether or not the list exists.
func CheckCursor(v *Validation, field string, after *string) string {
	if after == nil {
		return ""
	}
	bad := len(*after) > MaxCursorLength
	for _, r := range *after {
		bad = bad || !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}
	if bad {
		v.Add(field, fmt.Sprintf("%s is not a cursor returned by this list (base64url, at most %d characters)", field, MaxCursorLength))
	}
	return *after
}
