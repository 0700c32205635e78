package rest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/contract"
	"github.com/haulgraph/haulgraph/contract/eventschema"
	"github.com/haulgraph/haulgraph/domain"
)

func getNoToken(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, b
}

// The catalogue is served without a token: the AsyncAPI document and each
// JSON Schema as committed, and the OpenAPI document with one webhook
// operation per event type, its headers of both signature schemes and its
// body schema; every webhook body and events API item the environment
// produced was checked against them (apptest), on both channels.
func TestEventCatalogueServed(t *testing.T) {
	e := newEventsEnv(t)
	reader := e.srv.Token(t, e.acme, domain.ScopeLoadRead, domain.ScopeTripRead)
	res, body := e.get(t, "/api/p/v1/events?includePreviousAttributes=true&subsidiaryId="+e.acme.SubsidiaryID.String(), reader)
	if len(list(t, res, body)) != len(e.types) {
		t.Fatalf("events: %s", body)
	}
	checked := e.srv.EmittedChecked()
	// Two webhooks: a verification each, and every event to each.
	if checked[eventschema.ChannelWebhook] < 2+2*len(e.types) || checked[eventschema.ChannelEventsAPI] < len(e.types) {
		t.Fatalf("checked payloads %v: want every delivery and every listed event", checked)
	}

	res, body = getNoToken(t, e.srv.URL+"/api/p/asyncapi.json")
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") || !bytes.Equal(body, contract.AsyncAPIJSON) {
		t.Fatalf("asyncapi.json: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	for _, et := range []string{"load.changed", "load.status.changed", "trip.changed", "webhook.verification"} {
		res, body = getNoToken(t, e.srv.URL+"/api/p/schemas/events/"+et+".json")
		if res.StatusCode != http.StatusOK || !bytes.Equal(body, contract.EventSchema(et)) || contract.EventSchema(et) == nil {
			t.Fatalf("schema of %s: %d %s", et, res.StatusCode, body)
		}
	}
	if res, body = getNoToken(t, e.srv.URL+"/api/p/schemas/events/load.deleted.json"); res.StatusCode != http.StatusNotFound ||
		!strings.Contains(string(body), "no event type") {
		t.Fatalf("unknown event type: %d %s", res.StatusCode, body)
	}

	res, body = getNoToken(t, e.srv.URL+"/api/p/openapi.json")
	var doc struct {
		Webhooks map[string]struct {
			Post struct {
				Parameters []struct {
					Name     string
					In       string
					Required bool
				}
				RequestBody struct {
					Content map[string]struct {
						Schema struct {
							Ref string `json:"$ref"`
						}
					}
				}
			}
		}
		Components struct{ Schemas map[string]json.RawMessage }
	}
	if err := json.Unmarshal(body, &doc); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("openapi.json: %d %v", res.StatusCode, err)
	}
	for _, et := range []string{"load.changed", "load.status.changed", "trip.changed", "webhook.verification"} {
		op, ok := doc.Webhooks[et]
		if !ok {
			t.Fatalf("no webhook operation for %s", et)
		}
		ref := op.Post.RequestBody.Content["application/json"].Schema.Ref
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		if _, ok := doc.Components.Schemas[name]; !ok || name == ref {
			t.Fatalf("%s body %q is not a component schema", et, ref)
		}
		headers := map[string]bool{}
		for _, p := range op.Post.Parameters {
			if p.In == "header" {
				headers[p.Name] = p.Required
			}
		}
		want := map[string]bool{"X-Service-Event": true, "X-Service-Event-Id": true, "X-Service-Signature": false, "X-Service-Timestamp": false,
			"X-Service-Delivery": false, "webhook-id": false, "webhook-timestamp": false, "webhook-signature": false}
		if et == "webhook.verification" {
			want = map[string]bool{"X-Service-Event": true, "X-Service-Challenge": true}
		}
		for h, required := range want {
			if got, ok := headers[h]; !ok || got != required {
				t.Errorf("%s: header %s declared %v (required %v), want required %v", et, h, ok, got, required)
			}
		}
	}
	var kinds struct{ Enum []string }
	if err := json.Unmarshal(doc.Components.Schemas["EmittedChangeKind"], &kinds); err != nil ||
		strings.Join(kinds.Enum, ",") != "StatusChanged,RateChanged,FieldChanged" {
		t.Fatalf("changes[].kind: %s", doc.Components.Schemas["EmittedChangeKind"])
	}
}
