package rest

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

	"github.com/haulgraph/haulgraph/domain"
)

// Observer logs and counts every request and carries its W3C trace context.
type Observer struct {
	log     *slog.Logger
	metrics RequestMetrics
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

// Wrap logs, counts and traces every request through next.
func (o *Observer) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		tc := parseTraceparent(r.Header.Get("traceparent"))
		span := newSpanID()
		w.Header().Set("traceparent", "00-"+tc.traceID+"-"+span+"-"+tc.flags)
		ri := &requestInfo{}
		ctx := context.WithValue(domain.WithTraceID(r.Context(), tc.traceID), infoKey{}, ri)
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
			slog.String("client_id", ri.clientID), slog.String("trace_id", tc.traceID))
	})
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
