package apptest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
)

// A WebSocket or event stream holds no more than its share: every frame the
// server answers with waits in a bounded queue, a peer that does not read
// is cut off, nothing but a close answers a socket before connection_init,
// and the sockets of one address and of one client are bounded.

func wsURL(srv *apptest.Server) string {
	return "ws" + strings.TrimPrefix(srv.URL, "http") + "/graphql"
}

func dialWS(t *testing.T, srv *apptest.Server, proto string) *websocket.Conn {
	t.Helper()
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second, Subprotocols: []string{proto}}
	c, res, err := d.Dial(wsURL(srv), nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	_ = res.Body.Close()
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// initWS sends connection_init with token and reads the ack.
func initWS(t *testing.T, c *websocket.Conn, token string) {
	t.Helper()
	if err := c.WriteJSON(map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + token}}); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	var m struct{ Type string }
	if err := c.ReadJSON(&m); err != nil || m.Type != "connection_ack" {
		t.Fatalf("want connection_ack: %+v %v", m, err)
	}
	_ = c.SetReadDeadline(time.Time{})
}

// closedWith reads until the connection ends and returns its close code
// (0: ended without a close frame). Messages before the close are
// returned too.
func closedWith(t *testing.T, c *websocket.Conn) (code int, before []string) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		_, b, err := c.ReadMessage()
		if err == nil {
			before = append(before, string(b))
			continue
		}
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			return ce.Code, before
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("the server did not close the connection: %v", err)
		}
		return 0, before
	}
}

// floodWS writes frames on every socket, never reading, until each write
// fails (the server closed it) or for d at most.
func floodWS(conns []*websocket.Conn, d time.Duration, frame func(i int, c *websocket.Conn) error) {
	stop := time.Now().Add(d)
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				_ = c.SetWriteDeadline(stop)
				if frame(i, c) != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
}

// frames is n copies of one client text frame (masked with a zero key), to
// write in one system call: the flood then costs the server far more than
// the client.
func frames(payload string, n int) []byte {
	var head []byte
	switch l := len(payload); {
	case l < 126:
		head = []byte{0x81, 0x80 | byte(l)}
	case l <= 0xFFFF:
		head = []byte{0x81, 0x80 | 126, byte(l >> 8), byte(l)}
	default:
		panic("frame too long")
	}
	one := append(append(head, 0, 0, 0, 0), payload...)
	buf := make([]byte, 0, len(one)*n)
	for range n {
		buf = append(buf, one...)
	}
	return buf
}

func rawWrite(b []byte) func(_ int, c *websocket.Conn) error {
	return func(_ int, c *websocket.Conn) error {
		_, err := c.NetConn().Write(b)
		return err
	}
}

// floodEnv is an instance whose WebSocket writes time out fast, so that a
// peer that does not read is cut off within the test's few seconds.
func floodEnv(t *testing.T) (*apptest.Server, string) {
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.StreamWriteTimeout = 500 * time.Millisecond
	}})
	tn := apptest.NewTenant(t, srv, "acme")
	return srv, srv.Token(t, tn, domain.ScopeLoadRead)
}

// The bound: 10 sockets that send graphql-transport-ws pings (5 as
// protocol messages, 5 as WebSocket ping frames) as fast as they can for up
// to 3 s and never read raise the process's peak RSS by less than 50 MB, and
// every one is closed by the server (slow consumer, 1008). Not parallel: it
// measures the process.
func TestHostileWSPingFloodWithoutReading(t *testing.T) {
	srv, token := floodEnv(t)
	conns := make([]*websocket.Conn, 10)
	for i := range conns {
		conns[i] = dialWS(t, srv, "graphql-transport-ws")
		initWS(t, conns[i], token)
	}
	apptest.ResetPeakRSS(t)
	before := apptest.ReadUsage(t)
	pings := rawWrite(frames(`{"type":"ping"}`, 1000))
	floodWS(conns, 3*time.Second, func(i int, c *websocket.Conn) error {
		if i%2 == 0 {
			return pings(i, c)
		}
		return c.WriteControl(websocket.PingMessage, []byte("0123456789abcdef0123456789abcdef"), time.Now().Add(time.Second))
	})
	after := apptest.ReadUsage(t)
	grew := after.PeakRSS - before.PeakRSS
	t.Logf("peak RSS %d → %d MB (+%d MB)", before.PeakRSS>>20, after.PeakRSS>>20, grew>>20)
	if grew > 50<<20 {
		t.Errorf("10 sockets flooding pings without reading grew the peak RSS by %d MB (bound 50 MB)", grew>>20)
	}
	for i, c := range conns {
		if code, _ := closedWith(t, c); code != websocket.ClosePolicyViolation && code != 0 {
			t.Errorf("socket %d closed with %d, want 1008", i, code)
		}
	}
}

// The bound: 10 legacy graphql-ws sockets that send messages of an unknown
// type for up to 3 s and never read raise the peak RSS by less than 50 MB,
// and each is closed with 4400 at the first one (nothing else answered).
// Not parallel: it measures the process.
func TestHostileLegacyWSUnknownTypesFlood(t *testing.T) {
	srv, token := floodEnv(t)
	conns := make([]*websocket.Conn, 10)
	for i := range conns {
		conns[i] = dialWS(t, srv, "graphql-ws")
		initWS(t, conns[i], token)
	}
	apptest.ResetPeakRSS(t)
	before := apptest.ReadUsage(t)
	// Each answer would repeat the type: 16 KiB of answer per message.
	floodWS(conns, 3*time.Second, rawWrite(frames(`{"type":"`+strings.Repeat("shout", 3<<10)+`"}`, 16)))
	after := apptest.ReadUsage(t)
	grew := after.PeakRSS - before.PeakRSS
	t.Logf("peak RSS %d → %d MB (+%d MB)", before.PeakRSS>>20, after.PeakRSS>>20, grew>>20)
	if grew > 50<<20 {
		t.Errorf("10 legacy sockets sending unknown types grew the peak RSS by %d MB (bound 50 MB)", grew>>20)
	}
	for i, c := range conns {
		code, got := closedWith(t, c)
		var answers []string
		for _, m := range got {
			if !strings.Contains(m, `"ka"`) {
				answers = append(answers, m)
			}
		}
		if code != 4400 || len(answers) > 0 {
			t.Errorf("socket %d: closed with %d after %d answers (%.200v), want 4400 and none", i, code, len(answers), answers)
		}
	}
}

// TestWSNothingBeforeInit: before connection_init a socket of either
// subprotocol is answered with a close and nothing else, whatever it sends,
// but graphql-transport-ws's ping and pong, which the protocol allows at
// any time (graph/transport's TestWebsocketCloseCodes: a pong, counted by
// the same bounds), and WebSocket ping frames, answered with a pong frame
// (graph/transport's TestWebsocketPingFrameBeforeInit): a ping frame then a
// subscribe is closed for the subscribe.
func TestWSNothingBeforeInit(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	sub := `{"id":"1","type":"subscribe","payload":{"query":"subscription{loadChanged{id}}"}}`
	start := `{"id":"1","type":"start","payload":{"query":"subscription{loadChanged{id}}"}}`
	for _, c := range []struct {
		proto, name string
		send        func(c *websocket.Conn) error
		code        int
	}{
		{"graphql-transport-ws", "subscribe", text(sub), 4401},
		{"graphql-transport-ws", "complete", text(`{"id":"1","type":"complete"}`), 4401},
		{"graphql-transport-ws", "unknown type", text(`{"type":"shout"}`), 4400},
		{"graphql-transport-ws", "WebSocket ping", pingThen(text(sub)), 4401},
		{"graphql-ws", "start", text(start), 4401},
		{"graphql-ws", "stop", text(`{"id":"1","type":"stop"}`), 4401},
		{"graphql-ws", "ping", text(`{"type":"ping"}`), 4400},
		{"graphql-ws", "unknown type", text(`{"type":"shout"}`), 4400},
		{"graphql-ws", "WebSocket ping", pingThen(text(start)), 4401},
	} {
		t.Run(c.proto+" "+c.name, func(t *testing.T) {
			t.Parallel()
			conn := dialWS(t, srv, c.proto)
			for range 3 {
				if c.send(conn) != nil {
					break
				}
			}
			code, got := closedWith(t, conn)
			if code != c.code || len(got) > 0 {
				t.Fatalf("closed with %d after %v, want %d and nothing before", code, got, c.code)
			}
		})
	}
}

func text(s string) func(c *websocket.Conn) error {
	return func(c *websocket.Conn) error { return c.WriteMessage(websocket.TextMessage, []byte(s)) }
}

func wsPing(c *websocket.Conn) error {
	return c.WriteControl(websocket.PingMessage, []byte("x"), time.Now().Add(time.Second))
}

func pingThen(send func(c *websocket.Conn) error) func(c *websocket.Conn) error {
	return func(c *websocket.Conn) error {
		if err := wsPing(c); err != nil {
			return err
		}
		return send(c)
	}
}

// TestWSCaps: the (N+1)th socket of one address that has not sent
// connection_init, and the (N+1)th connection_init of one client, are
// closed with 4429; closing one makes room again.
func TestWSCaps(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.WebsocketMaxPerAddress = 3
		c.WebsocketMaxPerClient = 2
	}})
	tn := apptest.NewTenant(t, srv, "acme")
	token := srv.Token(t, tn, domain.ScopeLoadRead)
	other := srv.Token(t, tn, domain.ScopeLoadRead, domain.ScopeTripRead) // another client

	t.Run("per address before connection_init", func(t *testing.T) {
		var open []*websocket.Conn
		for range 3 {
			open = append(open, dialWS(t, srv, "graphql-transport-ws"))
		}
		extra := dialWS(t, srv, "graphql-transport-ws")
		if code, got := closedWith(t, extra); code != 4429 || len(got) > 0 {
			t.Fatalf("the 4th socket of the address: closed with %d after %v, want 4429", code, got)
		}
		// Past connection_init a socket no longer counts against its address.
		initWS(t, open[0], other)
		again := dialWS(t, srv, "graphql-ws")
		initWS(t, again, other)
		_ = again.Close()
		for _, c := range open {
			_ = c.Close()
		}
		waitOpenWS(t, srv, 0)
	})

	t.Run("per client after connection_init", func(t *testing.T) {
		a := dialWS(t, srv, "graphql-transport-ws")
		initWS(t, a, token)
		b := dialWS(t, srv, "graphql-ws")
		initWS(t, b, token)
		c := dialWS(t, srv, "graphql-transport-ws")
		if err := c.WriteJSON(map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + token}}); err != nil {
			t.Fatal(err)
		}
		if code, got := closedWith(t, c); code != 4429 || len(got) > 0 {
			t.Fatalf("the client's 3rd socket: closed with %d after %v, want 4429", code, got)
		}
		_ = a.Close()
		waitOpenWS(t, srv, 1)
		initWS(t, dialWS(t, srv, "graphql-transport-ws"), token)
	})
}

// waitOpenWS waits until the instance counts n open WebSockets (its
// haulgraph_websocket_connections_open gauge).
func waitOpenWS(t *testing.T, srv *apptest.Server, n int) {
	t.Helper()
	want := fmt.Sprintf("haulgraph_websocket_connections_open %d\n", n)
	waitFor(t, 10*time.Second, want+" in /metrics", func() bool {
		res, err := http.Get(srv.AdminURL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		_ = res.Body.Close()
		return strings.Contains(string(b), want)
	})
}

// TestSSEStreamChurn: concurrent event streams that start, resume with
// valid, forged and oversized Last-Event-IDs, and end at random moments
// never make the server panic, answer 5xx, or write a response twice.
func TestSSEStreamChurn(t *testing.T) {
	t.Parallel()
	e := startEnv(t)
	const q = `subscription { loadChanged { id cursor } }`
	open := func(ctx context.Context, lastID string) (*http.Response, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, e.srv.URL+"/graphql/stream", strings.NewReader(gqlBody(q, nil)))
		req.Header.Set("Authorization", "Bearer "+e.token)
		req.Header.Set("Content-Type", "application/json")
		if lastID != "" {
			req.Header.Set("Last-Event-ID", lastID)
		}
		return http.DefaultClient.Do(req)
	}
	// A real cursor, then events after it for the resumes to replay.
	ctx, cancel := context.WithCancel(context.Background())
	res, err := open(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the first stream subscribed", func() bool { return e.srv.GraphQL.Live.Members() > 0 })
	mkLoad := func(n string) {
		b := gqlBody(`mutation($in: CreateLoadInput!) { createLoad(input: $in) { loadNumber } }`, map[string]any{"in": map[string]any{
			"loadNumber": n, "subsidiaryId": e.sub, "rate": map[string]any{"amount": 1500.5}, "commodity": "Paper",
			"stops": []any{map[string]any{"type": "Delivery", "name": "Dock", "address": map[string]any{"street": "1 Main St", "city": "Springfield", "state": "IL", "zipCode": "62701"}}}}})
		if r, body := e.send(t, hostile{method: "POST", path: "/graphql", body: b}); r.StatusCode != 200 || strings.Contains(string(body), `"errors"`) {
			t.Fatalf("createLoad: %d %s", r.StatusCode, body)
		}
	}
	mkLoad("CHURN-0")
	var cursor string
	buf := make([]byte, 64<<10)
	var got strings.Builder
	for cursor == "" {
		n, err := res.Body.Read(buf)
		got.Write(buf[:n])
		for _, line := range strings.Split(got.String(), "\n") {
			if id, ok := strings.CutPrefix(line, "id: "); ok {
				cursor = id
			}
		}
		if err != nil && cursor == "" {
			t.Fatalf("no event: %v %s", err, got.String())
		}
	}
	cancel()
	_ = res.Body.Close()
	var writers sync.WaitGroup
	for w := range 4 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for i := w; i < 160; i += 4 {
				mkLoad(fmt.Sprintf("CHURN-%d", i+1))
			}
		}()
	}
	writers.Wait()

	ids := []string{cursor, cursor, cursor, "", "garbage", cursor + "x", strings.Repeat("A", 8<<10), strings.Repeat("\xff", 300),
		"eyJ4IjoxfQ", strings.Repeat(cursor, 50)}
	var statuses sync.Map
	var wg sync.WaitGroup
	stop := time.Now().Add(3 * time.Second)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for time.Now().Before(stop) {
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(r.IntN(60))*time.Millisecond)
				res, err := open(ctx, ids[r.IntN(len(ids))])
				if err == nil {
					statuses.Store(res.StatusCode, true)
					_, _ = io.Copy(io.Discard, res.Body)
					_ = res.Body.Close()
				}
				cancel()
			}
		}()
	}
	wg.Wait()
	statuses.Range(func(k, _ any) bool {
		if k.(int) >= 500 {
			t.Errorf("an event stream was answered %d", k)
		}
		return true
	})
	waitFor(t, 10*time.Second, "every event stream released", func() bool { return e.srv.GraphQL.SSE.Streams() == 0 })
	log := e.log.String()
	for _, bad := range []string{"panic", "superfluous", "INTERNAL", "send on closed channel"} {
		if i := strings.Index(log, bad); i >= 0 {
			t.Fatalf("the server log holds %q: %.600s", bad, log[max(0, i-300):])
		}
	}
}
