// Package contract publishes the event catalogue: the AsyncAPI document,
// the OpenAPI webhooks section and a JSON Schema per event type, generated
// by eventschema from domain's vocabularies and the GraphQL schema, and
// validates emitted payloads against them.
package contract

import (
	"embed"
	"io/fs"
)

//go:generate go run ./eventschema/gen

// AsyncAPIJSON is the AsyncAPI 3.0 document, served as is.
//
//go:embed asyncapi.json
var AsyncAPIJSON []byte

// OpenAPIWebhooksJSON is {"webhooks": …, "components": {"schemas": …}},
// merged into the REST API's OpenAPI document.
//
//go:embed openapi-webhooks.json
var OpenAPIWebhooksJSON []byte

//go:embed schemas/*.json
var schemaFiles embed.FS

// EventSchema is eventType's JSON Schema, or nil for an unknown type.
func EventSchema(eventType string) []byte {
	b, err := fs.ReadFile(schemaFiles, "schemas/"+eventType+".json")
	if err != nil {
		return nil
	}
	return b
}
