package transport_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/loads"
)

// TestSharedExecution: subscribers of one operation (same tenant, scopes,
// text and variables) across connections and both subprotocols cause one
// execution per event, and every one of them receives every event in order.
func TestSharedExecution(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	tn := apptest.NewTenant(t, srv, "acme")
	query := `subscription($f: LoadEventFilter) { loadChanged(filter: $f) { id data { load { loadNumber commodity trips { tripNumber } } } } }`
	vars := map[string]any{"f": map[string]any{"statuses": []string{"Open"}}}
	var conns []*wsClient
	subs := 0
	for i, proto := range []string{"graphql-transport-ws", "graphql-ws", "graphql-transport-ws"} {
		// Different clients of the tenant with the same scopes share.
		w := connect(t, srv, proto, srv.Token(t, tn, domain.ScopeLoadRead))
		conns = append(conns, w)
		for j := range 2 {
			w.subscribe(fmt.Sprintf("s%d-%d", i, j), query, vars)
			subs++
		}
	}
	waitSubscribers(t, srv, int64(subs))
	if g := srv.GraphQL.Live.Groups(); g != 1 {
		t.Fatalf("%d groups for one operation, want 1", g)
	}
	before := srv.GraphQL.Live.Executions()
	write := writer(t, srv, tn)
	const events = 3
	for i := range events {
		mustGQL(t, srv, write, createLoad, createLoadVars(fmt.Sprintf("SH-%d", i), tn.SubsidiaryID.String(), 2))
	}
	// A Covered load is filtered out before any execution.
	mustGQL(t, srv, write, `mutation { changeLoadStatus(loadNumber: "SH-0", status: Covered) { loadNumber } }`, nil)
	mustGQL(t, srv, write, `mutation { updateLoad(loadNumber: "SH-1", input: {commodity: "Steel"}) { loadNumber } }`, nil)
	want := []string{"SH-0/Paper", "SH-1/Paper", "SH-2/Paper", "SH-1/Steel"}
	for _, c := range conns {
		got := map[string][]string{}
		for range 2 * len(want) {
			m := c.read()
			if m.Type != "next" && m.Type != "data" {
				t.Fatalf("want an event, got %s %s", m.Type, m.Payload)
			}
			e := field[loadEventOut](t, field[gqlResponse](t, m.Payload).Data["loadChanged"])
			got[m.ID] = append(got[m.ID], e.Data.Load.LoadNumber+"/"+e.Data.Load.Commodity)
		}
		for id, list := range got {
			if strings.Join(list, " ") != strings.Join(want, " ") {
				t.Fatalf("%s received %v, want %v in commit order", id, list, want)
			}
		}
	}
	if n := srv.GraphQL.Live.Executions() - before; n != int64(len(want)) {
		t.Fatalf("%d executions for %d events and %d subscribers, want %d", n, len(want), subs, len(want))
	}
}

// TestGroupsNeverMix: different scopes, variables or tenants are never one
// group: a subscriber without driver:read never receives bytes built for
// one with it, and tenant B never receives A's events.
func TestGroupsNeverMix(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	a, b := apptest.NewTenant(t, srv, "acme"), apptest.NewTenant(t, srv, "bolt")
	driver := uuid.New()
	if _, err := srv.DB.Pool.Exec(t.Context(), `INSERT INTO drivers (id, tenant_id, name, type) VALUES ($1, $2, 'Secret Sam', 'COMPANY')`, driver, a.ID); err != nil {
		t.Fatal(err)
	}
	query := `subscription($f: LoadEventFilter) { tripChanged(filter: $f) { id data { trip { tripNumber drivers { name } } } } }`
	all := map[string]any{"f": nil}
	wide := connect(t, srv, "graphql-transport-ws", srv.Token(t, a, domain.ScopeTripRead, domain.ScopeDriverRead))
	wide.subscribe("w", query, all)
	narrow := connect(t, srv, "graphql-transport-ws", srv.Token(t, a, domain.ScopeTripRead))
	narrow.subscribe("n", query, all)
	filtered := connect(t, srv, "graphql-transport-ws", srv.Token(t, a, domain.ScopeTripRead))
	filtered.subscribe("f", query, map[string]any{"f": map[string]any{"loadNumbers": []string{"OTHER"}}})
	other := connect(t, srv, "graphql-transport-ws", srv.Token(t, b, domain.ScopeTripRead, domain.ScopeDriverRead))
	other.subscribe("o", query, all)
	waitSubscribers(t, srv, 4)
	if g := srv.GraphQL.Live.Groups(); g != 4 {
		t.Fatalf("%d groups, want 4 (scopes, variables and tenants differ)", g)
	}
	write := writer(t, srv, a)
	r := mustGQL(t, srv, write, createLoad, createLoadVars("MX-1", a.SubsidiaryID.String(), 2))
	trip := field[struct{ Trips []struct{ ID string } }](t, r.Data["createLoad"]).Trips[0].ID
	mustGQL(t, srv, write, `mutation($id: ID!, $d: [ID!]) { updateTrip(id: $id, input: {driverIds: $d}) { id } }`,
		map[string]any{"id": trip, "d": []string{driver.String()}})

	m := wide.read()
	if m.Type != "next" || !strings.Contains(string(m.Payload), "Secret Sam") {
		t.Fatalf("driver:read subscriber: %s %s", m.Type, m.Payload)
	}
	m = narrow.read()
	if m.Type != "next" || strings.Contains(string(m.Payload), "Secret Sam") || !strings.Contains(string(m.Payload), "FORBIDDEN") {
		t.Fatalf("subscriber without driver:read: %s %s", m.Type, m.Payload)
	}
	// The filtered and the other tenant's subscribers got nothing: the next
	// thing each sees is the answer to a query sent now.
	for _, w := range []*wsClient{filtered, other} {
		w.subscribe("q", `query { eventTypes }`, nil)
		if m := w.read(); m.ID != "q" || m.Type != "next" {
			t.Fatalf("unexpected before the query's answer: %s %s %s", m.Type, m.ID, m.Payload)
		}
	}
}

// TestSubscriptionSeesLaterUploads: the documents loader is per event, so a
// subscription receives the documents uploaded after it subscribed.
func TestSubscriptionSeesLaterUploads(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	tn := apptest.NewTenant(t, srv, "acme")
	write := writer(t, srv, tn)
	w := connect(t, srv, "graphql-transport-ws", srv.Token(t, tn, domain.ScopeLoadRead))
	w.subscribe("d", `subscription { loadChanged { data { load { loadNumber documents { attachmentType } } } } }`, nil)
	waitSubscribers(t, srv, 1)
	mustGQL(t, srv, write, createLoad, createLoadVars("DOC-1", tn.SubsidiaryID.String(), 2))
	w.event("d") // the creation, without documents
	for i, typ := range []string{"Proof of Delivery", "Customer Rate Confirmation"} {
		upload(t, srv, write, "DOC-1", typ)
		e := field[struct {
			Data struct {
				Load struct {
					Documents []struct{ AttachmentType string }
				}
			}
		}](t, w.event("d").Data["loadChanged"])
		if len(e.Data.Load.Documents) != i+1 {
			t.Fatalf("after upload %d the event lists %d documents: %+v", i+1, len(e.Data.Load.Documents), e.Data.Load.Documents)
		}
	}
}

func upload(t *testing.T, srv *apptest.Server, token, loadNumber, docType string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("DocumentType", docType)
	f, _ := mw.CreateFormFile("File", "pod.pdf")
	_, _ = f.Write([]byte("%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"))
	_ = mw.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/p/v1/loads/"+loadNumber+"/document", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("upload: %d", res.StatusCode)
	}
}

// TestGroupEventIsOneWritePerConnection: the members of a group on one
// connection get an event's messages in one write(2): the group queues to
// every member before waking any writer.
func TestGroupEventIsOneWritePerConnection(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	tn := apptest.NewTenant(t, srv, "acme")
	w := connect(t, srv, "graphql-transport-ws", srv.Token(t, tn, domain.ScopeLoadRead))
	const subs = 10
	for i := range subs {
		w.subscribe(fmt.Sprintf("s%d", i), `subscription { loadChanged { id } }`, nil)
	}
	waitSubscribers(t, srv, subs)
	live := srv.GraphQL.Live
	write := writer(t, srv, tn)
	// Nothing else waits for the group: it writes the event itself, in
	// passing, rather than waking the connection's writer, unless the
	// socket is busy that instant (a keep-alive ping, a loaded machine's
	// scheduling), when the writer does it, still in one write. So each
	// event must be one write, and of a few events at least one in passing.
	const tries = 10
	for i := range tries {
		writes, frames, passing := live.Writes(), live.Frames(), live.InPassing()
		mustGQL(t, srv, write, createLoad, createLoadVars(fmt.Sprintf("ONE-%d", i), tn.SubsidiaryID.String(), 1))
		for range subs {
			if m := w.read(); m.Type != "next" {
				t.Fatalf("want an event, got %s %s", m.Type, m.Payload)
			}
		}
		if dw, df := live.Writes()-writes, live.Frames()-frames; dw != 1 || df != subs {
			t.Fatalf("%d messages went out in %d writes, want %d in 1", df, dw, subs)
		}
		if live.InPassing()-passing == 1 {
			return
		}
	}
	t.Fatalf("none of %d events was written in passing", tries)
}

// TestWriteInPassingLeavesTheRestToTheWriter: when a client reads slowly
// the socket takes only part of what a group writes in passing; the writer
// sends the rest first, so every message arrives whole and in order.
func TestWriteInPassingLeavesTheRestToTheWriter(t *testing.T) {
	t.Parallel()
	// The client reads nothing while 41 writes go through: a write
	// timeout longer than a loaded machine takes for them, or the server
	// would rightly cut the stalled client first.
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) { c.StreamWriteTimeout = 5 * time.Minute }})
	tn := apptest.NewTenant(t, srv, "acme")
	slow := dialWS(t, srv, "graphql-transport-ws", srv.Token(t, tn, domain.ScopeLoadRead), smallReceiveBuffer())
	if m := slow.read(); m.Type != "connection_ack" {
		t.Fatalf("ack: %s", m.Type)
	}
	slow.subscribe("s", `subscription { loadChanged { data { load { commodity stops { name address { street city } } } } } }`, nil)
	waitSubscribers(t, srv, 1)
	live := srv.GraphQL.Live
	write := writer(t, srv, tn)
	frames := live.Frames()
	// taken waits until the group has handed over its event (the group is
	// then caught up and writes the next one in passing), or until a write
	// in passing was cut short (the writer then holds the rest).
	taken := func() {
		t.Helper()
		frames++
		deadline := time.Now().Add(time.Minute) // only a hang reaches it
		for live.Frames() < frames && live.CutShort() == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("event %d was never taken from the queue", frames)
			}
			time.Sleep(2 * time.Millisecond) // polling server state with a deadline
		}
	}
	mustGQL(t, srv, write, createLoad, createLoadVars("P-1", tn.SubsidiaryID.String(), loads.MaxStops))
	taken()
	// The client reads nothing until every update is written or queued
	// (each about 10 KB; the socket buffers take a fraction).
	const updates = 40
	for i := range updates {
		mustGQL(t, srv, write, `mutation($c: String) { updateLoad(loadNumber: "P-1", input: {commodity: $c}) { loadNumber } }`,
			map[string]any{"c": fmt.Sprintf("commodity %d", i)})
		taken()
	}
	if live.CutShort() == 0 {
		t.Fatal("no write in passing was cut short: the test did not fill the socket")
	}
	type bigEvent struct {
		Data struct {
			Load struct {
				Commodity string
				Stops     []struct{ Name string }
			}
		}
	}
	slow.event("s") // the create
	for i := range updates {
		e := field[bigEvent](t, slow.event("s").Data["loadChanged"])
		if want := fmt.Sprintf("commodity %d", i); e.Data.Load.Commodity != want || len(e.Data.Load.Stops) != loads.MaxStops {
			t.Fatalf("event %d: %q with %d stops, want %q with %d", i, e.Data.Load.Commodity, len(e.Data.Load.Stops), want, loads.MaxStops)
		}
	}
	if n := live.CutOff(); n != 0 {
		t.Fatalf("%d connections cut off", n)
	}
}
