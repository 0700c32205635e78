package apptest_test

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/websocket"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/telemetry"
	"github.com/haulgraph/haulgraph/testkit"
)

// otlpReceiver is an OTLP/HTTP endpoint (protobuf) that keeps every span
// and every request body it is sent.
type otlpReceiver struct {
	*httptest.Server
	mu     sync.Mutex
	spans  []*tracepb.Span
	bodies [][]byte
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	t.Helper()
	o := &otlpReceiver{}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		var req coltracepb.ExportTraceServiceRequest
		if err != nil || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(body, &req) != nil {
			t.Errorf("OTLP receiver: %s %s %s: %v", r.Method, r.URL.Path, r.Header.Get("Content-Type"), err)
			http.Error(w, "bad export", http.StatusBadRequest)
			return
		}
		o.mu.Lock()
		o.bodies = append(o.bodies, body)
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				o.spans = append(o.spans, ss.Spans...)
			}
		}
		o.mu.Unlock()
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(o.Close)
	return o
}

// trace returns the spans received so far of trace id (hex).
func (o *otlpReceiver) trace(id string) []*tracepb.Span {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []*tracepb.Span
	for _, s := range o.spans {
		if hex.EncodeToString(s.TraceId) == id {
			out = append(out, s)
		}
	}
	return out
}

func (o *otlpReceiver) exports() [][]byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([][]byte(nil), o.bodies...)
}

// hookReceiver keeps the traceparent of every delivery.
type hookReceiver struct{ *testkit.Receiver }

func newHookReceiver(t *testing.T) *hookReceiver { return &hookReceiver{testkit.NewReceiver(t)} }

func (h *hookReceiver) received() []string {
	var out []string
	for _, d := range h.Received() {
		out = append(out, d.Header.Get("traceparent"))
	}
	return out
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// otelEnv is the configuration the standard variables give.
func otelEnv(t *testing.T, vars map[string]string) telemetry.Config {
	t.Helper()
	c, err := telemetry.FromEnv(func(k string) string { return vars[k] })
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// tracedEnv is outboundEnv with a token that may also create loads.
func tracedEnv(t *testing.T, tracing telemetry.Config) *env {
	t.Helper()
	e, tenant := outboundEnv(t, func(c *app.Config) { c.Tracing = tracing })
	e.token = e.srv.Token(t, apptest.Tenant{ID: tenant, Slug: "acme", SubsidiaryID: uuid.MustParse(e.sub)},
		domain.ScopeLoadCreate, domain.ScopeLoadRead, domain.ScopeWebhookManage)
	return e
}

// tracedWrite makes an active webhook to hook, then one createLoad with an
// incoming traceparent of trace id and a secret commodity, and returns the
// response's traceparent.
func tracedWrite(t *testing.T, e *env, hook *hookReceiver, traceID, secret string) string {
	t.Helper()
	res, b := e.createWebhook(t, hook.URL+"/h")
	var w restWebhook
	if res.StatusCode != 201 || json.Unmarshal(b, &w) != nil {
		t.Fatalf("create webhook: %d %s", res.StatusCode, b)
	}
	if w := e.enableWebhook(t, w.Id); w.State != "Active" {
		t.Fatalf("receiver not verified: %+v", w)
	}
	body := `{"operationName":"TracedCreate","query":"mutation TracedCreate($in: CreateLoadInput!) { createLoad(input: $in) { loadNumber } }","variables":` +
		string(testkit.MustJSON(t, map[string]any{"in": map[string]any{
			"loadNumber": "TRACE-1", "subsidiaryId": e.sub, "rate": map[string]any{"amount": 1500.5}, "commodity": secret,
			"stops": []any{map[string]any{"type": "Delivery", "name": "Dock", "address": map[string]any{"street": "1 Main St", "city": "Springfield", "state": "IL", "zipCode": "62701"}}}}})) + `}`
	res, b = e.send(t, hostile{method: "POST", path: "/graphql", body: body,
		header: map[string]string{"traceparent": "00-" + traceID + "-" + randomHex(8) + "-01"}})
	if res.StatusCode != 200 || strings.Contains(string(b), `"errors"`) {
		t.Fatalf("createLoad: %d %s", res.StatusCode, b)
	}
	return res.Header.Get("traceparent")
}

func attr(s *tracepb.Span, key string) (string, bool) {
	for _, a := range s.Attributes {
		if a.Key == key {
			if v, ok := a.Value.Value.(interface{ GetStringValue() string }); ok {
				return v.GetStringValue(), true
			}
			return a.Value.String(), true
		}
	}
	return "", false
}

// One GraphQL mutation with an incoming traceparent is one trace: the HTTP
// server span named by the operation, its PostgreSQL round trips (no
// argument in any of them), the outbox relay's batch and the webhook
// delivery attempt, whose traceparent the receiver got. A failing request's
// problem+json carries its span's trace id, and so does its log line.
func TestTracingOneTraceFromWriteToDelivery(t *testing.T) {
	t.Parallel()
	otlp := newOTLPReceiver(t)
	hook := newHookReceiver(t)
	e := tracedEnv(t, otelEnv(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": otlp.URL, "OTEL_BSP_SCHEDULE_DELAY": "20",
		"OTEL_SERVICE_NAME": "haulgraph-test"}))
	if !e.srv.App.Tracing.On() {
		t.Fatal("tracing is off with an endpoint set")
	}
	traceID, secret := randomHex(16), "s3cret-"+randomHex(8)
	if tp := tracedWrite(t, e, hook, traceID, secret); !strings.HasPrefix(tp, "00-"+traceID+"-") {
		t.Fatalf("response traceparent %q does not continue trace %s", tp, traceID)
	}
	waitFor(t, 20*time.Second, "the webhook delivered", func() bool { return len(hook.received()) > 0 })
	got := hook.received()[0]
	parts := strings.Split(got, "-")
	if len(parts) != 4 || parts[1] != traceID {
		t.Fatalf("delivery traceparent %q is not in trace %s", got, traceID)
	}

	var server, relay, attempt *tracepb.Span
	var pg []*tracepb.Span
	waitFor(t, 20*time.Second, "the trace's spans exported", func() bool {
		server, relay, attempt, pg = nil, nil, nil, nil
		for _, s := range otlp.trace(traceID) {
			_, isPG := attr(s, "db.system.name")
			switch {
			case s.Name == "mutation TracedCreate":
				server = s
			case s.Name == "outbox relay":
				relay = s
			case s.Name == "webhook load.changed":
				attempt = s
			case isPG:
				pg = append(pg, s)
			}
		}
		return server != nil && relay != nil && attempt != nil && len(pg) > 0
	})
	if server.Kind != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("server span kind %v", server.Kind)
	}
	if attempt.Kind != tracepb.Span_SPAN_KIND_CLIENT || hex.EncodeToString(attempt.SpanId) != parts[2] {
		t.Errorf("attempt span %x (%v) is not the receiver's parent %s", attempt.SpanId, attempt.Kind, parts[2])
	}
	if status, _ := attr(attempt, "http.response.status_code"); !strings.Contains(status, "200") {
		t.Errorf("attempt span status %q", status)
	}
	writes := 0
	for _, s := range pg {
		if bytes.Equal(s.ParentSpanId, server.SpanId) {
			writes++
		}
		if _, ok := attr(s, "db.query.text"); !ok && !strings.HasPrefix(s.Name, "BATCH") {
			t.Errorf("PostgreSQL span %q without its statement", s.Name)
		}
	}
	if writes == 0 {
		t.Errorf("no PostgreSQL span is a child of the request's span")
	}
	// The write's span is the parent of the relay's batch and of the attempt.
	spanIDs := map[string]bool{}
	for _, s := range otlp.trace(traceID) {
		spanIDs[hex.EncodeToString(s.SpanId)] = true
	}
	for _, s := range []*tracepb.Span{relay, attempt} {
		if !spanIDs[hex.EncodeToString(s.ParentSpanId)] {
			t.Errorf("span %q's parent %x is not in the trace", s.Name, s.ParentSpanId)
		}
	}
	for _, b := range otlp.exports() {
		if bytes.Contains(b, []byte(secret)) {
			t.Fatalf("an exported span holds the mutation's argument %q", secret)
		}
	}

	// Each WebSocket operation is a span named by the operation, a child of
	// the upgrade request's.
	wsTrace := randomHex(16)
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second, Subprotocols: []string{"graphql-transport-ws"}}
	conn, wsRes, err := d.Dial("ws"+strings.TrimPrefix(e.srv.URL, "http")+"/graphql",
		http.Header{"traceparent": {"00-" + wsTrace + "-" + randomHex(8) + "-01"}})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	_ = wsRes.Body.Close()
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	frames := []map[string]any{
		{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + e.token}},
		{"id": "q", "type": "subscribe", "payload": map[string]any{"query": "query TracedQuery { __typename }"}},
		{"id": "s", "type": "subscribe", "payload": map[string]any{"query": "subscription TracedWatch { loadChanged { data { load { loadNumber } } } }"}},
	}
	for _, f := range frames {
		if err := conn.WriteJSON(f); err != nil {
			t.Fatal(err)
		}
	}
	for done := false; !done; {
		var m struct{ ID, Type string }
		if err := conn.ReadJSON(&m); err != nil {
			t.Fatalf("ws read: %v", err)
		}
		done = m.ID == "q" && m.Type == "complete"
	}
	waitFor(t, 10*time.Second, "the subscription joined", func() bool { return e.srv.GraphQL.Live.Members() > 0 })
	if err := conn.WriteJSON(map[string]any{"id": "s", "type": "complete"}); err != nil {
		t.Fatal(err)
	}
	_ = conn.Close()
	waitFor(t, 20*time.Second, "both WebSocket operations' spans, children of the upgrade's", func() bool {
		upgrade := ""
		for _, s := range otlp.trace(wsTrace) {
			if s.Name == "GET /graphql" && s.Kind == tracepb.Span_SPAN_KIND_SERVER {
				upgrade = hex.EncodeToString(s.SpanId)
			}
		}
		n := 0
		for _, s := range otlp.trace(wsTrace) {
			if (s.Name == "query TracedQuery" || s.Name == "subscription TracedWatch") && hex.EncodeToString(s.ParentSpanId) == upgrade {
				n++
			}
		}
		return upgrade != "" && n == 2
	})

	// A refused request: its problem's traceId is its span's trace id.
	failing := randomHex(16)
	res, b := e.send(t, hostile{method: "GET", path: "/api/p/v1/webhooks/not-a-webhook",
		header: map[string]string{"traceparent": "00-" + failing + "-" + randomHex(8) + "-01"}})
	var problem struct{ TraceId string } //nolint:revive
	if res.StatusCode < 400 || res.StatusCode > 499 || json.Unmarshal(b, &problem) != nil || problem.TraceId != failing {
		t.Fatalf("refusal: %d %s, want traceId %s", res.StatusCode, b, failing)
	}
	const route = "GET /api/p/{version}/webhooks/{id}"
	deadline := time.Now().Add(20 * time.Second)
	for found := false; !found; {
		var names []string
		for _, s := range otlp.trace(failing) {
			found = found || s.Kind == tracepb.Span_SPAN_KIND_SERVER && s.Name == route
			names = append(names, s.Name)
		}
		if !found && time.Now().After(deadline) {
			t.Fatalf("no server span %q in the refused request's trace: %q", route, names)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(e.log.String(), "trace_id="+failing) {
		t.Errorf("no log line carries trace id %s", failing)
	}
}

// With tracing off (no endpoint, or OTEL_SDK_DISABLED with one) nothing is
// exported, no exporter goroutine runs, and the delivery's traceparent
// still continues the writer's trace id.
//
// Not parallel: it counts the process's exporter goroutines, which another
// test's traced instance would add.
func TestTracingOffExportsNothing(t *testing.T) {
	otlp := newOTLPReceiver(t)
	for name, vars := range map[string]map[string]string{
		"no endpoint": {"OTEL_BSP_SCHEDULE_DELAY": "20"},
		"disabled":    {"OTEL_EXPORTER_OTLP_ENDPOINT": otlp.URL, "OTEL_SDK_DISABLED": "true", "OTEL_BSP_SCHEDULE_DELAY": "20"},
	} {
		t.Run(name, func(t *testing.T) {
			hook := newHookReceiver(t)
			e := tracedEnv(t, otelEnv(t, vars))
			if e.srv.App.Tracing.On() {
				t.Fatal("tracing is on")
			}
			traceID := randomHex(16)
			if tp := tracedWrite(t, e, hook, traceID, "plain"); !strings.HasPrefix(tp, "00-"+traceID+"-") {
				t.Fatalf("response traceparent %q does not continue trace %s", tp, traceID)
			}
			waitFor(t, 20*time.Second, "the webhook delivered", func() bool { return len(hook.received()) > 0 })
			if got := hook.received()[0]; !strings.HasPrefix(got, "00-"+traceID+"-") {
				t.Errorf("delivery traceparent %q does not continue the write's trace %s", got, traceID)
			}
			buf := make([]byte, 1<<22)
			if stacks := string(buf[:runtime.Stack(buf, true)]); strings.Contains(stacks, "go.opentelemetry.io/otel/sdk/trace.(*batchSpanProcessor)") {
				t.Errorf("an exporter goroutine runs with tracing off")
			}
		})
	}
	if n := len(otlp.exports()); n != 0 {
		t.Errorf("%d exports with tracing off", n)
	}
}
