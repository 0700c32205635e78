package apptest_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/haulgraph/haulgraph/domain"
)

// wsHostile is one hostile exchange over graphql-transport-ws: after
// connection_init (with the env's token unless noToken) the frames are sent;
// the server must answer a message of wantType whose first error has
// wantCode, or close the connection with wantClose.
type wsHostile struct {
	name      string
	noToken   bool
	frames    []string
	wantType  string
	wantCode  string
	wantClose int
}

func subscribeFrame(query string, vars map[string]any) string {
	b, _ := json.Marshal(map[string]any{"id": "1", "type": "subscribe", "payload": map[string]any{"query": query, "variables": vars}})
	return string(b)
}

func wsCases() []wsHostile {
	const bad = string(domain.CodeInvalid)
	sub := `subscription($f:LoadEventFilter){loadChanged(filter:$f){id}}`
	return []wsHostile{
		{name: "filter loadNumbers NUL", frames: []string{subscribeFrame(sub, map[string]any{"f": map[string]any{"loadNumbers": []string{"\x00"}}})}, wantType: "error", wantCode: bad},
		{name: "filter subsidiaryId NUL", frames: []string{subscribeFrame(sub, map[string]any{"f": map[string]any{"subsidiaryId": "a\x00"}})}, wantType: "error", wantCode: bad},
		{name: "filter loadNumbers ESC literal", frames: []string{subscribeFrame(`subscription{loadChanged(filter:{loadNumbers:["\u001b"]}){id}}`, nil)}, wantType: "error", wantCode: bad},
		{name: "syntax error", frames: []string{subscribeFrame(`subscription{`, nil)}, wantType: "error", wantCode: "GRAPHQL_PARSE_FAILED"},
		{name: "unknown field", frames: []string{subscribeFrame(`subscription{nope}`, nil)}, wantType: "error", wantCode: "GRAPHQL_VALIDATION_FAILED"},
		{name: "variable of the wrong type", frames: []string{subscribeFrame(sub, map[string]any{"f": 5})}, wantType: "error", wantCode: "GRAPHQL_VALIDATION_FAILED"},
		{name: "frame not JSON", frames: []string{`{"type":`}, wantClose: 4400},
		{name: "unknown message type", frames: []string{`{"type":"shout"}`}, wantClose: 4400},
		{name: "no token", noToken: true, wantClose: 4401},
	}
}

func runWSCase(t *testing.T, e *env, c wsHostile) {
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second, Subprotocols: []string{"graphql-transport-ws"}}
	conn, res, err := d.Dial("ws"+strings.TrimPrefix(e.srv.URL, "http")+"/graphql", nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	_ = res.Body.Close()
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	payload := map[string]any{}
	if !c.noToken {
		payload["Authorization"] = "Bearer " + e.token
	}
	if err := conn.WriteJSON(map[string]any{"type": "connection_init", "payload": payload}); err != nil {
		t.Fatal(err)
	}
	read := func() (map[string]json.RawMessage, error) {
		var m map[string]json.RawMessage
		err := conn.ReadJSON(&m)
		return m, err
	}
	if !c.noToken {
		if m, err := read(); err != nil || string(m["type"]) != `"connection_ack"` {
			t.Fatalf("want connection_ack: %v %v", m, err)
		}
	}
	for _, f := range c.frames {
		if err := conn.WriteMessage(websocket.TextMessage, []byte(f)); err != nil {
			t.Fatal(err)
		}
	}
	for {
		m, err := read()
		if err != nil {
			var ce *websocket.CloseError
			if c.wantClose != 0 && errors.As(err, &ce) && ce.Code == c.wantClose {
				return
			}
			t.Fatalf("read: %v (want close %d)", err, c.wantClose)
		}
		typ := strings.Trim(string(m["type"]), `"`)
		if typ == "ping" || typ == "pong" {
			continue
		}
		if c.wantClose != 0 {
			t.Fatalf("got %s %s, want close %d", typ, m["payload"], c.wantClose)
		}
		if typ != c.wantType {
			t.Fatalf("got %s %s, want %s", typ, m["payload"], c.wantType)
		}
		var errs []struct {
			Extensions map[string]any `json:"extensions"`
		}
		if typ == "next" {
			var p struct {
				Errors json.RawMessage `json:"errors"`
			}
			_ = json.Unmarshal(m["payload"], &p)
			_ = json.Unmarshal(p.Errors, &errs)
		} else {
			_ = json.Unmarshal(m["payload"], &errs)
		}
		if len(errs) == 0 || errs[0].Extensions["code"] != c.wantCode {
			t.Fatalf("%s %s: want code %s", typ, m["payload"], c.wantCode)
		}
		return
	}
}
