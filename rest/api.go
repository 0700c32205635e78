package rest

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/haulgraph/haulgraph/contract/eventschema"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/documents"
	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/domain/webhooks"
	"github.com/haulgraph/haulgraph/httpedge"
)

// Prefix is where the REST compatibility routes live.
const Prefix = "/api/p/"

// HandlerFunc is a REST handler: it writes a success itself or returns the
// error that WriteError answers.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// Route is one REST endpoint under /api/p/v{version}; Path starts after the
// version segment ("/invoices").
type Route struct {
	Method string
	Path   string
	Handle HandlerFunc
	// Produces are media types the route answers besides JSON (an Accept
	// header naming one of them is acceptable).
	Produces []string
	// RepeatableQuery are the query parameters that may be given more than
	// once (lists); any other repeated in any spelling is a 400.
	RepeatableQuery []string
	// Reads are the resources the answer is computed from: a route that
	// names some is a read the response cache may answer (Cacheable).
	Reads domain.Resources
}

// Deps are what the REST face calls.
type Deps struct {
	Reads *reads.Service
	// Documents serves docs/api-contract.md §4.7's uploads, routes like every other (nil:
	// no uploads). The signed download is DocumentDownload, outside the API.
	Documents *documents.Service
	// Events serves the events API (nil: none).
	Events *eventlog.Log
	// Exports streams statement exports (nil: no export route).
	Exports *reads.Exports
	// Webhooks serves webhook management (nil: none).
	Webhooks *webhooks.Service
	// Destinations serves event-destination management, every type (nil:
	// none).
	Destinations *webhooks.Service
	// EmittedEvent, when set, is told every event the events API answers.
	EmittedEvent eventschema.EmitFunc
}

// API is the handler of every REST route, mounted at Prefix.
type API struct {
	mux *http.ServeMux
	// reads are the cacheable routes' resources, by mux pattern.
	reads map[string]domain.Resources
}

// Cacheable reports whether r is a read the response cache may answer, and
// the resources its answer is computed from.
func (a *API) Cacheable(r *http.Request) (domain.Resources, bool) {
	_, pattern := a.mux.Handler(r)
	reads, ok := a.reads[pattern]
	return reads, ok
}

// ServeHTTP answers one REST request.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.mux.ServeHTTP(w, r) }

// Labelled records the REST route pattern of each request before next runs,
// so that what answers before the routes (a 429 of the rate limits) is still
// logged and counted under its route.
func (a *API) Labelled(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := a.mux.Handler(r); pattern != "" {
			httpedge.SetRoute(r.Context(), pattern)
		}
		next.ServeHTTP(w, r)
	})
}

// NewAPI returns the REST routes.
func NewAPI(d Deps) *API {
	routes := mountedRoutes(d)
	mux := http.NewServeMux()
	reads := map[string]domain.Resources{}
	for _, rt := range routes {
		pattern := rt.Method + " " + Prefix + "{version}" + rt.Path
		mux.Handle(pattern, endpoint(pattern, rt))
		if rt.Reads != 0 {
			reads[pattern] = rt.Reads
		}
	}
	mux.HandleFunc("GET "+Prefix+"openapi.json", serveOpenAPI)
	mux.HandleFunc("GET "+Prefix+"asyncapi.json", serveAsyncAPI)
	mux.HandleFunc("GET "+Prefix+"schemas/events/{file}", serveEventSchema)
	// The server's mux sends a download to DocumentDownload before it
	// reaches the API (its pattern would conflict with the versioned
	// ones here); outside lets another method on its path be a 405 naming
	// GET, as on every path.
	outside := http.NewServeMux()
	if d.Documents != nil {
		outside.Handle(DownloadPattern, http.NotFoundHandler())
	}
	shadows := map[string]bool{}
	nf := notFound([]*http.ServeMux{outside, mux}, shadows)
	shadowWildcards(mux, routes, nf, shadows)
	mux.Handle(Prefix, nf)
	return &API{mux: mux, reads: reads}
}

// mountedRoutes are the routes NewAPI mounts for d's services.
func mountedRoutes(d Deps) []Route {
	routes := (&handlers{reads: d.Reads}).routes()
	if d.Documents != nil {
		routes = append(routes, uploadRoutes(d.Documents)...)
	}
	if d.Events != nil {
		routes = append(routes, eventRoutes(d.Events, d.EmittedEvent)...)
	}
	if d.Exports != nil {
		routes = append(routes, exportRoutes(d.Exports)...)
	}
	if d.Webhooks != nil {
		routes = append(routes, webhookRoutes(d.Webhooks)...)
	}
	if d.Destinations != nil {
		routes = append(routes, destinationRoutes(d.Destinations)...)
	}
	return routes
}

// endpoint applies the rules common to every route (docs/api-contract.md §4): version,
// media types, bearer token, then the handler.
func endpoint(pattern string, rt Route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpedge.SetRoute(r.Context(), pattern)
		if _, ok := parseVersion(r.PathValue("version")); !ok {
			WriteProblem(w, r, http.StatusNotFound, "unsupported API version "+domain.Quote(r.PathValue("version"))+": use v1, v1.0, v2 or v2.0", nil)
			return
		}
		if !acceptsJSON(r.Header.Get("Accept"), rt.Produces...) {
			WriteProblem(w, r, http.StatusNotAcceptable, "this endpoint answers "+strings.Join(append(rt.Produces, "application/json", "application/problem+json"), ", ")+" only", nil)
			return
		}
		if _, err := domain.Authenticated(r.Context()); err != nil {
			WriteError(w, r, err)
			return
		}
		if err := checkRequestText(r, rt.Path); err != nil {
			WriteError(w, r, err)
			return
		}
		if err := checkQuery(r.URL.RawQuery, rt.RepeatableQuery); err != nil {
			WriteError(w, r, err)
			return
		}
		if err := rt.Handle(w, r); err != nil {
			WriteError(w, r, err)
		}
	})
}

// checkRequestText applies domain's text rule to the decoded path segments
// and query parameters, naming each offender (a NUL in ?invoiceNumber=%00
// must be a 400, never reach SQL).
func checkRequestText(r *http.Request, path string) error {
	var v domain.Validation
	for _, seg := range strings.Split(path, "/") {
		if name, ok := strings.CutPrefix(seg, "{"); ok {
			name = strings.TrimSuffix(name, "}")
			v.TextField(name, r.PathValue(name))
		}
	}
	for name, values := range r.URL.Query() {
		if domain.CheckText(name) != nil {
			v.TextField("query parameter name", name)
			continue
		}
		for _, s := range values {
			v.TextField(name, s)
		}
	}
	return v.Err()
}

// notFound answers every other path under Prefix: 405 when the path exists
// for other methods, else 404, both as problem+json.
func notFound(muxes []*http.ServeMux, shadows map[string]bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var allow []string
		best := 0
		for _, m := range routeMethods {
			probe := r.Clone(context.Background())
			probe.Method = m
			p := ""
			for _, mux := range muxes {
				if _, p = mux.Handler(probe); p != "" {
					break
				}
			}
			if p == "" || p == Prefix || shadows[p] {
				continue
			}
			// The path belongs to its most literal pattern, as the mux routes
			// it: /webhooks/event-types is not the webhook "event-types", so
			// PATCH /webhooks/{id} does not make PATCH allowed there.
			switch n := literalSegments(p); {
			case n > best:
				best, allow = n, []string{m}
			case n == best:
				allow = append(allow, m)
			}
		}
		if len(allow) > 0 {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			WriteProblem(w, r, http.StatusMethodNotAllowed, r.Method+" is not allowed here", nil)
			return
		}
		WriteProblem(w, r, http.StatusNotFound, "no such endpoint", nil)
	})
}

// shadowWildcards routes a method that a path lacks to nf when the mux would
// otherwise hand it to a wildcard sibling (PATCH /webhooks/event-types is
// not PATCH /webhooks/{id} of the webhook "event-types": it is a 405).
// The patterns it adds go into shadows, which nf does not count as allowed.
func shadowWildcards(mux *http.ServeMux, routes []Route, nf http.Handler, shadows map[string]bool) {
	served := map[string]bool{}
	for _, rt := range routes {
		served[rt.Method+" "+rt.Path] = true
	}
	for _, rt := range routes {
		for _, m := range routeMethods {
			if served[m+" "+rt.Path] {
				continue
			}
			own := Prefix + "{version}" + rt.Path
			probe := &http.Request{Method: m, URL: &url.URL{Path: Prefix + "v1" + samplePath(rt.Path)}}
			if _, p := mux.Handler(probe); p != "" && p != m+" "+own && p != Prefix {
				served[m+" "+rt.Path] = true
				shadows[m+" "+own] = true
				mux.Handle(m+" "+own, nf)
			}
		}
	}
}

// routeMethods are the methods the REST routes use.
var routeMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// samplePath fills a route path's wildcards with a placeholder value.
func samplePath(path string) string {
	segs := strings.Split(path, "/")
	for i, seg := range segs {
		if strings.HasPrefix(seg, "{") {
			segs[i] = "x"
		}
	}
	return strings.Join(segs, "/")
}

// literalSegments counts the segments of a mux pattern that are not
// wildcards.
func literalSegments(pattern string) int {
	if _, path, ok := strings.Cut(pattern, " "); ok {
		pattern = path
	}
	n := 0
	for _, seg := range strings.Split(pattern, "/") {
		if seg != "" && !strings.HasPrefix(seg, "{") {
			n++
		}
	}
	return n
}
