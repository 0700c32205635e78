package httpedge_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/httpedge"
	"github.com/haulgraph/haulgraph/metrics"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// Each request leaves one log record with method, route, status, latency,
// client id and trace id.
func TestObserverLogsEveryRequest(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	obs := httpedge.NewObserver(slog.New(slog.NewJSONHandler(&buf, nil)), metrics.New())
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpedge.SetRoute(r.Context(), "GET /things/{id}")
		httpedge.SetClient(r.Context(), "client-42")
		if domain.TraceIDFrom(r.Context()) == "" {
			t.Error("no trace id in the handler's context")
		}
		w.WriteHeader(http.StatusTeapot)
	})
	srv := httptest.NewServer(obs.Wrap(inner))
	defer srv.Close()
	const trace = "0af7651916cd43dd8448eb211c80319c"
	req, _ := http.NewRequest("GET", srv.URL+"/things/7", nil)
	req.Header.Set("traceparent", "00-"+trace+"-b7ad6b7169203331-01")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusTeapot {
		t.Fatalf("status %d", res.StatusCode)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(buf.String())), &rec); err != nil {
		t.Fatalf("log %q: %v", buf.String(), err)
	}
	want := map[string]any{"msg": "request", "method": "GET", "route": "GET /things/{id}", "path": "/things/7",
		"status": float64(418), "client_id": "client-42", "client_addr": "127.0.0.1", "trace_id": trace}
	for k, v := range want {
		if rec[k] != v {
			t.Errorf("log %s = %v, want %v", k, rec[k], v)
		}
	}
	if _, ok := rec["latency_ms"].(float64); !ok {
		t.Errorf("log lacks latency_ms: %v", rec)
	}
}

// The observer stays out of the way of WebSocket upgrades (the GraphQL
// subscriptions transport hijacks the connection through it).
func TestObserverLetsWebSocketsUpgrade(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	obs := httpedge.NewObserver(slog.New(slog.NewJSONHandler(&buf, nil)), metrics.New())
	up := websocket.Upgrader{}
	srv := httptest.NewServer(obs.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		_, msg, err := c.ReadMessage()
		if err == nil {
			_ = c.WriteMessage(websocket.TextMessage, append([]byte("echo "), msg...))
		}
	})))
	defer srv.Close()
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatalf("upgrade through the observer: %v", err)
	}
	defer c.Close()
	if err := c.WriteMessage(websocket.TextMessage, []byte("hi")); err != nil {
		t.Fatal(err)
	}
	if _, msg, err := c.ReadMessage(); err != nil || string(msg) != "echo hi" {
		t.Fatalf("read %q, %v", msg, err)
	}
}
