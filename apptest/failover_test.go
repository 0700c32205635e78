package apptest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage/pgcluster"
)

// A primary with a synchronous standby, two instances on the multi-host
// URL, concurrent writers on both, a live subscription on the second and a
// webhook: the primary is lost in the middle of the writes and the standby
// promoted. Requests in the gap are answered 503 with Retry-After (never
// 500, never without an answer); both instances reconnect to the new
// primary by themselves; every acknowledged write is there, and every event
// there reaches the subscription (once) and the webhook (at least once).
func TestFailoverToSynchronousStandby(t *testing.T) {
	t.Parallel()
	cluster := pgcluster.Start(t, pgcluster.Options{Standbys: 1, Synchronous: true})
	primary, standby := cluster.Primary(), cluster.Standby(1)
	dbURL := multiHostURL(t, primary, standby)
	configure := func(c *app.Config) {
		c.DBConnectTimeout = 2 * time.Second
		c.DBHealthCheckPeriod = 50 * time.Millisecond
		c.EventRelayRetry = 20 * time.Millisecond
	}
	srv := apptest.Start(t, apptest.Options{DatabaseURL: dbURL, Configure: configure})
	other := apptest.Start(t, apptest.Options{DatabaseURL: dbURL, Configure: func(c *app.Config) {
		configure(c)
		c.PublicURL = srv.URL // one issuer: tokens from either instance serve on both
	}})
	tenant := apptest.NewTenant(t, srv, "failover")
	write := srv.Token(t, tenant, domain.ScopeLoadCreate)
	read := srv.Token(t, tenant, domain.ScopeLoadRead, domain.ScopeTrailerRead)
	manage := srv.Token(t, tenant, domain.ScopeWebhookManage)
	clientID, secret := srv.Client(t, tenant, domain.ScopeLoadRead)

	hook := startFailoverReceiver(t)
	enableFailoverWebhook(t, srv, manage, tenant, hook.URL)

	ctx, cancel := context.WithCancel(context.Background())
	var workers sync.WaitGroup
	t.Cleanup(func() { cancel(); workers.Wait() })

	sub := &failoverSubscriber{eventCounter: eventCounter{seen: map[string]int{}}, url: "ws" + strings.TrimPrefix(other.URL, "http") + "/graphql",
		token: read, subscribed: make(chan struct{})}
	workers.Add(1)
	go func() { defer workers.Done(); sub.run(ctx) }()
	select {
	case <-sub.subscribed:
	case <-time.After(30 * time.Second):
		t.Fatal("the subscription did not start")
	}

	w := &failoverWriters{urls: []string{srv.URL + "/graphql", other.URL + "/graphql"}, token: write, subsidiary: tenant.SubsidiaryID.String(), stop: make(chan struct{})}
	for i := range 4 {
		w.wg.Add(1)
		go func() { defer w.wg.Done(); w.run(i) }()
	}
	stopWriters := sync.OnceFunc(func() { close(w.stop) })
	t.Cleanup(func() { stopWriters(); w.wg.Wait() })
	// The subscription is live once it has received an event: it receives
	// every later one.
	waitFor(t, 60*time.Second, "writes acknowledged by the primary and seen live", func() bool { return w.acked.Load() >= 20 && sub.total() > 0 })

	primary.Stop()
	ackedBefore := w.acked.Load()

	// The gap: no host takes writes. Every path answers 503 with
	// Retry-After in its own format (a rate-limit lease leased before the
	// loss may admit a request for up to a second: it is served or refused,
	// never failed).
	form := "application/x-www-form-urlencoded"
	tokenForm := url.Values{"grant_type": {"client_credentials"}, "client_id": {clientID}, "client_secret": {secret},
		"audience": {srv.Config.Audience}}.Encode()
	query := `{"query":"{ trailers(first: 1) { edges { node { id } } } }"}`
	gapRefuses(t, "REST", func() (*http.Response, error) {
		return failoverRequest("GET", srv.URL+"/api/p/v1/trailers", read, "", "")
	})
	gapRefuses(t, "GraphQL query", func() (*http.Response, error) {
		return failoverRequest("POST", srv.URL+"/graphql", read, "application/json", query)
	})
	gapRefuses(t, "token endpoint", func() (*http.Response, error) {
		return failoverRequest("POST", srv.URL+"/oauth/token", "", form, tokenForm)
	})
	gapRefuses(t, "SSE", func() (*http.Response, error) {
		req, _ := http.NewRequest("GET", srv.URL+"/graphql/stream?"+url.Values{"query": {"subscription { loadChanged { id } }"}}.Encode(), nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Authorization", "Bearer "+read)
		return failoverClient.Do(req)
	})
	gapRefuses(t, "WebSocket upgrade", func() (*http.Response, error) {
		d := websocket.Dialer{HandshakeTimeout: 10 * time.Second, Subprotocols: []string{"graphql-transport-ws"}}
		conn, res, err := d.Dial(sub.url, nil)
		if conn != nil {
			conn.Close()
		}
		if res == nil {
			return nil, err
		}
		return res, nil
	})
	waitFor(t, 30*time.Second, "a write refused in the gap", func() bool { return w.refused.Load() > 0 })
	// The subscriber's connection drops in the gap: it subscribes again
	// with after: its last cursor, and the new primary replays what it
	// missed.
	sub.drop()

	standby.Promote()
	waitFor(t, 60*time.Second, "writes acknowledged by the new primary", func() bool { return w.acked.Load() >= ackedBefore+20 })
	stopWriters()
	w.wg.Wait()

	for _, f := range w.failures() {
		t.Error(f)
	}
	if t.Failed() {
		t.FailNow()
	}
	acked := w.numbers()
	t.Logf("%d writes acknowledged, %d refused with 503 in the gap", len(acked), w.refused.Load())

	// The new primary, asked directly.
	db, err := pgx.Connect(context.Background(), standby.URL(""))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	stored := map[string]bool{}
	rows, _ := db.Query(context.Background(), "SELECT load_number FROM loads WHERE tenant_id = $1", tenant.ID)
	numbers, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range numbers {
		stored[n] = true
	}
	for _, n := range acked {
		if !stored[n] {
			t.Errorf("acknowledged write %s is not on the new primary", n)
		}
	}
	rows, _ = db.Query(context.Background(), "SELECT id FROM events WHERE tenant_id = $1 AND type = 'load.changed' ORDER BY xact, seq", tenant.ID)
	eventIDs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(eventIDs) < len(acked) {
		t.Errorf("%d load.changed events on the new primary for %d acknowledged writes", len(eventIDs), len(acked))
	}

	// Every stored event reaches the webhook, and the subscription from the
	// first event it received on (the relay publishes in outbox order).
	first := -1
	for i, id := range eventIDs {
		if sub.count(id) > 0 {
			first = i
			break
		}
	}
	if first < 0 || first >= len(eventIDs)-1 {
		t.Fatalf("the subscription received none of the stored events but the last (first at %d of %d)", first, len(eventIDs))
	}
	live := eventIDs[first:]
	missing := func(ids []string, seen func(string) int) (n int, first string) {
		for _, id := range ids {
			if seen(id) == 0 {
				if n == 0 {
					first = id
				}
				n++
			}
		}
		return n, first
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		subMissing, subFirst := missing(live, sub.count)
		hookMissing, hookFirst := missing(eventIDs, hook.count)
		if subMissing == 0 && hookMissing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("of %d stored events, %d never reached the subscription (first %s) and %d the webhook (first %s); subscription ended %d times",
				len(eventIDs), subMissing, subFirst, hookMissing, hookFirst, sub.resumes.Load())
		}
		select {
		case <-sub.changed():
		case <-hook.changed():
		case <-time.After(100 * time.Millisecond):
		}
	}
	// The subscription saw each event once, and none the new primary lacks
	// (one only the lost primary had would be a lost event).
	inDB := map[string]bool{}
	for _, id := range eventIDs {
		inDB[id] = true
	}
	for id, n := range sub.snapshot() {
		if n != 1 {
			t.Errorf("the subscription received event %s %d times", id, n)
		}
		if !inDB[id] {
			t.Errorf("the subscription received event %s, which the new primary does not have", id)
		}
	}
	for id := range hook.snapshot() {
		if !inDB[id] {
			t.Errorf("the webhook received event %s, which the new primary does not have", id)
		}
	}
	if sub.errors.Load() > 0 {
		t.Errorf("the subscription got %d error frames other than SERVICE_UNAVAILABLE", sub.errors.Load())
	}
	if sub.replayed.Load() == 0 {
		t.Error("no event reached the subscription resumed with after: its cursor")
	}
	t.Logf("%d events: subscription resumed %d times, webhook deliveries %d", len(eventIDs), sub.resumes.Load(), hook.total())
}

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

// failoverReceiver is a webhook endpoint: it answers the verification
// challenge and counts deliveries by event id.
type failoverReceiver struct {
	eventCounter
	URL string
}

func startFailoverReceiver(t *testing.T) *failoverReceiver {
	t.Helper()
	r := &failoverReceiver{eventCounter: eventCounter{seen: map[string]int{}}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var in struct{ Challenge, ID string }
		if err := json.NewDecoder(req.Body).Decode(&in); err != nil {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		if in.Challenge != "" {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]string{"challenge": in.Challenge})
			return
		}
		r.add(in.ID)
	}))
	t.Cleanup(srv.Close)
	r.URL = srv.URL + "/hook"
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

	mu   sync.Mutex
	conn *websocket.Conn
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
					s.errors.Add(1)
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
				s.errors.Add(1)
			}
			return errors.New(string(raw))
		case "complete":
			return errors.New(msg.Type)
		}
	}
}
