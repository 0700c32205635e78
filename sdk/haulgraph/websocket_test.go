package haulgraph

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"
)

// frame is a server's frame: unmasked, with the length in the smallest
// encoding that holds it.
func frame(fin bool, op byte, payload []byte) []byte {
	b := []byte{op, 0}
	if fin {
		b[0] |= 0x80
	}
	switch n := len(payload); {
	case n < 126:
		b[1] = byte(n)
	case n <= 0xffff:
		b[1] = 126
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	default:
		b[1] = 127
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	return append(b, payload...)
}

// readClientFrame decodes a frame the client wrote, checking it is masked.
func readClientFrame(t *testing.T, r io.Reader) (byte, []byte) {
	t.Helper()
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		t.Fatal(err)
	}
	if h[1]&0x80 == 0 {
		t.Fatal("a client frame without a mask")
	}
	n := uint64(h[1] & 0x7f)
	if n == 126 {
		var b [2]byte
		io.ReadFull(r, b[:])
		n = uint64(binary.BigEndian.Uint16(b[:]))
	} else if n == 127 {
		var b [8]byte
		io.ReadFull(r, b[:])
		n = binary.BigEndian.Uint64(b[:])
	}
	var mask [4]byte
	io.ReadFull(r, mask[:])
	p := make([]byte, n)
	io.ReadFull(r, p)
	for i := range p {
		p[i] ^= mask[i%4]
	}
	return h[0] & 0x0f, p
}

// The frames a server sends are read whatever their length encoding and
// fragmentation; pings are answered with the same payload; a close frame
// ends the connection with its code; the client's frames are masked.
func TestWebSocketFrames(t *testing.T) {
	t.Parallel()
	client, server := net.Pipe()
	defer client.Close()
	defer server.Close()
	c := &wsConn{conn: client, r: bufio.NewReader(client)}
	big := bytes.Repeat([]byte("x"), 70_000)
	mid := bytes.Repeat([]byte("y"), 300)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		server.Write(frame(true, opText, []byte(`{"type":"connection_ack"}`)))
		server.Write(frame(true, opPing, []byte("hi")))
		if op, p := readClientFrame(t, server); op != opPong || string(p) != "hi" {
			t.Errorf("answered a ping with %d %q", op, p)
		}
		server.Write(frame(false, opText, mid))
		server.Write(frame(true, opContinuation, big))
		if op, p := readClientFrame(t, server); op != opText || !bytes.Equal(p, big) {
			t.Errorf("the client's frame: %d, %d bytes", op, len(p))
		}
		server.Write(frame(true, opClose, append([]byte{0x11, 0x31}, "Unauthorized"...)))
		readClientFrame(t, server) // the close echoed
	}()
	if m, err := c.readMessage(); err != nil || string(m) != `{"type":"connection_ack"}` {
		t.Fatalf("%q %v", m, err)
	}
	if m, err := c.readMessage(); err != nil || !bytes.Equal(m, append(append([]byte{}, mid...), big...)) {
		t.Fatalf("the fragmented message: %d bytes, %v", len(m), err)
	}
	if err := c.write(opText, big); err != nil {
		t.Fatal(err)
	}
	_, err := c.readMessage()
	var ce *wsCloseError
	if !errors.As(err, &ce) || ce.Code != 4401 || ce.Reason != "Unauthorized" {
		t.Errorf("close: %v", err)
	}
	wg.Wait()
}

// upgrade is a WebSocket server's handshake by hand: it checks the
// client's request and accepts it (or refuses without a token), then sends
// one text message and echoes the client's first.
func upgrade(t *testing.T) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "yes" {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"title":"Unauthorized","status":401,"detail":"no token"}`)
			return
		}
		key := r.Header.Get("Sec-WebSocket-Key")
		if r.Header.Get("Upgrade") != "websocket" || r.Header.Get("Sec-WebSocket-Version") != "13" || key == "" ||
			r.Header.Get("Sec-WebSocket-Protocol") != "graphql-transport-ws" {
			t.Errorf("handshake request %v", r.Header)
		}
		conn, rw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		sum := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		io.WriteString(rw, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
			"Sec-WebSocket-Protocol: graphql-transport-ws\r\nSec-WebSocket-Accept: "+base64.StdEncoding.EncodeToString(sum[:])+"\r\n\r\n")
		rw.Write(frame(true, opText, []byte(`{"type":"connection_ack"}`)))
		rw.Flush()
		_, p := readClientFrame(t, rw)
		rw.Write(frame(true, opText, p))
		rw.Flush()
	})
}

// The handshake over TLS with the HTTP client's settings, and a refused
// one whose answer reaches the caller.
func TestWebSocketHandshake(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(upgrade(t))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	u.Scheme, u.Path = "wss", "/graphql"
	conn, _, err := dialWS(context.Background(), srv.Client(), u, "graphql-transport-ws", http.Header{"Authorization": {"yes"}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if m, err := conn.readMessage(); err != nil || string(m) != `{"type":"connection_ack"}` {
		t.Fatalf("%q %v", m, err)
	}
	if err := conn.write(opText, []byte(`{"type":"ping"}`)); err != nil {
		t.Fatal(err)
	}
	if m, err := conn.readMessage(); err != nil || string(m) != `{"type":"ping"}` {
		t.Fatalf("echo: %q %v", m, err)
	}

	_, res, err := dialWS(context.Background(), srv.Client(), u, "graphql-transport-ws", http.Header{})
	if err == nil || res == nil || res.StatusCode != 401 {
		t.Fatalf("refused handshake: %v %v", res, err)
	}
	if e := readError(res, time.Now()); e.Detail != "no token" {
		t.Errorf("refusal %+v", e)
	}
	// A server that is no WebSocket server.
	plain := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) }))
	defer plain.Close()
	pu, _ := url.Parse(plain.URL)
	pu.Scheme = "wss"
	if _, res, err := dialWS(context.Background(), plain.Client(), pu, "graphql-transport-ws", http.Header{}); err == nil || res == nil || res.StatusCode != 200 {
		t.Errorf("a plain answer: %v %v", res, err)
	} else {
		res.Body.Close()
	}
}
