package resolvers_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/testkit"
	"github.com/haulgraph/haulgraph/webhooksig"
)

func TestWebhookSignatureSchemeThroughGraphQL(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	acme := apptest.NewTenant(t, srv, "acme")
	token := srv.Token(t, acme, domain.ScopeWebhookManage)
	rcv := testkit.NewReceiver(t)

	type created struct {
		Secret  string
		Webhook struct {
			ID, SignatureScheme string
			PublicKey           *string
		}
	}
	create := `mutation($in: CreateWebhookInput!) { createWebhook(input: $in) { secret webhook { id signatureScheme publicKey } } }`
	in := func(scheme any) map[string]any {
		m := map[string]any{"name": "ERP", "url": rcv.URL + "/hook", "eventTypes": []string{"load.changed"}, "subsidiaryId": acme.SubsidiaryID}
		if scheme != nil {
			m["signatureScheme"] = scheme
		}
		return map[string]any{"in": m}
	}
	def := field[created](t, gql(t, srv, token, create, in(nil)), "createWebhook")
	if def.Webhook.SignatureScheme != "SERVICE" || def.Webhook.PublicKey != nil || !strings.HasPrefix(def.Secret, "whsec_") {
		t.Fatalf("default %+v", def)
	}
	std := field[created](t, gql(t, srv, token, create, in("STANDARD_WEBHOOKS")), "createWebhook")
	if std.Webhook.SignatureScheme != "STANDARD_WEBHOOKS" || std.Webhook.PublicKey != nil || !strings.HasPrefix(std.Secret, "whsec_") {
		t.Fatalf("standard %+v", std)
	}
	if !field[bool](t, gql(t, srv, token, `mutation($id: ID!) { deleteWebhook(id: $id) }`, map[string]any{"id": std.Webhook.ID}), "deleteWebhook") ||
		!field[bool](t, gql(t, srv, token, `mutation($id: ID!) { deleteWebhook(id: $id) }`, map[string]any{"id": def.Webhook.ID}), "deleteWebhook") {
		t.Fatal("delete")
	}
	ed := field[created](t, gql(t, srv, token, create, in("STANDARD_WEBHOOKS_ED25519")), "createWebhook")
	if ed.Webhook.SignatureScheme != "STANDARD_WEBHOOKS_ED25519" || ed.Secret != "" || ed.Webhook.PublicKey == nil || !strings.HasPrefix(*ed.Webhook.PublicKey, "whpk_") {
		t.Fatalf("ed25519 %+v", ed)
	}
	id := ed.Webhook.ID
	read := field[struct {
		SignatureScheme string
		PublicKey       *string
	}](t, gql(t, srv, token, `query($id: ID!) { webhook(id: $id) { signatureScheme publicKey } }`, map[string]any{"id": id}), "webhook")
	if read.SignatureScheme != "STANDARD_WEBHOOKS_ED25519" || read.PublicKey == nil || *read.PublicKey != *ed.Webhook.PublicKey {
		t.Fatalf("read %+v", read)
	}

	// An unknown scheme is refused before anything runs, naming the field
	// (GraphQL over HTTP: 400 when the client accepts graphql-response+json).
	body, _ := json.Marshal(map[string]any{"query": create, "variables": in("HMAC")})
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/graphql-response+json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(raw), "signatureScheme") || strings.Contains(string(raw), `"createWebhook":{`) {
		t.Fatalf("unknown scheme: %d %s", res.StatusCode, raw)
	}

	// A delivery is signed v1a, and the log says so for it and its attempt.
	if w := field[struct{ State string }](t, gql(t, srv, token, `mutation($id: ID!) { enableWebhook(id: $id) { state } }`, map[string]any{"id": id}), "enableWebhook"); w.State != "Active" {
		t.Fatalf("enable: %+v", w)
	}
	eventID := srv.LoadEvent(t, acme, "S-1")
	d := rcv.Next(t)
	if err := webhooksig.VerifyStandardEd25519(d.Body, d.Header, *ed.Webhook.PublicKey, webhooksig.DefaultTolerance, time.Now()); err != nil || d.Header.Get("webhook-id") != eventID {
		t.Fatalf("delivery %v: %v", d.Header, err)
	}
	type delivery struct {
		Status, SignatureScheme string
		Attempts                []struct{ SignatureScheme string }
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		ds := field[struct{ Deliveries []delivery }](t, gql(t, srv, token,
			`query($id: ID!) { webhook(id: $id) { deliveries { status signatureScheme attempts { signatureScheme } } } }`, map[string]any{"id": id}), "webhook").Deliveries
		if len(ds) == 1 && ds[0].Status == "Delivered" {
			if ds[0].SignatureScheme != "STANDARD_WEBHOOKS_ED25519" || len(ds[0].Attempts) != 1 || ds[0].Attempts[0].SignatureScheme != "STANDARD_WEBHOOKS_ED25519" {
				t.Fatalf("delivery log %+v", ds)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the delivery was not recorded: %+v", ds)
		}
		time.Sleep(50 * time.Millisecond) // the attempt is recorded just after the receiver answered
	}

	// Rotation shows the new public key, never a private one.
	rot := field[created](t, gql(t, srv, token, `mutation($id: ID!) { regenerateWebhookSecret(id: $id) { secret webhook { id signatureScheme publicKey } } }`,
		map[string]any{"id": id}), "regenerateWebhookSecret")
	if rot.Secret != "" || rot.Webhook.PublicKey == nil || *rot.Webhook.PublicKey == *ed.Webhook.PublicKey || !strings.HasPrefix(*rot.Webhook.PublicKey, "whpk_") {
		t.Fatalf("rotated %+v", rot)
	}
}
