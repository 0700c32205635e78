package transport_test

import (
	"strings"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/contract/eventschema"
	"github.com/haulgraph/haulgraph/domain"
)

// loadSelection selects every field of the event snapshot and a relation.
const loadSelection = `__typename id loadNumber status billingStatus subsidiaryId subsidiaryName customerId orderNumber poNumber source
	rate { amount currency } weight commodity equipmentType createdAt updatedAt
	stops { sequence type locationId location { id } name address { street city state zipCode } appointmentStart appointmentEnd arrivedAt departedAt }
	trips { id tripNumber status driverIds truckId trailerId carrierId drivers { name } }`

// TestSubscriptionPayloadsAreChecked: every subscription result written on
// WebSocket and SSE is validated against the AsyncAPI document's schemas by
// apptest (a mismatch fails this test); here every event type, with wide
// selections, previous attributes and a refused relation (null plus an
// error), goes through both transports, and the instance reports having
// checked each payload.
func TestSubscriptionPayloadsAreChecked(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	tn := apptest.NewTenant(t, srv, "acme")
	read := srv.Token(t, tn, domain.ScopeLoadRead, domain.ScopeTripRead) // no customer:read, no driver:read
	queries := map[string]string{
		"lc": `subscription { loadChanged(includePreviousAttributes: true) { __typename id cursor type timestamp version data { __typename load { ` + loadSelection +
			` } diff { changes { kind target { type id } } previousAttributes } } } }`,
		"ls": `subscription { loadStatusChanged { id type data { load { loadNumber status } diff { changes { kind } } } } }`,
		"tc": `subscription { tripChanged(includePreviousAttributes: true) { id type timestamp version data { trip { id tripNumber status driverIds truckId drivers { name } }
			load { ` + loadSelection + ` } diff { changes { kind target { id } } previousAttributes } } } }`,
	}
	driver := "6f1c2b0e-0000-4000-8000-0000000000c1"
	if _, err := srv.DB.Pool.Exec(t.Context(), `INSERT INTO drivers (id, tenant_id, name, type) VALUES ($1, $2, 'Dana', 'COMPANY')`, driver, tn.ID); err != nil {
		t.Fatal(err)
	}
	ws := connect(t, srv, "graphql-transport-ws", read)
	sse := map[string]*sseClient{}
	for id, q := range queries {
		ws.subscribe(id, q, nil)
		sse[id] = stream(t, srv, sseRequest{token: read, query: q})
	}
	waitSubscribers(t, srv, 6)

	write := writer(t, srv, tn)
	created := mustGQL(t, srv, write, createLoad, createLoadVars("C-1", tn.SubsidiaryID.String(), 2))
	trip := field[struct{ Trips []struct{ ID string } }](t, created.Data["createLoad"]).Trips
	mustGQL(t, srv, write, `mutation { updateLoad(loadNumber: "C-1", input: {rate: {amount: 131072.01}, weight: 42000.5, commodity: "Steel"}) { loadNumber } }`, nil)
	mustGQL(t, srv, write, `mutation { changeLoadStatus(loadNumber: "C-1", status: Covered) { status } }`, nil)
	mustGQL(t, srv, write, `mutation($id: ID!, $d: [ID!]) { updateTrip(id: $id, input: {driverIds: $d}) { id } }`,
		map[string]any{"id": trip[0].ID, "d": []string{driver}})
	// On each transport: load.changed ×3 (create, update, status), load.status.changed, trip.changed.
	want := map[string]int{"lc": 3, "ls": 1, "tc": 1}
	got := map[string]int{}
	for range 5 {
		m := ws.read()
		if m.Type != "next" {
			t.Fatalf("want an event, got %s %s", m.Type, m.Payload)
		}
		got[m.ID]++
	}
	for id, n := range want {
		if got[id] != n {
			t.Fatalf("WebSocket events by subscription %v, want %v", got, want)
		}
		for range n {
			if ev, ok := sse[id].next(); !ok || ev.Event != "next" || !strings.Contains(ev.Data, `"data":{"`) {
				t.Fatalf("SSE %s: want a result with data, got %+v", id, ev)
			}
		}
	}
	// Each payload is told to the check as it is queued, which may be just
	// after the client read it.
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := srv.EmittedChecked()
		if got[eventschema.ChannelGraphQLWS] == 5 && got[eventschema.ChannelGraphQLSSE] == 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("checked payloads %v, want 5 on each transport", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
