package resolvers_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/testkit"
	"github.com/haulgraph/haulgraph/webhooksig"
)

// A real load write (GraphQL createLoad / changeLoadStatus) reaches a
// webhook: creation as load.changed without diff, a status change as
// load.changed (-0, with previousAttributes when asked) and
// load.status.changed (-1, same uuid, no diff); another subsidiary's load
// does not.
func TestLoadWritesReachWebhook(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	acme := apptest.NewTenant(t, srv, "acme")
	manage := srv.Token(t, acme, domain.ScopeWebhookManage)
	write := srv.Token(t, acme, domain.ScopeLoadCreate, domain.ScopeLoadUpdate)

	rcv := testkit.NewReceiver(t)

	created := field[struct {
		Secret  string
		Webhook struct{ ID string }
	}](t, gql(t, srv, manage, `mutation($in: CreateWebhookInput!) { createWebhook(input: $in) { secret webhook { id } } }`,
		map[string]any{"in": map[string]any{"name": "ERP", "url": rcv.URL, "subsidiaryId": acme.SubsidiaryID,
			"eventTypes": []string{"load.changed", "load.status.changed"}, "includePreviousAttributes": true}}), "createWebhook")
	if w := field[struct{ State string }](t, gql(t, srv, manage, `mutation($id: ID!) { enableWebhook(id: $id) { state } }`,
		map[string]any{"id": created.Webhook.ID}), "enableWebhook"); w.State != "Active" {
		t.Fatalf("enable: %s", w.State)
	}

	stops := []map[string]any{{"type": "Pickup", "name": "A"}, {"type": "Delivery", "name": "B"}}
	field[map[string]any](t, gql(t, srv, write, `mutation($in: CreateLoadInput!) { createLoad(input: $in) { loadNumber } }`,
		map[string]any{"in": map[string]any{"loadNumber": "W-1", "subsidiaryId": acme.SubsidiaryID, "stops": stops}}), "createLoad")
	field[map[string]any](t, gql(t, srv, write, `mutation { changeLoadStatus(loadNumber: "W-1", status: Covered) { status } }`, nil), "changeLoadStatus")

	type envelope struct {
		ID, Type, Version string
		Data              struct {
			Load struct{ LoadNumber, Status string }
			Diff *struct {
				Changes            []struct{ Kind string }
				PreviousAttributes map[string]any
			}
		}
	}
	byType := map[string][]envelope{}
	for i := 0; i < 3; i++ {
		d := rcv.Next(t)
		if err := webhooksig.Verify(d.Body, d.Header.Get("X-Service-Signature"), created.Secret, time.Minute); err != nil {
			t.Fatalf("signature: %v", err)
		}
		var e envelope
		if err := json.Unmarshal(d.Body, &e); err != nil || e.ID != d.Header.Get("X-Service-Event-Id") || e.Type != d.Header.Get("X-Service-Event") {
			t.Fatalf("delivery %s: %v", d.Body, err)
		}
		byType[e.Type] = append(byType[e.Type], e)
	}
	changed, status := byType["load.changed"], byType["load.status.changed"]
	if len(changed) != 2 || len(status) != 1 {
		t.Fatalf("deliveries by type: %v", byType)
	}
	var creation, change envelope
	for _, e := range changed {
		if e.Data.Diff == nil {
			creation = e
		} else {
			change = e
		}
	}
	if creation.ID == "" || !strings.HasSuffix(creation.ID, "-0") || creation.Data.Load.LoadNumber != "W-1" {
		t.Fatalf("creation event %+v", creation)
	}
	if change.Data.Diff == nil || change.Data.Diff.PreviousAttributes["Status"] != "Open" || change.Data.Load.Status != "Covered" {
		t.Fatalf("status change as load.changed %+v", change)
	}
	if s := status[0]; s.Data.Diff != nil || strings.TrimSuffix(s.ID, "-1") != strings.TrimSuffix(change.ID, "-0") || !strings.HasSuffix(s.ID, "-1") {
		t.Fatalf("load.status.changed %+v (load.changed %s)", s, change.ID)
	}
}
