package transport_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/domain/loads"
)

const sseQuery = `subscription($after: String, $f: LoadEventFilter) { loadChanged(after: $after, filter: $f) { id cursor data { load { loadNumber } } } }`

type sseLoadEvent struct {
	ID, Cursor string
	Data       struct{ Load struct{ LoadNumber string } }
}

// loadEvent reads the next loadChanged result; its SSE id must be its cursor.
func (c *sseClient) loadEvent() sseLoadEvent {
	c.t.Helper()
	ev, r := c.result()
	if len(r.Errors) > 0 {
		c.t.Fatalf("errors: %+v", r.Errors)
	}
	e := field[sseLoadEvent](c.t, r.Data["loadChanged"])
	if ev.ID == "" || ev.ID != e.Cursor {
		c.t.Fatalf("SSE id %q, want the event's cursor %q", ev.ID, e.Cursor)
	}
	return e
}

// TestSSELiveEvents: streams on /graphql/stream (POST and GET) and on
// /graphql (Accept: text/event-stream only) receive live events with their
// cursor as SSE id, filtered, through the same shared groups as WebSocket
// subscribers: one execution per group per event.
func TestSSELiveEvents(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	tn := apptest.NewTenant(t, srv, "acme")
	read, write := srv.Token(t, tn, domain.ScopeLoadRead), writer(t, srv, tn)
	post := stream(t, srv, sseRequest{token: read, query: sseQuery})
	get := stream(t, srv, sseRequest{method: http.MethodGet, token: read, query: sseQuery})
	onGraphQL := stream(t, srv, sseRequest{path: "/graphql", token: read, query: sseQuery})
	filtered := stream(t, srv, sseRequest{token: read, query: sseQuery, vars: map[string]any{"f": map[string]any{"loadNumbers": []string{"L-2"}}}})
	ws := connect(t, srv, "graphql-transport-ws", read)
	ws.subscribe("1", sseQuery, nil)
	waitSubscribers(t, srv, 5)
	if g := srv.GraphQL.Live.Groups(); g != 2 {
		t.Fatalf("%d groups: the same operation over SSE and WebSocket must share one (and the filter has its own)", g)
	}
	before := srv.GraphQL.Live.Executions()
	for _, n := range []string{"L-1", "L-2", "L-3"} {
		mustGQL(t, srv, write, createLoad, createLoadVars(n, tn.SubsidiaryID.String(), 1))
	}
	for name, c := range map[string]*sseClient{"POST": post, "GET": get, "/graphql": onGraphQL} {
		var got []string
		for range 3 {
			got = append(got, c.loadEvent().Data.Load.LoadNumber)
		}
		if strings.Join(got, " ") != "L-1 L-2 L-3" {
			t.Fatalf("%s stream: %v", name, got)
		}
	}
	if e := filtered.loadEvent(); e.Data.Load.LoadNumber != "L-2" {
		t.Fatalf("filtered stream got %s", e.Data.Load.LoadNumber)
	}
	for range 3 {
		ws.event("1")
	}
	// 3 events to the shared group, 1 to the filtered one.
	if n := srv.GraphQL.Live.Executions() - before; n != 4 {
		t.Fatalf("%d executions for 3 events and 2 groups, want 4", n)
	}
	// urql lists text/event-stream beside the JSON types on every request:
	// that is plain GraphQL over HTTP, a subscription there is refused.
	urql := "application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed"
	if c, res, body := openSSE(t, srv, sseRequest{path: "/graphql", token: read, query: sseQuery, accept: urql}); c != nil ||
		!strings.HasPrefix(res.Header.Get("Content-Type"), "application/graphql-response+json") || !strings.Contains(string(body), "STREAMING_TRANSPORT_REQUIRED") {
		t.Fatalf("a subscription with urql's Accept: %d %s", res.StatusCode, body)
	}
	// A query over SSE is one result, then complete.
	q := stream(t, srv, sseRequest{token: read, query: `{ eventTypes }`})
	if _, r := q.result(); len(r.Errors) > 0 || r.Data["eventTypes"] == nil {
		t.Fatalf("query over SSE: %+v", r)
	}
	q.completes()
}

// TestSSEResumes: a board on SSE that lost its stream resumes with after:
// its last cursor and receives exactly the events it missed, in commit
// order, including those committed by concurrent writers while it
// reconnects and replays, then the live ones: no gap, no duplicate. A GET
// reconnect with Last-Event-ID resumes from that id, which wins over after:.
func TestSSEResumes(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	tn := apptest.NewTenant(t, srv, "acme")
	read, write := srv.Token(t, tn, domain.ScopeLoadRead), writer(t, srv, tn)
	writeLoads := func(prefix string, n, writers int) {
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < n; i += writers {
					mustGQL(t, srv, write, createLoad, createLoadVars(fmt.Sprintf("%s-%d", prefix, i), tn.SubsidiaryID.String(), 1))
				}
			}()
		}
		wg.Wait()
	}

	first := stream(t, srv, sseRequest{token: read, query: sseQuery})
	waitSubscribers(t, srv, 1)
	mustGQL(t, srv, write, createLoad, createLoadVars("R-first", tn.SubsidiaryID.String(), 1))
	last := first.loadEvent()
	first.close()
	waitSubscribers(t, srv, 0)

	writeLoads("R-away", 30, 4) // while the board is away
	during := make(chan struct{})
	go func() { defer close(during); writeLoads("R-during", 20, 4) }() // while it reconnects and replays
	board := stream(t, srv, sseRequest{token: read, query: sseQuery, vars: map[string]any{"after": last.Cursor}})
	<-during
	mustGQL(t, srv, write, createLoad, createLoadVars("R-live", tn.SubsidiaryID.String(), 1))

	want := loadEventsAfter(t, srv, tn.ID, last.ID)
	if len(want) != 51 {
		t.Fatalf("the outbox holds %d events after the cursor, want 51", len(want))
	}
	var got []sseLoadEvent
	for range want {
		got = append(got, board.loadEvent())
	}
	ids := make([]string, len(got))
	for i, e := range got {
		ids[i] = e.ID
	}
	if strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Fatalf("resumed stream:\n got %v\nwant %v", ids, want)
	}
	mustGQL(t, srv, write, createLoad, createLoadVars("R-after", tn.SubsidiaryID.String(), 1))
	if e := board.loadEvent(); e.Data.Load.LoadNumber != "R-after" {
		t.Fatalf("after the resumed stream came %s", e.Data.Load.LoadNumber)
	}
	if g := srv.GraphQL.Live.Groups(); g != 1 {
		t.Fatalf("%d groups: the resumed stream should share the live execution", g)
	}

	// An EventSource reconnects with GET and Last-Event-ID: the events after
	// that id follow, whatever the query's after: says.
	again := stream(t, srv, sseRequest{method: http.MethodGet, token: read, query: sseQuery,
		vars: map[string]any{"after": last.Cursor}, header: map[string]string{"Last-Event-ID": got[48].Cursor}})
	for _, want := range got[49:] {
		if e := again.loadEvent(); e.ID != want.ID {
			t.Fatalf("after Last-Event-ID came %s, want %s", e.ID, want.ID)
		}
	}
	if e := again.loadEvent(); e.Data.Load.LoadNumber != "R-after" {
		t.Fatalf("then %s, want R-after", e.Data.Load.LoadNumber)
	}
}

// TestSSERefusals: what is refused before the stream starts is a proper
// answer: 401 over HTTP; over the stream, as graphql-sse asks, one result
// with the GraphQL error then complete — missing scope, parse and
// validation errors, bad, foreign and expired cursors. Nothing stays
// subscribed or counted.
func TestSSERefusals(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	a, b := apptest.NewTenant(t, srv, "acme"), apptest.NewTenant(t, srv, "bolt")
	read := srv.Token(t, a, domain.ScopeLoadRead)

	for _, token := range []string{"", "not-a-jwt"} {
		c, res, body := openSSE(t, srv, sseRequest{token: token, query: sseQuery})
		if c != nil || res.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer") ||
			!strings.Contains(string(body), `"UNAUTHENTICATED"`) {
			t.Fatalf("token %q: %d %q %s", token, res.StatusCode, res.Header.Get("WWW-Authenticate"), body)
		}
	}
	stream(t, srv, sseRequest{token: srv.Token(t, a, domain.ScopeTripRead), query: sseQuery}).refusal("FORBIDDEN")
	stream(t, srv, sseRequest{token: read, query: `subscription { loadChanged {`}).refusal("GRAPHQL_PARSE_FAILED")
	stream(t, srv, sseRequest{token: read, query: `subscription { loadChanged { nope } }`}).refusal("GRAPHQL_VALIDATION_FAILED")

	// A cursor of tenant a's, one malformed, one that names no kept event.
	first := stream(t, srv, sseRequest{token: read, query: sseQuery})
	waitSubscribers(t, srv, 1)
	mustGQL(t, srv, writer(t, srv, a), createLoad, createLoadVars("F-1", a.SubsidiaryID.String(), 1))
	ev := first.loadEvent()
	first.close()
	other := srv.Token(t, b, domain.ScopeLoadRead)
	for _, c := range []struct{ token, cursor, code string }{
		{other, ev.Cursor, "BAD_USER_INPUT"},
		{read, "not-a-cursor", "BAD_USER_INPUT"},
		{read, uuid.NewString() + "-0", "CURSOR_EXPIRED"},
		{read, srv.Events.Subscriptions.Cursors.Seal(a.ID, eventlog.Position{Xact: 1, Seq: 999999999}), "CURSOR_EXPIRED"},
	} {
		stream(t, srv, sseRequest{token: c.token, query: sseQuery, vars: map[string]any{"after": c.cursor}}).refusal(c.code)
		stream(t, srv, sseRequest{method: http.MethodGet, token: c.token, query: sseQuery,
			header: map[string]string{"Last-Event-ID": c.cursor}}).refusal(c.code)
	}
	// A mutation over GET is 405, as on /graphql.
	_, res, body := openSSE(t, srv, sseRequest{method: http.MethodGet, token: read, query: `mutation { changeLoadStatus(loadNumber: "F-1", status: Covered) { status } }`})
	if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "POST" {
		t.Fatalf("mutation over GET: %d %s", res.StatusCode, body)
	}
	waitSubscribers(t, srv, 0)
	waitStreams(t, srv, 0)
}

// TestSSEStreamsBounded: at most MaxStreamsPerClient streams per client and
// MaxStreamsPerTenant per tenant on an instance (429 beyond); a stream that
// disconnects frees its place and its group membership.
func TestSSEStreamsBounded(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.SSEMaxStreamsClient, c.SSEMaxStreamsTenant = 2, 3
	}})
	tn, other := apptest.NewTenant(t, srv, "acme"), apptest.NewTenant(t, srv, "bolt")
	one := srv.Token(t, tn, domain.ScopeLoadRead)
	two := srv.Token(t, tn, domain.ScopeLoadRead, domain.ScopeTripRead)
	three := srv.Token(t, tn, domain.ScopeLoadRead, domain.ScopeTripRead, domain.ScopeInvoiceRead)
	refused := func(token, what string) {
		t.Helper()
		c, res, body := openSSE(t, srv, sseRequest{token: token, query: sseQuery})
		if c != nil || res.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(body), `"RATE_LIMITED"`) ||
			!strings.Contains(string(body), what) {
			t.Fatalf("past the %s bound: %d %s", what, res.StatusCode, body)
		}
	}
	a1 := stream(t, srv, sseRequest{token: one, query: sseQuery})
	stream(t, srv, sseRequest{token: one, query: sseQuery})
	refused(one, "per client")
	stream(t, srv, sseRequest{token: two, query: sseQuery})
	refused(three, "per tenant")
	stream(t, srv, sseRequest{token: srv.Token(t, other, domain.ScopeLoadRead), query: sseQuery}) // another tenant's own bound
	waitSubscribers(t, srv, 4)

	a1.close() // a disconnect frees the stream and its place in the group
	waitSubscribers(t, srv, 3)
	waitStreams(t, srv, 3)
	stream(t, srv, sseRequest{token: one, query: sseQuery})
	waitSubscribers(t, srv, 4)
}

// TestSSERateLimitAndCost: every stream is a request charged to the client
// and tenant rate limits, and its operation to the cost budget: 429 with
// Retry-After beyond either, before any stream starts.
func TestSSERateLimitAndCost(t *testing.T) {
	t.Parallel()
	frozen := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.ClientRateLimit = 2
		c.GraphQLCostBudget, c.GraphQLCostRefill = 150, 0.001
		c.RateLimitClock = func() time.Time { return frozen } // no refill during the test
	}})
	tn := apptest.NewTenant(t, srv, "acme")
	limited := func(token, query, what string) {
		t.Helper()
		c, res, body := openSSE(t, srv, sseRequest{token: token, query: query})
		if c != nil || res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" ||
			!strings.Contains(string(body), `"RATE_LIMITED"`) || !strings.Contains(string(body), what) {
			t.Fatalf("want 429 for %s: %d %q %s", what, res.StatusCode, res.Header.Get("Retry-After"), body)
		}
	}
	// Requests: 2 a client, the third stream is refused. (Each costs 1.)
	cheap := `subscription { loadChanged { id } }`
	read := srv.Token(t, tn, domain.ScopeLoadRead)
	for range 2 {
		stream(t, srv, sseRequest{token: read, query: cheap})
	}
	limited(read, cheap, "rate limit")

	// Cost: events with their loads' stops cost 1 + 100 of another
	// client's 150 points; the second stream finds 49.
	costly := srv.Token(t, tn, domain.ScopeLoadRead, domain.ScopeTripRead)
	withStops := `subscription { loadChanged { id data { load { stops { name } } } } }`
	stream(t, srv, sseRequest{token: costly, query: withStops})
	limited(costly, withStops, "the query costs 101")
	waitSubscribers(t, srv, 3)
}

// TestSSELifecycle: a quiet stream carries heartbeat comments (interval
// injected); the token's expiry (timer injected) ends it with
// UNAUTHENTICATED then complete; a client's disconnect frees the stream and
// its group membership; the server's shutdown ends streams without
// complete, so that clients reconnect.
func TestSSELifecycle(t *testing.T) {
	t.Parallel()
	type expiry struct {
		after time.Duration
		fire  func()
	}
	expiries := make(chan expiry, 8)
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.SSEHeartbeat = 20 * time.Millisecond
		c.TokenTTL = time.Hour
		c.TokenExpiryTimer = func(d time.Duration, f func()) func() bool {
			expiries <- expiry{d, f}
			return func() bool { return true }
		}
	}})
	tn := apptest.NewTenant(t, srv, "acme")
	read := srv.Token(t, tn, domain.ScopeLoadRead)
	scheduled := func() expiry {
		t.Helper()
		select {
		case e := <-expiries:
			if e.after <= time.Hour-time.Minute || e.after > time.Hour {
				t.Fatalf("the stream ends %s after it starts, the token lives 1h", e.after)
			}
			return e
		case <-time.After(10 * time.Second):
			t.Fatal("the stream set no expiry timer")
			return expiry{}
		}
	}

	s := stream(t, srv, sseRequest{token: read, query: sseQuery})
	e := scheduled()
	for beats := 0; beats < 2; {
		select {
		case ev := <-s.events:
			if !ev.Comment {
				t.Fatalf("a quiet stream sent %+v", ev)
			}
			beats++
		case <-time.After(10 * time.Second):
			t.Fatal("no heartbeat comment")
		}
	}
	e.fire() // the token expires
	s.refusal("UNAUTHENTICATED")
	waitSubscribers(t, srv, 0)
	waitStreams(t, srv, 0)

	gone := stream(t, srv, sseRequest{token: read, query: sseQuery})
	scheduled()
	waitSubscribers(t, srv, 1)
	gone.close()
	waitSubscribers(t, srv, 0)
	waitStreams(t, srv, 0)

	live := stream(t, srv, sseRequest{token: read, query: sseQuery})
	scheduled()
	waitSubscribers(t, srv, 1)
	srv.GoingAway() // what http.Server.Shutdown runs (RegisterOnShutdown)
	live.ends()
	waitSubscribers(t, srv, 0)
	waitStreams(t, srv, 0)
}

// TestSSESlowConsumerIsCutOff: a client that stops reading is cut off once
// HAULGRAPH_SUBSCRIBER_BUFFER events wait for it — its stream then ends
// with SLOW_CONSUMER and complete once it reads again — while another
// stream of the same group keeps receiving every event.
func TestSSESlowConsumerIsCutOff(t *testing.T) {
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) { c.SubscriberBuffer = 4 }})
	tn := apptest.NewTenant(t, srv, "acme")
	read := srv.Token(t, tn, domain.ScopeLoadRead)
	query := `subscription { loadChanged { id data { load { loadNumber commodity stops { sequence name address { street city state zipCode } } } } } }`
	slow, resume := pausedSSE(t, srv, sseRequest{token: read, query: query})
	fast := stream(t, srv, sseRequest{token: read, query: query})
	waitSubscribers(t, srv, 2)

	write := writer(t, srv, tn)
	mustGQL(t, srv, write, createLoad, createLoadVars("S-1", tn.SubsidiaryID.String(), loads.MaxStops))
	fast.result()
	sent := 1
	for srv.GraphQL.Live.CutOff() == 0 {
		if sent > 300 {
			t.Fatal("the slow stream was never cut off")
		}
		mustGQL(t, srv, write, `mutation($c: String) { updateLoad(loadNumber: "S-1", input: {commodity: $c}) { loadNumber } }`,
			map[string]any{"c": fmt.Sprintf("commodity %d", sent)})
		sent++
		if _, r := fast.result(); !strings.Contains(string(r.Data["loadChanged"]), fmt.Sprintf(`"commodity %d"`, sent-1)) {
			t.Fatalf("fast stream: event %d is %s", sent, r.Data["loadChanged"])
		}
	}
	waitSubscribers(t, srv, 1) // the slow stream left its group at once
	resume()
	for {
		_, r := slow.result()
		if len(r.Errors) > 0 {
			if r.Errors[0].Extensions["code"] != "SLOW_CONSUMER" {
				t.Fatalf("the slow stream ended with %+v", r.Errors)
			}
			break
		}
	}
	slow.completes()
	t.Logf("slow stream cut off after %d events", sent)
}
