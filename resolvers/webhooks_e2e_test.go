package resolvers_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/testkit"
)

type gqlResult struct {
	Data   map[string]json.RawMessage
	Errors []struct {
		Message    string
		Extensions struct {
			Code   string
			Fields map[string][]string
		}
	}
	Extensions struct {
		Cost struct{ RequestedQueryCost int }
	}
}

func gql(t *testing.T, srv *apptest.Server, token, query string, vars map[string]any) gqlResult {
	t.Helper()
	res, raw := testkit.GraphQL(t, srv.URL, token, query, vars)
	var out gqlResult
	testkit.Decode(t, res, raw, &out)
	return out
}

func field[T any](t *testing.T, r gqlResult, name string) T {
	t.Helper()
	if len(r.Errors) > 0 {
		t.Fatalf("%s: errors %+v", name, r.Errors)
	}
	var v T
	if err := json.Unmarshal(r.Data[name], &v); err != nil {
		t.Fatalf("%s: %v (%s)", name, err, r.Data[name])
	}
	return v
}

type webhookJSON struct {
	ID, Name, URL, State, StateLabel, StateReason string
	EventTypes                                    []string
	IncludePreviousAttributes                     bool
	RotationEndsAt                                *time.Time
	Deliveries                                    []struct {
		EventID, Status string
		Attempts        []struct{ StatusCode int }
	}
}

const webhookFields = `id name url state stateLabel stateReason eventTypes includePreviousAttributes rotationEndsAt`

func TestWebhookManagementThroughGraphQL(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	acme := apptest.NewTenant(t, srv, "acme")
	globex := apptest.NewTenant(t, srv, "globex")
	token := srv.Token(t, acme, domain.ScopeWebhookManage)

	rcv := testkit.NewReceiver(t)

	// Scope: webhook:manage is required.
	other := srv.Token(t, acme, domain.ScopeLoadRead)
	if r := gql(t, srv, other, `{ webhooks { id } }`, nil); len(r.Errors) == 0 || r.Errors[0].Extensions.Code != "FORBIDDEN" {
		t.Fatalf("without webhook:manage: %+v", r)
	}

	// Invalid input comes back field by field.
	create := `mutation($in: CreateWebhookInput!) { createWebhook(input: $in) { secret webhook { ` + webhookFields + ` } } }`
	r := gql(t, srv, token, create, map[string]any{"in": map[string]any{
		"url": "ftp://example.com", "eventTypes": []string{"load.changed", "load.deleted"}, "subsidiaryId": acme.SubsidiaryID}})
	if len(r.Errors) != 1 || r.Errors[0].Extensions.Code != "BAD_USER_INPUT" {
		t.Fatalf("invalid create: %+v", r)
	}
	for _, f := range []string{"name", "url", "eventTypes"} {
		if len(r.Errors[0].Extensions.Fields[f]) == 0 {
			t.Errorf("no field error for %s: %+v", f, r.Errors[0].Extensions.Fields)
		}
	}
	r = gql(t, srv, token, create, map[string]any{"in": map[string]any{"name": "x", "url": rcv.URL, "eventTypes": []string{}, "subsidiaryId": globex.SubsidiaryID}})
	if len(r.Errors) != 1 || len(r.Errors[0].Extensions.Fields["subsidiaryId"]) == 0 || len(r.Errors[0].Extensions.Fields["eventTypes"]) == 0 {
		t.Fatalf("another tenant's subsidiary / no events: %+v", r)
	}

	// Create: Pending, secret shown once.
	created := field[struct {
		Secret  string
		Webhook webhookJSON
	}](t, gql(t, srv, token, create, map[string]any{"in": map[string]any{
		"name": "ERP", "url": rcv.URL + "/hook", "eventTypes": []string{"load.changed"}, "subsidiaryId": acme.SubsidiaryID}}), "createWebhook")
	if !strings.HasPrefix(created.Secret, "whsec_") || created.Webhook.State != "Pending" {
		t.Fatalf("created %+v", created)
	}
	id := created.Webhook.ID

	enabled := field[webhookJSON](t, gql(t, srv, token, `mutation($id: ID!) { enableWebhook(id: $id) { `+webhookFields+` } }`, map[string]any{"id": id}), "enableWebhook")
	if enabled.State != "Active" || enabled.StateLabel != "Connected" {
		t.Fatalf("enabled %+v", enabled)
	}

	// An event of the subsidiary is delivered, signed with the secret.
	eventID := srv.LoadEvent(t, acme, "W-1")
	d := rcv.Next(t)
	sig := d.Header.Get("X-Service-Signature")
	ts := d.Header.Get("X-Service-Timestamp")
	m := hmac.New(sha256.New, []byte(created.Secret))
	m.Write([]byte(ts + "." + string(d.Body)))
	if d.Header.Get("X-Service-Event-Id") != eventID || sig != "t="+ts+",v1="+hex.EncodeToString(m.Sum(nil)) {
		t.Fatalf("delivery %s %q", d.Header.Get("X-Service-Event-Id"), sig)
	}

	// Reads: list with deliveries, one webhook.
	deadline := time.Now().Add(10 * time.Second)
	for {
		list := field[[]webhookJSON](t, gql(t, srv, token, `{ webhooks { id deliveries(first: 5) { eventId status attempts { statusCode } } } }`, nil), "webhooks")
		if len(list) != 1 || list[0].ID != id {
			t.Fatalf("list %+v", list)
		}
		if len(list[0].Deliveries) == 1 && list[0].Deliveries[0].Status == "Delivered" {
			if d := list[0].Deliveries[0]; d.EventID != eventID || len(d.Attempts) != 1 || d.Attempts[0].StatusCode != 200 {
				t.Fatalf("delivery %+v", d)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the delivery was not recorded: %+v", list)
		}
		time.Sleep(50 * time.Millisecond) // the attempt is recorded just after the receiver answered
	}
	if r := gql(t, srv, token, `{ webhooks { deliveries(first: 101) { eventId } } }`, nil); len(r.Errors) == 0 || r.Errors[0].Extensions.Code != "BAD_USER_INPUT" {
		t.Fatalf("first: 101 accepted: %+v", r)
	}

	// Update events and previous attributes: stays Active.
	updated := field[webhookJSON](t, gql(t, srv, token, `mutation($id: ID!) { updateWebhook(id: $id, input: {eventTypes: ["load.changed", "load.status.changed"], includePreviousAttributes: true}) { `+webhookFields+` } }`,
		map[string]any{"id": id}), "updateWebhook")
	if updated.State != "Active" || !updated.IncludePreviousAttributes || len(updated.EventTypes) != 2 {
		t.Fatalf("updated %+v", updated)
	}
	rot := field[struct {
		Secret  string
		Webhook webhookJSON
	}](t, gql(t, srv, token, `mutation($id: ID!) { regenerateWebhookSecret(id: $id, rotationWindow: 3600) { secret webhook { `+webhookFields+` } } }`, map[string]any{"id": id}), "regenerateWebhookSecret")
	if rot.Secret == created.Secret || rot.Webhook.State != "Active" || rot.Webhook.RotationEndsAt == nil {
		t.Fatalf("regenerated %+v", rot)
	}
	red := field[struct{ EventID, Status string }](t, gql(t, srv, token, `mutation($id: ID!, $e: String!) { redeliverEvent(webhookId: $id, eventId: $e) { eventId status } }`,
		map[string]any{"id": id, "e": eventID}), "redeliverEvent")
	if red.EventID != eventID {
		t.Fatalf("redeliver %+v", red)
	}
	// Nothing has failed: recover re-queues nothing; a future since is refused.
	since := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	if n := field[int](t, gql(t, srv, token, `mutation($id: ID!, $s: DateTime!) { recoverWebhookDeliveries(webhookId: $id, since: $s) }`,
		map[string]any{"id": id, "s": since}), "recoverWebhookDeliveries"); n != 0 {
		t.Fatalf("recovered %d", n)
	}
	if r := gql(t, srv, token, `mutation($id: ID!, $s: DateTime!) { recoverWebhookDeliveries(webhookId: $id, since: $s) }`,
		map[string]any{"id": id, "s": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}); len(r.Errors) == 0 || r.Errors[0].Extensions.Code != "BAD_USER_INPUT" {
		t.Fatalf("future since: %+v", r)
	}
	disabled := field[webhookJSON](t, gql(t, srv, token, `mutation($id: ID!) { disableWebhook(id: $id) { `+webhookFields+` } }`, map[string]any{"id": id}), "disableWebhook")
	if disabled.State != "Disabled" || disabled.URL != rcv.URL+"/hook" {
		t.Fatalf("disabled %+v", disabled)
	}

	// Another tenant sees nothing and cannot delete.
	globexToken := srv.Token(t, globex, domain.ScopeWebhookManage)
	if w := field[*webhookJSON](t, gql(t, srv, globexToken, `query($id: ID!) { webhook(id: $id) { id } }`, map[string]any{"id": id}), "webhook"); w != nil {
		t.Fatalf("globex reads acme's webhook: %+v", w)
	}
	if r := gql(t, srv, globexToken, `mutation($id: ID!) { deleteWebhook(id: $id) }`, map[string]any{"id": id}); len(r.Errors) == 0 || r.Errors[0].Extensions.Code != "NOT_FOUND" {
		t.Fatalf("globex deletes acme's webhook: %+v", r)
	}
	if !field[bool](t, gql(t, srv, token, `mutation($id: ID!) { deleteWebhook(id: $id) }`, map[string]any{"id": id}), "deleteWebhook") {
		t.Fatal("delete returned false")
	}
	if w := field[*webhookJSON](t, gql(t, srv, token, `query($id: ID!) { webhook(id: $id) { id } }`, map[string]any{"id": id}), "webhook"); w != nil {
		t.Fatal("deleted webhook still readable")
	}
}
