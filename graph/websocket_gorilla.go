package graph

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/gorilla/websocket"
)

// gorillaWebsocket plugs gorilla/websocket into gqlgen's WebSocket transport
// (transport.WebsocketImplementation).
type gorillaWebsocket struct {
	upgrader     websocket.Upgrader
	writeTimeout time.Duration
	sendBuffer   int
}

func (g gorillaWebsocket) Accept(w http.ResponseWriter, r *http.Request, opts transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	up := g.upgrader
	up.Subprotocols = opts.Subprotocols
	c, err := up.Upgrade(w, r, opts.ResponseHeader)
	if err != nil {
		return nil, err
	}
	if tc, ok := c.NetConn().(*net.TCPConn); ok && g.sendBuffer > 0 {
		// A fixed kernel send buffer: a client that stops reading pushes back
		// after sendBuffer bytes instead of megabytes of autotuned buffer.
		_ = tc.SetWriteBuffer(g.sendBuffer)
	}
	conn := &gorillaConn{c: c, writeTimeout: g.writeTimeout}
	if slot, _ := r.Context().Value(connSlotKey{}).(*connSlot); slot != nil {
		slot.conn = conn
	}
	return conn, nil
}

// gorillaConn adapts one gorilla connection. Every write has a deadline: a
// peer that stops reading fails the write and loses its connection instead
// of holding a goroutine and its queue forever.
type gorillaConn struct {
	c            *websocket.Conn
	writeTimeout time.Duration
	closeOnce    sync.Once
}

var (
	_ transport.WebsocketConn          = (*gorillaConn)(nil)
	_ transport.WebsocketReadLimiter   = (*gorillaConn)(nil)
	_ transport.WebsocketReadDeadliner = (*gorillaConn)(nil)
)

func (g *gorillaConn) NextReader() (int, io.Reader, error) {
	mt, r, err := g.c.NextReader()
	if err != nil {
		if _, ok := err.(*websocket.CloseError); ok {
			return mt, nil, transport.ErrWebsocketClosed
		}
		return mt, nil, err
	}
	b, err := io.ReadAll(r) // bounded by SetReadLimit
	if err != nil {
		return mt, nil, err
	}
	if !validFrame(g.c.Subprotocol(), b) {
		g.end(CloseBadMessage, "invalid message received")
		return mt, nil, transport.ErrWebsocketClosed
	}
	return mt, bytes.NewReader(b), nil
}

func (g *gorillaConn) WriteJSON(v any) error {
	_ = g.c.SetWriteDeadline(time.Now().Add(g.writeTimeout))
	if err := g.c.WriteJSON(v); err != nil {
		g.end(websocket.ClosePolicyViolation, "write timed out: the client does not read")
		return err
	}
	return nil
}

// WriteClose sends a close frame (WriteControl may run concurrently with
// writes, so it is also what ends a connection from outside the transport).
func (g *gorillaConn) WriteClose(code int, message string) error {
	return g.c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, truncateReason(message)), time.Now().Add(time.Second))
}

func (g *gorillaConn) Close() error { return g.c.Close() }

func (g *gorillaConn) Subprotocol() string { return g.c.Subprotocol() }

func (g *gorillaConn) SetReadLimit(limit int64) { g.c.SetReadLimit(limit) }

func (g *gorillaConn) SetReadDeadline(t time.Time) error { return g.c.SetReadDeadline(t) }

// end closes the connection with code once, whoever asks first (token
// expiry, missing scope, slow consumer, failed write); the transport's read
// loop then ends and cancels every subscription of the connection.
func (g *gorillaConn) end(code int, reason string) {
	g.closeOnce.Do(func() {
		_ = g.WriteClose(code, reason)
		_ = g.c.Close()
	})
}

// truncateReason keeps a close reason within RFC 6455's 123 bytes.
func truncateReason(s string) string {
	if len(s) > 123 {
		return s[:123]
	}
	return s
}

// connSlot carries the accepted connection from Accept to the init function
// (both see the upgrade request's context).
type connSlot struct{ conn *gorillaConn }

type connSlotKey struct{}
