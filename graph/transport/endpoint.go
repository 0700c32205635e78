package transport

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/99designs/gqlgen/graphql/handler"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/graph/live"
	"github.com/haulgraph/haulgraph/graph/operation"
	"github.com/haulgraph/haulgraph/httpedge"
	"github.com/haulgraph/haulgraph/respcache"
)

// Endpoint serves /graphql: GraphiQL for browsers, GET and POST operations
// per GraphQL-over-HTTP, WebSocket upgrades and event streams, each handed
// to the transport of Server that supports it (the composition in app adds
// them). It answers what no transport should see: a missing token, a
// method or body out of bounds, a batch.
type Endpoint struct {
	Server *handler.Server
	// Live runs the shared executions of subscriptions for the streaming
	// transports (WebSocket, SSE).
	Live *live.Live
	// SSE is the server-sent events transport (sse.go).
	SSE *SSETransport
	// Page is what a browser gets at /graphql (GraphiQL; the app sets it);
	// nil sends browsers to the plain HTTP transport.
	Page http.Handler
	// MaxBodyBytes bounds a POST's JSON body (uploads have their own).
	MaxBodyBytes int64
	// Describe keys a conditional GET for the response cache
	// (CachedQueries.Describe; nil: no cache).
	Describe respcache.Describe
}

func (h *Endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
			writeGraphQLError(w, r, httpedge.Unavailable(w.Header()), err.Error(), string(domain.CodeUnavailable))
			return
		}
		httpedge.Challenge(r.Context(), w.Header(), &domain.Error{Code: domain.CodeUnauthenticated, Message: err.Error()})
		writeGraphQLError(w, r, http.StatusUnauthorized, err.Error(), string(domain.CodeUnauthenticated))
		return
	}
	// Multipart uploads stream under their own bound (UploadTransport).
	if r.Method == http.MethodPost && !isMultipart(r) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.MaxBodyBytes))
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
	o := &operation.Outcome{}
	ctx := operation.WithOutcome(r.Context(), o)
	if !stream { // a subscription over SSE is what SSE is for
		ctx = withPlainHTTP(ctx, r)
	}
	h.Server.ServeHTTP(&statusWriter{ResponseWriter: w, outcome: o}, r.WithContext(ctx))
}

// statusWriter applies docs/architecture.md's rule: under application/json a request
// error (parse, validation, limits) answers 200 with errors, not gqlgen's
// 422; application/graphql-response+json keeps gqlgen's 4xx. A throttled
// request answers 429 under both.
type statusWriter struct {
	http.ResponseWriter
	outcome *operation.Outcome
}

func (w *statusWriter) WriteHeader(status int) {
	chosen, retryAfter := w.outcome.Chosen()
	switch {
	case chosen != 0:
		status = chosen
		if retryAfter > 0 {
			httpedge.RetryAfter(w.Header(), retryAfter)
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
// httpedge.RateLimits refusal of /graphql) as a GraphQL error: 429 when a bucket
// is spent (the limiter has set Retry-After and the RateLimit-* headers),
// 503 with Retry-After when the limiter could not answer.
func WriteRateLimited(w http.ResponseWriter, r *http.Request, err *domain.Error) {
	if err.Code == domain.CodeUnavailable {
		Refuse(w, r, httpedge.Unavailable(w.Header()), err)
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
// type the client asked for (http.go).
func writeGraphQLError(w http.ResponseWriter, r *http.Request, status int, msg, code string) {
	writeRefusal(w, r, status, operation.Coded(domain.Code(code), "%s", msg))
}
