package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/testkit"
)

// eventsEnv is one instance with tenant acme (two subsidiaries) whose writes
// produced events that two webhooks received, and tenant globex.
type eventsEnv struct {
	srv          *apptest.Server
	oas          *openAPIChecker
	acme, globex apptest.Tenant
	otherSub     uuid.UUID
	// ids are acme's main-subsidiary events in commit order; plain and
	// previous are the bodies the two webhooks received, by event id.
	ids             []string
	types           []string
	plain, previous map[string][]byte
	// otherID is the event of acme's second subsidiary (load E-2), written
	// after ids; globexID is globex's only event.
	otherID, globexID string
}

func newEventsEnv(t *testing.T) *eventsEnv {
	t.Helper()
	srv := apptest.Start(t, apptest.Options{})
	e := &eventsEnv{srv: srv, oas: newOpenAPIChecker(t, srv.URL), acme: apptest.NewTenant(t, srv, "acme"),
		globex: apptest.NewTenant(t, srv, "globex"), otherSub: uuid.New()}
	execSQL(t, srv, "INSERT INTO subsidiaries (id, tenant_id, name) VALUES (?, ?, 'acme East')", e.otherSub, e.acme.ID)
	truck := uuid.New()
	execSQL(t, srv, "INSERT INTO trucks (id, tenant_id, number) VALUES (?, ?, 'TR-9')", truck, e.acme.ID)

	manage := srv.Token(t, e.acme, domain.ScopeWebhookManage)
	rc := newReceiver(t)
	all := []string{"load.changed", "load.status.changed", "trip.changed"}
	_, plainSecret := activeWebhook(t, srv, manage, rc.URL+"/plain", e.acme.SubsidiaryID, all, false)
	_, prevSecret := activeWebhook(t, srv, manage, rc.URL+"/previous", e.acme.SubsidiaryID, all, true)

	write := srv.Token(t, e.acme, domain.ScopeLoadCreate, domain.ScopeLoadUpdate, domain.ScopeTripUpdate)
	stops := []map[string]any{{"type": "Pickup", "name": "A"}, {"type": "Delivery", "name": "B"}}
	created := gqlData(t, srv, write, `mutation($in: CreateLoadInput!) { createLoad(input: $in) { trips { id } } }`,
		map[string]any{"in": map[string]any{"loadNumber": "E-1", "subsidiaryId": e.acme.SubsidiaryID, "stops": stops,
			"rate": map[string]any{"amount": 1200.5}, "trips": []map[string]any{{"tripNumber": "T-1"}}}})
	var load struct{ Trips []struct{ ID string } }
	if err := json.Unmarshal(created["createLoad"], &load); err != nil || len(load.Trips) != 1 {
		t.Fatalf("createLoad: %s", created["createLoad"])
	}
	gqlData(t, srv, write, `mutation { updateLoad(loadNumber: "E-1", input: {rate: {amount: 1350}}) { loadNumber } }`, nil)
	gqlData(t, srv, write, `mutation { changeLoadStatus(loadNumber: "E-1", status: Covered) { status } }`, nil)
	gqlData(t, srv, write, `mutation($id: ID!, $truck: ID!) { updateTrip(id: $id, input: {truckId: $truck}) { id } }`,
		map[string]any{"id": load.Trips[0].ID, "truck": truck})
	e.types = []string{"load.changed", "load.changed", "load.changed", "load.status.changed", "trip.changed"}

	got := rc.collect(t, 2*len(e.types), map[string]string{"/plain": plainSecret, "/previous": prevSecret})
	e.plain, e.previous = got["/plain"], got["/previous"]
	if len(e.plain) != len(e.types) || len(e.previous) != len(e.types) {
		t.Fatalf("deliveries: %d plain, %d with previous attributes", len(e.plain), len(e.previous))
	}

	// Another subsidiary's load (no webhook there) and globex's own load.
	gqlData(t, srv, write, `mutation($in: CreateLoadInput!) { createLoad(input: $in) { loadNumber } }`,
		map[string]any{"in": map[string]any{"loadNumber": "E-2", "subsidiaryId": e.otherSub, "stops": stops}})
	gwrite := srv.Token(t, e.globex, domain.ScopeLoadCreate)
	gqlData(t, srv, gwrite, `mutation($in: CreateLoadInput!) { createLoad(input: $in) { loadNumber } }`,
		map[string]any{"in": map[string]any{"loadNumber": "G-1", "subsidiaryId": e.globex.SubsidiaryID, "stops": stops}})

	// Outbox order is (xact, seq) (0010_outbox_horizon.sql).
	e.ids = eventIDs(t, srv, "subsidiary_id = ?", e.acme.SubsidiaryID)
	if others := eventIDs(t, srv, "subsidiary_id = ?", e.otherSub); len(others) == 1 {
		e.otherID = others[0]
	}
	if len(e.ids) != len(e.types) || e.otherID == "" {
		t.Fatalf("outbox: %v and %q", e.ids, e.otherID)
	}
	// Events are listed once final (no older transaction open, 0010): the
	// instance's own workers may hold the horizon back for a moment.
	waitFinal(t, srv)
	return e
}

// waitFinal waits until every event in the outbox is final.
func waitFinal(t *testing.T, srv *apptest.Server) {
	t.Helper()
	eventually(t, "every event final", func() bool {
		var held bool
		err := srv.DB.Pool.QueryRow(context.Background(), "SELECT EXISTS (SELECT 1 FROM events WHERE xact >= pg_snapshot_xmin(pg_current_snapshot()))").Scan(&held)
		return err == nil && !held
	})
}

// eventIDs reads the outbox's event ids matching where, in outbox order.
func eventIDs(t *testing.T, srv *apptest.Server, where string, args ...any) []string {
	t.Helper()
	var out []string
	if err := srv.DB.Bun.NewSelect().Table("events").Column("id").Where(where, args...).Order("xact", "seq").
		Scan(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// get calls the events route with token, checks the answer against the
// OpenAPI document and returns it.
func (e *eventsEnv) get(t *testing.T, path, token string) (*http.Response, []byte) {
	t.Helper()
	h := map[string]string{}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	res, b := testkit.Request(t, "GET", e.srv.URL+path, h, "")
	e.oas.check(t, "GET", e.srv.URL+path, "", "", res, b)
	return res, b
}

// list decodes a 200 answer into its raw envelopes.
func list(t *testing.T, res *http.Response, body []byte) []json.RawMessage {
	t.Helper()
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("%s: %d %s %s", res.Request.URL, res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	var out []json.RawMessage
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return out
}

func idOf(t *testing.T, env json.RawMessage) string {
	t.Helper()
	var e struct{ ID string }
	if err := json.Unmarshal(env, &e); err != nil {
		t.Fatal(err)
	}
	return e.ID
}

func ids(t *testing.T, envs []json.RawMessage) []string {
	out := make([]string, len(envs))
	for i, e := range envs {
		out[i] = idOf(t, e)
	}
	return out
}

var linkNext = regexp.MustCompile(`^<([^>]+)>; rel="next"$`)

func TestEventsAPI(t *testing.T) {
	e := newEventsEnv(t)
	reader := e.srv.Token(t, e.acme, domain.ScopeLoadRead, domain.ScopeTripRead)

	t.Run("same envelopes as the webhook deliveries, oldest first", func(t *testing.T) {
		for _, v := range versions {
			res, body := e.get(t, "/api/p/"+v+"/events?subsidiaryId="+e.acme.SubsidiaryID.String(), reader)
			envs := list(t, res, body)
			if len(envs) != len(e.types) {
				t.Fatalf("%s: %d events, want %d: %s", v, len(envs), len(e.types), body)
			}
			if got := ids(t, envs); !slices.Equal(got, e.ids) {
				t.Fatalf("%s: %v, want commit order %v", v, got, e.ids)
			}
			for i, env := range envs {
				var h struct{ Type string }
				_ = json.Unmarshal(env, &h)
				if h.Type != e.types[i] {
					t.Fatalf("event %d is %s, want %s (commit order)", i, h.Type, e.types[i])
				}
				delivered, ok := e.plain[e.ids[i]]
				if !ok {
					t.Fatalf("event %s was not delivered", e.ids[i])
				}
				// The data member byte for byte, and indeed the whole envelope.
				if !bytes.Equal(dataOf(t, env), dataOf(t, delivered)) || !bytes.Equal(env, delivered) {
					t.Fatalf("event %s:\n api      %s\n delivery %s", e.ids[i], env, delivered)
				}
			}
			if bytes.Contains(body, []byte("previousAttributes")) || !bytes.Contains(body, []byte(`"diff"`)) {
				t.Fatalf("data.diff without previousAttributes expected: %s", body)
			}
		}
		res, body := e.get(t, "/api/p/v1/events?includePreviousAttributes=true&subsidiaryId="+e.acme.SubsidiaryID.String(), reader)
		envs := list(t, res, body)
		for i, env := range envs {
			if !bytes.Equal(env, e.previous[e.ids[i]]) {
				t.Fatalf("event %s with previous attributes:\n api      %s\n delivery %s", e.ids[i], env, e.previous[e.ids[i]])
			}
		}
		if !bytes.Contains(body, []byte(`"previousAttributes"`)) {
			t.Fatalf("includePreviousAttributes=true: %s", body)
		}
	})

	t.Run("pages with Link rel=next", func(t *testing.T) {
		var seen []string
		path := "/api/p/v2.0/events?limit=2&type=load.changed&type=load.status.changed,trip.changed"
		for pages := 0; path != ""; pages++ {
			if pages > 5 {
				t.Fatal("paging does not end")
			}
			res, body := e.get(t, path, reader)
			envs := list(t, res, body)
			if len(envs) > 2 {
				t.Fatalf("limit=2 answered %d", len(envs))
			}
			seen = append(seen, ids(t, envs)...)
			path = ""
			if l := res.Header.Get("Link"); l != "" {
				m := linkNext.FindStringSubmatch(l)
				if m == nil || !strings.Contains(m[1], "limit=2") || !strings.Contains(m[1], "type=") {
					t.Fatalf("Link %q", l)
				}
				path = m[1]
			}
		}
		if want := append(slices.Clone(e.ids), e.otherID); !slices.Equal(seen, want) {
			t.Fatalf("pages %v, want %v", seen, want)
		}

		// after an event id (Stripe's starting_after) and after a cursor.
		res, body := e.get(t, "/api/p/v1/events?after="+e.ids[2], reader)
		if got := ids(t, list(t, res, body)); !slices.Equal(got, []string{e.ids[3], e.ids[4], e.otherID}) {
			t.Fatalf("after %s: %v", e.ids[2], got)
		}
		res, _ = e.get(t, "/api/p/v1/events?limit=1", reader)
		m := linkNext.FindStringSubmatch(res.Header.Get("Link"))
		if m == nil {
			t.Fatalf("no Link after a full page: %v", res.Header)
		}
		u, _ := url.Parse(m[1])
		res, body = e.get(t, "/api/p/v1/events?limit=1&after="+url.QueryEscape(u.Query().Get("after")), reader)
		if got := ids(t, list(t, res, body)); !slices.Equal(got, e.ids[1:2]) {
			t.Fatalf("after the first cursor: %v", got)
		}
		// The last page has no next link.
		res, body = e.get(t, "/api/p/v1/events?after="+e.otherID, reader)
		if got := list(t, res, body); len(got) != 0 || res.Header.Get("Link") != "" {
			t.Fatalf("after the newest: %s, Link %q", body, res.Header.Get("Link"))
		}
	})

	t.Run("filters", func(t *testing.T) {
		for _, c := range []struct {
			query string
			want  []string
		}{
			{"type=trip.changed", e.ids[4:5]},
			{"type=load.status.changed", e.ids[3:4]},
			{"loadNumber=E-1", e.ids},
			{"loadNumber=E-2", []string{e.otherID}},
			{"loadNumber=NOPE", []string{}},
			{"subsidiaryId=" + e.otherSub.String(), []string{e.otherID}},
			{"subsidiaryId=" + e.globex.SubsidiaryID.String(), []string{}},
			{"type=load.changed&loadNumber=E-1&limit=100", e.ids[:3]},
			{"since=" + url.QueryEscape(time.Now().Add(time.Hour).Format(time.RFC3339)), []string{}},
			{"since=2020-01-01T00:00:00Z", append(slices.Clone(e.ids), e.otherID)},
		} {
			res, body := e.get(t, "/api/p/v1/events?"+c.query, reader)
			if got := ids(t, list(t, res, body)); !slices.Equal(got, c.want) {
				t.Errorf("%s: %v, want %v", c.query, got, c.want)
			}
		}
	})

	t.Run("scopes per event type", func(t *testing.T) {
		loads := e.srv.Token(t, e.acme, domain.ScopeLoadRead)
		res, body := e.get(t, "/api/p/v1/events?loadNumber=E-1", loads)
		if got := ids(t, list(t, res, body)); !slices.Equal(got, e.ids[:4]) {
			t.Fatalf("load:read sees %v, want the load events %v", got, e.ids[:4])
		}
		res, body = e.get(t, "/api/p/v1/events?type=trip.changed", loads)
		wantProblem(t, res, body, http.StatusForbidden)
		if h := res.Header.Get("WWW-Authenticate"); !strings.Contains(h, `scope="trip:read"`) {
			t.Fatalf("WWW-Authenticate %q", h)
		}
		trips := e.srv.Token(t, e.acme, domain.ScopeTripRead)
		res, body = e.get(t, "/api/p/v1/events", trips)
		if got := ids(t, list(t, res, body)); !slices.Equal(got, e.ids[4:5]) {
			t.Fatalf("trip:read sees %v", got)
		}
		res, body = e.get(t, "/api/p/v1/events?type=load.changed", trips)
		wantProblem(t, res, body, http.StatusForbidden)
		res, body = e.get(t, "/api/p/v1/events", e.srv.Token(t, e.acme, domain.ScopeInvoiceRead))
		wantProblem(t, res, body, http.StatusForbidden)
		res, body = e.get(t, "/api/p/v1/events", "")
		wantProblem(t, res, body, http.StatusUnauthorized)
	})

	t.Run("tenants", func(t *testing.T) {
		globex := e.srv.Token(t, e.globex, domain.ScopeLoadRead, domain.ScopeTripRead)
		res, body := e.get(t, "/api/p/v1/events", globex)
		got := list(t, res, body)
		if len(got) != 1 || bytes.Contains(body, []byte("E-1")) || !bytes.Contains(body, []byte(`"G-1"`)) {
			t.Fatalf("globex sees %s", body)
		}
		// acme's event id is to globex as one that never existed: gone, the
		// same answer (TestEventsCursorExpired).
		res, body = e.get(t, "/api/p/v1/events?after="+e.ids[0], globex)
		foreign := wantProblem(t, res, body, http.StatusGone)
		res, body = e.get(t, "/api/p/v1/events?after="+uuid.NewString()+"-0", globex)
		if never := wantProblem(t, res, body, http.StatusGone); never.Detail != foreign.Detail || len(never.Errors["after"]) == 0 {
			t.Fatalf("acme's id %+v, an unknown id %+v", foreign, never)
		}
		res, body = e.get(t, "/api/p/v1/events?loadNumber=E-1", globex)
		if len(list(t, res, body)) != 0 {
			t.Fatalf("globex filtering by acme's load: %s", body)
		}
	})

	t.Run("rejections", func(t *testing.T) {
		for _, c := range []struct{ query, field string }{
			{"limit=0", "limit"}, {"limit=101", "limit"}, {"limit=ten", "limit"},
			{"type=load.deleted", "type"}, {"after=not-a-cursor", "after"},
			{"since=yesterday", "since"}, {"since=2020-01-01", "since"}, {"includePreviousAttributes=perhaps", "includePreviousAttributes"},
			{"subsidiaryId=main", "subsidiaryId"}, {"loadNumber=" + strings.Repeat("x", 65), "loadNumber"},
		} {
			res, body := e.get(t, "/api/p/v1/events?"+c.query, reader)
			wantFieldError(t, res, body, c.field)
		}
		res, body := e.get(t, "/api/p/v3/events", reader)
		wantProblem(t, res, body, http.StatusNotFound)
	})

	t.Run("GraphQL events connection", func(t *testing.T) {
		q := `query($first: Int, $after: String, $types: [String!], $load: String, $prev: Boolean) {
			events(first: $first, after: $after, types: $types, loadNumber: $load, includePreviousAttributes: $prev) {
				edges { cursor node { __typename
					... on LoadEvent { id type timestamp version data { load { loadNumber status } diff { changes { kind } previousAttributes } } }
					... on TripEvent { id type timestamp version data { trip { id } load { loadNumber } diff { changes { kind } previousAttributes } } } } }
				pageInfo { hasNextPage endCursor } } }`
		type conn struct {
			Edges []struct {
				Cursor string
				Node   struct {
					Typename                     string `json:"__typename"`
					ID, Type, Timestamp, Version string
					Data                         struct {
						Load struct{ LoadNumber string }
						Diff *struct {
							Changes            []struct{ Kind string }
							PreviousAttributes map[string]any
						}
					}
				}
			}
			PageInfo struct {
				HasNextPage bool
				EndCursor   string
			}
		}
		run := func(token string, vars map[string]any) conn {
			var c conn
			if err := json.Unmarshal(gqlData(t, e.srv, token, q, vars)["events"], &c); err != nil {
				t.Fatal(err)
			}
			return c
		}
		// Paged by first/after, the same events in the same order, each as
		// the delivery (envelope fields, diff kinds, previous attributes).
		var got []string
		vars := map[string]any{"first": 2, "load": "E-1", "prev": true}
		for {
			c := run(reader, vars)
			for _, edge := range c.Edges {
				n := edge.Node
				got = append(got, n.ID)
				var d struct {
					ID, Type, Timestamp, Version string
					Data                         struct {
						Load struct{ LoadNumber string }
						Diff *struct {
							Changes            []struct{ Kind string }
							PreviousAttributes map[string]any
						}
					}
				}
				if err := json.Unmarshal(e.previous[n.ID], &d); err != nil {
					t.Fatalf("no delivery of %s", n.ID)
				}
				wantType := map[string]string{"load.changed": "LoadEvent", "load.status.changed": "LoadEvent", "trip.changed": "TripEvent"}[d.Type]
				if n.Type != d.Type || n.Typename != wantType || n.Timestamp != d.Timestamp || n.Version != d.Version ||
					n.Data.Load.LoadNumber != d.Data.Load.LoadNumber || (n.Data.Diff == nil) != (d.Data.Diff == nil) {
					t.Fatalf("GraphQL %+v, delivery %s", n, e.previous[n.ID])
				}
				if d.Data.Diff != nil && (len(n.Data.Diff.Changes) != len(d.Data.Diff.Changes) ||
					len(n.Data.Diff.PreviousAttributes) != len(d.Data.Diff.PreviousAttributes) || len(d.Data.Diff.PreviousAttributes) == 0) {
					t.Fatalf("diff: GraphQL %+v, delivery %s", n.Data.Diff, e.previous[n.ID])
				}
			}
			if !c.PageInfo.HasNextPage {
				break
			}
			vars["after"] = c.PageInfo.EndCursor
		}
		if !slices.Equal(got, e.ids) {
			t.Fatalf("GraphQL pages %v, want %v", got, e.ids)
		}
		// previousAttributes only when asked; after an event id.
		c := run(reader, map[string]any{"after": e.ids[1], "load": "E-1"})
		if len(c.Edges) != 3 || c.Edges[0].Node.ID != e.ids[2] || c.Edges[0].Node.Data.Diff.PreviousAttributes != nil {
			t.Fatalf("after %s: %+v", e.ids[1], c)
		}
		// load:read never sees trip.changed; asking for it is FORBIDDEN.
		loads := e.srv.Token(t, e.acme, domain.ScopeLoadRead)
		c = run(loads, map[string]any{"first": 100})
		for _, edge := range c.Edges {
			if edge.Node.Type == "trip.changed" {
				t.Fatal("load:read received trip.changed")
			}
		}
		if len(c.Edges) != 5 {
			t.Fatalf("load:read sees %d events, want 5 (4 of E-1, 1 of E-2)", len(c.Edges))
		}
		_, errs := gqlRaw(t, e.srv, loads, q, map[string]any{"types": []string{"trip.changed"}})
		if !bytes.Contains(errs, []byte(`"FORBIDDEN"`)) {
			t.Fatalf("trip.changed without trip:read: %s", errs)
		}
		_, errs = gqlRaw(t, e.srv, reader, q, map[string]any{"first": 0, "types": []string{"x"}})
		if !bytes.Contains(errs, []byte(`"BAD_USER_INPUT"`)) || !bytes.Contains(errs, []byte(`"first"`)) || !bytes.Contains(errs, []byte(`"types"`)) {
			t.Fatalf("invalid arguments: %s", errs)
		}
		// Another tenant sees only its own.
		c = run(e.srv.Token(t, e.globex, domain.ScopeLoadRead, domain.ScopeTripRead), map[string]any{"first": 100})
		if len(c.Edges) != 1 || c.Edges[0].Node.Data.Load.LoadNumber != "G-1" {
			t.Fatalf("globex: %+v", c)
		}
	})
}

// dataOf returns the data member of an envelope exactly as written.
func dataOf(t *testing.T, env []byte) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(env, &m); err != nil || len(m["data"]) == 0 {
		t.Fatalf("envelope %s: %v", env, err)
	}
	return m["data"]
}

// The loadNumber filter finds a load's events as GET /loads/{loadNumber}
// finds the load: any number creation accepts (64 characters, not bytes),
// and exactly as stored, so a row another writer stored with a leading
// space is found by that number and " E-3" is not E-3.
func TestEventsFilterLoadNumberAsLookedUp(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	tn := apptest.NewTenant(t, srv, "numbers")
	oas := newOpenAPIChecker(t, srv.URL)
	write := srv.Token(t, tn, domain.ScopeLoadCreate, domain.ScopeLoadUpdate)
	long := strings.Repeat("Ł", domain.MaxLoadNumber)
	gqlData(t, srv, write, `mutation($in: CreateLoadInput!) { createLoad(input: $in) { loadNumber } }`,
		map[string]any{"in": map[string]any{"loadNumber": long, "subsidiaryId": tn.SubsidiaryID,
			"stops": []map[string]any{{"type": "Pickup", "name": "A"}}}})
	execSQL(t, srv, `INSERT INTO loads (id, tenant_id, load_number, status, billing_status, subsidiary_id, created_at, updated_at)
		VALUES (?, ?, ' E-3', 'Open', 'Released', ?, now(), now())`, uuid.New(), tn.ID, tn.SubsidiaryID)
	gqlData(t, srv, write, `mutation { changeLoadStatus(loadNumber: " E-3", status: Covered) { status } }`, nil)
	waitFinal(t, srv)

	reader := srv.Token(t, tn, domain.ScopeLoadRead)
	for _, c := range []struct {
		number string
		want   []string
	}{{long, []string{long}}, {" E-3", []string{" E-3", " E-3"}}, {"E-3", nil}} {
		path := srv.URL + "/api/p/v1/events?loadNumber=" + url.QueryEscape(c.number)
		res, body := testkit.Request(t, "GET", path, map[string]string{"Authorization": "Bearer " + reader}, "")
		oas.check(t, "GET", path, "", "", res, body)
		var got []string
		for _, env := range list(t, res, body) {
			var e struct {
				Data struct{ Load struct{ LoadNumber string } }
			}
			if err := json.Unmarshal(env, &e); err != nil {
				t.Fatal(err)
			}
			got = append(got, e.Data.Load.LoadNumber)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("loadNumber=%q: events of %q, want %q", c.number, got, c.want)
		}
	}
	res, body := testkit.Request(t, "GET", srv.URL+"/api/p/v1/events?loadNumber="+url.QueryEscape(long+"Ł"),
		map[string]string{"Authorization": "Bearer " + reader}, "")
	wantFieldError(t, res, body, "loadNumber")
}
