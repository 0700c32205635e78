package rest_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/contract"
	"github.com/haulgraph/haulgraph/contract/eventschema"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/testkit"
)

// Events are history: the events API hands out each as it was stored,
// those the previous release wrote during a rolling upgrade included
// (testdata/events holds one as v0.28.0 wrote it, before CustomerName).
// Every stored event of a seeded tenant, listed with and without previous
// attributes, is valid against the OpenAPI document's answer and the
// event catalogue's schemas.
func TestEventsAPIListsEveryStoredEventAsPublished(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	oas := newOpenAPIChecker(t, srv.URL)
	tn := apptest.NewTenant(t, srv, "history")
	truck := uuid.New()
	execSQL(t, srv, "INSERT INTO trucks (id, tenant_id, number) VALUES (?, ?, 'TR-1')", truck, tn.ID)

	old, err := os.ReadFile("testdata/events/v0.28.0-load.changed.json")
	if err != nil {
		t.Fatal(err)
	}
	oldID := uuid.NewString() + "-0"
	oldBody := strings.NewReplacer("{{id}}", oldID, "{{subsidiary}}", tn.SubsidiaryID.String()).Replace(string(old))
	execSQL(t, srv, `INSERT INTO events (id, tenant_id, subsidiary_id, type, subject_id, payload) VALUES (?, ?, ?, 'load.changed', ?, ?)`,
		oldID, tn.ID, tn.SubsidiaryID, uuid.New(), oldBody)

	write := srv.Token(t, tn, domain.ScopeLoadCreate, domain.ScopeLoadUpdate, domain.ScopeTripUpdate)
	created := gqlData(t, srv, write, `mutation($in: CreateLoadInput!) { createLoad(input: $in) { trips { id } } }`,
		map[string]any{"in": map[string]any{"loadNumber": "H-1", "subsidiaryId": tn.SubsidiaryID,
			"stops": []map[string]any{{"type": "Pickup", "name": "A"}}, "trips": []map[string]any{{"tripNumber": "T-1"}}}})
	var load struct{ Trips []struct{ ID string } }
	if err := json.Unmarshal(created["createLoad"], &load); err != nil || len(load.Trips) != 1 {
		t.Fatalf("createLoad: %s", created["createLoad"])
	}
	gqlData(t, srv, write, `mutation { updateLoad(loadNumber: "H-1", input: {rate: {amount: 900}}) { loadNumber } }`, nil)
	gqlData(t, srv, write, `mutation { changeLoadStatus(loadNumber: "H-1", status: Covered) { status } }`, nil)
	gqlData(t, srv, write, `mutation($id: ID!, $truck: ID!) { updateTrip(id: $id, input: {truckId: $truck}) { id } }`,
		map[string]any{"id": load.Trips[0].ID, "truck": truck})
	stored := eventIDs(t, srv, "tenant_id = ?", tn.ID)
	waitFinal(t, srv)

	validator, err := contract.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	reader := srv.Token(t, tn, domain.ScopeLoadRead, domain.ScopeTripRead)
	for _, query := range []string{"?limit=100", "?limit=100&includePreviousAttributes=true"} {
		url := srv.URL + "/api/p/v1/events" + query
		res, body := testkit.Request(t, "GET", url, map[string]string{"Authorization": "Bearer " + reader}, "")
		oas.check(t, "GET", url, "", "", res, body) // the OpenAPI document's answer, item by item
		envs := list(t, res, body)
		if got := ids(t, envs); len(got) != len(stored) || got[0] != oldID {
			t.Fatalf("%s: listed %v, want every stored event %v, the old one first", query, got, stored)
		}
		for _, env := range envs {
			var h struct{ Type string }
			_ = json.Unmarshal(env, &h)
			if err := validator.Validate(eventschema.ChannelEventsAPI, h.Type, env); err != nil {
				t.Errorf("%s: %v", query, err)
			}
		}
		if old := envs[0]; bytes.Contains(old, []byte("CustomerName")) {
			t.Fatalf("the old event was rewritten: %s", old)
		}
	}
}
