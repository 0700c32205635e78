package rest_test

import (
	"net/http"
	"regexp"
	"strconv"
	"testing"

	"github.com/haulgraph/haulgraph/apptest"
)

var nextLink = regexp.MustCompile(`^<(/api/p/v1/trailers\?[^>]+)>; rel="next"$`)

// GET /trailers stays a bare array but reads in slices: X-Total-Count on
// every answer, Link rel="next" while more follow; following the links with
// a small limit yields exactly the whole list, in order, without repeats.
func TestTrailersPaging(t *testing.T) {
	t.Parallel()
	f := newFixture(t, apptest.Options{})
	var whole []map[string]any
	res, body := f.call(t, "GET", "/api/p/v1/trailers", f.all, "")
	ok(t, res, body, &whole)
	total := f.seed.Counts["trailers"]
	if total < 3 || len(whole) != total {
		t.Fatalf("seed has %d trailers, the whole list %d: need at least 3", total, len(whole))
	}
	if res.Header.Get("X-Total-Count") != strconv.Itoa(total) || res.Header.Get("Link") != "" {
		t.Fatalf("whole list: X-Total-Count %q, Link %q", res.Header.Get("X-Total-Count"), res.Header.Get("Link"))
	}

	limit := (total + 2) / 3 // three or so slices
	path := "/api/p/v1/trailers?limit=" + strconv.Itoa(limit)
	var got []map[string]any
	for slices := 0; path != ""; slices++ {
		if slices > total {
			t.Fatal("the next links do not end")
		}
		var slice []map[string]any
		res, body := f.call(t, "GET", path, f.all, "")
		ok(t, res, body, &slice)
		if len(slice) == 0 || len(slice) > limit {
			t.Fatalf("%s: %d trailers, want 1..%d", path, len(slice), limit)
		}
		if res.Header.Get("X-Total-Count") != strconv.Itoa(total) {
			t.Fatalf("%s: X-Total-Count %q, want %d", path, res.Header.Get("X-Total-Count"), total)
		}
		got = append(got, slice...)
		path = ""
		if link := res.Header.Get("Link"); link != "" {
			m := nextLink.FindStringSubmatch(link)
			if m == nil {
				t.Fatalf("Link %q", link)
			}
			path = m[1]
		}
	}
	if len(got) != total {
		t.Fatalf("followed links: %d trailers, want %d", len(got), total)
	}
	for i := range got {
		if got[i]["Id"] != whole[i]["Id"] {
			t.Fatalf("trailer %d: %v by slices, %v in the whole list", i, got[i]["Id"], whole[i]["Id"])
		}
	}

	// Rejections name the field.
	for _, bad := range []struct{ query, field string }{
		{"limit=0", "limit"},
		{"limit=1001", "limit"},
		{"limit=ten", "limit"},
		{"after=not-a-cursor", "after"},
		{"after=WyJ4IiwieSJd", "after"}, // ["x","y"]: well-formed, forged parts
	} {
		res, body := f.call(t, "GET", "/api/p/v1/trailers?"+bad.query, f.all, "")
		wantFieldError(t, res, body, bad.field)
	}
	if res, body := f.call(t, "GET", "/api/p/v1/trailers?limit=1", f.all, ""); res.StatusCode != http.StatusOK || res.Header.Get("Link") == "" {
		t.Fatalf("limit=1 of %d: %d, Link %q; %s", total, res.StatusCode, res.Header.Get("Link"), body)
	}
}
