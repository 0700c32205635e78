package transport

import (
	"context"
	"encoding/binary"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/haulgraph/haulgraph/graph/live"
)

// TestWriterQueueBoundFollowsOperations: the writer's queue holds
// QueuePerOperation frames for the connection and as many for each
// operation the connection counts (add and remove keep the count); one more
// cuts the connection off as a slow consumer (1008), counted. A replay's
// frame is refused once its operation has ended, and once the connection
// has.
func TestWriterQueueBoundFollowsOperations(t *testing.T) {
	t.Parallel()
	conns := make(chan *websocket.Conn, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if c, err := (&websocket.Upgrader{}).Upgrade(rw, r, nil); err == nil {
			conns <- c
		}
	}))
	defer srv.Close()
	client, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	c := <-conns
	defer c.Close()
	shared := live.New(nil, nil, nil)
	// The writer does not run: nothing drains the queue.
	w := newWSConn(WebsocketOptions{Live: shared, QueuePerOperation: 2}, c, nil, context.Background(), &wsLimits{}, func() {})
	frame := wsFrame{body: []byte(`{}`)}
	ended := &wsOp{id: "ended"}
	ended.gone.Store(true)
	if err := w.out.sendWait(context.Background(), frame, &ended.gone); err != errGone {
		t.Fatalf("replay of an ended operation: %v, want errGone", err)
	}
	a, b := &wsOp{id: "a"}, &wsOp{id: "b"}
	w.add(a)
	w.add(b)
	if err := w.out.sendWait(context.Background(), frame, &a.gone); err != nil {
		t.Fatalf("replay with room: %v", err)
	}
	for i := range 5 { // 6 in all: 2 × (1 + 2 operations)
		if !w.out.enqueue(frame) {
			t.Fatalf("frame %d refused within the bound of two operations", i+2)
		}
	}
	if w.remove("b") != b || !b.gone.Load() {
		t.Fatal("remove did not end b")
	}
	if w.out.enqueue(frame) {
		t.Fatal("a 7th frame queued past the bound of one operation (4)")
	}
	if n := shared.CutOff(); n != 1 {
		t.Fatalf("%d connections counted cut off, want 1", n)
	}
	select {
	case <-w.out.done:
	default:
		t.Fatal("the connection did not end")
	}
	if code := binary.BigEndian.Uint16(w.out.closeMsg); code != CloseSlowConsumer {
		t.Fatalf("close code %d, want %d", code, CloseSlowConsumer)
	}
	if err := w.out.sendWait(context.Background(), frame, &a.gone); err != errGone {
		t.Fatalf("replay after the end: %v, want errGone", err)
	}
}
