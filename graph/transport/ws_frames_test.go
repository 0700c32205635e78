package transport

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// TestFramesReadByGorilla: the frames write builds (every length encoding
// of RFC 6455, a head + body + tail message, a pong) arrive whole at a real
// WebSocket client, in order, from one write.
func TestFramesReadByGorilla(t *testing.T) {
	t.Parallel()
	sizes := []int{0, 1, 125, 126, 127, 65535, 65536, 70000}
	var frames []wsFrame
	for _, n := range sizes {
		frames = append(frames, wsFrame{body: bytes.Repeat([]byte{'a' + byte(n%26)}, n)})
	}
	frames = append(frames, wsFrame{head: []byte(`{"id":"1","type":"next","payload":`), body: []byte(`{"data":{}}`), tail: true},
		wsFrame{body: []byte("pong data"), opcode: websocket.PongMessage})
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		c, err := (&websocket.Upgrader{}).Upgrade(rw, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		var buf []byte
		for _, f := range frames {
			buf = appendFrame(buf, f)
		}
		_, _ = c.NetConn().Write(buf)
		_, _, _ = c.ReadMessage() // until the client closes
	}))
	defer srv.Close()
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pong := make(chan string, 1)
	c.SetPongHandler(func(s string) error { pong <- s; return nil })
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	for i, n := range sizes {
		typ, b, err := c.ReadMessage()
		if err != nil || typ != websocket.TextMessage || len(b) != n || (n > 0 && b[n-1] != 'a'+byte(n%26)) {
			t.Fatalf("message %d: type %d, %d bytes, %v; want a text message of %d bytes", i, typ, len(b), err, n)
		}
	}
	if _, b, err := c.ReadMessage(); err != nil || string(b) != `{"id":"1","type":"next","payload":{"data":{}}}` {
		t.Fatalf("event message %q, %v", b, err)
	}
	go func() { _, _, _ = c.ReadMessage() }() // runs the pong handler
	select {
	case s := <-pong:
		if s != "pong data" {
			t.Fatalf("pong carried %q", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no pong frame")
	}
}
