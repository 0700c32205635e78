package apptest_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/lbtest"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// Two instances on one database behind a real HAProxy that health-checks
// each one's /readyz every 100 ms (fall 1), under steady REST and GraphQL
// load, writes, live subscribers and a webhook, are restarted one after the
// other: each is stopped with its drain, and a fresh instance starts on
// the same ports once the old one has stopped. No request fails, every
// acknowledged write is in the database, every subscriber (resuming with
// after: when its WebSocket is closed with 1001) sees every event exactly
// once and the webhook receives every event, those that committed behind a
// transaction left open through the restarts included.
//
// HAProxy is configured with no retries and no redispatch: a request that
// met a closed port would fail here. The drain is what keeps them away: the
// test ends each drain only once HAProxy shows the instance DOWN with no
// request on its way to it.
func TestRollingRestartBehindHAProxy(t *testing.T) {
	t.Parallel()
	dbURL := dbtest.URL(t)
	lb, stats := apptest.FreeAddr(t), apptest.FreeAddr(t)
	slots := []*rollingSlot{
		{name: "a", addr: apptest.FreeAddr(t), admin: apptest.FreeAddr(t)},
		{name: "b", addr: apptest.FreeAddr(t), admin: apptest.FreeAddr(t)},
	}
	for _, s := range slots {
		s.start(t, dbURL, "http://"+lb)
	}
	lbtest.HAProxyConfig(t, haproxyConfig(lb, stats, slots))
	base := "http://" + lb
	for _, s := range slots {
		waitForHAProxy(t, stats, s.name, "UP", nil)
	}

	srv := slots[0].srv
	tenant := apptest.NewTenant(t, srv, "rolling")
	write := srv.Token(t, tenant, domain.ScopeLoadCreate, domain.ScopeLoadUpdate)
	read := srv.Token(t, tenant, domain.ScopeLoadRead, domain.ScopeTrailerRead)
	hook := startFailoverReceiver(t)
	enableFailoverWebhook(t, srv, srv.Token(t, tenant, domain.ScopeWebhookManage), tenant, hook.URL)

	ctx, cancel := context.WithCancel(context.Background())
	var subscribers sync.WaitGroup
	t.Cleanup(func() { cancel(); subscribers.Wait() })
	subs := make([]*failoverSubscriber, 3)
	for i := range subs {
		subs[i] = &failoverSubscriber{eventCounter: eventCounter{seen: map[string]int{}}, url: "ws" + strings.TrimPrefix(base, "http") + "/graphql",
			token: read, subscribed: make(chan struct{})}
		subscribers.Add(1)
		go func() { defer subscribers.Done(); subs[i].run(ctx) }()
	}
	db, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	// Live before the load: warm-up writes until every subscriber has seen
	// one of their events.
	load := &rollingLoad{base: base, read: read, writeToken: write, subsidiary: tenant.SubsidiaryID.String(), stop: make(chan struct{})}
	n := 0
	waitFor(t, 60*time.Second, "every subscriber live", func() bool {
		n++
		load.write(fmt.Sprintf("W-%d", n))
		return !slices.ContainsFunc(subs, func(s *failoverSubscriber) bool { return s.total() == 0 })
	})
	var warmUp int // the warm-up's events
	if err := db.QueryRow(context.Background(), "SELECT count(*) FROM events WHERE tenant_id = $1 AND type = 'load.changed'", tenant.ID).Scan(&warmUp); err != nil {
		t.Fatal(err)
	}

	// The load: two writers, two REST readers, a GraphQL reader, each at
	// most rollingRequests requests.
	load.run(2, 2, 1)
	stopLoad := sync.OnceFunc(func() { close(load.stop); load.wg.Wait() })
	t.Cleanup(stopLoad)
	// An older transaction stays open through both restarts, as a long one
	// in any database of the server may: each new instance starts with
	// events committed behind it (H-1's at least), not final yet, and the
	// subscribers resume on the new instances before it ends.
	older, err := db.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer older.Rollback(context.Background()) //nolint:errcheck // committed below
	if _, err := older.Exec(context.Background(), "SELECT pg_current_xact_id()"); err != nil {
		t.Fatal(err)
	}
	load.write("H-1")
	for _, s := range slots {
		before := load.answered.Load()
		s.restart(t, dbURL, "http://"+lb, stats)
		if load.answered.Load() == before {
			t.Errorf("no request was answered while %s restarted", s.name)
		}
	}
	waitFor(t, 60*time.Second, "every subscriber resumed on a new instance", func() bool {
		return slots[0].srv.GraphQL.Live.Members()+slots[1].srv.GraphQL.Live.Members() == int64(len(subs))
	})
	if err := older.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	acked := load.acked.Load()
	waitFor(t, 60*time.Second, "writes acknowledged after the restarts", func() bool { return load.acked.Load() >= acked+10 })
	stopLoad()

	if failed := load.failures(); len(failed) > 0 {
		t.Fatalf("%d requests failed through the restarts; the first:\n%s", len(failed), strings.Join(failed[:min(len(failed), 10)], "\n"))
	}
	created, covered := load.written()
	t.Logf("%d requests answered, %d loads created and %d covered, through 2 restarts", load.answered.Load(), len(created), len(covered))

	rows, _ := db.Query(context.Background(), "SELECT load_number, status FROM loads WHERE tenant_id = $1", tenant.ID)
	stored := map[string]string{}
	for rows.Next() {
		var n, status string
		if err := rows.Scan(&n, &status); err != nil {
			t.Fatal(err)
		}
		stored[n] = status
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, n := range created {
		if _, ok := stored[n]; !ok {
			t.Errorf("acknowledged createLoad %s is not in the database", n)
		}
	}
	for _, n := range covered {
		if stored[n] != "Covered" {
			t.Errorf("acknowledged changeLoadStatus %s → Covered: the database has %q", n, stored[n])
		}
	}
	rows, _ = db.Query(context.Background(), "SELECT id FROM events WHERE tenant_id = $1 AND type = 'load.changed' ORDER BY xact, seq", tenant.ID)
	eventIDs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(eventIDs) < len(created)+len(covered) {
		t.Fatalf("%d load.changed events for %d acknowledged writes", len(eventIDs), len(created)+len(covered))
	}

	// Every subscriber from its first event on (at the latest the warm-up's
	// last) sees every later event; the webhook receives them all.
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
	firsts := make([]int, len(subs))
	for i, s := range subs {
		firsts[i] = slices.IndexFunc(eventIDs, func(id string) bool { return s.count(id) > 0 })
		if firsts[i] < 0 || firsts[i] >= warmUp {
			t.Fatalf("subscriber %d: first event at %d of %d, want one of the %d warm-up writes'", i, firsts[i], len(eventIDs), warmUp)
		}
	}
	// Two minutes: a delivery whose lease a stop did not hand back waits
	// for the lease to expire (the delivery timeout and 30 s).
	deadline, diagnosed := time.Now().Add(2*time.Minute), time.Now().Add(10*time.Second)
	for {
		var report []string
		for i, s := range subs {
			if n, first := missing(eventIDs[firsts[i]:], s.count); n > 0 {
				report = append(report, fmt.Sprintf("subscriber %d misses %d (first %s, resumed %d times)", i, n, first, s.resumes.Load()))
			}
		}
		if n, first := missing(eventIDs, hook.count); n > 0 {
			report = append(report, fmt.Sprintf("the webhook misses %d (first %s)", n, first))
			if time.Now().After(diagnosed) {
				diagnosed = deadline // once
				var status string
				var attempt int
				var due *float64 // seconds
				err := db.QueryRow(context.Background(), "SELECT status, attempt, extract(epoch FROM next_attempt_at - now())::float8 FROM webhook_deliveries WHERE event_id = $1", first).Scan(&status, &attempt, &due)
				dueIn := "never"
				if due != nil {
					dueIn = fmt.Sprintf("%.1fs", *due)
				}
				t.Logf("the webhook still misses %s after 10 s: delivery %s, attempt %d, due in %s (%v)", first, status, attempt, dueIn, err)
			}
		}
		if len(report) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("of %d events: %s", len(eventIDs), strings.Join(report, "; "))
		}
		select {
		case <-hook.changed():
		case <-time.After(100 * time.Millisecond): // polling the subscribers' records, bounded by the deadline
		}
	}
	inDB := map[string]bool{}
	for _, id := range eventIDs {
		inDB[id] = true
	}
	for i, s := range subs {
		for id, n := range s.snapshot() {
			if n != 1 || !inDB[id] {
				t.Errorf("subscriber %d received event %s %d times (in the database: %v)", i, id, n, inDB[id])
			}
		}
		if e := s.errorFrames(); e != "" {
			t.Errorf("subscriber %d got %s", i, e)
		}
		if s.goingAway.Load() == 0 {
			t.Errorf("subscriber %d was never closed with 1001: the restarts did not reach it", i)
		}
	}
	t.Logf("%d events: subscribers resumed %d, %d and %d times; %d webhook deliveries", len(eventIDs),
		subs[0].resumes.Load(), subs[1].resumes.Load(), subs[2].resumes.Load(), hook.total())
}

// rollingSlot is one backend of the balancer: its ports, and the instance
// on them now.
type rollingSlot struct {
	name, addr, admin string
	srv               *apptest.Server
	drained           chan time.Time // ends the instance's drain
}

// start runs an instance on the slot's ports. Its drain ends when the test
// says (drained), and at the latest when the test ends.
func (s *rollingSlot) start(t *testing.T, dbURL, public string) {
	t.Helper()
	drained := make(chan time.Time, 1)
	s.drained = drained
	s.srv = apptest.Start(t, apptest.Options{DatabaseURL: dbURL, Addr: s.addr, AdminAddr: s.admin, Configure: func(c *app.Config) {
		c.PublicURL = public // one issuer: the balancer's address
		c.ShutdownDrain = time.Minute
		c.DrainTimer = func(time.Duration) <-chan time.Time { return drained }
		c.ShutdownTimeout = 30 * time.Second // requests still in flight after the drain finish
	}})
	t.Cleanup(func() { // before apptest's own stop, which would wait for the drain
		select {
		case drained <- time.Now():
		default:
		}
	})
}

// restart stops the slot's instance as SIGTERM would, ends its drain once
// HAProxy has taken it out, and starts a fresh instance on the same ports
// once the old one has stopped.
func (s *rollingSlot) restart(t *testing.T, dbURL, public, stats string) {
	t.Helper()
	old, drained := s.srv, s.drained
	stopped := make(chan error, 1)
	go func() { stopped <- old.Stop() }()
	// Out of HAProxy's rotation, and no request on its way to it: the only
	// sessions left are the subscribers' WebSockets, which the drain's end
	// closes with 1001. A request HAProxy sent just before it took the
	// instance out may still be unread in a keep-alive connection, which the
	// shutdown would close under it (HAProxy then closes the client's
	// connection unanswered); a real drain outlasts a health check by far.
	waitForHAProxy(t, stats, s.name, "DOWN", func(n int64) bool { return n == old.GraphQL.Live.Members() })
	if !old.Draining() {
		t.Fatalf("%s: HAProxy took it out, but no drain began", s.name)
	}
	drained <- time.Now()
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatalf("%s: stop: %v", s.name, err)
		}
	case <-time.After(time.Minute):
		t.Fatalf("%s: not stopped a minute after its drain", s.name)
	}
	s.start(t, dbURL, public)
	waitForHAProxy(t, stats, s.name, "UP", nil)
}

// haproxyConfig balances lb over the slots, health-checking each one's
// /readyz on its admin port.
func haproxyConfig(lb, stats string, slots []*rollingSlot) string {
	var servers strings.Builder
	for _, s := range slots {
		_, port, _ := strings.Cut(s.admin, ":")
		fmt.Fprintf(&servers, "    server %s %s check port %s\n", s.name, s.addr, port)
	}
	return `global
    maxconn 512

defaults
    mode http
    timeout connect 5s
    timeout client 60s
    timeout server 60s
    timeout tunnel 60s
    # A check may take its time on a busy machine; without this its
    # timeout would be inter (100 ms) and a slow /readyz would take a
    # healthy instance out.
    timeout check 10s
    # No retries, no redispatch: a request that met a stopped instance
    # fails the test.
    retries 0

frontend api
    bind ` + lb + `
    default_backend instances

frontend stats
    bind ` + stats + `
    stats enable
    stats uri /stats

backend instances
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
    default-server inter 100ms fall 1 rise 1
` + servers.String()
}

// waitForHAProxy polls HAProxy's statistics until server name is in state
// (UP, DOWN) and, unless sessions is nil, sessions holds for its number of
// current sessions; bounded.
func waitForHAProxy(t *testing.T, stats, name, state string, sessions func(int64) bool) {
	t.Helper()
	var status, current string
	deadline := time.Now().Add(30 * time.Second)
	for {
		status, current = haproxyServer(stats, name)
		n, err := strconv.ParseInt(current, 10, 64)
		if status == state && (sessions == nil || err == nil && sessions(n)) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("HAProxy: server %s is %q with %q sessions 30 s on, want %s", name, status, current, state)
		}
		time.Sleep(20 * time.Millisecond) // polling HAProxy's statistics, bounded by the deadline
	}
}

// haproxyServer is server name's status and current sessions in HAProxy's
// CSV statistics.
func haproxyServer(stats, name string) (status, sessions string) {
	res, err := http.Get("http://" + stats + "/stats;csv")
	if err != nil {
		return err.Error(), ""
	}
	defer res.Body.Close()
	records, err := csv.NewReader(res.Body).ReadAll()
	if err != nil || len(records) == 0 {
		return fmt.Sprintf("unreadable statistics: %v", err), ""
	}
	header := records[0]
	header[0] = strings.TrimPrefix(header[0], "# ")
	px, sv, st, cur := slices.Index(header, "pxname"), slices.Index(header, "svname"), slices.Index(header, "status"), slices.Index(header, "scur")
	for _, r := range records[1:] {
		if len(r) > max(st, cur) && r[px] == "instances" && r[sv] == name {
			return r[st], r[cur]
		}
	}
	return "absent", ""
}

// rollingRequests bounds each load goroutine's requests.
const rollingRequests = 5000

// rollingLoad is the test's traffic through the balancer: writers (a
// createLoad, then a changeLoadStatus to Covered, each acknowledged one
// recorded) and readers (REST, GraphQL). Any answer but a success is a
// failure.
type rollingLoad struct {
	base, read, writeToken, subsidiary string
	stop                               chan struct{}
	wg                                 sync.WaitGroup // the load's goroutines
	answered, acked                    atomic.Int64

	mu               sync.Mutex
	created, covered []string
	failed           []string
}

func (l *rollingLoad) run(writers, restReaders, graphQLReaders int) {
	loop := func(do func(i int)) {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for i := range rollingRequests {
				select {
				case <-l.stop:
					return
				default:
				}
				do(i)
			}
		}()
	}
	for w := range writers {
		loop(func(i int) { l.write(fmt.Sprintf("R-%d-%d", w, i)) })
	}
	for range restReaders {
		loop(func(int) { l.call("REST read", "GET", "/api/p/v1/loads/W-1", l.read, "") })
	}
	query, _ := json.Marshal(map[string]string{"query": `{ loads(first: 5) { edges { node { loadNumber status } } } }`})
	for range graphQLReaders {
		loop(func(int) { l.call("GraphQL read", "POST", "/graphql", l.read, string(query)) })
	}
}

// write creates load number and covers it.
func (l *rollingLoad) write(number string) {
	create, _ := json.Marshal(map[string]any{"query": `mutation($in: CreateLoadInput!) { createLoad(input: $in) { loadNumber } }`,
		"variables": map[string]any{"in": map[string]any{"loadNumber": number, "subsidiaryId": l.subsidiary,
			"rate": map[string]any{"amount": 900}, "commodity": "Steel", "trips": []any{map[string]any{"tripNumber": number + "-T1"}},
			"stops": []any{
				map[string]any{"type": "Pickup", "name": "Dock 1", "address": map[string]any{"street": "1 Parkway", "city": "Springfield", "state": "IL", "zipCode": "62701"}},
				map[string]any{"type": "Delivery", "name": "Dock 2", "address": map[string]any{"street": "2 Parkway", "city": "Springfield", "state": "IL", "zipCode": "62701"}},
			}}}})
	if !l.call("createLoad "+number, "POST", "/graphql", l.writeToken, string(create)) {
		return
	}
	l.mu.Lock()
	l.created = append(l.created, number)
	l.mu.Unlock()
	l.acked.Add(1)
	cover, _ := json.Marshal(map[string]any{"query": `mutation($n: String!) { changeLoadStatus(loadNumber: $n, status: Covered) { status } }`,
		"variables": map[string]any{"n": number}})
	if !l.call("changeLoadStatus "+number, "POST", "/graphql", l.writeToken, string(cover)) {
		return
	}
	l.mu.Lock()
	l.covered = append(l.covered, number)
	l.mu.Unlock()
	l.acked.Add(1)
}

// call sends one request through the balancer and reports whether it
// succeeded (2xx, and no GraphQL errors); a failure is recorded.
func (l *rollingLoad) call(what, method, path, token, body string) bool {
	res, err := failoverRequest(method, l.base+path, token, "application/json", body)
	if err != nil {
		l.fail(fmt.Sprintf("%s: no answer: %v", what, err))
		return false
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	switch {
	case err != nil:
		l.fail(fmt.Sprintf("%s: %d, body cut: %v", what, res.StatusCode, err))
	case res.StatusCode != http.StatusOK || strings.Contains(string(b), `"errors"`):
		l.fail(fmt.Sprintf("%s: %d %.300s", what, res.StatusCode, b))
	default:
		l.answered.Add(1)
		return true
	}
	return false
}

func (l *rollingLoad) fail(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failed = append(l.failed, s)
}

func (l *rollingLoad) failures() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.failed)
}

func (l *rollingLoad) written() (created, covered []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.created), slices.Clone(l.covered)
}
