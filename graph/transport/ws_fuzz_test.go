package transport

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// FuzzWebsocketBeforeInit: whatever one message a client sends before its
// connection is acknowledged, on either subprotocol, the server answers with
// a close (4400 or 4401) and nothing else: no error message echoing what
// was sent. graphql-transport-ws's ping and pong are allowed at any time:
// a ping is answered with one pong, a pong with nothing, and the socket
// stays open (the next unknown message closes it with 4400). (Token
// verification is not configured here, so even a connection_init is
// refused with 4401.)
func FuzzWebsocketBeforeInit(f *testing.F) {
	for _, s := range []string{`{"type":"ping"}`, `{"type":"pong"}`, `{"type":"connection_init","payload":{}}`,
		`{"type":"connection_init","payload":{"Authorization":"Bearer x"}}`, `{"type":"connection_init","payload":[]}`,
		`{"id":"1","type":"subscribe","payload":{"query":"subscription{x}"}}`, `{"id":"1","type":"start"}`,
		`{"id":"1","type":"stop"}`, `{"type":"connection_terminate"}`, `{"type":"shout"}`, `{"type":`, ``} {
		f.Add(s, false)
		f.Add(s, true)
	}
	tr := NewWebsocket(WebsocketOptions{InitTimeout: time.Minute})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { tr.Do(w, r, nil) }))
	f.Cleanup(srv.Close)
	url := "ws" + strings.TrimPrefix(srv.URL, "http")
	f.Fuzz(func(t *testing.T, msg string, legacy bool) {
		proto := protoTransportWS
		if legacy {
			proto = protoLegacyWS
		}
		d := websocket.Dialer{HandshakeTimeout: 10 * time.Second, Subprotocols: []string{proto}}
		c, res, err := d.Dial(url, nil)
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		_ = res.Body.Close()
		defer c.Close()
		if err := c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		var m struct {
			Type string `json:"type"`
		}
		if !legacy && json.Unmarshal([]byte(msg), &m) == nil && (m.Type == "ping" || m.Type == "pong") {
			if m.Type == "ping" {
				if _, got, err := c.ReadMessage(); err != nil || string(got) != `{"type":"pong"}` {
					t.Fatalf("%q: answered %q, %v; want one pong", msg, got, err)
				}
			}
			msg = `{"type":"shout"}` // still open: this one closes it
			if err := c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
				t.Fatal(err)
			}
		}
		_, got, err := c.ReadMessage()
		var ce *websocket.CloseError
		switch {
		case err == nil:
			t.Fatalf("%s %q: answered %q before connection_init", proto, msg, got)
		case !errors.As(err, &ce):
			t.Fatalf("%s %q: %v, want a close", proto, msg, err)
		case ce.Code == websocket.CloseNormalClosure && legacy && strings.Contains(msg, "connection_terminate"):
		case ce.Code != CloseInvalidMessage && ce.Code != CloseUnauthorized:
			t.Fatalf("%s %q: closed with %d, want 4400 or 4401", proto, msg, ce.Code)
		}
	})
}
