package transport_test

import (
	"encoding/json"
	"testing"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
)

// TestSubscriptionsCarryCustomerName: a load's customerName, as its reads
// show it, reaches subscribers over WebSocket and SSE, on load and trip
// events alike: the board needs no lookup.
func TestSubscriptionsCarryCustomerName(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	tn := apptest.NewTenant(t, srv, "acme")
	customer := uuid.New()
	if _, err := srv.DB.Pool.Exec(t.Context(), `INSERT INTO customers (id, tenant_id, name) VALUES ($1, $2, 'Acme Freight')`, customer, tn.ID); err != nil {
		t.Fatal(err)
	}
	read := srv.Token(t, tn, domain.ScopeLoadRead, domain.ScopeTripRead)
	const lc = `subscription { loadChanged { data { load { loadNumber customerName } } } }`
	const tc = `subscription { tripChanged { data { load { customerName } } } }`
	ws := connect(t, srv, "graphql-transport-ws", read)
	ws.subscribe("lc", lc, nil)
	ws.subscribe("tc", tc, nil)
	sse := stream(t, srv, sseRequest{token: read, query: lc})
	waitSubscribers(t, srv, 3)

	driver := uuid.New()
	if _, err := srv.DB.Pool.Exec(t.Context(), `INSERT INTO drivers (id, tenant_id, name, type) VALUES ($1, $2, 'Dana', 'COMPANY')`, driver, tn.ID); err != nil {
		t.Fatal(err)
	}
	write := writer(t, srv, tn)
	vars := createLoadVars("N-1", tn.SubsidiaryID.String(), 2)
	vars["in"].(map[string]any)["customerId"] = customer.String()
	created := mustGQL(t, srv, write, createLoad, vars)
	trip := field[struct{ Trips []struct{ ID string } }](t, created.Data["createLoad"]).Trips
	mustGQL(t, srv, write, `mutation($id: ID!, $d: [ID!]) { updateTrip(id: $id, input: {driverIds: $d}) { id } }`,
		map[string]any{"id": trip[0].ID, "d": []string{driver.String()}})
	mustGQL(t, srv, write, `mutation { updateLoad(loadNumber: "N-1", input: {commodity: "Steel"}) { loadNumber } }`, nil)

	customerName := func(payload json.RawMessage) any {
		var r struct {
			Data map[string]struct{ Data struct{ Load map[string]any } }
		}
		if err := json.Unmarshal(payload, &r); err != nil || len(r.Data) != 1 {
			t.Fatalf("%s: %v", payload, err)
		}
		for _, f := range r.Data {
			return f.Data.Load["customerName"]
		}
		return nil
	}
	// Two load.changed (create, update) and one trip.changed; each
	// subscription keeps commit order, but two subscriptions of one socket
	// are not ordered against each other.
	got := map[string]int{}
	for range 3 {
		m := ws.read()
		if m.Type != "next" || customerName(m.Payload) != "Acme Freight" {
			t.Fatalf("WebSocket, want an event with the customer's name: %s %s %s", m.Type, m.ID, m.Payload)
		}
		got[m.ID]++
	}
	if got["lc"] != 2 || got["tc"] != 1 {
		t.Fatalf("WebSocket: %v, want lc 2 and tc 1", got)
	}
	for range 2 {
		ev, ok := sse.next()
		if !ok || customerName(json.RawMessage(ev.Data)) != "Acme Freight" {
			t.Fatalf("SSE, want load.changed with the customer's name: %+v", ev)
		}
	}
}
