package rest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/testkit"
)

type schemeWebhook struct {
	Id, SignatureScheme string
	PublicKey, Secret   *string
}

func TestWebhookSignatureSchemeREST(t *testing.T) {
	t.Parallel()
	e := newWhEnv(t, apptest.Options{})
	rc := newReceiver(t)
	sub := e.acme.SubsidiaryID.String()
	auth := map[string]string{"Authorization": "Bearer " + e.manage, "Content-Type": "application/json"}
	send := func(method, path, body string, status int) (schemeWebhook, []byte) {
		t.Helper()
		res, b := testkit.Request(t, method, e.srv.URL+"/api/p/v1"+path, auth, body)
		var w schemeWebhook
		want(t, res, b, status, &w)
		return w, b
	}
	create := func(scheme string) (schemeWebhook, []byte) {
		t.Helper()
		field := ""
		if scheme != "" {
			field = `,"SignatureScheme":"` + scheme + `"`
		}
		return send("POST", "/webhooks", `{"Name":"erp","Url":"`+rc.URL+`/hook","EventTypes":["load.changed"],"SubsidiaryId":"`+sub+`"`+field+`}`, http.StatusCreated)
	}

	// The default is the service scheme; PublicKey is null for HMAC schemes.
	def, body := create("")
	if def.SignatureScheme != "service" || def.Secret == nil || !strings.HasPrefix(*def.Secret, "whsec_") || def.PublicKey != nil ||
		!strings.Contains(string(body), `"PublicKey":null`) {
		t.Fatalf("default %s", body)
	}
	std, body := create("standard-webhooks")
	if std.SignatureScheme != "standard-webhooks" || std.Secret == nil || !strings.HasPrefix(*std.Secret, "whsec_") || std.PublicKey != nil {
		t.Fatalf("standard-webhooks %s", body)
	}
	// ed25519: the public key on create, on read and on rotation; no secret.
	ed, body := create("standard-webhooks-ed25519")
	if ed.SignatureScheme != "standard-webhooks-ed25519" || ed.Secret != nil || ed.PublicKey == nil || !strings.HasPrefix(*ed.PublicKey, "whpk_") ||
		strings.Contains(string(body), "whsk_") || strings.Contains(string(body), `"Secret"`) {
		t.Fatalf("ed25519 %s", body)
	}
	got, _ := send("GET", "/webhooks/"+ed.Id, "", http.StatusOK)
	if got.SignatureScheme != ed.SignatureScheme || got.PublicKey == nil || *got.PublicKey != *ed.PublicKey {
		t.Fatalf("read %+v, created %+v", got, ed)
	}
	rotated, body := send("POST", "/webhooks/"+ed.Id+"/rotate-secret", `{}`, http.StatusOK)
	if rotated.Secret != nil || rotated.PublicKey == nil || *rotated.PublicKey == *ed.PublicKey || strings.Contains(string(body), "whsk_") {
		t.Fatalf("rotated %s", body)
	}
	res, b := testkit.Request(t, "GET", e.srv.URL+"/api/p/v1/webhooks", auth, "")
	var list []schemeWebhook
	want(t, res, b, http.StatusOK, &list)
	schemes := map[string]string{}
	for _, w := range list {
		schemes[w.Id] = w.SignatureScheme
	}
	if schemes[def.Id] != "service" || schemes[std.Id] != "standard-webhooks" || schemes[ed.Id] != "standard-webhooks-ed25519" {
		t.Fatalf("list %s", b)
	}

	// An unknown scheme is refused naming the field; the scheme is fixed
	// once created, but repeating it is harmless.
	res, b = testkit.Request(t, "POST", e.srv.URL+"/api/p/v1/webhooks", auth,
		`{"Name":"erp","Url":"`+rc.URL+`/hook","EventTypes":["load.changed"],"SubsidiaryId":"`+sub+`","SignatureScheme":"hmac"}`)
	wantFieldError(t, res, b, "SignatureScheme")
	res, b = testkit.Request(t, "POST", e.srv.URL+"/api/p/v1/webhooks", auth,
		`{"Name":"erp","Url":"`+rc.URL+`/hook","EventTypes":["load.changed"],"SubsidiaryId":"`+sub+`","SignatureScheme":7}`)
	wantFieldError(t, res, b, "SignatureScheme")
	res, b = testkit.Request(t, "PATCH", e.srv.URL+"/api/p/v1/webhooks/"+std.Id, auth, `{"SignatureScheme":"service"}`)
	wantFieldError(t, res, b, "SignatureScheme")
	if p := wantProblem(t, res, b, http.StatusBadRequest); !strings.Contains(strings.Join(p.Errors["SignatureScheme"], " "), "cannot be changed") {
		t.Fatalf("errors %v", p.Errors)
	}
	same, _ := send("PATCH", "/webhooks/"+std.Id, `{"SignatureScheme":"standard-webhooks","Name":"erp 2"}`, http.StatusOK)
	if same.SignatureScheme != "standard-webhooks" {
		t.Fatalf("patched %+v", same)
	}
	var raw map[string]json.RawMessage
	res, b = testkit.Request(t, "GET", e.srv.URL+"/api/p/v1/webhooks/"+def.Id, auth, "")
	want(t, res, b, http.StatusOK, &raw)
	if string(raw["SignatureScheme"]) != `"service"` {
		t.Fatalf("read %s", b)
	}
}
