// Package metrics is the instance's Prometheus registry: HTTP request
// durations by route, the lifetimes of long-lived streams, the pool, the
// outbox and webhook backlog read at scrape time, and the counters the
// transports feed through small hooks. The admin listener serves it.
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics holds one instance's collectors in its own registry (several
// instances may run in one test process).
type Metrics struct {
	Registry *prometheus.Registry

	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	websocket *Streams
	sse       *Streams
	webhooks  *prometheus.CounterVec
	tokens    *prometheus.CounterVec
	refusals  *prometheus.CounterVec
}

// streamBuckets span a long-lived connection's life: a second to four hours.
var streamBuckets = []float64{1, 5, 15, 60, 300, 900, 1800, 3600, 7200, 14400}

// New registers every collector, with the Go runtime's and the process's.
func New() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "haulgraph_http_requests_total",
			Help: "HTTP requests answered, by method, route pattern and status (WebSocket upgrades as 101).",
		}, []string{"method", "route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "haulgraph_http_request_duration_seconds",
			Help:    "Time to answer HTTP requests, by method and route pattern; WebSocket and SSE streams are not requests here.",
			Buckets: prometheus.DefBuckets,
		}, []string{"method", "route"}),
		websocket: newStreams("haulgraph_websocket_connections_open", "GraphQL WebSocket connections open.",
			"haulgraph_websocket_connection_duration_seconds", "Lifetime of GraphQL WebSocket connections, from upgrade to close."),
		sse: newStreams("haulgraph_sse_streams_open", "GraphQL over SSE streams open.",
			"haulgraph_sse_stream_duration_seconds", "Lifetime of GraphQL over SSE streams, from first byte to end."),
		webhooks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "haulgraph_webhook_attempts_total",
			Help: "Webhook delivery attempts, by outcome: delivered (2xx), rejected (another status), gone (410), error (no answer).",
		}, []string{"outcome"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "haulgraph_token_requests_total",
			Help: "Token endpoint requests, by outcome: issued or the OAuth error code answered.",
		}, []string{"outcome"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "haulgraph_rate_limit_refusals_total",
			Help: "Requests refused by a rate limit, by the bucket that refused: client, tenant, address, token, graphql_cost.",
		}, []string{"kind"}),
	}
	// The known label values start at zero, so that a rate() over them
	// exists before the first event and every family is always exposed.
	for _, o := range []string{"delivered", "rejected", "gone", "error"} {
		m.webhooks.WithLabelValues(o)
	}
	m.tokens.WithLabelValues("issued")
	for _, k := range []string{"client", "tenant", "address", "token", "graphql_cost"} {
		m.refusals.WithLabelValues(k)
	}
	m.Registry.MustRegister(m.requests, m.latency, m.webhooks, m.tokens, m.refusals,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.websocket.register(m.Registry)
	m.sse.register(m.Registry)
	return m
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}

// ObserveRequest counts one answered request; a stream (WebSocket upgrade,
// SSE) is counted but kept out of the latency histogram: its lifetime is in
// its own.
func (m *Metrics) ObserveRequest(method, route string, status int, elapsed time.Duration, stream bool) {
	m.requests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	if !stream {
		m.latency.WithLabelValues(method, route).Observe(elapsed.Seconds())
	}
}

// WebSocket counts GraphQL WebSocket connections.
func (m *Metrics) WebSocket() *Streams { return m.websocket }

// SSE counts GraphQL over SSE streams (graph/transport/sse.go calls SSE().Opened()).
func (m *Metrics) SSE() *Streams { return m.sse }

// WebhookAttempt counts one delivery attempt's outcome.
func (m *Metrics) WebhookAttempt(outcome string) { m.webhooks.WithLabelValues(outcome).Inc() }

// TokenRequest counts one token request's outcome.
func (m *Metrics) TokenRequest(outcome string) { m.tokens.WithLabelValues(outcome).Inc() }

// RateLimited counts one refusal by the kind of bucket that refused.
func (m *Metrics) RateLimited(kind string) { m.refusals.WithLabelValues(kind).Inc() }

// Streams counts one kind of long-lived stream: how many are open, and
// how long they lasted once they end.
type Streams struct {
	open     prometheus.Gauge
	lifetime prometheus.Histogram
}

func newStreams(openName, openHelp, lifeName, lifeHelp string) *Streams {
	return &Streams{
		open:     prometheus.NewGauge(prometheus.GaugeOpts{Name: openName, Help: openHelp}),
		lifetime: prometheus.NewHistogram(prometheus.HistogramOpts{Name: lifeName, Help: lifeHelp, Buckets: streamBuckets}),
	}
}

func (s *Streams) register(r prometheus.Registerer) { r.MustRegister(s.open, s.lifetime) }

// Opened counts a stream that has just opened; call the function it
// returns, once, when the stream ends. A nil *Streams counts nothing.
func (s *Streams) Opened() (ended func()) {
	if s == nil {
		return func() {}
	}
	start := time.Now()
	s.open.Inc()
	return func() {
		// Observed before the gauge drops: a scrape that sees the stream
		// closed also sees its lifetime.
		s.lifetime.Observe(time.Since(start).Seconds())
		s.open.Dec()
	}
}
