package resolvers_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
)

// The operations REST names rotateWebhookSecret and redeliverWebhookDelivery
// have those names in GraphQL too; the earlier names still work, deprecated.

type namesEnv struct {
	srv            *apptest.Server
	acme, globex   apptest.Tenant
	token, globexT string
}

func newNamesEnv(t *testing.T) *namesEnv {
	t.Helper()
	srv := apptest.Start(t, apptest.Options{})
	e := &namesEnv{srv: srv, acme: apptest.NewTenant(t, srv, "acme"), globex: apptest.NewTenant(t, srv, "globex")}
	e.token = srv.Token(t, e.acme, domain.ScopeWebhookManage)
	e.globexT = srv.Token(t, e.globex, domain.ScopeWebhookManage)
	return e
}

// webhook creates a Pending webhook of the tenant (nothing is sent to it)
// and returns its id and secret.
func (e *namesEnv) webhook(t *testing.T, tn apptest.Tenant, token string) (id, secret string) {
	t.Helper()
	rcv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(rcv.Close)
	c := field[struct {
		Secret  string
		Webhook struct{ ID string }
	}](t, gql(t, e.srv, token, `mutation($in: CreateWebhookInput!) { createWebhook(input: $in) { secret webhook { id } } }`,
		map[string]any{"in": map[string]any{"name": "ERP", "url": rcv.URL + "/hook", "eventTypes": []string{"load.changed"}, "subsidiaryId": tn.SubsidiaryID}}),
		"createWebhook")
	return c.Webhook.ID, c.Secret
}

// delivery queues an event of the tenant for the webhook (by event id, the
// deprecated way) and returns the delivery's id and the event's.
func (e *namesEnv) delivery(t *testing.T, tn apptest.Tenant, token, webhookID string) (deliveryID, eventID string) {
	t.Helper()
	eventID = uuid.NewString() + "-0"
	if _, err := e.srv.DB.Bun.ExecContext(context.Background(), `INSERT INTO events (id, tenant_id, subsidiary_id, type, subject_id, payload)
		VALUES (?, ?, ?, 'load.changed', ?, '{}')`, eventID, tn.ID, tn.SubsidiaryID, uuid.New()); err != nil {
		t.Fatal(err)
	}
	d := field[struct{ ID, EventID string }](t, gql(t, e.srv, token,
		`mutation($w: ID!, $e: String!) { redeliverEvent(webhookId: $w, eventId: $e) { id eventId } }`,
		map[string]any{"w": webhookID, "e": eventID}), "redeliverEvent")
	if d.EventID != eventID {
		t.Fatalf("redeliverEvent queued %+v", d)
	}
	return d.ID, eventID
}

type rotated struct {
	Secret  string
	Webhook struct {
		ID, State      string
		RotationEndsAt *time.Time
	}
}

func TestRotateWebhookSecretAndItsDeprecatedName(t *testing.T) {
	t.Parallel()
	e := newNamesEnv(t)
	id, first := e.webhook(t, e.acme, e.token)
	rotate := func(name string, token string, id string, window any) gqlResult {
		return gql(t, e.srv, token, `mutation($id: ID!, $w: Int) { `+name+`(id: $id, rotationWindow: $w) { secret webhook { id state rotationEndsAt } } }`,
			map[string]any{"id": id, "w": window})
	}
	seen := map[string]bool{first: true}
	for _, name := range []string{"rotateWebhookSecret", "regenerateWebhookSecret"} {
		before := time.Now()
		r := field[rotated](t, rotate(name, e.token, id, 3600), name)
		if !strings.HasPrefix(r.Secret, "whsec_") || seen[r.Secret] || r.Webhook.ID != id || r.Webhook.State != "Pending" {
			t.Fatalf("%s: %+v", name, r)
		}
		seen[r.Secret] = true
		if end := r.Webhook.RotationEndsAt; end == nil || end.Before(before.Add(59*time.Minute)) || end.After(before.Add(61*time.Minute)) {
			t.Fatalf("%s(rotationWindow: 3600): rotation ends %v", name, end)
		}
		// No window: the default, 24 h.
		r = field[rotated](t, rotate(name, e.token, id, nil), name)
		if end := r.Webhook.RotationEndsAt; end == nil || end.Before(before.Add(23*time.Hour)) || seen[r.Secret] {
			t.Fatalf("%s without a window: %+v", name, r)
		}
		seen[r.Secret] = true
		// 0: no rotation window.
		if r = field[rotated](t, rotate(name, e.token, id, 0), name); r.Webhook.RotationEndsAt != nil {
			t.Fatalf("%s(rotationWindow: 0): %+v", name, r)
		}
		// Both names refuse the same bad windows, scopes and ids the same way.
		for _, w := range []int{-1, 7*24*3600 + 1} {
			if r := rotate(name, e.token, id, w); len(r.Errors) != 1 || r.Errors[0].Extensions.Code != "BAD_USER_INPUT" ||
				len(r.Errors[0].Extensions.Fields["rotationWindow"]) == 0 {
				t.Fatalf("%s(rotationWindow: %d): %+v", name, w, r)
			}
		}
		if r := rotate(name, e.srv.Token(t, e.acme, domain.ScopeLoadRead, domain.ScopeLoadUpdate), id, nil); len(r.Errors) != 1 || r.Errors[0].Extensions.Code != "FORBIDDEN" {
			t.Fatalf("%s without webhook:manage: %+v", name, r)
		}
		if r := rotate(name, e.token, "x", nil); len(r.Errors) != 1 || len(r.Errors[0].Extensions.Fields["id"]) == 0 {
			t.Fatalf("%s(id: x): %+v", name, r)
		}
		notFound := func(r gqlResult, what string) {
			t.Helper()
			if len(r.Errors) != 1 || r.Errors[0].Extensions.Code != "NOT_FOUND" || r.Data[name] != nil && string(r.Data[name]) != "null" {
				t.Fatalf("%s of %s: %+v", name, what, r)
			}
		}
		notFound(rotate(name, e.globexT, id, nil), "another tenant's webhook")
		notFound(rotate(name, e.token, uuid.NewString(), nil), "an unknown webhook")
		// The refused calls rotated nothing: the last rotation (window 0)
		// left no rotation window; a default one would have opened 24 h.
		w := field[struct{ RotationEndsAt *time.Time }](t, gql(t, e.srv, e.token, `query($id: ID!) { webhook(id: $id) { rotationEndsAt } }`,
			map[string]any{"id": id}), "webhook")
		if w.RotationEndsAt != nil {
			t.Fatalf("after the refused %s calls the webhook rotates until %v", name, w.RotationEndsAt)
		}
	}
}

func TestRedeliverWebhookDeliveryByDeliveryID(t *testing.T) {
	t.Parallel()
	e := newNamesEnv(t)
	id, _ := e.webhook(t, e.acme, e.token)
	deliveryID, eventID := e.delivery(t, e.acme, e.token, id)
	redeliver := func(token, webhookID, deliveryID string) gqlResult {
		return gql(t, e.srv, token, `mutation($w: ID!, $d: ID!) { redeliverWebhookDelivery(webhookId: $w, deliveryId: $d) { id eventId eventType status attempt } }`,
			map[string]any{"w": webhookID, "d": deliveryID})
	}
	d := field[struct {
		ID, EventID, EventType, Status string
		Attempt                        int
	}](t, redeliver(e.token, id, deliveryID), "redeliverWebhookDelivery")
	if d.ID == deliveryID || d.EventID != eventID || d.EventType != "load.changed" || d.Status != "Pending" || d.Attempt != 0 {
		t.Fatalf("redelivered %+v (delivery %s of event %s)", d, deliveryID, eventID)
	}
	// The new delivery is the webhook's, next to the first one.
	list := field[struct {
		Deliveries []struct{ ID, EventID string }
	}](t, gql(t, e.srv, e.token,
		`query($id: ID!) { webhook(id: $id) { deliveries { id eventId } } }`, map[string]any{"id": id}), "webhook")
	if len(list.Deliveries) != 2 || list.Deliveries[0].ID != d.ID && list.Deliveries[1].ID != d.ID {
		t.Fatalf("deliveries %+v", list)
	}

	// Scope: webhook:manage.
	if r := redeliver(e.srv.Token(t, e.acme, domain.ScopeLoadRead), id, deliveryID); len(r.Errors) != 1 || r.Errors[0].Extensions.Code != "FORBIDDEN" {
		t.Fatalf("without webhook:manage: %+v", r)
	}
	// Malformed ids are named.
	for _, c := range []struct{ w, d, field string }{{id, "x", "deliveryId"}, {"x", deliveryID, "webhookId"}} {
		if r := redeliver(e.token, c.w, c.d); len(r.Errors) != 1 || r.Errors[0].Extensions.Code != "BAD_USER_INPUT" || len(r.Errors[0].Extensions.Fields[c.field]) == 0 {
			t.Fatalf("malformed %s: %+v", c.field, r)
		}
	}

	// Another tenant's delivery is not found, exactly as an unknown one is:
	// through acme's webhook id, through globex's own webhook, or acme's
	// pair asked by globex.
	globexID, _ := e.webhook(t, e.globex, e.globexT)
	globexDelivery, _ := e.delivery(t, e.globex, e.globexT, globexID)
	unknown := uuid.NewString()
	type attempt struct{ token, webhook, delivery string }
	cases := map[string][2]attempt{
		// each: another tenant's id, then an unknown id in the same place
		"acme asks for globex's delivery through its own webhook": {{e.token, id, globexDelivery}, {e.token, id, unknown}},
		"acme asks for globex's delivery of globex's webhook":     {{e.token, globexID, globexDelivery}, {e.token, uuid.NewString(), unknown}},
		"globex asks for acme's delivery through its own webhook": {{e.globexT, globexID, deliveryID}, {e.globexT, globexID, unknown}},
		"globex asks for acme's delivery of acme's webhook":       {{e.globexT, id, deliveryID}, {e.globexT, uuid.NewString(), unknown}},
	}
	for what, pair := range cases {
		var answers [2]string
		for i, a := range pair {
			r := redeliver(a.token, a.webhook, a.delivery)
			if len(r.Errors) != 1 || r.Errors[0].Extensions.Code != "NOT_FOUND" {
				t.Fatalf("%s (%d): %+v", what, i, r)
			}
			// The message names only the ids the caller sent.
			msg := strings.NewReplacer(a.webhook, "<webhook>", a.delivery, "<delivery>").Replace(r.Errors[0].Message)
			answers[i] = msg + " " + r.Errors[0].Extensions.Code
		}
		if answers[0] != answers[1] {
			t.Fatalf("%s: answered %q, an unknown delivery %q", what, answers[0], answers[1])
		}
	}
	// Nothing was queued by the refused attempts: each webhook still has its
	// own deliveries only.
	for _, c := range []struct {
		token, id string
		n         int
	}{{e.token, id, 2}, {e.globexT, globexID, 1}} {
		got := field[struct{ Deliveries []struct{ ID string } }](t, gql(t, e.srv, c.token,
			`query($id: ID!) { webhook(id: $id) { deliveries { id } } }`, map[string]any{"id": c.id}), "webhook")
		if len(got.Deliveries) != c.n {
			t.Fatalf("webhook %s has %d deliveries, want %d", c.id, len(got.Deliveries), c.n)
		}
	}
}

// The deprecated names are marked so in introspection, with the same
// arguments and answer as the names that replace them, and are priced the
// same by the cost calculator.
func TestDeprecatedWebhookMutationNames(t *testing.T) {
	t.Parallel()
	e := newNamesEnv(t)
	type typeRef struct {
		Kind   string
		Name   *string
		OfType *typeRef
	}
	type fieldDef struct {
		Name              string
		IsDeprecated      bool
		DeprecationReason *string
		Args              []struct {
			Name string
			Type typeRef
		}
		Type typeRef
	}
	typ := field[struct{ Fields []fieldDef }](t, gql(t, e.srv, e.token, `{ __type(name: "Mutation") { fields(includeDeprecated: true) {
		name isDeprecated deprecationReason args { name type { ...T } } type { ...T } } } }
		fragment T on __Type { kind name ofType { kind name ofType { kind name } } }`, nil), "__type")
	byName := map[string]fieldDef{}
	for _, f := range typ.Fields {
		byName[f.Name] = f
	}
	sig := func(f fieldDef) string {
		b := strings.Builder{}
		var ref func(t typeRef)
		ref = func(t typeRef) {
			b.WriteString(t.Kind)
			if t.Name != nil {
				b.WriteString(" " + *t.Name)
			}
			if t.OfType != nil {
				b.WriteString("(")
				ref(*t.OfType)
				b.WriteString(")")
			}
		}
		for _, a := range f.Args {
			b.WriteString(a.Name + ": ")
			ref(a.Type)
			b.WriteString(", ")
		}
		b.WriteString("-> ")
		ref(f.Type)
		return b.String()
	}
	for old, cur := range map[string]string{"regenerateWebhookSecret": "rotateWebhookSecret"} {
		o, c := byName[old], byName[cur]
		if !o.IsDeprecated || o.DeprecationReason == nil || *o.DeprecationReason != "Use "+cur+"." {
			t.Errorf("%s is not deprecated for %s: %+v", old, cur, o)
		}
		if c.Name != cur || c.IsDeprecated {
			t.Errorf("%s missing or deprecated: %+v", cur, c)
		}
		if sig(o) != sig(c) {
			t.Errorf("%s is %s, %s is %s", old, sig(o), cur, sig(c))
		}
	}
	// redeliverEvent takes an event id where its replacement takes a
	// delivery's; the answer is the same.
	o, c := byName["redeliverEvent"], byName["redeliverWebhookDelivery"]
	if !o.IsDeprecated || o.DeprecationReason == nil || *o.DeprecationReason != "Use redeliverWebhookDelivery." || c.IsDeprecated {
		t.Errorf("redeliverEvent %+v, redeliverWebhookDelivery %+v", o, c)
	}
	if want := "webhookId: NON_NULL(SCALAR ID), deliveryId: NON_NULL(SCALAR ID), -> NON_NULL(OBJECT WebhookDelivery)"; sig(c) != want || !strings.HasSuffix(sig(o), "-> NON_NULL(OBJECT WebhookDelivery)") {
		t.Errorf("redeliverWebhookDelivery is %s, redeliverEvent %s", sig(c), sig(o))
	}
	for _, f := range typ.Fields {
		if f.IsDeprecated && f.Name != "regenerateWebhookSecret" && f.Name != "redeliverEvent" {
			t.Errorf("%s is deprecated too", f.Name)
		}
	}

	// Cost: the same selection costs the same under either name.
	id, _ := e.webhook(t, e.acme, e.token)
	deliveryID, eventID := e.delivery(t, e.acme, e.token, id)
	cost := func(query string, vars map[string]any) int {
		t.Helper()
		r := gql(t, e.srv, e.token, query, vars)
		if len(r.Errors) > 0 || r.Extensions.Cost.RequestedQueryCost == 0 {
			t.Fatalf("%s: %+v", query, r)
		}
		return r.Extensions.Cost.RequestedQueryCost
	}
	const sel = `{ secret webhook { id deliveries(first: 7) { id attempts { id } } } }`
	rot := cost(`mutation($id: ID!) { rotateWebhookSecret(id: $id) `+sel+` }`, map[string]any{"id": id})
	if reg := cost(`mutation($id: ID!) { regenerateWebhookSecret(id: $id) `+sel+` }`, map[string]any{"id": id}); rot != reg {
		t.Errorf("rotateWebhookSecret costs %d, regenerateWebhookSecret %d", rot, reg)
	}
	const dsel = `{ id attempts { id } }`
	byDelivery := cost(`mutation($w: ID!, $d: ID!) { redeliverWebhookDelivery(webhookId: $w, deliveryId: $d) `+dsel+` }`, map[string]any{"w": id, "d": deliveryID})
	if byEvent := cost(`mutation($w: ID!, $e: String!) { redeliverEvent(webhookId: $w, eventId: $e) `+dsel+` }`, map[string]any{"w": id, "e": eventID}); byDelivery != byEvent {
		t.Errorf("redeliverWebhookDelivery costs %d, redeliverEvent %d", byDelivery, byEvent)
	}
}
