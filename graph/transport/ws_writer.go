package transport

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gorilla/websocket"

	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/graph/live"
)

// wsWriter is a connection's writer: a bounded queue of frames drained by
// its goroutine (run, owned and awaited by the connection's serve), so no
// producer — a shared subscription execution above all — ever waits on this
// peer: when the queue is full the connection is cut off (1008) and the
// others go on. Every frame the server answers with counts against that
// bound (pongs, errors, completes alike), so a peer that sends without
// reading holds no more than the bound. A group's fan-out may also write
// the queue itself, without waiting, when the socket is free (flush).
type wsWriter struct {
	c            *websocket.Conn
	live         *live.Live
	keepAlive    time.Duration
	writeTimeout time.Duration
	perOperation int             // queue bound per live operation
	closing      <-chan struct{} // the server shuts down
	// operations is the connection's count of operations: the queue holds
	// perOperation frames for each, and as many for the connection's own.
	operations atomic.Int64
	// ka sends graphql-ws's "ka" with every ping (legacy, once acknowledged).
	ka      atomic.Bool
	pingDue atomic.Bool // the keep-alive timer fired
	wake    chan struct{}

	mu       sync.Mutex
	queue    []wsFrame
	room     chan struct{} // made by a waiting replay, closed when the queue drains
	closed   bool
	closeMsg []byte
	endOnce  sync.Once
	done     chan struct{} // closed by end

	// sock is held by whoever writes to the socket: run, or a flush. It
	// guards the fields below.
	sock     sync.Mutex
	raw      syscall.RawConn // for flush's writes that never wait; nil: flush only wakes run
	rest     []byte          // what a flush's write left over: run's first bytes
	batch    []wsFrame       // frames taken from the queue, being written
	deadline time.Time       // of the socket's writes
	broken   bool            // a write failed part way: no close frame can follow
}

// wsFrame is one message: head + body + tail, so that a shared payload is
// written to the socket without being copied per subscriber.
type wsFrame struct {
	head, body []byte
	tail       bool // close the object opened in head
	opcode     int  // 0: a text message; websocket.PongMessage
}

func newWSWriter(o WebsocketOptions, c *websocket.Conn) *wsWriter {
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
	return &wsWriter{c: c, live: o.Live, keepAlive: o.KeepAlive, writeTimeout: o.WriteTimeout,
		perOperation: o.QueuePerOperation, closing: o.Closing,
		wake: make(chan struct{}, 1), done: make(chan struct{}), raw: raw}
}

// end closes the connection with code once, whoever asks first (protocol
// error, token expiry, slow consumer, failed write). It never blocks: run
// sends the close frame and closes the socket, the read loop then ends and
// the connection releases its subscriptions.
func (w *wsWriter) end(code int, reason string) {
	w.endOnce.Do(func() {
		w.mu.Lock()
		w.closed = true
		w.queue = nil
		w.closeMsg = websocket.FormatCloseMessage(code, truncateReason(reason))
		w.mu.Unlock()
		close(w.done)
		w.signal() // run sees done (after its write, bounded by WriteTimeout)
	})
}

// send queues a frame; past the bound the peer is too slow and the
// connection is cut off.
func (w *wsWriter) send(f wsFrame) {
	if w.enqueue(f) {
		w.signal()
	}
}

// enqueue is send without waking the writer; false: not queued.
func (w *wsWriter) enqueue(f wsFrame) bool {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return false
	}
	if len(w.queue) >= w.perOperation*(1+int(w.operations.Load())) {
		w.mu.Unlock()
		w.live.CountCutOff()
		w.end(CloseSlowConsumer, eventlog.ErrSlowConsumer.Error())
		return false
	}
	w.queue = append(w.queue, f)
	w.mu.Unlock()
	return true
}

// sendJSON queues a protocol message of the server's.
func (w *wsWriter) sendJSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	w.send(wsFrame{body: b})
}

// sendWait queues f once the queue has room for one operation's frames: a
// replay goes at the pace the client reads. gone (checked with the queue's
// lock held, so nothing follows the operation's complete) ends it.
func (w *wsWriter) sendWait(ctx context.Context, f wsFrame, gone *atomic.Bool) error {
	for {
		w.mu.Lock()
		if w.closed || gone.Load() {
			w.mu.Unlock()
			return errGone
		}
		if len(w.queue) < w.perOperation {
			w.queue = append(w.queue, f)
			w.mu.Unlock()
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

func (w *wsWriter) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// run is the connection's writer. It waits on its wake channel and the
// server's shutdown alone: the keep-alive timer and the end of the
// connection set flags and wake it, so a batch costs one two-way select
// rather than a four-way one (a tenth of the server's CPU at 20,000
// subscribers).
func (w *wsWriter) run() {
	pinger := time.AfterFunc(w.keepAlive, func() { w.pingDue.Store(true); w.signal() })
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
		case <-w.closing:
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
			pinger.Reset(w.keepAlive)
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
func (w *wsWriter) take(batch []wsFrame) []wsFrame {
	w.mu.Lock()
	defer w.mu.Unlock()
	batch, w.queue = w.queue, batch[:0]
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
// run, and so is a socket busy with another write.
func (w *wsWriter) flush() {
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
	w.live.CountWrite()
	n := writeNow(w.raw, *buf)
	w.live.CountInPassing(n < len(*buf))
	if n < len(*buf) {
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
func (w *wsWriter) ping() bool {
	if w.c.WriteControl(websocket.PingMessage, nil, time.Now().Add(w.writeTimeout)) != nil {
		w.end(websocket.CloseGoingAway, "")
		return false
	}
	w.deadline = time.Time{} // WriteControl moved the socket's deadline
	if !w.ka.Load() {
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
func (w *wsWriter) writeFrames() bool {
	buf := w.frames()
	w.live.CountWrite() // before the write: a peer that has read it sees it counted
	ok := w.write(*buf)
	putFrames(buf)
	return ok
}

// frames builds w.batch's frames into a pooled buffer and empties w.batch.
func (w *wsWriter) frames() *[]byte {
	bp := frameBuffers.Get().(*[]byte)
	buf := (*bp)[:0]
	for _, f := range w.batch {
		buf = appendFrame(buf, f)
	}
	*bp = buf
	w.live.CountFrames(len(w.batch))
	clear(w.batch)
	w.batch = w.batch[:0]
	return bp
}

// write writes buf, waiting up to the write deadline; a peer that does not
// take it in time is cut off.
func (w *wsWriter) write(buf []byte) bool {
	conn := w.c.NetConn()
	// The deadline is moved only once half of it is used: a write still
	// gets at least WriteTimeout/2, and a busy connection no longer resets
	// a runtime timer per batch.
	if now := time.Now(); w.deadline.Sub(now) < w.writeTimeout/2 {
		w.deadline = now.Add(w.writeTimeout)
		_ = conn.SetWriteDeadline(w.deadline)
	}
	if n, err := conn.Write(buf); err != nil {
		w.broken = n > 0
		select {
		case <-w.done: // cut off already (its queue overflowed)
		default:
			w.live.CountCutOff()
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
