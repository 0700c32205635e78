package apptest_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/jackc/pgx/v5"

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
	if e := sub.errorFrames(); e != "" {
		t.Errorf("the subscription got error frames other than SERVICE_UNAVAILABLE: %s", e)
	}
	if sub.replayed.Load() == 0 {
		t.Error("no event reached the subscription resumed with after: its cursor")
	}
	t.Logf("%d events: subscription resumed %d times, webhook deliveries %d", len(eventIDs), sub.resumes.Load(), hook.total())
}
