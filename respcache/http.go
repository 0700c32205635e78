package respcache

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/httpedge"
)

// StatusHeader tells whether an answer came from memory (RFC 9211's
// Cache-Status): "haulgraph; hit", "haulgraph; fwd=miss" (computed, and
// "; stored" when remembered), "haulgraph; fwd=bypass" (freshness could not
// be checked: answered uncached).
const StatusHeader = "Cache-Status"

// Status values.
const (
	statusHit         = "haulgraph; hit"
	statusNotModified = "haulgraph; hit; detail=not-modified"
	statusMiss        = "haulgraph; fwd=miss"
	statusStored      = "haulgraph; fwd=miss; stored"
	statusBypass      = "haulgraph; fwd=bypass"
)

// contentHeaders are the headers of an answer that are remembered with
// it; every other header (RateLimit-*, traceparent, …) is each request's own.
var contentHeaders = []string{"Content-Type", "Content-Language", "X-Total-Count", "Link"}

// maxKeyBody bounds the body a POST read is keyed by; a larger one is
// answered uncached (the transport's own bound refuses it anyway).
const maxKeyBody = 64 << 10

// Routes says which requests are cacheable and which resources their answer
// reads (REST: rest.API.Cacheable).
type Routes func(r *http.Request) (domain.Resources, bool)

// HTTP returns a middleware for a transport whose answers are whole HTTP
// responses (REST). It sits after authentication and wraps limits around
// next itself, so that a GET whose If-None-Match holds the current tag is
// answered 304 spending its tenant's bucket alone, never its client's; any
// other request passes the limits, then is answered from memory or by next
// (and remembered when a 200). A nil cache passes every request to the limits.
func (c *Cache) HTTP(routes Routes, limits *httpedge.RateLimits) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		limited := limits.Wrap(next)
		if c == nil {
			return limited
		}
		cached := limits.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c.serve(w, r, next)
		}))
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p := domain.PrincipalFrom(r.Context())
			reads, ok := routes(r)
			if !ok || p == nil || (r.Method != http.MethodGet && r.Method != http.MethodPost) {
				limited.ServeHTTP(w, r)
				return
			}
			key, ok := requestKey(p, r)
			if !ok {
				limited.ServeHTTP(w, r)
				return
			}
			req := &request{key: key, reads: reads}
			if r.Method == http.MethodGet && r.Header.Get("If-None-Match") != "" {
				if c.revalidate(w, r, req, limits) {
					return
				}
			}
			cached.ServeHTTP(w, r.WithContext(withRequest(r.Context(), req)))
		})
	}
}

// Describe keys a request of a transport whose answers the cache does not
// hold whole (GraphQL): ok is false when it cannot say.
type Describe func(r *http.Request, p *domain.Principal) (key Key, reads domain.Resources, ok bool)

// Conditional answers a GET whose If-None-Match holds the current tag of
// its answer 304, spending its tenant's bucket alone, without running it;
// any other request passes limits to next. It sits after authentication.
// mark, when set, marks the context of the versions read (storage.ReadOnly
// with replicas: the check reads where the request's reads would).
func (c *Cache) Conditional(describe Describe, limits *httpedge.RateLimits, mark func(context.Context) context.Context) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		limited := limits.Wrap(next)
		if c == nil {
			return limited
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if p := domain.PrincipalFrom(r.Context()); p != nil && r.Method == http.MethodGet && r.Header.Get("If-None-Match") != "" {
				check := r
				if mark != nil {
					check = r.WithContext(mark(r.Context()))
				}
				if key, reads, ok := describe(r, p); ok && c.revalidate(w, check, &request{key: key, reads: reads}, limits) {
					return
				}
			}
			limited.ServeHTTP(w, r)
		})
	}
}

// revalidate reads req's versions and, when If-None-Match holds the tag
// they make, answers 304 (done); the versions stay in req for the answer.
func (c *Cache) revalidate(w http.ResponseWriter, r *http.Request, req *request, limits *httpedge.RateLimits) (done bool) {
	req.read, req.ok = c.Begin(r.Context(), req.key, req.reads)
	req.begun = true
	if !req.ok || !names(r.Header.Get("If-None-Match"), req.read.ETag()) {
		return false
	}
	notModified(w, r, limits, req.read.ETag())
	return true
}

// notModified answers 304 after spending a token of the tenant's bucket
// (a refusal is the limits' own answer).
func notModified(w http.ResponseWriter, r *http.Request, limits *httpedge.RateLimits, tag string) {
	if !limits.AdmitTenant(w, r) {
		return
	}
	h := w.Header()
	validators(h, tag)
	h.Set(StatusHeader, statusNotModified)
	w.WriteHeader(http.StatusNotModified)
}

// validators sets what every cacheable GET answer carries: its tag and how
// a browser or proxy may keep it (always revalidated, never shared).
func validators(h http.Header, tag string) {
	h.Set("ETag", tag)
	h.Set("Cache-Control", "private, no-cache")
	h.Set("Vary", "Authorization, Accept")
}

// serve answers a cacheable request after the limits admitted it.
func (c *Cache) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	req := requestFrom(r.Context())
	if !req.begun {
		req.read, req.ok = c.Begin(r.Context(), req.key, req.reads)
	}
	if !req.ok {
		w.Header().Set(StatusHeader, statusBypass)
		next.ServeHTTP(w, r)
		return
	}
	if r.Method == http.MethodPost && matches(r.Header.Get("If-None-Match"), req.read.ETag()) {
		// RFC 9110 §13.1.2: a matching If-None-Match on another method than
		// GET or HEAD is 412; pollers use GET.
		w.WriteHeader(http.StatusPreconditionFailed)
		return
	}
	var stored bool
	a, hit := c.Get(req.read, func() (*Answer, bool) {
		rec := &recorder{header: http.Header{}, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		a := &Answer{Body: rec.body.Bytes(), Header: http.Header{}, Status: rec.status}
		for _, k := range contentHeaders {
			if v := rec.header.Values(k); len(v) > 0 {
				a.Header[k] = v
			}
		}
		stored = rec.status == http.StatusOK
		return a, stored
	})
	h := w.Header()
	for k, v := range a.Header {
		h[k] = v
	}
	var n Note // the headers as GraphQL's answers get them
	n.Answered(req.read, hit, stored)
	if n.Header(r, h, a.Status == http.StatusOK) == http.StatusNotModified {
		for _, k := range contentHeaders {
			h.Del(k)
		}
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.WriteHeader(a.Status)
	_, _ = w.Write(a.Body)
}

// requestKey is the key of a REST read: method, path (the API version
// included), query, the representation asked for, and a POST's body; ok
// is false for a body above maxKeyBody (left for next to refuse, the body
// restored).
func requestKey(p *domain.Principal, r *http.Request) (Key, bool) {
	var body []byte
	if r.Method == http.MethodPost && r.Body != nil {
		b, err := io.ReadAll(io.LimitReader(r.Body, maxKeyBody+1))
		r.Body = readCloser{io.MultiReader(bytes.NewReader(b), r.Body), r.Body}
		if err != nil || len(b) > maxKeyBody {
			return Key{}, false
		}
		body = b
	}
	return NewKey(p, "rest", r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Accept"), r.Header.Get("Content-Type"), string(body)), true
}

type readCloser struct {
	io.Reader
	io.Closer
}

// matches reports whether an If-None-Match value holds tag or "*" (RFC
// 9110 §13.1.2: "*" matches any current answer).
func matches(header, tag string) bool { return anyTag(header) || names(header, tag) }

// names reports whether an If-None-Match value names tag itself: the only
// match a GET is answered 304 for before it runs, since "*" also asks that
// an answer exists (a 404 is no current answer).
func names(header, tag string) bool {
	for _, t := range strings.Split(header, ",") {
		if t = strings.TrimSpace(t); t != "" && t != "*" && strings.TrimPrefix(t, "W/") == tag {
			return true
		}
	}
	return false
}

// anyTag reports whether an If-None-Match value is "*".
func anyTag(header string) bool { return strings.TrimSpace(header) == "*" }

// recorder keeps what next answers, for the cache and the callers waiting
// on the same key.
type recorder struct {
	header http.Header
	status int
	wrote  bool
	body   bytes.Buffer
}

func (rec *recorder) Header() http.Header { return rec.header }

func (rec *recorder) WriteHeader(status int) {
	if !rec.wrote {
		rec.status, rec.wrote = status, true
	}
}

func (rec *recorder) Write(b []byte) (int, error) {
	rec.WriteHeader(http.StatusOK)
	return rec.body.Write(b)
}
