package graph

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/documents"
	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/domain/loads"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/domain/webhooks"
	"github.com/haulgraph/haulgraph/graph/generated"
	"github.com/haulgraph/haulgraph/graph/loaders"
	"github.com/haulgraph/haulgraph/resolvers"
)

// Options are the GraphQL endpoint's limits and switches.
type Options struct {
	// EmittedEvent, when set, is told every subscription event payload a
	// streaming transport writes (tests validate them).
	EmittedEvent domain.EmitFunc
	// DisableIntrospection turns __schema/__type off (on by default).
	DisableIntrospection bool
	MaxDepth             int   // default 12
	MaxCost              int   // requested cost of one query, default DefaultCostLimit
	MaxBodyBytes         int64 // default 1 MiB
	// MaxNodes bounds a document's selections, directives and values,
	// fragments counted each time they are spread (default DefaultMaxNodes);
	// MaxNesting how deep they nest (default DefaultMaxNesting); MaxErrors
	// the errors of one answer (default DefaultMaxErrors).
	MaxNodes, MaxNesting, MaxErrors int
	// RefusalCost and RefusalCostPerKiB are what a document refused before
	// execution (parse, validation, limits) costs the client's budget:
	// taken as a deposit before the document is read, returned when it runs
	// (defaults DefaultRefusalCost, DefaultRefusalCostPerKiB).
	RefusalCost, RefusalCostPerKiB int
	// Throttle is the per-client cost budget (shared by the instances);
	// nil charges nothing. MaxCost is capped at its budget.
	Throttle *Throttle
	// Streams configure GraphQL over server-sent events (its Live is the
	// handler's own).
	Streams SSEOptions
	// PersistedQueries and PersistedQueryBytes bound each tenant's
	// persisted queries (default DefaultPersistedQueries, 1,000, and
	// DefaultPersistedQueryBytes, 4 MiB).
	PersistedQueries    int
	PersistedQueryBytes int
}

// Cost defaults (HAULGRAPH_GRAPHQL_COST_LIMIT, _BUDGET, _REFILL). The
// dashboard query of settlement statements (100 per page with line items
// and sub-lines) is priced 6,601 points: the refill sustains two of them a
// second even if nothing of the requested cost were refunded, and the
// budget holds a burst of six.
const (
	DefaultCostLimit  = 10000
	DefaultCostBudget = 40000
	DefaultCostRefill = 15000
)

// Deps are what the GraphQL server needs.
type Deps struct {
	Reads   *reads.Service
	Loaders loaders.Source
	Log     *slog.Logger
	Options Options
	// Documents serves the upload mutations (GraphQL multipart request
	// spec) and Document.downloadUrl; nil leaves uploads off.
	Documents *documents.Service
	// LoadWrites and Subscriptions serve schema/loads.graphqls.
	LoadWrites    *loads.Writes
	Subscriptions *eventlog.Subscriptions
	// Webhooks is webhook management (schema/webhooks.graphqls).
	Webhooks *webhooks.Service
	// Events is the events API (schema/events.graphqls).
	Events *eventlog.Log
}

// Handler serves /graphql: GraphiQL for browsers, GET and POST operations
// per GraphQL-over-HTTP. Server is exported so other areas can add
// transports (the WebSocket transport for subscriptions) before serving.
type Handler struct {
	Server *handler.Server
	// Live runs the shared executions of subscriptions for the streaming
	// transports (WebSocket, SSE).
	Live *Live
	// SSE is the server-sent events transport (graph/sse.go).
	SSE *SSETransport
	// Page is what a browser gets at /graphql (GraphiQL; the app sets it);
	// nil sends browsers to the plain HTTP transport.
	Page http.Handler
	deps Deps
}

// NewHandler assembles the GraphQL endpoint.
func NewHandler(deps Deps) *Handler {
	o := &deps.Options
	if o.MaxDepth <= 0 {
		o.MaxDepth = 12
	}
	if o.MaxCost <= 0 {
		o.MaxCost = DefaultCostLimit
	}
	if o.Throttle != nil {
		o.MaxCost = min(o.MaxCost, o.Throttle.Budget())
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 1 << 20
	}
	if o.MaxNodes <= 0 {
		o.MaxNodes = DefaultMaxNodes
	}
	if o.MaxNesting <= 0 {
		o.MaxNesting = DefaultMaxNesting
	}
	if o.MaxErrors <= 0 {
		o.MaxErrors = DefaultMaxErrors
	}
	if o.RefusalCost <= 0 {
		o.RefusalCost = DefaultRefusalCost
	}
	if o.RefusalCostPerKiB <= 0 {
		o.RefusalCostPerKiB = DefaultRefusalCostPerKiB
	}
	if deps.Log == nil {
		deps.Log = slog.Default()
	}
	es := generated.NewExecutableSchema(generated.Config{
		Resolvers: &resolvers.Resolver{Reads: deps.Reads, Documents: deps.Documents,
			LoadWrites: deps.LoadWrites, Subscriptions: deps.Subscriptions, WebhookService: deps.Webhooks,
			EventLog: deps.Events},
		Directives: generated.DirectiveRoot{HasScope: hasScope},
	})
	srv := handler.New(es)
	if deps.Documents != nil {
		enableDocuments(srv, deps.Documents)
	}
	live := NewLive(deps.Subscriptions, presentError(deps.Log))
	live.emitted = o.EmittedEvent
	streams := o.Streams
	streams.Live = live
	sse := NewSSE(streams, o.MaxBodyBytes)
	srv.AddTransport(sse)                                     // before the plain HTTP transport, which takes every GET and POST
	srv.AddTransport(httpTransport{maxQuery: o.MaxBodyBytes}) // after uploads: graph/transport.go
	validated := newValidatedDocuments()
	srv.SetQueryCache(validated)
	srv.SetParserTokenLimit(parserTokenLimit)
	// Without introspection no error may name the schema either.
	srv.SetDisableSuggestion(o.DisableIntrospection)
	srv.SetValidationRulesFn(validationRules(o.MaxErrors, overlapWork*o.MaxNodes, !o.DisableIntrospection))
	if !o.DisableIntrospection {
		srv.Use(extension.Introspection{})
	}
	srv.Use(extension.AutomaticPersistedQuery{Cache: newPersistedQueries(o.PersistedQueries, o.PersistedQueryBytes)})
	// After the persisted query is looked up, before anything else reads it.
	srv.Use(documentBounds{maxNodes: o.MaxNodes, maxNesting: o.MaxNesting, validated: validated, throttle: o.Throttle,
		refusalCost: o.RefusalCost, refusalCostPerKiB: o.RefusalCostPerKiB})
	srv.Use(loaderExtension{src: deps.Loaders, docs: deps.Documents})
	srv.Use(httpSubscriptionGuard{})
	srv.Use(&costExtension{maxCost: o.MaxCost, maxDepth: o.MaxDepth, throttle: o.Throttle, log: deps.Log})
	srv.SetErrorPresenter(presentError(deps.Log))
	srv.SetRecoverFunc(recoverPanic(deps.Log))
	return &Handler{Server: srv, Live: live, SSE: sse, deps: deps}
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	stream := wantsStream(r)
	if h.Page != nil && (r.Method == http.MethodGet || r.Method == http.MethodHead) && r.URL.RawQuery == "" && acceptsHTML(r) && !stream {
		h.Page.ServeHTTP(w, r) // GraphiQL; the page itself needs no token
		return
	}
	if r.Header.Get("Upgrade") != "" {
		// WebSocket: the transport authenticates connection_init itself.
		h.Server.ServeHTTP(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		w.Header().Set("Allow", "GET, POST")
		writeGraphQLError(w, r, http.StatusMethodNotAllowed, "use GET or POST", string(domain.CodeInvalid))
		return
	}
	// The token first: a request without one is answered before a byte of
	// its body is read.
	if _, err := domain.Authenticated(r.Context()); err != nil {
		if domain.CodeOf(err) == domain.CodeUnavailable {
			w.Header().Set("Retry-After", strconv.Itoa(domain.UnavailableRetryAfter))
			writeGraphQLError(w, r, http.StatusServiceUnavailable, err.Error(), string(domain.CodeUnavailable))
			return
		}
		if domain.CredentialsPresented(r.Context()) {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", error_description="`+headerSafe(err.Error())+`"`)
		} else { // RFC 6750 §3.1: no credentials, no error code
			w.Header().Set("WWW-Authenticate", `Bearer realm="haulgraph"`)
		}
		writeGraphQLError(w, r, http.StatusUnauthorized, err.Error(), string(domain.CodeUnauthenticated))
		return
	}
	// Multipart uploads stream under their own bound (UploadTransport).
	if r.Method == http.MethodPost && !isMultipart(r) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.deps.Options.MaxBodyBytes))
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			writeGraphQLError(w, r, http.StatusRequestEntityTooLarge, "the request body exceeds the limit", string(domain.CodeTooLarge))
			return
		case err != nil:
			writeGraphQLError(w, r, http.StatusBadRequest, "the request body could not be read", string(domain.CodeInvalid))
			return
		}
		if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '[' {
			writeGraphQLError(w, r, http.StatusBadRequest, "batched operations are not supported: send one operation per request", string(domain.CodeInvalid))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	o := &outcome{}
	ctx := context.WithValue(r.Context(), outcomeKey{}, o)
	if !stream { // a subscription over SSE is what SSE is for
		ctx = withPlainHTTP(ctx, r)
	}
	h.Server.ServeHTTP(&statusWriter{ResponseWriter: w, outcome: o}, r.WithContext(ctx))
}

// outcome lets a handler extension choose the HTTP status of a request it
// refuses before execution (the cost throttle: 429 with Retry-After), and
// the error presenter mark a request that met an unreachable database (503
// with Retry-After; resolvers run concurrently, hence the lock).
type outcome struct {
	mu                 sync.Mutex
	status, retryAfter int
}

// unavailable makes the answer 503 with Retry-After.
func (o *outcome) unavailable() {
	o.mu.Lock()
	o.status, o.retryAfter = http.StatusServiceUnavailable, domain.UnavailableRetryAfter
	o.mu.Unlock()
}

type outcomeKey struct{}

func outcomeFrom(ctx context.Context) *outcome {
	o, _ := ctx.Value(outcomeKey{}).(*outcome)
	return o
}

// statusWriter applies docs/architecture.md's rule: under application/json a request
// error (parse, validation, limits) answers 200 with errors, not gqlgen's
// 422; application/graphql-response+json keeps gqlgen's 4xx. A throttled
// request answers 429 under both.
type statusWriter struct {
	http.ResponseWriter
	outcome *outcome
}

func (w *statusWriter) WriteHeader(status int) {
	w.outcome.mu.Lock()
	chosen, retryAfter := w.outcome.status, w.outcome.retryAfter
	w.outcome.mu.Unlock()
	switch {
	case chosen != 0:
		status = chosen
		if retryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
		}
	case status == http.StatusUnprocessableEntity && strings.HasPrefix(w.Header().Get("Content-Type"), "application/json"):
		status = http.StatusOK
	}
	w.ResponseWriter.WriteHeader(status)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func acceptsHTML(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		if mt, _, err := mime.ParseMediaType(strings.TrimSpace(part)); err == nil && mt == "text/html" {
			return true
		}
	}
	return false
}

// WriteRateLimited answers a request the API rate limits refused (the
// rest.RateLimits refusal of /graphql) as a GraphQL error: 429 when a bucket
// is spent (the limiter has set Retry-After and the RateLimit-* headers),
// 503 with Retry-After when the limiter could not answer.
func WriteRateLimited(w http.ResponseWriter, r *http.Request, err *domain.Error) {
	if err.Code == domain.CodeUnavailable {
		w.Header().Set("Retry-After", strconv.Itoa(domain.UnavailableRetryAfter))
		Refuse(w, r, http.StatusServiceUnavailable, err)
		return
	}
	Refuse(w, r, http.StatusTooManyRequests, err)
}

// Refuse answers a request refused before it reached GraphQL as a GraphQL
// error with status (a 431 of oversized headers).
func Refuse(w http.ResponseWriter, r *http.Request, status int, err *domain.Error) {
	writeGraphQLError(w, r, status, err.Message, string(err.Code))
}

// writeGraphQLError answers a request refused before execution, in the media
// type the client asked for (graph/transport.go).
func writeGraphQLError(w http.ResponseWriter, r *http.Request, status int, msg, code string) {
	writeRefusal(w, r, status, coded(domain.Code(code), "%s", msg))
}

func headerSafe(s string) string {
	return strings.NewReplacer(`"`, `'`, `\`, `/`, "\n", " ", "\r", " ").Replace(s)
}
