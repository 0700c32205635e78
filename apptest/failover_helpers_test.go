package apptest_test

// TestFailoverToSynchronousStandby's clients: the writers, the webhook
// receiver and the subscriber that ride through the failover.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/storage/pgcluster"
	"github.com/haulgraph/haulgraph/testkit"
)

// multiHostURL is the URL naming both nodes' sockets, the one taking
// writes chosen at each connection.
func multiHostURL(t *testing.T, nodes ...*pgcluster.Node) string {
	t.Helper()
	var hosts []string
	for _, n := range nodes {
		cfg, err := pgconn.ParseConfig(n.URL(""))
		if err != nil {
			t.Fatal(err)
		}
		hosts = append(hosts, cfg.Host)
	}
	return "postgres://postgres@/" + pgcluster.Database + "?" + url.Values{"host": {strings.Join(hosts, ",")},
		"sslmode": {"disable"}, "target_session_attrs": {"read-write"}}.Encode()
}

var failoverClient = &http.Client{Timeout: 30 * time.Second}

func failoverRequest(method, u, token, contentType, body string) (*http.Response, error) {
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return failoverClient.Do(req)
}

// gapRefuses asks until the answer is 503 with Retry-After; an answer
// that is neither that nor a success, or no answer, fails the test.
func gapRefuses(t *testing.T, what string, do func() (*http.Response, error)) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := do()
		if err != nil {
			t.Fatalf("%s in the gap: no answer: %v", what, err)
		}
		if res.StatusCode < 300 || res.StatusCode == http.StatusSwitchingProtocols {
			res.Body.Close() // served (an open stream is not read)
			if time.Now().After(deadline) {
				t.Fatalf("%s in the gap: still served after 30s", what)
			}
			continue
		}
		body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
		res.Body.Close()
		switch {
		case res.StatusCode == http.StatusServiceUnavailable && res.Header.Get("Retry-After") != "":
			if strings.Contains(string(body), "SELECT") || strings.Contains(string(body), "pgx") {
				t.Errorf("%s in the gap says too much: %s", what, body)
			}
			return
		default:
			t.Fatalf("%s in the gap: %d Retry-After %q: %s", what, res.StatusCode, res.Header.Get("Retry-After"), body)
		}
	}
}

// failoverWriters create loads over GraphQL until stop closes, recording
// each acknowledged load number and any answer other than a success or a
// 503 with Retry-After.
type failoverWriters struct {
	urls              []string // writer i writes to urls[i%len(urls)]
	token, subsidiary string
	stop              chan struct{}
	wg                sync.WaitGroup // the writers
	acked, refused    atomic.Int64

	mu     sync.Mutex
	done   []string
	failed []string
}

func (w *failoverWriters) run(writer int) {
	for i := 0; ; i++ {
		select {
		case <-w.stop:
			return
		default:
		}
		number := fmt.Sprintf("F-%d-%d", writer, i)
		vars := map[string]any{"in": map[string]any{"loadNumber": number, "subsidiaryId": w.subsidiary,
			"rate": map[string]any{"amount": 900}, "commodity": "Steel", "trips": []any{map[string]any{"tripNumber": number + "-T1"}},
			"stops": []any{
				map[string]any{"type": "Pickup", "name": "Dock 1", "address": map[string]any{"street": "1 Parkway", "city": "Springfield", "state": "IL", "zipCode": "62701"}},
				map[string]any{"type": "Delivery", "name": "Dock 2", "address": map[string]any{"street": "2 Parkway", "city": "Springfield", "state": "IL", "zipCode": "62701"}},
			}}}
		b, _ := json.Marshal(map[string]any{"query": `mutation($in: CreateLoadInput!) { createLoad(input: $in) { loadNumber } }`, "variables": vars})
		res, err := failoverRequest("POST", w.urls[writer%len(w.urls)], w.token, "application/json", string(b))
		if err != nil {
			w.fail(fmt.Sprintf("createLoad %s: no answer: %v", number, err))
			continue
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		switch {
		case res.StatusCode == http.StatusOK && !strings.Contains(string(body), `"errors"`):
			w.mu.Lock()
			w.done = append(w.done, number)
			w.mu.Unlock()
			w.acked.Add(1)
		case res.StatusCode == http.StatusServiceUnavailable && res.Header.Get("Retry-After") != "" && strings.Contains(string(body), "SERVICE_UNAVAILABLE"):
			w.refused.Add(1)
		default:
			w.fail(fmt.Sprintf("createLoad %s: %d Retry-After %q: %s", number, res.StatusCode, res.Header.Get("Retry-After"), body))
		}
	}
}

func (w *failoverWriters) fail(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.failed = append(w.failed, s)
}

func (w *failoverWriters) failures() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.failed...)
}

func (w *failoverWriters) numbers() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.done...)
}

// eventCounter counts events by id and signals each change.
type eventCounter struct {
	mu     sync.Mutex
	seen   map[string]int
	notify chan struct{}
}

func (c *eventCounter) add(id string) {
	c.mu.Lock()
	c.seen[id]++
	c.mu.Unlock()
	select {
	case c.changedCh() <- struct{}{}:
	default:
	}
}

func (c *eventCounter) changedCh() chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.notify == nil {
		c.notify = make(chan struct{}, 1)
	}
	return c.notify
}

func (c *eventCounter) changed() <-chan struct{} { return c.changedCh() }

func (c *eventCounter) count(id string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen[id]
}

func (c *eventCounter) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.seen))
	for k, v := range c.seen {
		out[k] = v
	}
	return out
}

func (c *eventCounter) total() int {
	n := 0
	for _, v := range c.snapshot() {
		n += v
	}
	return n
}

// failoverReceiver is a webhook endpoint that counts deliveries by event id.
type failoverReceiver struct {
	eventCounter
	URL string
}

func startFailoverReceiver(t *testing.T) *failoverReceiver {
	t.Helper()
	r := &failoverReceiver{eventCounter: eventCounter{seen: map[string]int{}}}
	rcv := testkit.NewReceiver(t)
	rcv.Answer(func(w http.ResponseWriter, d testkit.Delivery) {
		var in struct{ ID string }
		if err := json.Unmarshal(d.Body, &in); err != nil {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		r.add(in.ID)
	})
	r.URL = rcv.URL + "/hook"
	return r
}

func enableFailoverWebhook(t *testing.T, srv *apptest.Server, token string, tenant apptest.Tenant, hookURL string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"Name": "failover", "Url": hookURL, "EventTypes": []string{"load.changed"}, "SubsidiaryId": tenant.SubsidiaryID.String()})
	res, err := failoverRequest("POST", srv.URL+"/api/p/v1/webhooks", token, "application/json", string(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var created struct{ Id string } //nolint:revive
	if res.StatusCode != http.StatusCreated || json.Unmarshal(b, &created) != nil {
		t.Fatalf("create webhook: %d %s", res.StatusCode, b)
	}
	res, err = failoverRequest("POST", srv.URL+"/api/p/v1/webhooks/"+created.Id+"/enable", token, "", "")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(b), `"Active"`) {
		t.Fatalf("enable webhook: %d %s", res.StatusCode, b)
	}
}

// failoverSubscriber holds loadChanged over graphql-transport-ws and, when
// the subscription or its connection ends, subscribes again after the
// cursor of the last event it received.
type failoverSubscriber struct {
	eventCounter
	url, token string
	subscribed chan struct{}
	once       sync.Once
	cursor     string
	resumes    atomic.Int64
	errors     atomic.Int64
	replayed   atomic.Int64 // events received by a session that began with after:
	goingAway  atomic.Int64 // sessions the server closed with 1001

	mu         sync.Mutex
	conn       *websocket.Conn
	firstError string
}

// failed counts an error frame and keeps the first for the failure message.
func (s *failoverSubscriber) failed(frame []byte) {
	if s.errors.Add(1) == 1 {
		s.mu.Lock()
		s.firstError = string(frame)
		s.mu.Unlock()
	}
}

// errorFrames describes the error frames received (none: "").
func (s *failoverSubscriber) errorFrames() string {
	n := s.errors.Load()
	if n == 0 {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("%d error frames, the first: %s", n, s.firstError)
}

// drop closes the current connection, as a network failure would.
func (s *failoverSubscriber) drop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil {
		s.conn.Close()
	}
}

func (s *failoverSubscriber) run(ctx context.Context) {
	for ctx.Err() == nil {
		if err := s.session(ctx); err != nil && ctx.Err() == nil {
			s.resumes.Add(1)
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond): // a refused upgrade says Retry-After; a test need not wait that long
			}
		}
	}
}

func (s *failoverSubscriber) session(ctx context.Context) error {
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second, Subprotocols: []string{"graphql-transport-ws"}}
	conn, res, err := d.DialContext(ctx, s.url, nil)
	if err != nil {
		return err
	}
	_ = res.Body.Close()
	defer conn.Close()
	s.mu.Lock()
	s.conn = conn
	s.mu.Unlock()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	var after any
	if s.cursor != "" {
		after = s.cursor
	}
	for _, f := range []any{
		map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + s.token}},
		map[string]any{"id": "f", "type": "subscribe", "payload": map[string]any{
			"query": `subscription($after: String) { loadChanged(after: $after) { id cursor } }`, "variables": map[string]any{"after": after}}},
	} {
		if err := conn.WriteJSON(f); err != nil {
			return err
		}
	}
	for {
		var msg struct {
			Type    string
			Payload struct {
				Data struct {
					LoadChanged struct{ ID, Cursor string }
				}
				Errors []json.RawMessage
			}
		}
		var raw json.RawMessage
		if err := conn.ReadJSON(&raw); err != nil {
			if websocket.IsCloseError(err, websocket.CloseGoingAway) {
				s.goingAway.Add(1)
			}
			return err
		}
		if err := json.Unmarshal(raw, &msg); err != nil && !strings.Contains(string(raw), `"error"`) {
			return err
		}
		// A resume refused while no node takes writes is retried.
		unavailable := strings.Contains(string(raw), "SERVICE_UNAVAILABLE")
		switch msg.Type {
		case "connection_ack":
			s.once.Do(func() { close(s.subscribed) })
		case "ping":
			if err := conn.WriteJSON(map[string]string{"type": "pong"}); err != nil {
				return err
			}
		case "next":
			if len(msg.Payload.Errors) > 0 {
				if !unavailable {
					s.failed(raw)
				}
				return errors.New("error frame")
			}
			s.cursor = msg.Payload.Data.LoadChanged.Cursor
			s.add(msg.Payload.Data.LoadChanged.ID)
			if after != nil {
				s.replayed.Add(1)
			}
		case "error":
			if !unavailable {
				s.failed(raw)
			}
			return errors.New(string(raw))
		case "complete":
			return errors.New(msg.Type)
		}
	}
}
