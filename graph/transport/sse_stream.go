package transport

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/haulgraph/haulgraph/contract/eventschema"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/graph/live"
	"github.com/haulgraph/haulgraph/graph/operation"
)

// SSEOptions configure the GraphQL SSE transport.
type SSEOptions struct {
	// Live runs the shared subscription executions (Endpoint.Live); app.NewGraphQL
	// sets it.
	Live *live.Live
	// Heartbeat is the interval of the comment lines that keep a quiet
	// stream (and the proxies on its way) alive; default 15s.
	Heartbeat time.Duration
	// MaxStreamsPerClient and MaxStreamsPerTenant bound the open streams on
	// this instance (HAULGRAPH_SSE_MAX_STREAMS_CLIENT, _TENANT; default 100
	// and 1,000).
	MaxStreamsPerClient int
	MaxStreamsPerTenant int
	// MaxStreamsPerAddress bounds them per caller address
	// (HAULGRAPH_SSE_MAX_STREAMS_ADDRESS, default 100).
	MaxStreamsPerAddress int
	// Queue is how many events a stream may have unwritten before it is cut
	// off with SLOW_CONSUMER (default 64).
	Queue int
	// WriteTimeout bounds one write to a client; default 10s.
	WriteTimeout time.Duration
	// SendBuffer is a stream's kernel send buffer in bytes (default 64 KiB),
	// when the server's ConnContext is ConnContext.
	SendBuffer int
	// Closing, when closed, ends every stream without "complete" (the
	// server is shutting down: clients reconnect, to another instance).
	Closing <-chan struct{}
	// AfterFunc schedules the end of a stream when its token expires and
	// returns what cancels it; nil is time.AfterFunc (tests fire it at once).
	AfterFunc func(d time.Duration, f func()) (stop func() bool)
	// Opened is told of every stream that starts and returns what to call
	// when it ends (metrics.Streams.Opened); nil counts nothing.
	Opened func() (ended func())
}

// Defaults both streaming transports (WebSocket and SSE) share: how long
// one write may take before the subscriber is cut off, the bytes buffered
// per connection, and timers on the real clock.
const (
	defaultWriteTimeout = 10 * time.Second
	defaultSendBuffer   = 64 << 10
)

func afterFunc(d time.Duration, f func()) (stop func() bool) { return time.AfterFunc(d, f).Stop }

func (o SSEOptions) withDefaults() SSEOptions {
	if o.Heartbeat <= 0 {
		o.Heartbeat = 15 * time.Second
	}
	if o.MaxStreamsPerClient <= 0 {
		o.MaxStreamsPerClient = 100
	}
	if o.MaxStreamsPerTenant <= 0 {
		o.MaxStreamsPerTenant = 1000
	}
	if o.MaxStreamsPerAddress <= 0 {
		o.MaxStreamsPerAddress = 100
	}
	if o.Queue <= 0 {
		o.Queue = 64
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = defaultWriteTimeout
	}
	if o.SendBuffer <= 0 {
		o.SendBuffer = defaultSendBuffer
	}
	if o.AfterFunc == nil {
		o.AfterFunc = afterFunc
	}
	return o
}

type connKey struct{}

// ConnContext is the http.Server's ConnContext that lets an event stream
// reach its socket (to bound its send buffer).
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// sseFrame is one piece of the stream: a "next" event (its data shared with
// the other members of a live group, not copied) or raw text.
type sseFrame struct {
	id   string // the event's cursor, sent as the SSE id; "" for none
	data []byte // a "next" event's data: one line of JSON
	raw  []byte // written as it is (a comment, "complete")
}

var (
	sseHeartbeat = []byte(":\n\n")
	sseComplete  = []byte("event: complete\ndata:\n\n")
)

// sseStream is one event stream. A writer goroutine, owned by the request
// (wait), drains a bounded queue, so that no producer — a shared execution
// above all — ever waits on this client: past Queue unwritten events the
// stream is cut off with SLOW_CONSUMER.
type sseStream struct {
	o   *SSEOptions
	w   http.ResponseWriter
	rc  *http.ResponseController
	ctx context.Context // the request's: done when the client has gone
	// tenant is the caller's, whose key seals the events' ids (cursors).
	tenant uuid.UUID
	// event is the event type streamed, when payloads are watched.
	event string

	mu     sync.Mutex
	queue  []sseFrame
	events int           // "next" events in queue
	ended  bool          // nothing more is queued
	room   chan struct{} // closed (and replaced) when the queue drains
	wake   chan struct{}
	gone   chan struct{} // closed when the stream ends
	done   chan struct{} // closed when the writer has returned
}

// open starts the stream's answer and its writer.
func (t *SSETransport) open(w http.ResponseWriter, r *http.Request) *sseStream {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	if tc, ok := r.Context().Value(connKey{}).(*net.TCPConn); ok {
		// A fixed kernel send buffer, as for WebSockets: a client that stops
		// reading pushes back after SendBuffer bytes, not megabytes of
		// autotuned buffer, and is then cut off after Queue events. The
		// connection is not reused for other requests afterwards.
		_ = tc.SetWriteBuffer(t.o.SendBuffer)
		h.Set("Connection", "close")
	}
	w.WriteHeader(http.StatusOK)
	s := &sseStream{o: &t.o, w: w, rc: http.NewResponseController(w), ctx: r.Context(), tenant: domain.PrincipalFrom(r.Context()).TenantID,
		room: make(chan struct{}), wake: make(chan struct{}, 1), gone: make(chan struct{}), done: make(chan struct{})}
	_ = s.rc.Flush()
	ended := func() {}
	if t.o.Opened != nil {
		ended = t.o.Opened()
	}
	go func() {
		defer close(s.done) // after ended: whoever waits sees the stream counted out
		defer ended()
		s.run()
	}()
	return s
}

// wait returns once the stream has ended and its writer returned.
func (s *sseStream) wait() {
	<-s.gone
	<-s.done
}

// finish ends the stream with one result and "complete".
func (s *sseStream) finish(resp *graphql.Response) {
	s.end(resultEvent(resp), false)
}

// end ends the stream once, whoever asks first: the final frames are written
// after those queued, or instead of them when drop is set.
func (s *sseStream) end(final []sseFrame, drop bool) {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended = true
	if drop {
		clear(s.queue)
		s.queue, s.events = s.queue[:0], 0
	}
	s.queue = append(s.queue, final...)
	close(s.gone)
	s.mu.Unlock()
	s.signal()
}

// deliver queues a live event; past the bound the client is too slow.
func (s *sseStream) deliver(pos eventlog.Position, data []byte) {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	if s.events >= s.o.Queue {
		s.mu.Unlock()
		s.o.Live.CountCutOff()
		s.end(errorsEvent(gqlerror.List{operation.CodedError(live.CodeSlowConsumer,
			eventlog.ErrSlowConsumer.Error()+": subscribe again with after: the last cursor received")}), true)
		return
	}
	s.queue = append(s.queue, sseFrame{id: s.cursorOf(pos), data: data})
	s.events++
	s.mu.Unlock()
	s.o.Live.Emit(eventschema.ChannelGraphQLSSE, s.event, data)
	s.signal()
}

// deliverWait queues a replayed event once the queue has room: a replay
// goes at the pace the client reads.
func (s *sseStream) deliverWait(ctx context.Context, pos eventlog.Position, data []byte) error {
	for {
		s.mu.Lock()
		if s.ended {
			s.mu.Unlock()
			return errGone
		}
		if s.events < s.o.Queue {
			s.queue = append(s.queue, sseFrame{id: s.cursorOf(pos), data: data})
			s.events++
			s.mu.Unlock()
			s.o.Live.Emit(eventschema.ChannelGraphQLSSE, s.event, data)
			s.signal()
			return nil
		}
		room := s.room
		s.mu.Unlock()
		select {
		case <-room:
		case <-s.gone:
			return errGone
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (s *sseStream) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// run writes what is queued, and a heartbeat comment when nothing was
// written for a while, until the stream ends or the client goes.
func (s *sseStream) run() {
	beat := time.NewTicker(s.o.Heartbeat)
	defer beat.Stop()
	var batch []sseFrame
	for {
		heartbeat := false
		select {
		case <-s.ctx.Done():
			s.end(nil, true) // the client has gone
		case <-s.o.Closing:
			s.end(nil, true) // no "complete": the client reconnects
		case <-beat.C:
			heartbeat = true
		case <-s.wake:
		}
		s.mu.Lock()
		batch, s.queue = s.queue, batch[:0]
		s.events = 0
		ended := s.ended
		close(s.room)
		s.room = make(chan struct{})
		s.mu.Unlock()
		if heartbeat && len(batch) == 0 {
			batch = append(batch, sseFrame{raw: sseHeartbeat})
		}
		if len(batch) > 0 && !s.write(batch) {
			s.end(nil, true)
			return
		}
		clear(batch)
		if ended {
			return
		}
	}
}

// write sends frames and flushes them; false when the client cannot take
// them within the write timeout.
func (s *sseStream) write(frames []sseFrame) bool {
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.o.WriteTimeout))
	for _, f := range frames {
		if f.raw != nil {
			if _, err := s.w.Write(f.raw); err != nil {
				return false
			}
			continue
		}
		if f.id != "" {
			if _, err := s.w.Write([]byte("id: " + f.id + "\n")); err != nil {
				return false
			}
		}
		if _, err := s.w.Write([]byte("event: next\ndata: ")); err != nil {
			return false
		}
		if _, err := s.w.Write(f.data); err != nil {
			return false
		}
		if _, err := s.w.Write([]byte("\n\n")); err != nil {
			return false
		}
	}
	return s.rc.Flush() == nil
}

// cursorOf is an event's SSE id: its cursor (Last-Event-ID resumes from it).
func (s *sseStream) cursorOf(pos eventlog.Position) string {
	return s.o.Live.Cursor(s.tenant, pos)
}

// resultEvent is a result, then "complete".
func resultEvent(resp *graphql.Response) []sseFrame {
	var data []byte
	var err error
	if resp.Data == nil { // refused before execution: no "data" key
		data, err = json.Marshal(struct {
			Errors     gqlerror.List  `json:"errors"`
			Extensions map[string]any `json:"extensions,omitempty"`
		}{resp.Errors, resp.Extensions})
	} else {
		data, err = operation.EncodeResponse(resp)
	}
	if err != nil {
		data = []byte(`{"errors":[{"message":"the result could not be encoded","extensions":{"code":"INTERNAL"}}]}`)
	}
	return []sseFrame{{data: data}, {raw: sseComplete}}
}

// errorsEvent ends an operation with errors, then "complete".
func errorsEvent(errs gqlerror.List) []sseFrame {
	return resultEvent(&graphql.Response{Errors: errs})
}
