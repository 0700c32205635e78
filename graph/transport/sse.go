package transport

import (
	"context"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/graph/live"
	"github.com/haulgraph/haulgraph/graph/operation"
	"github.com/haulgraph/haulgraph/httpedge"
)

// SSETransport serves GraphQL over server-sent events, the graphql-sse
// protocol's "distinct connections" mode: one request (POST of JSON or GET
// of query parameters) is one operation, answered as text/event-stream with
// a "next" event per result and "complete" at the end. gqlgen's own SSE
// transport executes each request on its own; this one joins the same
// shared live groups as the WebSocket transport (one execution per group per
// event), resumes with after: or Last-Event-ID, and bounds the streams of a
// client, of a tenant and of an address.
//
// What is refused before execution is a proper answer, never a broken
// stream: HTTP statuses for what HTTP decides (401, 429, a malformed
// request), and, as the protocol asks, a "next" event with the GraphQL
// errors followed by "complete" for what GraphQL decides (parse, validation,
// scope, a bad or expired cursor).
type SSETransport struct {
	o        SSEOptions
	maxQuery int64

	client, tenant, address openCounts // open streams
}

var _ graphql.Transport = (*SSETransport)(nil)

// NewSSE builds the transport; maxQuery bounds a GET's query string as
// the HTTP transport does.
func NewSSE(o SSEOptions, maxQuery int64) *SSETransport {
	return &SSETransport{o: o.withDefaults(), maxQuery: maxQuery}
}

// streamRouteKey marks a request of the stream endpoint (/graphql/stream).
type streamRouteKey struct{}

// StreamRoute serves h as the stream endpoint: every GET and POST there is
// an SSE operation, whatever its Accept.
func StreamRoute(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), streamRouteKey{}, true)))
	})
}

// wantsStream reports an SSE request: one of the stream endpoint, or one
// whose Accept lists text/event-stream and no JSON type (urql lists
// text/event-stream on every request, beside the JSON types).
func wantsStream(r *http.Request) bool {
	if r.Header.Get("Upgrade") != "" || (r.Method != http.MethodGet && r.Method != http.MethodPost) {
		return false
	}
	if on, _ := r.Context().Value(streamRouteKey{}).(bool); on {
		return true
	}
	stream, json := false, false
	for _, part := range strings.Split(strings.Join(r.Header.Values("Accept"), ","), ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		switch {
		case err != nil:
		case mt == "text/event-stream":
			stream = true
		case mt == "*/*" || mt == "application/*" || strings.HasSuffix(mt, "json"):
			json = true
		}
	}
	return stream && !json
}

// Supports reports an SSE request (see wantsStream).
func (t *SSETransport) Supports(r *http.Request) bool { return wantsStream(r) }

// Do reads the operation and serves it as an event stream.
func (t *SSETransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	params, status, gerr := httpTransport{maxQuery: t.maxQuery}.read(r)
	if gerr != nil {
		writeRefusal(w, r, status, gerr)
		return
	}
	ctx := r.Context()
	p := domain.PrincipalFrom(ctx) // Endpoint.ServeHTTP has answered 401 without one
	if p == nil {
		writeRefusal(w, r, http.StatusUnauthorized, operation.Coded(domain.CodeUnauthenticated, "authentication required"))
		return
	}
	release, gerr := t.reserve(p, httpedge.ClientHost(r))
	if gerr != nil {
		writeRefusal(w, r, http.StatusTooManyRequests, gerr)
		return
	}
	defer release()
	opCtx, errs := exec.CreateOperationContext(ctx, params)
	if errs != nil {
		resp := exec.DispatchError(graphql.WithOperationContext(ctx, opCtx), errs)
		if status := chosenStatus(ctx); status != 0 {
			writeResponse(w, r, status, resp) // the cost budget's 429, with Retry-After
			return
		}
		s := t.open(w, r)
		s.finish(resp)
		s.wait()
		return
	}
	if r.Method == http.MethodGet && opCtx.Operation.Operation == ast.Mutation {
		w.Header().Set("Allow", "POST")
		writeRefusal(w, r, http.StatusMethodNotAllowed, operation.Coded(domain.CodeInvalid, "a mutation cannot be sent with GET: use POST"))
		return
	}
	nameRequest(ctx, opCtx)
	s := t.open(w, r)
	if opCtx.Operation.Operation != ast.Subscription {
		next, ctx := exec.DispatchOperation(ctx, opCtx)
		s.finish(next(ctx))
		s.wait()
		return
	}
	t.subscribe(s, r, exec, opCtx, p)
}

// reserve counts a stream against its client's, tenant's and address's
// bounds.
func (t *SSETransport) reserve(p *domain.Principal, addr string) (release func(), refusal *gqlerror.Error) {
	client, ok := t.client.take(p.TenantID.String()+" "+p.ClientID, t.o.MaxStreamsPerClient)
	if !ok {
		return nil, operation.Coded(domain.CodeRateLimited, "at most %d event streams per client on this server: close one first", t.o.MaxStreamsPerClient)
	}
	tenant, ok := t.tenant.take(p.TenantID.String(), t.o.MaxStreamsPerTenant)
	if !ok {
		client()
		return nil, operation.Coded(domain.CodeRateLimited, "at most %d event streams per tenant on this server: close one first", t.o.MaxStreamsPerTenant)
	}
	address, ok := t.address.take(addr, t.o.MaxStreamsPerAddress)
	if !ok {
		client()
		tenant()
		return nil, operation.Coded(domain.CodeRateLimited, "at most %d event streams per address on this server: close one first", t.o.MaxStreamsPerAddress)
	}
	return func() { client(); tenant(); address() }, nil
}

// Streams is the number of open event streams (of every tenant).
func (t *SSETransport) Streams() int { return t.tenant.total() }

// subscribe joins s to its live group (after replaying from its cursor)
// and serves it until it ends, then frees its place in the group.
func (t *SSETransport) subscribe(s *sseStream, r *http.Request, exec graphql.GraphExecutor, opCtx *graphql.OperationContext, p *domain.Principal) {
	ctx := r.Context()
	s.event = t.o.Live.EventType(opCtx)
	m := &live.Member{
		Out: s.deliver,
		Fail: func(errs gqlerror.List) {
			s.end(errorsEvent(errs), false)
		},
	}
	if !p.ExpiresAt.IsZero() {
		stop := t.o.AfterFunc(time.Until(p.ExpiresAt), func() {
			s.end(errorsEvent(gqlerror.List{operation.Coded(domain.CodeUnauthenticated,
				"the token expired: subscribe again with a new token and after: the last cursor received")}), false)
		})
		defer stop()
	}
	// Last-Event-ID (an EventSource's reconnect) wins over after:.
	cursor := live.AfterArgument(opCtx)
	if id := strings.TrimSpace(r.Header.Get("Last-Event-ID")); id != "" {
		cursor = id
	}
	var errs gqlerror.List
	if cursor != "" {
		errs = t.o.Live.Resume(ctx, exec, opCtx, m, cursor, s.deliverWait)
	} else {
		errs = t.o.Live.Join(ctx, exec, opCtx, m)
	}
	if errs != nil {
		s.end(errorsEvent(errs), false)
	}
	<-s.gone
	t.o.Live.Leave(m)
	s.wait()
}

// chosenStatus is the status an extension chose for a refused operation.
func chosenStatus(ctx context.Context) int {
	if o := operation.OutcomeFrom(ctx); o != nil {
		status, _ := o.Chosen()
		return status
	}
	return 0
}
