package transport_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/loads"
)

const loadEventFields = `id type timestamp version
	data { load { loadNumber status commodity rate { amount currency } stops { sequence name } }
	       diff { changes { kind target { type id } } previousAttributes } }`

type loadEventOut struct {
	ID, Type, Timestamp, Version string
	Data                         struct {
		Load struct {
			LoadNumber, Status, Commodity string
			Rate                          struct {
				Amount   json.Number
				Currency int
			}
		}
		Diff *struct {
			Changes []struct {
				Kind   string
				Target *struct{ Type, ID string }
			}
			PreviousAttributes map[string]json.RawMessage
		}
	}
}

func (e loadEventOut) kinds() string {
	if e.Data.Diff == nil {
		return "<no diff>"
	}
	var parts []string
	for _, c := range e.Data.Diff.Changes {
		s := c.Kind
		if c.Target != nil {
			s += "(" + c.Target.Type + ":" + c.Target.ID + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ",")
}

const createLoad = `mutation($in: CreateLoadInput!) { createLoad(input: $in) { loadNumber status trips { id } } }`

func createLoadVars(number, subsidiary string, stops int) map[string]any {
	st := make([]map[string]any, stops)
	for i := range st {
		typ := "Pickup"
		if i == stops-1 {
			typ = "Delivery"
		}
		st[i] = map[string]any{"type": typ, "name": fmt.Sprintf("Stop %d with a name long enough to weigh something", i+1),
			"address": map[string]any{"street": "1 Long Industrial Parkway", "city": "Springfield", "state": "IL", "zipCode": "62701"}}
	}
	return map[string]any{"in": map[string]any{"loadNumber": number, "subsidiaryId": subsidiary,
		"rate": map[string]any{"amount": 1500.50}, "commodity": "Paper", "stops": st, "trips": []any{map[string]any{"tripNumber": number + "-T1"}}}}
}

func writer(t *testing.T, srv *apptest.Server, tn apptest.Tenant) string {
	return srv.Token(t, tn, domain.ScopeLoadCreate, domain.ScopeLoadUpdate, domain.ScopeTripUpdate)
}

// TestSubscriptionEventShapes: envelope fields and ids, diff kinds,
// previousAttributes on and off, both subprotocols, transition rejections,
// and silence across tenants.
func TestSubscriptionEventShapes(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	a, b := apptest.NewTenant(t, srv, "acme"), apptest.NewTenant(t, srv, "bolt")
	readA := srv.Token(t, a, domain.ScopeLoadRead, domain.ScopeTripRead)
	writeA := writer(t, srv, a)

	modern := connect(t, srv, "graphql-transport-ws", readA)
	modern.subscribe("changed", `subscription { loadChanged(includePreviousAttributes: true) { `+loadEventFields+` } }`, nil)
	modern.subscribe("status", `subscription($f: LoadEventFilter) { loadStatusChanged(filter: $f) { `+loadEventFields+` } }`,
		map[string]any{"f": map[string]any{"statuses": []string{"Covered"}}})
	legacy := connect(t, srv, "graphql-ws", readA)
	legacy.subscribe("1", `subscription { loadChanged { `+loadEventFields+` } }`, nil)
	other := connect(t, srv, "graphql-transport-ws", srv.Token(t, b, domain.ScopeLoadRead))
	other.subscribe("b", `subscription { loadChanged { id data { load { loadNumber } } } }`, nil)
	waitSubscribers(t, srv, 4)

	mustGQL(t, srv, writeA, createLoad, createLoadVars("A-1", a.SubsidiaryID.String(), 2))
	created := field[loadEventOut](t, modern.event("changed").Data["loadChanged"])
	ts, err := time.Parse(time.RFC3339, created.Timestamp)
	if created.Type != "load.changed" || !strings.HasSuffix(created.ID, "-0") || created.Version != "v1" || err != nil ||
		!strings.HasSuffix(created.Timestamp, "+00:00") || time.Since(ts) > time.Minute || created.Data.Diff != nil ||
		created.Data.Load.LoadNumber != "A-1" || created.Data.Load.Rate.Amount != "1500.5" {
		t.Fatalf("creation event: %+v", created)
	}
	if e := field[loadEventOut](t, legacy.event("1").Data["loadChanged"]); e.ID != created.ID {
		t.Fatalf("legacy subscriber got %s, want %s", e.ID, created.ID)
	}

	// Status change: load.changed (-0, StatusChanged, previous Open) and
	// load.status.changed (-1, same uuid, no diff).
	mustGQL(t, srv, writeA, `mutation { changeLoadStatus(loadNumber: "A-1", status: Covered) { status } }`, nil)
	// Two operations of one connection: their order on the wire is free.
	both := modern.events(2)
	changed := field[loadEventOut](t, both["changed"].Data["loadChanged"])
	status := field[loadEventOut](t, both["status"].Data["loadStatusChanged"])
	uuid := strings.TrimSuffix(changed.ID, "-0")
	if changed.kinds() != "StatusChanged" || string(changed.Data.Diff.PreviousAttributes["Status"]) != `"Open"` ||
		status.ID != uuid+"-1" || status.Type != "load.status.changed" || status.Data.Diff != nil || status.Data.Load.Status != "Covered" {
		t.Fatalf("status events: %+v / %+v", changed, status)
	}
	legacyChanged := field[loadEventOut](t, legacy.event("1").Data["loadChanged"])
	if legacyChanged.ID != changed.ID || legacyChanged.kinds() != "StatusChanged" || legacyChanged.Data.Diff.PreviousAttributes != nil {
		t.Fatalf("without includePreviousAttributes: %+v", legacyChanged)
	}

	// Rate and another field: RateChanged + FieldChanged(Commodity); no status event.
	mustGQL(t, srv, writeA, `mutation { updateLoad(loadNumber: "A-1", input: {rate: {amount: 1750}, commodity: "Steel"}) { loadNumber } }`, nil)
	upd := field[loadEventOut](t, modern.event("changed").Data["loadChanged"])
	if upd.kinds() != "RateChanged,FieldChanged(Field:Commodity)" || upd.Data.Load.Rate.Amount != "1750" ||
		string(upd.Data.Diff.PreviousAttributes["Commodity"]) != `"Paper"` ||
		string(upd.Data.Diff.PreviousAttributes["Rate"]) != `{"Amount":1500.5,"Currency":840}` {
		t.Fatalf("update event: %+v %s", upd, upd.Data.Diff.PreviousAttributes["Rate"])
	}
	if e := field[loadEventOut](t, legacy.event("1").Data["loadChanged"]); e.kinds() != upd.kinds() || e.Data.Diff.PreviousAttributes != nil {
		t.Fatalf("legacy update event: %+v", e)
	}

	// Rejected transitions: BAD_USER_INPUT naming the allowed next states; no event.
	r := gql(t, srv.URL, writeA, `mutation { changeLoadStatus(loadNumber: "A-1", status: Delivered) { status } }`, nil)
	if len(r.Errors) != 1 || r.Errors[0].Extensions["code"] != "BAD_USER_INPUT" ||
		!strings.Contains(r.Errors[0].Message, "allowed next statuses: Open, Dispatched, Cancelled") {
		t.Fatalf("Covered → Delivered: %+v", r.Errors)
	}
	mustGQL(t, srv, writeA, createLoad, createLoadVars("A-2", a.SubsidiaryID.String(), 1))
	mustGQL(t, srv, writeA, `mutation { changeLoadStatus(loadNumber: "A-2", status: Quoted) { status } }`, nil)
	r = gql(t, srv.URL, writeA, `mutation { changeLoadStatus(loadNumber: "A-2", status: Cancelled) { status } }`, nil)
	if len(r.Errors) != 1 || r.Errors[0].Extensions["code"] != "BAD_USER_INPUT" || !strings.Contains(r.Errors[0].Message, "Open, Reserved, Covered") {
		t.Fatalf("Quoted → Cancelled: %+v", r.Errors)
	}
	// A token without load:update is refused.
	r = gql(t, srv.URL, readA, `mutation { changeLoadStatus(loadNumber: "A-2", status: Open) { status } }`, nil)
	if len(r.Errors) != 1 || r.Errors[0].Extensions["code"] != "FORBIDDEN" {
		t.Fatalf("read-only token wrote: %+v", r.Errors)
	}
	// Next events on A: A-2's creation and its Open → Quoted; nothing from the refusals.
	if e := field[loadEventOut](t, modern.event("changed").Data["loadChanged"]); e.Data.Load.LoadNumber != "A-2" || e.Data.Diff != nil {
		t.Fatalf("A-2 creation: %+v", e)
	}
	if e := field[loadEventOut](t, modern.event("changed").Data["loadChanged"]); e.kinds() != "StatusChanged" || e.Data.Load.Status != "Quoted" {
		t.Fatalf("A-2 Quoted: %+v", e)
	}

	// Tenant B saw none of A's events: its first event is its own write. The
	// status filter (Covered only) skipped A-2's Quoted.
	mustGQL(t, srv, writer(t, srv, b), createLoad, createLoadVars("B-1", b.SubsidiaryID.String(), 1))
	if e := field[loadEventOut](t, other.event("b").Data["loadChanged"]); e.Data.Load.LoadNumber != "B-1" {
		t.Fatalf("tenant B received %+v", e)
	}
	mustGQL(t, srv, writeA, `mutation { changeLoadStatus(loadNumber: "A-2", status: Covered) { status } }`, nil)
	if e := field[loadEventOut](t, modern.events(2)["status"].Data["loadStatusChanged"]); e.Data.Load.LoadNumber != "A-2" {
		t.Fatalf("status filter: %+v", e)
	}
}

// TestTripChangedSubscription: trip.changed carries the trip, its load and a
// FieldChanged diff; it needs trip:read.
func TestTripChangedSubscription(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	a := apptest.NewTenant(t, srv, "acme")
	driver := "6f1c2b0e-0000-4000-8000-000000000001"
	if _, err := srv.DB.Pool.Exec(t.Context(), `INSERT INTO drivers (id, tenant_id, name, type) VALUES ($1, $2, 'Dana', 'COMPANY')`, driver, a.ID); err != nil {
		t.Fatal(err)
	}
	w := connect(t, srv, "graphql-transport-ws", srv.Token(t, a, domain.ScopeTripRead, domain.ScopeDriverRead))
	// drivers is a relation field: resolved per event through dataloaders.
	w.subscribe("t", `subscription { tripChanged(includePreviousAttributes: true) { id type data { trip { id driverIds drivers { name } } load { loadNumber }
		diff { changes { kind target { id } } previousAttributes } } } }`, nil)
	waitSubscribers(t, srv, 1)
	writeA := writer(t, srv, a)
	created := mustGQL(t, srv, writeA, createLoad, createLoadVars("T-1", a.SubsidiaryID.String(), 1))
	trip := field[struct{ Trips []struct{ ID string } }](t, created.Data["createLoad"]).Trips[0].ID
	mustGQL(t, srv, writeA, `mutation($id: ID!, $d: [ID!]) { updateTrip(id: $id, input: {driverIds: $d}) { id driverIds } }`,
		map[string]any{"id": trip, "d": []string{driver}})
	got := string(w.event("t").Data["tripChanged"])
	for _, want := range []string{`"type":"trip.changed"`, `"driverIds":["` + driver + `"]`, `"drivers":[{"name":"Dana"}]`, `"loadNumber":"T-1"`,
		`"changes":[{"kind":"FieldChanged","target":{"id":"DriverIds"}}]`, `"previousAttributes":{"DriverIds":[]}`} {
		if !strings.Contains(got, want) {
			t.Fatalf("trip event %s lacks %s", got, want)
		}
	}
	// Another tenant's driver is refused.
	b := apptest.NewTenant(t, srv, "bolt")
	bDriver := "6f1c2b0e-0000-4000-8000-000000000002"
	if _, err := srv.DB.Pool.Exec(t.Context(), `INSERT INTO drivers (id, tenant_id, name, type) VALUES ($1, $2, 'Bo', 'COMPANY')`, bDriver, b.ID); err != nil {
		t.Fatal(err)
	}
	r := gql(t, srv.URL, writeA, `mutation($id: ID!, $d: [ID!]) { updateTrip(id: $id, input: {driverIds: $d}) { id } }`,
		map[string]any{"id": trip, "d": []string{bDriver}})
	if len(r.Errors) != 1 || r.Errors[0].Extensions["code"] != "BAD_USER_INPUT" {
		t.Fatalf("other tenant's driver: %+v", r.Errors)
	}
}

// TestSubscriptionAcrossInstances: two servers on one database behave as
// one: a write through B reaches a subscriber on A.
func TestSubscriptionAcrossInstances(t *testing.T) {
	t.Parallel()
	a := apptest.Start(t, apptest.Options{})
	b := apptest.Start(t, apptest.Options{DatabaseURL: a.Config.DatabaseURL})
	tn := apptest.NewTenant(t, a, "acme")
	w := connect(t, a, "graphql-transport-ws", a.Token(t, tn, domain.ScopeLoadRead))
	w.subscribe("x", `subscription { loadChanged { id data { load { loadNumber } } } }`, nil)
	waitSubscribers(t, a, 1)
	mustGQL(t, b, writer(t, b, tn), createLoad, createLoadVars("X-1", tn.SubsidiaryID.String(), 1))
	if e := field[loadEventOut](t, w.event("x").Data["loadChanged"]); e.Data.Load.LoadNumber != "X-1" {
		t.Fatalf("subscriber on A got %+v", e)
	}
	if b.Events.Hub.Subscribers() != 0 {
		t.Fatal("B should hold no subscriber")
	}
}

// TestSubscriptionAuth: no token → 4401 at connection_init; a token without
// the scope → an error for that operation only (the connection and its
// other subscriptions stay open); an expired token closes the socket with
// 4401. The expiry timer is injected: the test checks it is set to the
// token's lifetime and fires it, instead of waiting for a token to expire.
func TestSubscriptionAuth(t *testing.T) {
	t.Parallel()
	type expiry struct {
		after time.Duration
		fire  func()
	}
	expiries := make(chan expiry, 8)
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.TokenTTL = time.Hour
		c.TokenExpiryTimer = func(d time.Duration, f func()) func() bool {
			expiries <- expiry{d, f}
			return func() bool { return true }
		}
	}})
	tn := apptest.NewTenant(t, srv, "acme")

	if code := dialWS(t, srv, "graphql-transport-ws", "", nil).closeCode(); code != 4401 {
		t.Fatalf("no token: close %d", code)
	}
	if code := dialWS(t, srv, "graphql-transport-ws", "not-a-jwt", nil).closeCode(); code != 4401 {
		t.Fatalf("bad token: close %d", code)
	}
	noScope := connect(t, srv, "graphql-transport-ws", srv.Token(t, tn, domain.ScopeTripRead))
	noScope.subscribe("trips", `subscription { tripChanged { id } }`, nil)
	noScope.subscribe("loads", `subscription { loadChanged { id } }`, nil)
	if m := noScope.read(); m.Type != "error" || m.ID != "loads" || !strings.Contains(string(m.Payload), `"FORBIDDEN"`) {
		t.Fatalf("missing load:read: %s %s %s", m.Type, m.ID, m.Payload)
	}
	waitSubscribers(t, srv, 1)                                             // the trip subscription lives on
	noScope.subscribe("loads", `subscription { loadChanged { id } }`, nil) // the id is free again
	if m := noScope.read(); m.Type != "error" || m.ID != "loads" {
		t.Fatalf("second refusal: %s %s %s", m.Type, m.ID, m.Payload)
	}
	if srv.GraphQL.Live.Members() != 1 {
		t.Fatalf("%d subscribers, want the trip subscription", srv.GraphQL.Live.Members())
	}
	noScope.send(wsMsg{ID: "trips", Type: "complete"})
	waitSubscribers(t, srv, 0)

	scheduled := func() expiry {
		select {
		case e := <-expiries:
			return e
		case <-time.After(10 * time.Second):
			t.Fatal("connection_init set no expiry timer")
			return expiry{}
		}
	}
	scheduled() // the noScope connection's
	for _, proto := range []string{"graphql-transport-ws", "graphql-ws"} {
		w := connect(t, srv, proto, srv.Token(t, tn, domain.ScopeLoadRead))
		w.subscribe("1", `subscription { loadChanged { id } }`, nil)
		e := scheduled()
		if e.after <= time.Hour-time.Minute || e.after > time.Hour {
			t.Fatalf("%s: the connection ends %s after connection_init, the token lives 1h", proto, e.after)
		}
		e.fire() // the token expires
		if code := w.closeCode(); code != 4401 {
			t.Fatalf("%s: token expiry: close %d", proto, code)
		}
	}
}

// TestSlowSubscriberIsCutOff: a client that stops reading is disconnected
// (policy violation) once its bounded buffer overflows, while another
// subscriber keeps receiving every event.
func TestSlowSubscriberIsCutOff(t *testing.T) {
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) { c.SubscriberBuffer = 4 }})
	tn := apptest.NewTenant(t, srv, "acme")
	read := srv.Token(t, tn, domain.ScopeLoadRead)
	query := `subscription { loadChanged { id data { load { loadNumber commodity stops { sequence name address { street city state zipCode } } } } } }`

	slow := dialWS(t, srv, "graphql-transport-ws", read, smallReceiveBuffer())
	if m := slow.read(); m.Type != "connection_ack" {
		t.Fatalf("slow: %s", m.Type)
	}
	slow.subscribe("s", query, nil)
	fast := connect(t, srv, "graphql-transport-ws", read)
	fast.subscribe("f", query, nil)
	waitSubscribers(t, srv, 2)

	write := writer(t, srv, tn)
	mustGQL(t, srv, write, createLoad, createLoadVars("S-1", tn.SubsidiaryID.String(), loads.MaxStops))
	fast.event("f")
	sent := 1
	for srv.GraphQL.Live.CutOff() == 0 {
		if sent > 200 {
			t.Fatal("the slow subscriber was never cut off")
		}
		mustGQL(t, srv, write, `mutation($c: String) { updateLoad(loadNumber: "S-1", input: {commodity: $c}) { loadNumber } }`,
			map[string]any{"c": fmt.Sprintf("commodity %d", sent)})
		sent++
		if e := field[loadEventOut](t, fast.event("f").Data["loadChanged"]); e.Data.Load.Commodity != fmt.Sprintf("commodity %d", sent-1) {
			t.Fatalf("fast subscriber: event %d is %q", sent, e.Data.Load.Commodity)
		}
	}
	// 1008 when the close frame still fits the slow client's socket; when
	// the cut came from a write that timed out on a full socket, the frame
	// cannot reach it and the client sees the TCP close (1006).
	if code := slow.closeCode(); code != 1008 && code != 1006 {
		t.Fatalf("slow subscriber closed with %d, want 1008 (or 1006 behind a full socket)", code)
	}
	// The fast one is unaffected.
	mustGQL(t, srv, write, `mutation { updateLoad(loadNumber: "S-1", input: {commodity: "after"}) { loadNumber } }`, nil)
	if e := field[loadEventOut](t, fast.event("f").Data["loadChanged"]); e.Data.Load.Commodity != "after" {
		t.Fatalf("fast subscriber after the cut: %+v", e)
	}
	t.Logf("slow subscriber cut off after %d events of ~%d bytes", sent, 100*120)
}

// TestSubscriptionsPerConnectionBounded: one connection holds at most 100
// subscriptions; completing one frees its slot.
func TestSubscriptionsPerConnectionBounded(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	tn := apptest.NewTenant(t, srv, "acme")
	w := connect(t, srv, "graphql-transport-ws", srv.Token(t, tn, domain.ScopeLoadRead))
	for i := 0; i < 100; i++ {
		w.subscribe(fmt.Sprint(i), `subscription { loadChanged { id } }`, nil)
	}
	waitSubscribers(t, srv, 100)
	w.subscribe("extra", `subscription { loadChanged { id } }`, nil)
	m := w.read()
	if m.ID != "extra" || (m.Type != "error" && m.Type != "next") || !strings.Contains(string(m.Payload), "at most 100 subscriptions per connection") {
		t.Fatalf("101st subscription: %s %s %s", m.Type, m.ID, m.Payload)
	}
	for m.Type != "complete" && m.Type != "error" { // graphql-transport-ws ends the refused operation
		m = w.read()
	}
	w.send(wsMsg{ID: "0", Type: "complete"})
	waitSubscribers(t, srv, 99)
	w.subscribe("again", `subscription { loadChanged { id } }`, nil)
	waitSubscribers(t, srv, 100)
}

// TestSilentClientIsCutOffAsSlow: a client that answers no ping (one too
// far behind to read); after two keep-alive intervals (and the write timeout) the server
// cuts it off with 1008, as a slow consumer, so that it resumes with after:
// instead of taking a normal close (1000) for "nothing was missed".
// Both intervals are short here so that the cut comes within a second
// rather than after the default 10 s write timeout.
func TestSilentClientIsCutOffAsSlow(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.WebsocketKeepAlive, c.StreamWriteTimeout = 20*time.Millisecond, 500*time.Millisecond
	}})
	tn := apptest.NewTenant(t, srv, "acme")
	silent := connect(t, srv, "graphql-transport-ws", srv.Token(t, tn, domain.ScopeLoadRead))
	silent.c.SetPingHandler(func(string) error { return nil }) // answers no ping, as a client too busy to read
	silent.subscribe("s", `subscription { loadChanged { id } }`, nil)
	waitSubscribers(t, srv, 1)
	// The server drops the subscription when it cuts the connection.
	deadline := time.Now().Add(30 * time.Second)
	for srv.GraphQL.Live.Members() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("a client that answers no ping was never cut off")
		}
		time.Sleep(5 * time.Millisecond) // polling server state with a deadline
	}
	if code := silent.closeCode(); code != 1008 {
		t.Fatalf("the silent client was closed with %d, want 1008", code)
	}
}
