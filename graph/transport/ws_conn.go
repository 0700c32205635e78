package transport

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/gorilla/websocket"
)

// wsConn is one GraphQL WebSocket connection: its reader (ws_reader.go)
// runs the protocol on serve's goroutine, its writer (ws_writer.go) owns
// the socket's writes, its operations (ws_operations.go) are the queries,
// mutations and subscriptions the peer started.
type wsConn struct {
	o      WebsocketOptions
	c      *websocket.Conn
	exec   graphql.GraphExecutor
	legacy bool
	out    *wsWriter

	ctx    context.Context // the upgrade request's; the principal once acked
	cancel context.CancelFunc
	limits *wsLimits
	// unaddress gives back the connection's place among its address's
	// sockets before connection_init; unclient its place among its
	// client's after. Both are idempotent; serve calls both at the end.
	unaddress, unclient func()
	inited, acked       atomic.Bool

	mu      sync.Mutex
	ops     map[string]*wsOp
	workers sync.WaitGroup // running queries and mutations, resumes
}

func newWSConn(o WebsocketOptions, c *websocket.Conn, exec graphql.GraphExecutor, ctx context.Context, limits *wsLimits, unaddress func()) *wsConn {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	return &wsConn{o: o, c: c, exec: exec, legacy: c.Subprotocol() == protoLegacyWS, out: newWSWriter(o, c),
		ctx: ctx, cancel: cancel, limits: limits, unaddress: unaddress, unclient: func() {}, ops: map[string]*wsOp{}}
}

// serve runs the connection until it ends, then releases everything it
// held: it owns the writer's goroutine and the operations' workers and
// waits for both.
func (w *wsConn) serve() {
	writerDone := make(chan struct{})
	go func() { defer close(writerDone); w.out.run() }()
	initTimer := time.AfterFunc(w.o.InitTimeout, func() {
		if !w.inited.Load() {
			w.end(CloseInitTimeout, "Connection initialisation timeout")
		}
	})
	w.read()
	initTimer.Stop()
	w.end(websocket.CloseNormalClosure, "")
	w.unaddress()
	w.unclient()
	w.leaveAll()
	w.cancel()
	w.workers.Wait()
	<-writerDone
}

// end closes the connection with code once, whoever asks first (see
// wsWriter.end).
func (w *wsConn) end(code int, reason string) { w.out.end(code, reason) }

// tcpConn is the TCP connection under c: the listener may wrap what it
// accepts (the per-address cap does), and a wrapper that hands its
// connection on says so with NetConn. nil when there is none.
func tcpConn(c net.Conn) *net.TCPConn {
	for {
		switch v := c.(type) {
		case *net.TCPConn:
			return v
		case interface{ NetConn() net.Conn }:
			c = v.NetConn()
		default:
			return nil
		}
	}
}
