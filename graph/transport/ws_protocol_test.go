package transport_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/testkit"
)

// TestWebsocketCloseCodes: graphql-transport-ws's close codes, each from a
// real connection, and graphql-transport-ws's ping before connection_init
// (answered with pong).
func TestWebsocketCloseCodes(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) { c.WebsocketInitTimeout = 300 * time.Millisecond }})
	tn := apptest.NewTenant(t, srv, "acme")
	token := srv.Token(t, tn, domain.ScopeLoadRead)
	raw := func(t *testing.T) *wsClient {
		d := &websocket.Dialer{HandshakeTimeout: 10 * time.Second, Subprotocols: []string{"graphql-transport-ws"}}
		c, res, err := d.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/graphql", nil)
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		_ = res.Body.Close()
		t.Cleanup(func() { _ = c.Close() })
		return &wsClient{t: t, c: c, proto: "graphql-transport-ws"}
	}
	cases := []struct {
		name string
		code int
		run  func(t *testing.T) *wsClient
	}{
		{"invalid JSON", 4400, func(t *testing.T) *wsClient {
			w := connect(t, srv, "graphql-transport-ws", token)
			_ = w.c.WriteMessage(websocket.TextMessage, []byte(`{"type":`))
			return w
		}},
		{"unknown type", 4400, func(t *testing.T) *wsClient {
			w := connect(t, srv, "graphql-transport-ws", token)
			w.send(wsMsg{Type: "start", ID: "1", Payload: testkit.MustJSON(t, map[string]any{"query": "{ eventTypes }"})})
			return w
		}},
		{"subscribe without id", 4400, func(t *testing.T) *wsClient {
			w := connect(t, srv, "graphql-transport-ws", token)
			w.send(wsMsg{Type: "subscribe", Payload: testkit.MustJSON(t, map[string]any{"query": "{ eventTypes }"})})
			return w
		}},
		{"subscribe before connection_init", 4401, func(t *testing.T) *wsClient {
			w := raw(t)
			w.subscribe("1", `subscription { loadChanged { id } }`, nil)
			return w
		}},
		{"no connection_init in time", 4408, func(t *testing.T) *wsClient { return raw(t) }},
		{"duplicate id", 4409, func(t *testing.T) *wsClient {
			w := connect(t, srv, "graphql-transport-ws", token)
			w.subscribe("1", `subscription { loadChanged { id } }`, nil)
			w.subscribe("1", `subscription { loadStatusChanged { id } }`, nil)
			return w
		}},
		{"second connection_init", 4429, func(t *testing.T) *wsClient {
			w := connect(t, srv, "graphql-transport-ws", token)
			w.send(wsMsg{Type: "connection_init", Payload: testkit.MustJSON(t, map[string]any{"Authorization": "Bearer " + token})})
			return w
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if code := c.run(t).closeCode(); code != c.code {
				t.Fatalf("closed with %d, want %d", code, c.code)
			}
		})
	}

	t.Run("ping before connection_init", func(t *testing.T) {
		t.Parallel()
		// graphql-transport-ws allows ping at any time: it is answered with
		// pong, and connection_init still works after it.
		w := raw(t)
		w.send(wsMsg{Type: "pong"})
		w.send(wsMsg{Type: "ping"})
		_ = w.c.SetReadDeadline(time.Now().Add(10 * time.Second))
		var m wsMsg
		if err := w.c.ReadJSON(&m); err != nil || m.Type != "pong" {
			t.Fatalf("ping before init: %v %+v, want a pong", err, m)
		}
		w.send(wsMsg{Type: "connection_init", Payload: testkit.MustJSON(t, map[string]any{"Authorization": "Bearer " + token})})
		if m := w.read(); m.Type != "connection_ack" {
			t.Fatalf("connection_init after a ping: %s %s", m.Type, m.Payload)
		}
	})

	t.Run("close reason cut on a rune boundary", func(t *testing.T) {
		t.Parallel()
		// The reason echoes the unknown type; 123 bytes fall inside a
		// two-byte character unless the cut respects runes.
		w := connect(t, srv, "graphql-transport-ws", token)
		w.send(wsMsg{Type: strings.Repeat("é", 100)})
		_ = w.c.SetReadDeadline(time.Now().Add(10 * time.Second))
		var err error
		for err == nil {
			_, _, err = w.c.ReadMessage()
		}
		var ce *websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != 4400 {
			t.Fatalf("closed with %v, want 4400 with a valid UTF-8 reason", err)
		}
		if !utf8.ValidString(ce.Text) || len(ce.Text) > 123 || !strings.HasPrefix(ce.Text, "Invalid message received") {
			t.Fatalf("reason %q (%d bytes)", ce.Text, len(ce.Text))
		}
	})

	t.Run("unknown subprotocol refused at the upgrade", func(t *testing.T) {
		t.Parallel()
		for _, protos := range [][]string{{"graphql-sse"}, nil} {
			d := &websocket.Dialer{HandshakeTimeout: 10 * time.Second, Subprotocols: protos}
			_, res, err := d.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/graphql", nil)
			if err == nil {
				t.Fatalf("%v: upgraded", protos)
			}
			if res == nil || res.StatusCode != http.StatusBadRequest {
				t.Fatalf("%v: %v %v", protos, err, res)
			}
			body, _ := io.ReadAll(res.Body)
			_ = res.Body.Close()
			if !strings.Contains(string(body), "graphql-transport-ws") {
				t.Fatalf("%v: the refusal does not name the subprotocols: %s", protos, body)
			}
		}
	})

	t.Run("legacy graphql-ws", func(t *testing.T) {
		t.Parallel()
		w := connect(t, srv, "graphql-ws", token)
		w.subscribe("q", `query { eventTypes }`, nil)
		if m := w.read(); m.Type != "data" || m.ID != "q" || !strings.Contains(string(m.Payload), "load.changed") {
			t.Fatalf("legacy query: %s %s %s", m.Type, m.ID, m.Payload)
		}
		if m := w.read(); m.Type != "complete" || m.ID != "q" {
			t.Fatalf("legacy query end: %s %s", m.Type, m.ID)
		}
		w.subscribe("t", `subscription { tripChanged { id } }`, nil) // no trip:read
		if m := w.read(); m.Type != "data" || m.ID != "t" || !strings.Contains(string(m.Payload), "FORBIDDEN") {
			t.Fatalf("legacy refusal: %s %s %s", m.Type, m.ID, m.Payload)
		}
		if m := w.read(); m.Type != "complete" || m.ID != "t" {
			t.Fatalf("legacy refusal end: %s %s", m.Type, m.ID)
		}
	})
}

// TestWebsocketOperationsRateLimited: every WebSocket operation spends from
// the same per-client bucket as an HTTP request; past the burst each one is
// refused with RATE_LIMITED while the connection stays open.
func TestWebsocketOperationsRateLimited(t *testing.T) {
	t.Parallel()
	frozen := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.ClientRateLimit = 10
		c.RateLimitClock = func() time.Time { return frozen } // no refill during the test
	}})
	tn := apptest.NewTenant(t, srv, "acme")
	w := connect(t, srv, "graphql-transport-ws", srv.Token(t, tn, domain.ScopeLoadRead))
	var outcome []string
	for i := range 20 {
		id := string(rune('a' + i))
		w.subscribe(id, `query { eventTypes }`, nil)
		m := w.read()
		switch {
		case m.ID == id && m.Type == "error" && strings.Contains(string(m.Payload), `"RATE_LIMITED"`):
			outcome = append(outcome, "limited")
		case m.ID == id && m.Type == "next":
			if c := w.read(); c.Type != "complete" || c.ID != id {
				t.Fatalf("query %s: %s", id, c.Type)
			}
			outcome = append(outcome, "ok")
		default:
			t.Fatalf("operation %d: %s %s %s", i, m.Type, m.ID, m.Payload)
		}
	}
	got := strings.Join(outcome, " ")
	if want := strings.TrimSpace(strings.Repeat("ok ", 10) + strings.Repeat("limited ", 10)); got != want {
		t.Fatalf("20 operations: %s\nwant %s", got, want)
	}
	w.subscribe("sub", `subscription { loadChanged { id } }`, nil)
	if m := w.read(); m.ID != "sub" || m.Type != "error" || !strings.Contains(string(m.Payload), `"RATE_LIMITED"`) {
		t.Fatalf("subscribe past the limit: %s %s %s", m.Type, m.ID, m.Payload)
	}
	// Still open: a ping is answered.
	w.send(wsMsg{Type: "ping"})
	_ = w.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	var m wsMsg
	if err := w.c.ReadJSON(&m); err != nil || m.Type != "pong" {
		t.Fatalf("after refusals: %v %+v", err, m)
	}
}

// TestSubscriptionOverHTTPRefused: a subscription over POST or GET is
// answered at once with an error naming the WebSocket endpoint.
func TestSubscriptionOverHTTPRefused(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	tn := apptest.NewTenant(t, srv, "acme")
	token := srv.Token(t, tn, domain.ScopeLoadRead)
	query := `subscription { loadChanged { id } }`
	for _, c := range []struct {
		method, accept string
		status         int
	}{
		{http.MethodPost, "application/json", http.StatusOK},
		{http.MethodPost, "application/graphql-response+json", http.StatusBadRequest},
		{http.MethodGet, "application/json", http.StatusMethodNotAllowed},
	} {
		var req *http.Request
		if c.method == http.MethodPost {
			body, _ := json.Marshal(map[string]any{"query": query})
			req, _ = http.NewRequest(c.method, srv.URL+"/graphql", strings.NewReader(string(body)))
			req.Header.Set("Content-Type", "application/json")
		} else {
			req, _ = http.NewRequest(c.method, srv.URL+"/graphql?query="+strings.ReplaceAll(query, " ", "+"), nil)
		}
		req.Header.Set("Accept", c.accept)
		req.Header.Set("Authorization", "Bearer "+token)
		client := &http.Client{Timeout: time.Second} // answered at once, not at the next event
		res, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", c.method, c.accept, err)
		}
		var out gqlResponse
		_ = json.NewDecoder(res.Body).Decode(&out)
		_ = res.Body.Close()
		if res.StatusCode != c.status || len(out.Errors) != 1 || out.Data != nil ||
			(c.method == http.MethodPost) != (out.Errors[0].Extensions["code"] == "STREAMING_TRANSPORT_REQUIRED") ||
			!strings.Contains(out.Errors[0].Message, "ws://"+strings.TrimPrefix(srv.URL, "http://")+"/graphql") {
			t.Fatalf("%s %s: %d %+v", c.method, c.accept, res.StatusCode, out)
		}
	}
	if srv.GraphQL.Live.Members() != 0 {
		t.Fatal("a refused subscription was registered")
	}
}

// TestWebsocketPingAndCloseAnswered: a client's ping is answered with a
// pong carrying its data, and its close frame is echoed with its code —
// both queued to the connection's writer, the only goroutine that writes.
func TestWebsocketPingAndCloseAnswered(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	tn := apptest.NewTenant(t, srv, "acme")
	w := connect(t, srv, "graphql-transport-ws", srv.Token(t, tn, domain.ScopeLoadRead))
	pong := make(chan string, 1)
	w.c.SetPongHandler(func(s string) error { pong <- s; return nil })
	read := make(chan error, 1)
	go func() {
		for {
			if _, _, err := w.c.ReadMessage(); err != nil {
				read <- err
				return
			}
		}
	}()
	if err := w.c.WriteControl(websocket.PingMessage, []byte("are you there"), time.Now().Add(5*time.Second)); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-pong:
		if s != "are you there" {
			t.Fatalf("pong carried %q", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no pong")
	}
	if err := w.c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(4321, "bye"), time.Now().Add(5*time.Second)); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-read:
		if !websocket.IsCloseError(err, 4321) {
			t.Fatalf("the close was answered with %v, want the code 4321 echoed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the close was not answered")
	}
}

// TestWebsocketPingFrameBeforeInit: a WebSocket ping control frame (RFC
// 6455 opcode 0x9) is below graphql-transport-ws and may come at any time:
// before connection_init it is answered with a pong carrying its data, the
// connection stays open, and connection_init is acknowledged after it.
func TestWebsocketPingFrameBeforeInit(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	tn := apptest.NewTenant(t, srv, "acme")
	token := srv.Token(t, tn, domain.ScopeLoadRead)
	d := &websocket.Dialer{HandshakeTimeout: 10 * time.Second, Subprotocols: []string{"graphql-transport-ws"}}
	c, res, err := d.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/graphql", nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	_ = res.Body.Close()
	pong := make(chan string, 4)
	c.SetPongHandler(func(s string) error { pong <- s; return nil })
	type read struct {
		m   wsMsg
		err error
	}
	msgs := make(chan read, 16)
	done := make(chan struct{})
	defer func() { _ = c.Close(); <-done }()
	go func() { // the reader runs the pong handler
		defer close(done)
		for {
			var m wsMsg
			err := c.ReadJSON(&m)
			msgs <- read{m, err}
			if err != nil {
				return
			}
		}
	}()
	ping := func(data string) {
		t.Helper()
		if err := c.WriteControl(websocket.PingMessage, []byte(data), time.Now().Add(5*time.Second)); err != nil {
			t.Fatal(err)
		}
		select {
		case s := <-pong:
			if s != data {
				t.Fatalf("pong carried %q, want %q", s, data)
			}
		case r := <-msgs:
			t.Fatalf("a ping was answered with %+v, %v; want a pong frame", r.m, r.err)
		case <-time.After(10 * time.Second):
			t.Fatal("no pong")
		}
	}
	ping("before init")
	ping("again")
	if err := c.WriteJSON(wsMsg{Type: "connection_init", Payload: testkit.MustJSON(t, map[string]any{"Authorization": "Bearer " + token})}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-msgs:
		if r.err != nil || r.m.Type != "connection_ack" {
			t.Fatalf("connection_init after pings: %+v, %v", r.m, r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no connection_ack")
	}
	ping("after init")
}
