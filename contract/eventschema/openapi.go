package eventschema

import "github.com/haulgraph/haulgraph/domain"

// OpenAPIPrefix prefixes the names of the catalogue's component schemas in
// the OpenAPI document, apart from those of the REST resources.
const OpenAPIPrefix = "Emitted"

// OpenAPIWebhooks is the OpenAPI 3.1 fragment the REST document takes in:
// {"webhooks": {...}, "components": {"schemas": {...}}}.
func OpenAPIWebhooks() S {
	ref := func(name string) string { return "#/components/schemas/" + OpenAPIPrefix + name }
	defs := Definitions(ref)
	schemas := S{}
	for name, d := range defs {
		schemas[OpenAPIPrefix+name] = d
	}
	hooks := S{}
	for _, t := range EventTypes() {
		var params []any
		for _, h := range Headers(t) {
			params = append(params, S{"name": h.Name, "in": "header", "required": h.Required,
				"description": h.Description, "schema": headerSchema(h, ref)})
		}
		responses := S{
			"2XX":     S{"description": "Delivered: any 2xx ends the delivery."},
			"410":     S{"description": "Gone: the webhook is disabled, no retry."},
			"default": S{"description": "Any other answer, or none within the timeout, is retried on the retry schedule."},
		}
		summary := "Event " + t
		if t == domain.EventWebhookVerification {
			responses = S{
				"200": S{"description": "Verified, when the body is exactly {\"challenge\": <the challenge>}.",
					"content": S{"application/json": S{"schema": object([]string{"challenge"}, S{"challenge": S{"type": "string", "maxLength": 256}})}}},
				"default": S{"description": "Anything else: the webhook fails verification."},
			}
			summary = "Verification request"
		}
		hooks[t] = S{"post": S{
			"operationId": "webhook" + EnvelopeName(t),
			"summary":     summary,
			"description": defs[EnvelopeName(t)]["description"],
			"tags":        []any{"Webhooks"},
			"parameters":  params,
			"requestBody": S{"required": true, "content": S{"application/json": S{"schema": S{"$ref": ref(EnvelopeName(t))}}}},
			"responses":   responses,
		}}
	}
	return S{"webhooks": hooks, "components": S{"schemas": schemas}}
}
