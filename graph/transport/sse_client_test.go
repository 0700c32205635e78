package transport_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/testkit"
)

// sseEvent is one dispatched server-sent event, or a comment line.
type sseEvent struct {
	ID, Event, Data string
	Comment         bool
}

// sseClient is a real net/http client reading a text/event-stream answer
// (graphql-sse, distinct connections): a reader goroutine, owned by the
// test, parses the stream into events.
type sseClient struct {
	t      *testing.T
	res    *http.Response
	events chan sseEvent // closed when the stream ends
	cancel context.CancelFunc
	done   chan struct{}
}

// sseRequest describes one operation request.
type sseRequest struct {
	method string // GET or POST; POST by default
	path   string // /graphql/stream by default
	token  string
	query  string
	vars   map[string]any
	accept string // text/event-stream by default
	header map[string]string
	client *http.Client // http.DefaultClient by default
}

// openSSE sends the request; a text/event-stream answer is read as events,
// any other is returned with its body.
func openSSE(t *testing.T, srv *apptest.Server, r sseRequest) (*sseClient, *http.Response, []byte) {
	t.Helper()
	return openSSEWith(t, srv, r, nil)
}

// openSSEWith is openSSE whose reader starts reading once gate is closed
// (nil: at once).
func openSSEWith(t *testing.T, srv *apptest.Server, r sseRequest, gate chan struct{}) (*sseClient, *http.Response, []byte) {
	t.Helper()
	if r.method == "" {
		r.method = http.MethodPost
	}
	if r.path == "" {
		r.path = "/graphql/stream"
	}
	if r.accept == "" {
		r.accept = "text/event-stream"
	}
	ctx, cancel := context.WithCancel(context.Background())
	var body io.Reader
	target := srv.URL + r.path
	if r.method == http.MethodGet {
		q := url.Values{"query": {r.query}}
		if r.vars != nil {
			q.Set("variables", string(testkit.MustJSON(t, r.vars)))
		}
		target += "?" + q.Encode()
	} else {
		body = bytes.NewReader(testkit.MustJSON(t, map[string]any{"query": r.query, "variables": r.vars}))
	}
	req, err := http.NewRequestWithContext(ctx, r.method, target, body)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", r.accept)
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	client := http.DefaultClient
	if r.client != nil {
		client = r.client
	}
	res, err := client.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("%s %s: %v", r.method, r.path, err)
	}
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		defer cancel()
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return nil, res, b
	}
	c := &sseClient{t: t, res: res, events: make(chan sseEvent, 1024), cancel: cancel, done: make(chan struct{})}
	go c.read(gate)
	t.Cleanup(c.close)
	return c, res, nil
}

// stream opens a request that must be answered with an event stream.
func stream(t *testing.T, srv *apptest.Server, r sseRequest) *sseClient {
	t.Helper()
	c, res, body := openSSE(t, srv, r)
	if c == nil {
		t.Fatalf("want an event stream, got %d %s: %s", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	return c
}

func (c *sseClient) read(gate chan struct{}) {
	defer close(c.done)
	defer close(c.events)
	defer c.res.Body.Close()
	if gate != nil {
		select {
		case <-gate:
		case <-c.res.Request.Context().Done():
			return
		}
	}
	sc := bufio.NewScanner(c.res.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var ev sseEvent
	var data []string
	pending := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if pending {
				ev.Data = strings.Join(data, "\n")
				c.events <- ev
			}
			ev, data, pending = sseEvent{}, nil, false
		case strings.HasPrefix(line, ":"):
			c.events <- sseEvent{Comment: true}
		default:
			name, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			pending = true
			switch name {
			case "id":
				ev.ID = value
			case "event":
				ev.Event = value
			case "data":
				data = append(data, value)
			}
		}
	}
}

// paused starts the stream without reading it: the reader goroutine waits
// for resume, so the client's socket fills up as a stalled client's would.
func pausedSSE(t *testing.T, srv *apptest.Server, r sseRequest) (c *sseClient, resume func()) {
	t.Helper()
	gate := make(chan struct{})
	r.client = &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{Control: smallRcvBuf}).DialContext}}
	c, res, body := openSSEWith(t, srv, r, gate)
	if c == nil {
		t.Fatalf("want an event stream, got %d: %s", res.StatusCode, body)
	}
	return c, sync.OnceFunc(func() { close(gate) })
}

// smallRcvBuf gives a client socket a 4 KiB receive buffer, so that a
// client that stops reading pushes back on the server quickly.
func smallRcvBuf(_, _ string, c syscall.RawConn) error {
	var serr error
	if err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) }); err != nil {
		return err
	}
	return serr
}

// close disconnects and waits for the reader.
func (c *sseClient) close() {
	c.cancel()
	<-c.done
}

// next returns the next event that is not a comment; ok is false when the
// stream ended first.
func (c *sseClient) next() (sseEvent, bool) {
	c.t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-c.events:
			if !ok {
				return sseEvent{}, false
			}
			if !ev.Comment {
				return ev, true
			}
		case <-timeout:
			c.t.Fatal("no event within 10 s")
		}
	}
}

// result returns the next "next" event's result.
func (c *sseClient) result() (sseEvent, gqlResponse) {
	c.t.Helper()
	ev, ok := c.next()
	if !ok || ev.Event != "next" {
		c.t.Fatalf("want a next event, got %+v (stream open: %v)", ev, ok)
	}
	var r gqlResponse
	if err := json.Unmarshal([]byte(ev.Data), &r); err != nil {
		c.t.Fatalf("next data %q: %v", ev.Data, err)
	}
	return ev, r
}

// refusal reads a result holding one error with code, then "complete" and
// the end of the stream.
func (c *sseClient) refusal(code string) gqlResponse {
	c.t.Helper()
	_, r := c.result()
	if len(r.Errors) != 1 || r.Errors[0].Extensions["code"] != code || r.Data != nil {
		c.t.Fatalf("want one %s error, got %+v", code, r)
	}
	c.completes()
	return r
}

// completes reads "complete", then the end of the stream.
func (c *sseClient) completes() {
	c.t.Helper()
	if ev, ok := c.next(); !ok || ev.Event != "complete" {
		c.t.Fatalf("want complete, got %+v (stream open: %v)", ev, ok)
	}
	c.ends()
}

// ends waits for the end of the stream, with no event before it.
func (c *sseClient) ends() {
	c.t.Helper()
	if ev, ok := c.next(); ok {
		c.t.Fatalf("want the end of the stream, got %+v", ev)
	}
}

// waitStreams waits until srv has n open event streams.
func waitStreams(t *testing.T, srv *apptest.Server, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for srv.GraphQL.SSE.Streams() != n {
		if time.Now().After(deadline) {
			t.Fatalf("server has %d event streams, want %d", srv.GraphQL.SSE.Streams(), n)
		}
		time.Sleep(2 * time.Millisecond) // polling server state with a deadline
	}
}
