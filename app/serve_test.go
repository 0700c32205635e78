package app_test

import (
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
)

// A stop drains first: /readyz answers 503 at once while the instance goes
// on serving, every answer with Connection: close (a keep-alive connection
// opened before the stop included), and a WebSocket stays open; only when
// the drain is over do the WebSocket end with 1001 and the listener close.
// The drain's end is the test's timer, fired once it has seen all that.
func TestStopDrainsBeforeClosing(t *testing.T) {
	t.Parallel()
	release := make(chan time.Time, 1)
	var asked atomic.Int64
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.ShutdownDrain = 42 * time.Second
		c.DrainTimer = func(d time.Duration) <-chan time.Time { asked.Store(int64(d)); return release }
	}})
	t.Cleanup(func() { // before apptest's stop: a test that failed still ends the drain
		select {
		case release <- time.Now():
		default:
		}
	})
	tenant := apptest.NewTenant(t, srv, "drain")
	token := srv.Token(t, tenant, domain.ScopeTrailerRead)
	// One connection, kept alive across the stop.
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}, Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()
	trailers := func() *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+"/api/p/v1/trailers", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET /api/p/v1/trailers: %v", err)
		}
		res.Body.Close()
		return res
	}
	if res := trailers(); res.StatusCode != http.StatusOK || res.Close {
		t.Fatalf("before the stop: %d, Connection: close %v", res.StatusCode, res.Close)
	}
	ws := openWebSocket(t, srv.URL, token)

	var stopErr error
	stopped := make(chan struct{})
	go func() { stopErr = srv.Stop(); close(stopped) }()
	defer func() { // a failure below still ends the drain and waits for the stop
		select {
		case release <- time.Now():
		default:
		}
		<-stopped
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		status, body := get(t, srv.AdminURL+"/readyz")
		if status == http.StatusServiceUnavailable && strings.Contains(body, `"reason":"stopping"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz 30 s after the stop: %d %s", status, body)
		}
	}

	// Still serving: the connection from before the stop, then a new one,
	// each answered and told to close.
	if res := trailers(); res.StatusCode != http.StatusOK || !res.Close {
		t.Errorf("during the drain, kept-alive connection: %d, Connection %q, want 200 with Connection: close", res.StatusCode, res.Header.Get("Connection"))
	}
	if res := trailers(); res.StatusCode != http.StatusOK || !res.Close {
		t.Errorf("during the drain, new connection: %d, Connection %q, want 200 with Connection: close", res.StatusCode, res.Header.Get("Connection"))
	}
	if status, _ := get(t, srv.AdminURL+"/healthz"); status != http.StatusOK {
		t.Errorf("/healthz during the drain: %d, want 200 (live, only not ready)", status)
	}
	// The WebSocket is still served (a ping is answered).
	if err := ws.WriteJSON(map[string]string{"type": "ping"}); err != nil {
		t.Fatal(err)
	}
	if msg := readFrame(t, ws); msg.err != nil || !strings.Contains(msg.text, `"pong"`) {
		t.Fatalf("WebSocket during the drain: %q %v, want a pong", msg.text, msg.err)
	}

	release <- time.Now()
	if msg := readFrame(t, ws); !websocket.IsCloseError(msg.err, websocket.CloseGoingAway) {
		t.Errorf("WebSocket after the drain: %q %v, want close 1001", msg.text, msg.err)
	}
	<-stopped
	if stopErr != nil {
		t.Errorf("stop: %v", stopErr)
	}
	if got := time.Duration(asked.Load()); got != 42*time.Second {
		t.Errorf("the drain's timer was asked for %v, want ShutdownDrain (42s)", got)
	}
	if c, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://")); err == nil {
		c.Close()
		t.Error("the listener still accepts after the drain and the stop")
	}
}

// openWebSocket opens /graphql over graphql-transport-ws and waits for its
// connection_ack.
func openWebSocket(t *testing.T, base, token string) *websocket.Conn {
	t.Helper()
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second, Subprotocols: []string{"graphql-transport-ws"}}
	ws, res, err := d.Dial("ws"+strings.TrimPrefix(base, "http")+"/graphql", nil)
	if err != nil {
		t.Fatalf("WebSocket: %v", err)
	}
	res.Body.Close()
	t.Cleanup(func() { ws.Close() })
	if err := ws.WriteJSON(map[string]any{"type": "connection_init", "payload": map[string]string{"Authorization": "Bearer " + token}}); err != nil {
		t.Fatal(err)
	}
	if msg := readFrame(t, ws); msg.err != nil || !strings.Contains(msg.text, "connection_ack") {
		t.Fatalf("connection_init: %q %v", msg.text, msg.err)
	}
	return ws
}

type frame struct {
	text string
	err  error
}

// readFrame reads the next text frame, skipping the server's keep-alive
// pings, bounded.
func readFrame(t *testing.T, ws *websocket.Conn) frame {
	t.Helper()
	_ = ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		_, b, err := ws.ReadMessage()
		if err == nil && strings.Contains(string(b), `"type":"ping"`) {
			continue
		}
		return frame{string(b), err}
	}
}
