package transport_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/testkit"
)

// wsClient is a real GraphQL-over-WebSocket client speaking either
// graphql-transport-ws or the legacy graphql-ws.
type wsClient struct {
	t     *testing.T
	c     *websocket.Conn
	proto string
}

type wsMsg struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// dialWS connects and sends connection_init with the token (none when ""),
// without waiting for the answer.
func dialWS(t *testing.T, srv *apptest.Server, proto, token string, dialer *websocket.Dialer) *wsClient {
	t.Helper()
	if dialer == nil {
		dialer = &websocket.Dialer{HandshakeTimeout: 10 * time.Second}
	}
	dialer.Subprotocols = []string{proto}
	c, resp, err := dialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/graphql", nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	_ = resp.Body.Close()
	if c.Subprotocol() != proto {
		t.Fatalf("negotiated %q, want %q", c.Subprotocol(), proto)
	}
	t.Cleanup(func() { _ = c.Close() })
	w := &wsClient{t: t, c: c, proto: proto}
	payload := map[string]any{}
	if token != "" {
		payload["Authorization"] = "Bearer " + token
	}
	w.send(wsMsg{Type: "connection_init", Payload: testkit.MustJSON(t, payload)})
	return w
}

// connect dials and waits for connection_ack.
func connect(t *testing.T, srv *apptest.Server, proto, token string) *wsClient {
	t.Helper()
	w := dialWS(t, srv, proto, token, nil)
	if m := w.read(); m.Type != "connection_ack" {
		t.Fatalf("want connection_ack, got %s %s", m.Type, m.Payload)
	}
	return w
}

func (w *wsClient) send(m wsMsg) {
	w.t.Helper()
	if err := w.c.WriteJSON(m); err != nil {
		w.t.Fatalf("ws write: %v", err)
	}
}

// subscribe starts operation id.
func (w *wsClient) subscribe(id, query string, vars map[string]any) {
	typ := "subscribe"
	if w.proto == "graphql-ws" {
		typ = "start"
	}
	w.send(wsMsg{ID: id, Type: typ, Payload: testkit.MustJSON(w.t, map[string]any{"query": query, "variables": vars})})
}

// read returns the next message that is not a keep-alive, answering pings.
func (w *wsClient) read() wsMsg {
	w.t.Helper()
	m, err := w.readErr()
	if err != nil {
		w.t.Fatalf("ws read: %v", err)
	}
	return m
}

func (w *wsClient) readErr() (wsMsg, error) {
	for {
		_ = w.c.SetReadDeadline(time.Now().Add(15 * time.Second))
		var m wsMsg
		if err := w.c.ReadJSON(&m); err != nil {
			return m, err
		}
		switch m.Type {
		case "ka", "pong":
			continue
		case "ping":
			_ = w.c.WriteJSON(wsMsg{Type: "pong"})
			continue
		}
		return m, nil
	}
}

// event reads the next data message of operation id and decodes its payload.
func (w *wsClient) event(id string) gqlResponse {
	w.t.Helper()
	m := w.read()
	if (m.Type != "next" && m.Type != "data") || m.ID != id {
		w.t.Fatalf("want an event of %s, got %s %s %s", id, m.Type, m.ID, m.Payload)
	}
	var r gqlResponse
	if err := json.Unmarshal(m.Payload, &r); err != nil {
		w.t.Fatal(err)
	}
	if len(r.Errors) > 0 {
		w.t.Fatalf("event with errors: %s", m.Payload)
	}
	return r
}

// events reads n data messages and returns them by operation id.
func (w *wsClient) events(n int) map[string]gqlResponse {
	w.t.Helper()
	out := map[string]gqlResponse{}
	for len(out) < n {
		m := w.read()
		if m.Type != "next" && m.Type != "data" {
			w.t.Fatalf("want an event, got %s %s", m.Type, m.Payload)
		}
		out[m.ID] = field[gqlResponse](w.t, m.Payload)
	}
	return out
}

// closeCode reads until the server closes and returns the close code.
func (w *wsClient) closeCode() int {
	w.t.Helper()
	for {
		_, err := w.readErr()
		if err == nil {
			continue
		}
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			return ce.Code
		}
		w.t.Fatalf("connection ended without a close frame: %v", err)
	}
}

// mustGQL posts an operation that must succeed.
func mustGQL(t *testing.T, srv *apptest.Server, token, query string, vars map[string]any) gqlResponse {
	t.Helper()
	r := gql(t, srv.URL, token, query, vars)
	if len(r.Errors) > 0 {
		t.Fatalf("%s: %+v", query, r.Errors)
	}
	return r
}

// waitSubscribers waits until srv holds n live subscriptions: a
// subscription is registered asynchronously after the subscribe message.
func waitSubscribers(t *testing.T, srv *apptest.Server, n int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for srv.GraphQL.Live.Members() != n {
		if time.Now().After(deadline) {
			t.Fatalf("server has %d subscribers, want %d", srv.GraphQL.Live.Members(), n)
		}
		time.Sleep(2 * time.Millisecond) // polling server state with a deadline
	}
}

// smallReceiveBuffer makes a client socket with a 4 KiB receive buffer, so
// that a client that stops reading pushes back on the server quickly.
func smallReceiveBuffer() *websocket.Dialer {
	d := &net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		if err != nil {
			return err
		}
		return serr
	}}
	return &websocket.Dialer{HandshakeTimeout: 10 * time.Second, NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}}
}

func field[T any](t *testing.T, raw json.RawMessage) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return v
}
