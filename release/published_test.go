package release

import (
	"encoding/json"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/haulgraph/haulgraph/contract"
	"github.com/haulgraph/haulgraph/contract/eventschema"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/rest"
)

// checkPublished fails unless the load.changed envelope body, written by
// release version, is valid against every schema this code publishes for
// it: the event type's JSON Schema and the AsyncAPI document (as the
// events API and webhooks hand it out), and the events API's item in the
// OpenAPI document.
func checkPublished(t *testing.T, version string, body []byte) {
	t.Helper()
	v, err := contract.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range []string{eventschema.ChannelEventsAPI, eventschema.ChannelWebhook} {
		if err := v.Validate(ch, domain.EventLoadChanged, body); err != nil {
			t.Errorf("%s's event against the published schema: %v", version, err)
		}
	}
	doc, _, err := rest.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	var value any
	if err := json.Unmarshal(body, &value); err != nil {
		t.Fatal(err)
	}
	item := doc.Paths.Value(rest.Prefix + "v1/events").Get.Responses.Status(200).Value.Content.Get("application/json").Schema.Value.Items
	if err := item.Value.VisitJSON(value, openapi3.EnableFormatValidation()); err != nil {
		t.Errorf("%s's event against the events API's item in the OpenAPI document: %v", version, err)
	}
}

// TestEventFieldsNameTheirRelease: every field the catalogue marks as added
// by a release (eventschema.Since, hence optional) names a release of the
// changelog, the unreleased one included.
func TestEventFieldsNameTheirRelease(t *testing.T) {
	t.Parallel()
	releases, err := Parse("../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, r := range releases {
		known[r.Version] = true
	}
	var doc any
	if err := json.Unmarshal(contract.OpenAPIWebhooksJSON, &doc); err != nil {
		t.Fatal(err)
	}
	marked := 0
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if version, ok := x[eventschema.Since]; ok {
				marked++
				if s, _ := version.(string); !known[s] {
					t.Errorf("%s %v names no release of CHANGELOG.md", eventschema.Since, version)
				}
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(doc)
	if marked == 0 {
		t.Fatalf("no field marked %s: CustomerName was added in v0.29.0", eventschema.Since)
	}
}
