package graph

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/gorilla/websocket"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/eventlog"
)

// wsConn is one GraphQL WebSocket connection. Its goroutine reads and runs
// the protocol; a writer goroutine (owned and awaited by serve) drains a
// bounded queue of frames, so no producer — a shared subscription execution
// above all — ever waits on this peer: when the queue is full the connection
// is cut off (1008) and the others go on. Every frame the server answers
// with counts against that bound (pongs, errors, completes alike), so a
// peer that sends without reading holds no more than the bound. A group's
// fan-out may also write the queue itself, without waiting, when the socket
// is free (flush).
type wsConn struct {
	o      WebsocketOptions
	c      *websocket.Conn
	exec   graphql.GraphExecutor
	legacy bool

	ctx    context.Context // the upgrade request's; the principal once acked
	cancel context.CancelFunc
	limits *wsLimits
	// unaddress gives back the connection's place among its address's
	// sockets before connection_init; unclient its place among its
	// client's after. Both are idempotent; serve calls both at the end.
	unaddress, unclient func()

	mu       sync.Mutex
	acked    bool
	inited   bool
	ops      map[string]*wsOp
	queue    []wsFrame
	queued   int // frames in queue
	wake     chan struct{}
	room     chan struct{} // made by a waiting replay, closed when the queue drains
	closed   bool
	endOnce  sync.Once
	closeMsg []byte
	done     chan struct{}
	workers  sync.WaitGroup // running queries and mutations
	pingDue  atomic.Bool    // the keep-alive timer fired

	// sock is held by whoever writes to the socket: the writer goroutine, or
	// a flush. It guards the fields below.
	sock     sync.Mutex
	raw      syscall.RawConn // for flush's writes that never wait; nil: flush only wakes the writer
	rest     []byte          // what a flush's write left over: the writer's first bytes
	batch    []wsFrame       // frames taken from the queue, being written
	deadline time.Time       // of the socket's writes
	broken   bool            // a write failed part way: no close frame can follow
}

// wsOp is one operation of the connection.
type wsOp struct {
	id     string
	member *liveMember // a subscription's place in its group
	cancel func()      // ends a resume in progress
	head   []byte      // `{"id":…,"type":"next","payload":`
	event  string      // the event type streamed, when payloads are watched
	gone   atomic.Bool // removed from the connection's operations
}

// wsFrame is one message: head + body + tail, so that a shared payload is
// written to the socket without being copied per subscriber.
type wsFrame struct {
	head, body []byte
	tail       bool // close the object opened in head
	opcode     int  // 0: a text message; websocket.PongMessage
}

func newWSConn(o WebsocketOptions, c *websocket.Conn, exec graphql.GraphExecutor, ctx context.Context, limits *wsLimits, unaddress func()) *wsConn {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var raw syscall.RawConn
	if tc := tcpConn(c.NetConn()); tc != nil {
		if o.SendBuffer > 0 {
			// A fixed kernel send buffer: a client that stops reading pushes
			// back after SendBuffer bytes instead of megabytes of autotuned
			// buffer.
			_ = tc.SetWriteBuffer(o.SendBuffer)
		}
		raw = rawSocket(tc)
	}
	return &wsConn{o: o, c: c, exec: exec, legacy: c.Subprotocol() == protoLegacyWS, ctx: ctx, cancel: cancel,
		limits: limits, unaddress: unaddress, unclient: func() {},
		ops: map[string]*wsOp{}, wake: make(chan struct{}, 1), done: make(chan struct{}), raw: raw}
}

// serve runs the connection until it ends, then releases everything it held.
func (w *wsConn) serve() {
	writerDone := make(chan struct{})
	go func() { defer close(writerDone); w.writeLoop() }()
	initTimer := time.AfterFunc(w.o.InitTimeout, func() {
		w.mu.Lock()
		inited := w.inited
		w.mu.Unlock()
		if !inited {
			w.end(CloseInitTimeout, "Connection initialisation timeout")
		}
	})
	w.c.SetReadLimit(64 << 10)
	w.alive()
	w.c.SetPongHandler(func(string) error { w.alive(); return nil })
	// Every frame is written by writeLoop (see write): the answers gorilla
	// would write from this goroutine are queued instead — a pong (within
	// the queue's bound: a peer that pings without reading is a slow
	// consumer), and the close frame echoing the peer's code. Before
	// connection_init nothing is answered: a ping then is a message out of
	// turn (4401).
	w.c.SetPingHandler(func(data string) error {
		if !w.isAcked() {
			w.end(CloseUnauthorized, "Unauthorized: send connection_init first")
			return nil
		}
		w.send(wsFrame{body: []byte(data), opcode: websocket.PongMessage})
		return nil
	})
	w.c.SetCloseHandler(func(code int, _ string) error {
		w.end(code, "")
		return nil
	})
	for {
		_, data, err := w.c.ReadMessage()
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			// No answer to pings: a client too far behind to read is cut
			// off like a slow consumer (1008, resume with after:), not
			// closed as gone (1000), which would hide the events it missed.
			w.end(websocket.ClosePolicyViolation, "no answer to pings: reconnect and resume with after")
			break
		}
		if err != nil {
			break
		}
		w.alive()
		if !w.handle(data) {
			break
		}
	}
	initTimer.Stop()
	w.end(websocket.CloseNormalClosure, "")
	w.unaddress()
	w.unclient()
	w.mu.Lock()
	ops := w.ops
	w.ops = map[string]*wsOp{}
	w.mu.Unlock()
	for _, op := range ops {
		if op.member != nil {
			w.o.Live.Leave(op.member)
		}
	}
	w.cancel()
	w.workers.Wait()
	<-writerDone
}

// alive pushes the read deadline: a peer that answers neither pings nor
// sends anything for two keep-alive intervals is gone.
func (w *wsConn) alive() { _ = w.c.SetReadDeadline(time.Now().Add(2*w.o.KeepAlive + w.o.WriteTimeout)) }

// end closes the connection with code once, whoever asks first (protocol
// error, token expiry, slow consumer, failed write). It never blocks: the
// writer sends the close frame and closes the socket, the read loop then
// ends and serve releases the connection's subscriptions.
func (w *wsConn) end(code int, reason string) {
	w.endOnce.Do(func() {
		w.mu.Lock()
		w.closed = true
		w.queue = nil
		w.closeMsg = websocket.FormatCloseMessage(code, truncateReason(reason))
		w.mu.Unlock()
		close(w.done)
		w.signal() // the writer sees done (after its write, bounded by WriteTimeout)
	})
}

func (w *wsConn) isAcked() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.acked
}

// send queues a frame; past the bound (QueuePerOperation per live operation,
// and as many for the connection's own messages) the peer is too slow and
// the connection is cut off.
func (w *wsConn) send(f wsFrame) {
	if w.enqueue(f) {
		w.signal()
	}
}

// enqueue is send without waking the writer; false: not queued.
func (w *wsConn) enqueue(f wsFrame) bool {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return false
	}
	if w.queued >= w.o.QueuePerOperation*(1+len(w.ops)) {
		w.mu.Unlock()
		w.o.Live.cutOff.Add(1)
		w.end(CloseSlowConsumer, eventlog.ErrSlowConsumer.Error())
		return false
	}
	w.queue = append(w.queue, f)
	w.queued++
	w.mu.Unlock()
	return true
}

// sendJSON queues a protocol message of the server's.
func (w *wsConn) sendJSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	w.send(wsFrame{body: b})
}

// writeLoop is the connection's writer. It waits on its wake channel and
// the server's shutdown alone: the keep-alive timer and the end of the
// connection set flags and wake it, so a batch costs one two-way select
// rather than a four-way one (a tenth of the server's CPU at 20,000
// subscribers).
func (w *wsConn) writeLoop() {
	pinger := time.AfterFunc(w.o.KeepAlive, func() { w.pingDue.Store(true); w.signal() })
	defer pinger.Stop()
	defer func() {
		w.sock.Lock() // a flush in progress ends first
		defer w.sock.Unlock()
		w.mu.Lock()
		msg := w.closeMsg
		w.mu.Unlock()
		if w.rest == nil && !w.broken { // after a frame cut short a close frame would be garbage
			_ = w.c.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
		}
		_ = w.c.Close()
	}()
	for {
		select {
		case <-w.wake:
		case <-w.o.Closing:
			w.end(websocket.CloseGoingAway, "server shutting down")
			return
		}
		select {
		case <-w.done:
			return
		default:
		}
		w.sock.Lock()
		ok := true
		if w.pingDue.Swap(false) {
			ok = w.ping()
			pinger.Reset(w.o.KeepAlive)
		}
		if ok && w.rest != nil {
			// The rest of a frame begun in passing: failing, it leaves that
			// frame cut short.
			ok = w.write(w.rest)
			w.broken = w.broken || !ok
			w.rest = nil
		}
		if ok {
			// Empty when woken for a ping, or again for what a batch took.
			w.batch = w.take(w.batch)
			ok = len(w.batch) == 0 || w.writeFrames()
		}
		w.sock.Unlock()
		if !ok {
			return
		}
	}
}

// take swaps the queue for batch (emptied) and returns what was queued;
// replays waiting for room go on.
func (w *wsConn) take(batch []wsFrame) []wsFrame {
	w.mu.Lock()
	defer w.mu.Unlock()
	batch, w.queue = w.queue, batch[:0]
	w.queued = 0
	if w.room != nil {
		close(w.room)
		w.room = nil
	}
	return batch
}

// flush writes the queued frames from the caller's goroutine, without
// waiting, when the socket is free: a group's fan-out writes each member's
// connection in passing instead of waking its writer (a goroutine switch per
// connection per event). What the socket does not take at once is left to
// the writer, and so is a socket busy with another write.
func (w *wsConn) flush() {
	if w.raw == nil || !w.sock.TryLock() {
		w.signal()
		return
	}
	if w.rest != nil || w.pingDue.Load() {
		w.sock.Unlock()
		w.signal()
		return
	}
	w.batch = w.take(w.batch)
	if len(w.batch) == 0 {
		w.sock.Unlock()
		return
	}
	buf := w.frames()
	w.countWrite()
	w.o.Live.inPassing.Add(1)
	n := writeNow(w.raw, *buf)
	if n < len(*buf) {
		w.o.Live.cutShort.Add(1)
		w.rest = append([]byte(nil), (*buf)[n:]...)
	}
	left := w.rest != nil
	putFrames(buf)
	w.sock.Unlock()
	if left {
		w.signal()
	}
}

// ping sends the keep-alive: a WebSocket ping, and graphql-ws's "ka"
// message on a legacy connection once acknowledged. With sock held.
func (w *wsConn) ping() bool {
	if w.c.WriteControl(websocket.PingMessage, nil, time.Now().Add(w.o.WriteTimeout)) != nil {
		w.end(websocket.CloseGoingAway, "")
		return false
	}
	w.deadline = time.Time{} // WriteControl moved the socket's deadline
	if !w.legacy {
		return true
	}
	w.mu.Lock()
	acked := w.acked
	w.mu.Unlock()
	if !acked {
		return true
	}
	w.batch = append(w.batch[:0], wsFrame{body: []byte(`{"type":"ka"}`)})
	return w.writeFrames()
}

// writeFrames writes w.batch in one write(2), as complete unmasked frames
// (RFC 6455 5.2) built here: gorilla's NextWriter makes a system call per
// message, which was two thirds of the server's CPU with 20,000
// subscribers. Only the holder of sock writes to the socket (pongs and close
// echoes are queued, see serve), so frames never interleave.
func (w *wsConn) writeFrames() bool {
	buf := w.frames()
	w.countWrite()
	ok := w.write(*buf)
	putFrames(buf)
	return ok
}

// frames builds w.batch's frames into a pooled buffer and empties w.batch.
func (w *wsConn) frames() *[]byte {
	bp := frameBuffers.Get().(*[]byte)
	buf := (*bp)[:0]
	for _, f := range w.batch {
		buf = appendFrame(buf, f)
	}
	*bp = buf
	w.o.Live.frames.Add(int64(len(w.batch)))
	clear(w.batch)
	w.batch = w.batch[:0]
	return bp
}

// countWrite counts a write(2) before it is made: a peer that has read it
// sees it counted.
func (w *wsConn) countWrite() { w.o.Live.writes.Add(1) }

// write writes buf, waiting up to the write deadline; a peer that does not
// take it in time is cut off.
func (w *wsConn) write(buf []byte) bool {
	conn := w.c.NetConn()
	// The deadline is moved only once half of it is used: a write still
	// gets at least WriteTimeout/2, and a busy connection no longer resets
	// a runtime timer per batch.
	if now := time.Now(); w.deadline.Sub(now) < w.o.WriteTimeout/2 {
		w.deadline = now.Add(w.o.WriteTimeout)
		_ = conn.SetWriteDeadline(w.deadline)
	}
	if n, err := conn.Write(buf); err != nil {
		w.broken = n > 0
		select {
		case <-w.done: // cut off already (its queue overflowed)
		default:
			w.o.Live.cutOff.Add(1)
		}
		w.end(CloseSlowConsumer, "write timed out: the client does not read")
		return false
	}
	return true
}

func putFrames(bp *[]byte) {
	if cap(*bp) <= maxPooledFrames {
		*bp = (*bp)[:0]
		frameBuffers.Put(bp)
	}
}

// frameBuffers hold a batch of frames while it is written; a connection
// keeps none between batches.
var frameBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

const maxPooledFrames = 64 << 10

// appendFrame appends f as one final, unmasked frame (a server's frames are
// never masked).
func appendFrame(dst []byte, f wsFrame) []byte {
	op := f.opcode
	if op == 0 {
		op = websocket.TextMessage
	}
	n := len(f.head) + len(f.body)
	if f.tail {
		n++
	}
	dst = append(dst, 0x80|byte(op))
	switch {
	case n < 126:
		dst = append(dst, byte(n))
	case n <= 0xFFFF:
		dst = append(dst, 126, byte(n>>8), byte(n))
	default:
		dst = binary.BigEndian.AppendUint64(append(dst, 127), uint64(n))
	}
	dst = append(append(dst, f.head...), f.body...)
	if f.tail {
		dst = append(dst, '}')
	}
	return dst
}

// wsMessage is a message of either subprotocol.
type wsMessage struct {
	ID      *string         `json:"id"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
}

// wsKind is what a client message is to the connection, by its type.
type wsKind int

const (
	wsUnknown   wsKind = iota // no message of the subprotocol: close 4400
	wsInit                    // connection_init
	wsPing                    // graphql-transport-ws ping: answer pong
	wsPong                    // graphql-transport-ws pong: nothing to do
	wsStart                   // subscribe / start
	wsStop                    // complete / stop
	wsTerminate               // graphql-ws connection_terminate: close 1000
)

// wsKindOf classifies a message type of the subprotocol (legacy:
// graphql-ws). Only connection_init and connection_terminate may come
// before the connection is acknowledged; the rest of the subprotocol's
// messages then close it with 4401, and unknown types always with 4400.
func wsKindOf(legacy bool, typ string) wsKind {
	switch {
	case typ == "connection_init":
		return wsInit
	case !legacy && typ == "ping":
		return wsPing
	case !legacy && typ == "pong":
		return wsPong
	case !legacy && typ == "subscribe", legacy && typ == "start":
		return wsStart
	case !legacy && typ == "complete", legacy && typ == "stop":
		return wsStop
	case legacy && typ == "connection_terminate":
		return wsTerminate
	}
	return wsUnknown
}

// handle runs one client message; false ends the connection. Nothing but
// connection_init is answered before the connection is acknowledged, and
// no message is answered with more than the protocol asks: what is out of
// turn or unknown closes the connection instead.
func (w *wsConn) handle(data []byte) bool {
	var m wsMessage
	if err := json.Unmarshal(data, &m); err != nil || m.Type == "" {
		w.end(CloseInvalidMessage, "Invalid message received")
		return false
	}
	kind := wsKindOf(w.legacy, m.Type)
	switch {
	case kind == wsUnknown:
		w.end(CloseInvalidMessage, "Invalid message received: unknown type "+strconv.Quote(truncateReason(m.Type)))
		return false
	case kind == wsInit:
		return w.init(m.Payload)
	case kind == wsTerminate:
		w.end(websocket.CloseNormalClosure, "")
		return false
	case !w.isAcked():
		w.end(CloseUnauthorized, "Unauthorized: send connection_init first")
		return false
	}
	switch kind {
	case wsPing:
		w.sendJSON(map[string]any{"type": "pong"})
	case wsStart:
		if m.ID == nil || *m.ID == "" {
			w.end(CloseInvalidMessage, "Invalid message received: an operation needs an id")
			return false
		}
		return w.start(*m.ID, m.Payload)
	case wsStop:
		if m.ID == nil {
			w.end(CloseInvalidMessage, "Invalid message received: "+m.Type+" needs an id")
			return false
		}
		w.stop(*m.ID)
		if w.legacy {
			w.sendJSON(map[string]any{"type": "complete", "id": *m.ID})
		}
	}
	return true
}

func (w *wsConn) init(payload json.RawMessage) bool {
	w.mu.Lock()
	again := w.inited
	w.inited = true
	w.mu.Unlock()
	if again {
		w.end(CloseTooManyInits, "Too many initialisation requests")
		return false
	}
	var fields map[string]any
	if len(bytes.TrimSpace(payload)) > 0 && string(bytes.TrimSpace(payload)) != "null" {
		if err := json.Unmarshal(payload, &fields); err != nil {
			w.end(CloseInvalidMessage, "Invalid message received: connection_init's payload must be an object")
			return false
		}
	}
	p, err := w.o.principal(w.ctx, fields)
	if err != nil {
		w.end(CloseUnauthorized, "Unauthorized: "+err.Error())
		return false
	}
	// Past connection_init the socket counts against its client, no longer
	// against its address.
	unclient, ok := w.limits.client.take(p.TenantID.String()+" "+p.ClientID, w.o.MaxPerClient)
	if !ok {
		w.end(CloseTooManyInits, "Too many WebSockets: at most "+strconv.Itoa(w.o.MaxPerClient)+" per client on this server")
		return false
	}
	w.unclient = unclient
	w.unaddress()
	w.ctx = domain.WithPrincipal(w.ctx, p)
	if !p.ExpiresAt.IsZero() {
		// The connection ends when the token does.
		stop := w.o.AfterFunc(time.Until(p.ExpiresAt), func() { w.end(CloseUnauthorized, "Unauthorized: the token expired") })
		context.AfterFunc(w.ctx, func() { stop() })
	}
	w.mu.Lock()
	w.acked = true
	w.mu.Unlock()
	w.sendJSON(map[string]any{"type": "connection_ack"})
	if w.legacy {
		w.sendJSON(map[string]any{"type": "ka"})
	}
	return true
}

// start runs an operation: a query or mutation once, a subscription by
// joining its shared execution. Refusals end only this operation.
func (w *wsConn) start(id string, payload json.RawMessage) bool {
	w.mu.Lock()
	dup, full := w.ops[id] != nil, len(w.ops) >= w.o.MaxSubscriptions
	w.mu.Unlock()
	switch {
	case dup && !w.legacy:
		w.end(CloseDuplicateID, "Subscriber for "+id+" already exists")
		return false
	case dup:
		w.refuse(id, gqlerror.List{codedErr(domain.CodeInvalid, "operation id "+strconv.Quote(id)+" is already in use")})
		return true
	case full:
		w.refuse(id, gqlerror.List{codedErr(domain.CodeRateLimited,
			"at most "+strconv.Itoa(w.o.MaxSubscriptions)+" subscriptions per connection: complete one first")})
		return true
	}
	var params graphql.RawParams
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	if err := dec.Decode(&params); err != nil || params.Query == "" && params.Extensions == nil {
		if !w.legacy {
			w.end(CloseInvalidMessage, "Invalid message received: subscribe needs a payload with a query")
			return false
		}
		w.refuse(id, gqlerror.List{codedErr(domain.CodeInvalid, "the payload needs a query")})
		return true
	}
	if w.o.Admit != nil {
		if err := w.o.Admit(w.ctx); err != nil {
			w.refuse(id, gqlerror.List{domainErr(err)})
			return true
		}
	}
	params.ReadTime = graphql.TraceTiming{Start: graphql.Now(), End: graphql.Now()}
	opCtx, errs := w.exec.CreateOperationContext(w.ctx, &params)
	if errs != nil {
		resp := w.exec.DispatchError(graphql.WithOperationContext(w.ctx, opCtx), errs)
		w.refuse(id, resp.Errors)
		return true
	}
	op := &wsOp{id: id, head: w.head(id)}
	w.mu.Lock()
	w.ops[id] = op
	w.mu.Unlock()
	if opCtx.Operation.Operation != ast.Subscription {
		w.workers.Add(1)
		go func() {
			defer w.workers.Done()
			next, ctx := w.exec.DispatchOperation(w.ctx, opCtx)
			resp := next(ctx)
			if w.remove(id) == op {
				w.next(op, resp)
				w.complete(id)
			}
		}()
		return true
	}
	op.event = w.o.Live.eventType(opCtx)
	op.member = &liveMember{
		out:   func(_ eventlog.Position, body []byte) { w.deliver(op, body, true) },
		queue: func(_ eventlog.Position, body []byte) { w.deliver(op, body, false) },
		wake:  w.signal,
		flush: w.flush,
		fail: func(errs gqlerror.List) {
			if w.remove(id) == op {
				w.refuse(id, errs)
			}
		},
	}
	if cursor := afterArgument(opCtx); cursor != "" {
		w.resume(op, opCtx, cursor)
		return true
	}
	if errs := w.o.Live.Join(w.ctx, w.exec, opCtx, op.member); errs != nil {
		w.remove(id)
		w.refuse(id, errs)
	}
	return true
}

// resume replays op's missed events, then joins it to the live ones, in a
// worker of the connection (the reads must not stall its other operations).
func (w *wsConn) resume(op *wsOp, opCtx *graphql.OperationContext, cursor string) {
	ctx, cancel := context.WithCancel(w.ctx)
	op.cancel = cancel
	w.workers.Add(1)
	go func() {
		defer w.workers.Done()
		defer cancel()
		errs := w.o.Live.Resume(ctx, w.exec, opCtx, op.member, cursor, func(ctx context.Context, _ eventlog.Position, body []byte) error {
			return w.sendWait(ctx, op, body)
		})
		if ctx.Err() != nil {
			w.o.Live.Leave(op.member) // completed, or the connection ended, while resuming
			return
		}
		if errs != nil && w.remove(op.id) == op {
			w.refuse(op.id, errs)
		}
	}()
}

// errGone ends a replay whose operation or connection has ended.
var errGone = errors.New("the operation has ended")

// sendWait queues a replayed payload for op once the queue has room: a
// replay goes at the pace the client reads.
func (w *wsConn) sendWait(ctx context.Context, op *wsOp, body []byte) error {
	for {
		w.mu.Lock()
		if w.closed || w.ops[op.id] != op {
			w.mu.Unlock()
			return errGone
		}
		if w.queued < w.o.QueuePerOperation {
			w.queue = append(w.queue, wsFrame{head: op.head, body: body, tail: true})
			w.queued++
			w.mu.Unlock()
			w.o.Live.emit(domain.ChannelGraphQLWS, op.event, body)
			w.signal()
			return nil
		}
		if w.room == nil {
			w.room = make(chan struct{})
		}
		room := w.room
		w.mu.Unlock()
		select {
		case <-room:
		case <-w.done:
			return errGone
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (w *wsConn) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// deliver queues a shared payload for op, unless op has ended meanwhile,
// and wakes the writer if asked (else the caller does, see liveMember).
func (w *wsConn) deliver(op *wsOp, body []byte, wake bool) {
	if op.gone.Load() || !w.enqueue(wsFrame{head: op.head, body: body, tail: true}) {
		return
	}
	w.o.Live.emit(domain.ChannelGraphQLWS, op.event, body)
	if wake {
		w.signal()
	}
}

func (w *wsConn) next(op *wsOp, resp *graphql.Response) {
	b, err := encodeResponse(resp)
	if err != nil {
		return
	}
	w.send(wsFrame{head: op.head, body: b, tail: true})
}

// head is the start of an event message of operation id.
func (w *wsConn) head(id string) []byte {
	typ := "next"
	if w.legacy {
		typ = "data"
	}
	quoted, _ := json.Marshal(id)
	return []byte(`{"id":` + string(quoted) + `,"type":"` + typ + `","payload":`)
}

// stop ends operation id at the client's request.
func (w *wsConn) stop(id string) {
	op := w.remove(id)
	if op == nil {
		return
	}
	if op.cancel != nil {
		op.cancel()
	}
	if op.member != nil {
		w.o.Live.Leave(op.member)
	}
}

func (w *wsConn) remove(id string) *wsOp {
	w.mu.Lock()
	defer w.mu.Unlock()
	op := w.ops[id]
	delete(w.ops, id)
	if op != nil {
		op.gone.Store(true)
	}
	return op
}

// refuse ends operation id with errors: graphql-transport-ws's error
// message; graphql-ws's data with errors, then complete.
func (w *wsConn) refuse(id string, errs gqlerror.List) {
	if !w.legacy {
		w.sendJSON(map[string]any{"type": "error", "id": id, "payload": errs})
		return
	}
	w.sendJSON(map[string]any{"type": "data", "id": id, "payload": map[string]any{"errors": errs}})
	w.complete(id)
}

func (w *wsConn) complete(id string) {
	w.sendJSON(map[string]any{"type": "complete", "id": id})
}

// codedErr is a GraphQL error with extensions.code.
func codedErr(code domain.Code, msg string) *gqlerror.Error {
	e := &gqlerror.Error{Message: msg}
	errcode.Set(e, string(code))
	return e
}

// domainErr presents a domain error (a rate-limit refusal) as a GraphQL one.
func domainErr(err error) *gqlerror.Error {
	var de *domain.Error
	if errors.As(domain.Classify(err), &de) {
		return codedErr(de.Code, de.Message)
	}
	return codedErr(domain.CodeInternal, "internal error")
}

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
