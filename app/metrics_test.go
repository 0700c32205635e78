package app_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/testkit"
)

// Every family the admin listener promises, after real traffic on every
// transport; promlint (what `promtool check metrics` runs) finds nothing.
func TestMetricsAfterTraffic(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.TokenRateLimit, c.TokenRateBurst = 0.001, 2 // the third guess is refused
	}})
	tenant := apptest.NewTenant(t, srv, "metrics")
	token := srv.Token(t, tenant, domain.ScopeTrailerRead, domain.ScopeLoadRead, domain.ScopeWebhookManage)

	// REST, and the token endpoint: refused secrets of a client that
	// exists (only those have a bucket), then a refused rate.
	call(t, "GET", srv.URL+"/api/p/v1/trailers", token, "", "")
	victim, _ := srv.Client(t, tenant, domain.ScopeLoadRead)
	for range 3 {
		call(t, "POST", srv.URL+"/oauth/token", "", "application/x-www-form-urlencoded",
			url.Values{"grant_type": {"client_credentials"}, "client_id": {victim}, "client_secret": {"guess"}, "audience": {app.DefaultAudience}}.Encode())
	}

	// A webhook, and an event the outbox hands to it.
	receiver := testkit.NewReceiver(t)
	created := graphQL(t, srv, token, `mutation($in: CreateWebhookInput!) { createWebhook(input: $in) { webhook { id } } }`,
		map[string]any{"in": map[string]any{"name": "metrics", "url": receiver.URL, "subsidiaryId": tenant.SubsidiaryID, "eventTypes": []string{domain.EventLoadChanged}}})
	id := strings.Split(strings.Split(created, `"id":"`)[1], `"`)[0]
	graphQL(t, srv, token, `mutation($id: ID!) { enableWebhook(id: $id) { state } }`, map[string]any{"id": id})
	srv.LoadEvent(t, tenant, "M-1")
	receiver.Next(t)

	// A WebSocket with a live subscription, and an SSE stream.
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/graphql", http.Header{"Sec-WebSocket-Protocol": {"graphql-transport-ws"}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	_ = ws.WriteJSON(map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + token}})
	var ack map[string]any
	if err := ws.ReadJSON(&ack); err != nil || ack["type"] != "connection_ack" {
		t.Fatalf("connection_init: %v %v", ack, err)
	}
	_ = ws.WriteJSON(map[string]any{"id": "1", "type": "subscribe", "payload": map[string]any{"query": "subscription { loadChanged { id } }"}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/graphql/stream", strings.NewReader(`{"query":"subscription { loadChanged { id } }"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	sse, err := http.DefaultClient.Do(req)
	if err != nil || sse.StatusCode != http.StatusOK {
		t.Fatalf("SSE: %v %v", sse, err)
	}
	defer sse.Body.Close()
	open := scrapeUntil(t, srv, func(f families) bool {
		return f.value("haulgraph_subscriptions_open") == 2 && f.value("haulgraph_websocket_connections_open") == 1 &&
			f.value("haulgraph_sse_streams_open") == 1 && f.value("haulgraph_webhook_attempts_total", "outcome", "delivered") == 1
	})
	if n := open.value("haulgraph_outbox_pending_events"); n != 0 {
		t.Errorf("outbox lag after the delivery: %v events", n)
	}
	ws.Close()
	cancel()
	// The upgrade and the stream are counted as requests once their
	// handlers return, after the connection has ended.
	f := scrapeUntil(t, srv, func(f families) bool {
		return f.value("haulgraph_websocket_connections_open") == 0 && f.value("haulgraph_sse_streams_open") == 0 &&
			f.value("haulgraph_subscriptions_open") == 0 && f.value("haulgraph_http_requests_total", "status", "101") == 1 &&
			f.value("haulgraph_http_requests_total", "route", "/graphql/stream") == 1
	})

	for _, name := range []string{
		"haulgraph_http_requests_total", "haulgraph_http_request_duration_seconds",
		"haulgraph_websocket_connections_open", "haulgraph_websocket_connection_duration_seconds",
		"haulgraph_sse_streams_open", "haulgraph_sse_stream_duration_seconds", "haulgraph_subscriptions_open",
		"haulgraph_db_pool_acquired_connections", "haulgraph_db_pool_idle_connections", "haulgraph_db_pool_connections",
		"haulgraph_db_pool_max_connections", "haulgraph_db_pool_acquires_total", "haulgraph_db_pool_empty_acquires_total",
		"haulgraph_db_pool_empty_acquire_wait_seconds_total", "haulgraph_db_pool_canceled_acquires_total",
		"haulgraph_db_pool_new_connections_total", "haulgraph_database_up",
		"haulgraph_outbox_pending_events", "haulgraph_outbox_oldest_pending_age_seconds",
		"haulgraph_webhook_attempts_total", "haulgraph_webhook_deliveries",
		"haulgraph_token_requests_total", "haulgraph_rate_limit_refusals_total",
		"go_goroutines", "go_memstats_heap_alloc_bytes", "process_cpu_seconds_total", "process_open_fds",
	} {
		if f.families[name] == nil {
			t.Errorf("/metrics lacks %s", name)
		}
	}
	for _, want := range []struct {
		name, label, value string
		n                  float64
	}{
		{"haulgraph_database_up", "", "", 1},
		{"haulgraph_token_requests_total", "outcome", "issued", 1},
		{"haulgraph_token_requests_total", "outcome", "invalid_client", 2},
		{"haulgraph_token_requests_total", "outcome", "slow_down", 1},
		{"haulgraph_rate_limit_refusals_total", "kind", "token", 1},
		{"haulgraph_webhook_deliveries", "status", "pending", 0},
		{"haulgraph_webhook_deliveries", "status", "failed", 0},
		{"haulgraph_websocket_connection_duration_seconds", "", "", 1}, // sample count
		{"haulgraph_sse_stream_duration_seconds", "", "", 1},
		{"haulgraph_http_requests_total", "route", "GET /api/p/{version}/trailers", 1},
		{"haulgraph_http_request_duration_seconds", "route", "GET /api/p/{version}/trailers", 1},
		{"haulgraph_http_requests_total", "status", "101", 1},
	} {
		if got := f.value(want.name, want.label, want.value); got != want.n {
			t.Errorf("%s{%s=%q} = %v, want %v", want.name, want.label, want.value, got, want.n)
		}
	}
	// Streams are no request latency: neither the upgrade (GET /graphql)
	// nor the stream (POST /graphql/stream) is in the latency histogram.
	for _, m := range f.families["haulgraph_http_request_duration_seconds"].GetMetric() {
		if l := labels(m); l["route"] == "/graphql/stream" || l["route"] == "POST /graphql/stream" || l["method"] == "GET" && l["route"] == "/graphql" {
			t.Errorf("a stream's lifetime is in the request latency: %v", l)
		}
	}

	problems, err := promlint.New(bytes.NewReader(f.raw)).Lint()
	if err != nil || len(problems) > 0 {
		t.Fatalf("promlint: %v %v", problems, err)
	}
}

// families is one scrape, each family by name.
type families map[string]*dto.MetricFamily

func (f families) value(name string, label ...string) float64 {
	var sum float64
	for _, m := range f[name].GetMetric() {
		if len(label) == 2 && labels(m)[label[0]] != label[1] {
			continue
		}
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		case m.Untyped != nil:
			sum += m.Untyped.GetValue()
		}
	}
	return sum
}

func labels(m *dto.Metric) map[string]string {
	l := map[string]string{}
	for _, p := range m.GetLabel() {
		l[p.GetName()] = p.GetValue()
	}
	return l
}

// scrape reads the admin listener's /metrics once.
func scrape(t *testing.T, srv *apptest.Server) (families, []byte) {
	t.Helper()
	res, err := http.Get(srv.AdminURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: %d %s", res.StatusCode, body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	return mfs, body
}

// scraped is one scrape parsed, with its text as served.
type scraped struct {
	families
	raw []byte
}

// scrapeUntil scrapes until ok holds (at most 10 s: the server's state
// settles after the client's last step, with no event to wait on).
func scrapeUntil(t *testing.T, srv *apptest.Server, ok func(families) bool) scraped {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		f, raw := scrape(t, srv)
		if ok(f) {
			return scraped{f, raw}
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics never reached the expected state:\n%s", grepLines(raw, "haulgraph_"))
		}
	}
}

func grepLines(b []byte, prefix string) string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// call sends one request and fails the test on a transport error.
func call(t *testing.T, method, url, token, contentType, body string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, b := testkit.Do(t, req)
	return res.StatusCode, res.Header, string(b)
}

// graphQL runs one operation that must succeed and returns its data.
func graphQL(t *testing.T, srv *apptest.Server, token, query string, vars map[string]any) string {
	t.Helper()
	res, answer := testkit.GraphQL(t, srv.URL, token, query, vars)
	if res.StatusCode != http.StatusOK || strings.Contains(string(answer), `"errors"`) {
		t.Fatalf("GraphQL %s: %d %s", query, res.StatusCode, answer)
	}
	return string(answer)
}
