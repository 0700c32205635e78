package webhooks

import (
	"testing"

	"github.com/google/uuid"
)

func TestRouteWebhookEvents(t *testing.T) {
	t.Parallel()
	tenantA, tenantB := uuid.New(), uuid.New()
	subA1, subA2, subB := uuid.New(), uuid.New(), uuid.New()
	hook := func(name string, tenant, sub uuid.UUID, state State, types ...string) Webhook {
		return Webhook{ID: uuid.New(), Name: name, TenantID: tenant, SubsidiaryID: sub, State: state, EventTypes: types}
	}
	hooks := []Webhook{
		hook("a1-loads", tenantA, subA1, WebhookActive, "load.changed", "load.status.changed"),
		hook("a1-trips", tenantA, subA1, WebhookActive, "trip.changed"),
		hook("a1-disabled", tenantA, subA1, WebhookDisabled, "load.changed"),
		hook("a1-pending", tenantA, subA1, WebhookPending, "load.changed"),
		hook("a1-failed", tenantA, subA1, WebhookFailedVerification, "load.changed"),
		hook("a2-loads", tenantA, subA2, WebhookActive, "load.changed"),
		hook("b-loads", tenantB, subB, WebhookActive, "load.changed"),
		// Another tenant's webhook naming tenant A's subsidiary id never gets A's events.
		hook("b-on-a1", tenantB, subA1, WebhookActive, "load.changed"),
	}
	ev := func(seq int64, tenant uuid.UUID, sub *uuid.UUID, typ string) RoutableEvent {
		return RoutableEvent{Seq: seq, ID: uuid.NewString() + "-0", TenantID: tenant, SubsidiaryID: sub, Type: typ}
	}
	events := []RoutableEvent{
		ev(1, tenantA, &subA1, "load.changed"),
		ev(2, tenantA, &subA1, "trip.changed"),
		ev(3, tenantA, &subA2, "load.status.changed"), // a2 does not subscribe
		ev(4, tenantA, nil, "load.changed"),           // no subsidiary: no webhook
		ev(5, tenantB, &subB, "load.changed"),
	}
	var got []string
	for _, r := range RouteEvents(events, hooks) {
		got = append(got, r.Webhook.Name+"@"+string(rune('0'+r.Event.Seq)))
	}
	want := []string{"a1-loads@1", "a1-trips@2", "b-loads@5"}
	if len(got) != len(want) {
		t.Fatalf("routes %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("routes %v, want %v", got, want)
		}
	}
	if RouteEvents(nil, hooks) != nil || RouteEvents(events, nil) != nil {
		t.Fatal("routes without events or webhooks")
	}
}
