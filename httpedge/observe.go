package httpedge

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/haulgraph/haulgraph/domain"
)

// Observer logs and counts every request and carries its W3C trace context.
type Observer struct {
	log     *slog.Logger
	metrics RequestMetrics
	// tracer, when set, records a server span per request, and its trace
	// id becomes the request's (Trace).
	tracer trace.Tracer
	prop   propagation.TextMapPropagator
}

// Trace records a server span per request with t, continuing the trace of
// an incoming traceparent read by p; the span's trace id is then the trace
// id of logs and problem documents.
func (o *Observer) Trace(t trace.Tracer, p propagation.TextMapPropagator) {
	o.tracer, o.prop = t, p
}

// RequestMetrics counts answered requests (metrics.Metrics). stream is
// true for a WebSocket upgrade or an SSE stream, whose lifetime is no
// request latency.
type RequestMetrics interface {
	ObserveRequest(method, route string, status int, elapsed time.Duration, stream bool)
}

// NewObserver logs to log and counts in m.
func NewObserver(log *slog.Logger, m RequestMetrics) *Observer {
	return &Observer{log: log, metrics: m}
}

// requestInfo is filled in by inner layers that know more than the outer
// one: the route pattern (REST endpoints) and the client (after auth).
type requestInfo struct {
	route    string
	clientID string
	spanName string
}

type infoKey struct{}

// SetRoute records the route pattern that answers the request.
func SetRoute(ctx context.Context, pattern string) {
	if ri, ok := ctx.Value(infoKey{}).(*requestInfo); ok {
		ri.route = pattern
	}
}

// SetClient records the authenticated client for the request log.
func SetClient(ctx context.Context, clientID string) {
	if ri, ok := ctx.Value(infoKey{}).(*requestInfo); ok {
		ri.clientID = clientID
	}
}

// NameSpan names the request's span (a GraphQL operation's type and name)
// instead of its route.
func NameSpan(ctx context.Context, name string) {
	if ri, ok := ctx.Value(infoKey{}).(*requestInfo); ok {
		ri.spanName = name
	}
	trace.SpanFromContext(ctx).SetName(name)
}

// Wrap logs, counts and traces every request through next.
func (o *Observer) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ctx := r.Context()
		var (
			span    trace.Span
			traceID string
		)
		if o.tracer != nil {
			ctx, span = o.tracer.Start(o.prop.Extract(ctx, propagation.HeaderCarrier(r.Header)), r.Method,
				trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
					attribute.String("http.request.method", r.Method), attribute.String("url.path", r.URL.Path),
					attribute.String("client.address", ClientHost(r))))
			traceID = span.SpanContext().TraceID().String()
			o.prop.Inject(ctx, propagation.HeaderCarrier(w.Header()))
		} else {
			tc := parseTraceparent(r.Header.Get("traceparent"))
			traceID = tc.traceID
			w.Header().Set("traceparent", "00-"+tc.traceID+"-"+newSpanID()+"-"+tc.flags)
		}
		ri := &requestInfo{}
		ctx = context.WithValue(domain.WithTraceID(ctx, traceID), infoKey{}, ri)
		r = r.WithContext(ctx)
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)

		route := ri.route
		if route == "" {
			route = r.Pattern // set by the mux on this request
		}
		if route == "" {
			route = "unmatched"
		}
		status := sw.statusCode()
		method := methodLabel(r.Method)
		elapsed := time.Since(start)
		stream := status == http.StatusSwitchingProtocols || strings.HasPrefix(sw.Header().Get("Content-Type"), "text/event-stream")
		o.metrics.ObserveRequest(method, route, status, elapsed, stream)
		o.log.LogAttrs(ctx, slog.LevelInfo, "request",
			slog.String("method", r.Method), slog.String("route", route), slog.String("path", r.URL.Path),
			slog.Int("status", status), slog.Float64("latency_ms", float64(elapsed.Microseconds())/1000),
			slog.String("client_id", ri.clientID), slog.String("client_addr", ClientHost(r)), slog.String("trace_id", traceID))
		if span != nil {
			endSpan(span, ri, r.Method, route, status)
		}
	})
}

// endSpan names the request's span by its route unless an inner layer named
// it, and ends it with the status.
func endSpan(span trace.Span, ri *requestInfo, method, route string, status int) {
	// A mux pattern may name its method ("GET /api/p/v{version}/invoices").
	path := route
	if _, p, ok := strings.Cut(route, " "); ok {
		path = p
	}
	if ri.spanName == "" {
		span.SetName(method + " " + path)
	}
	span.SetAttributes(attribute.String("http.route", path), attribute.Int("http.response.status_code", status))
	if status >= 500 {
		span.SetStatus(codes.Error, "")
	}
	span.End()
}

// methodLabel bounds the metric's method label to the known methods.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return m
	}
	return "OTHER"
}

// traceContext is the part of a W3C traceparent this service keeps.
type traceContext struct{ traceID, flags string }

// parseTraceparent accepts a valid W3C traceparent (version 00 or a future
// one) and otherwise starts a new trace.
func parseTraceparent(h string) traceContext {
	if len(h) >= 55 && h[2] == '-' && h[35] == '-' && h[52] == '-' && (len(h) == 55 || h[55] == '-') {
		ver, trace, parent, flags := h[0:2], h[3:35], h[36:52], h[53:55]
		if isLowerHex(ver) && ver != "ff" && isLowerHex(trace) && isLowerHex(parent) && isLowerHex(flags) &&
			trace != "00000000000000000000000000000000" && parent != "0000000000000000" && (ver != "00" || len(h) == 55) {
			return traceContext{traceID: trace, flags: flags}
		}
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return traceContext{traceID: hex.EncodeToString(b), flags: "01"}
}

func newSpanID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func isLowerHex(s string) bool {
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// statusWriter remembers the status; it stays a Flusher and Hijacker so the
// GraphQL WebSocket transport can upgrade through it.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusWriter) Flush() { _ = http.NewResponseController(s.ResponseWriter).Flush() }

func (s *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	s.status = http.StatusSwitchingProtocols
	return http.NewResponseController(s.ResponseWriter).Hijack()
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func (s *statusWriter) statusCode() int {
	if s.status == 0 {
		return http.StatusOK
	}
	return s.status
}
