package haulgraph

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
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
