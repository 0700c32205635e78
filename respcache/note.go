package respcache

import (
	"context"
	"net/http"
)

// Note carries a cacheable request between a transport, which keys it and
// writes the answer's headers, and the layer that answers it from memory or
// not (GraphQL's executor, which the transport does not see into).
type Note struct {
	key    func() Key
	status string
	etag   string
}

type noteKey struct{}

// WithNote returns ctx carrying a note for the executor to fill; key
// computes the request's key, called only for a request the executor finds
// cacheable (a query, not a mutation).
func WithNote(ctx context.Context, key func() Key) (context.Context, *Note) {
	n := &Note{key: key}
	return context.WithValue(ctx, noteKey{}, n), n
}

// Key is the request's key.
func (n *Note) Key() Key { return n.key() }

// NoteFrom is ctx's note (nil: the request is not cacheable).
func NoteFrom(ctx context.Context) *Note {
	n, _ := ctx.Value(noteKey{}).(*Note)
	return n
}

// Bypassed records that the answer could not be checked against the data's
// versions and was computed without the cache.
func (n *Note) Bypassed() { n.status = statusBypass }

// Answered records how rd's answer was made (from memory or computed, and
// then stored or not).
func (n *Note) Answered(rd Read, hit, stored bool) {
	switch {
	case hit:
		n.status = statusHit
	case stored:
		n.status = statusStored
	default:
		n.status = statusMiss
	}
	n.etag = rd.ETag()
}

// Header sets the answer's Cache-Status and, for a GET answered without
// errors (ok), its validators; it returns the status that replaces the
// answer, 0 for none: 304 for a GET whose If-None-Match is "*" (an answer
// exists; a named tag was answered before running), 412 for a POST whose
// If-None-Match holds the tag or "*" (HTTP keeps 304 for GET).
func (n *Note) Header(r *http.Request, h http.Header, ok bool) (status int) {
	if n == nil || n.status == "" {
		return 0
	}
	h.Set(StatusHeader, n.status)
	if n.etag == "" || !ok {
		return 0
	}
	inm := r.Header.Get("If-None-Match")
	if r.Method == http.MethodGet {
		validators(h, n.etag)
		if anyTag(inm) {
			return http.StatusNotModified
		}
		return 0
	}
	if matches(inm, n.etag) {
		return http.StatusPreconditionFailed
	}
	return 0
}
