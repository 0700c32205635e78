package rest

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/haulgraph/haulgraph/contract"
	"github.com/haulgraph/haulgraph/domain"
)

// openapiYAML is the hand-maintained OpenAPI 3.1 description of every REST
// route; the live-validation test holds it to what the server answers.
//
//go:embed openapi.yaml
var openapiYAML []byte

var openapiDoc = sync.OnceValues(buildOpenAPI)

// OpenAPI returns the parsed document, its vocabularies filled from domain's
// lists (one source for validation, GraphQL enums and this document).
func OpenAPI() (*openapi3.T, []byte, error) {
	d, err := openapiDoc()
	return d.doc, d.json, err
}

type builtDoc struct {
	doc  *openapi3.T
	json []byte
}

func buildOpenAPI() (builtDoc, error) {
	merged, err := mergeWebhooks(openapiYAML, contract.OpenAPIWebhooksJSON)
	if err != nil {
		return builtDoc{}, err
	}
	doc, err := openapi3.NewLoader().LoadFromData(merged)
	if err != nil {
		return builtDoc{}, err
	}
	enums := map[string][]any{
		"InvoiceType":     anys(domain.InvoiceTypes),
		"InvoiceStatus":   anys(domain.InvoiceStatuses),
		"StatementStatus": anys(domain.VisibleStatementStatuses),
		"DriverType":      anys(domain.DriverTypes),
		"TrailerStatus":   anys(domain.TrailerStatuses),
		"LocationStatus":  anys(domain.LocationStatuses),
		"UserStatus":      anys(domain.UserStatuses),
		"LoadStatus":      anys(domain.LoadStatuses),
		"BillingStatus":   anys(domain.BillingStatuses),
		"EventType":       anys(domain.EventTypes),
	}
	for name, values := range enums {
		doc.Components.Schemas[name].Value.Enum = values
	}
	b, err := doc.MarshalJSON()
	if err != nil {
		return builtDoc{}, err
	}
	return builtDoc{doc: doc, json: b}, nil
}

// mergeWebhooks adds the event catalogue's fragment (its webhooks and
// component schemas, generated in contract/) to the REST document; a schema
// name both define is an error rather than a silent override.
func mergeWebhooks(base, fragment []byte) ([]byte, error) {
	doc, err := openapi3.NewLoader().LoadFromData(base)
	if err != nil {
		return nil, err
	}
	b, err := doc.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var whole, part map[string]any
	if err := json.Unmarshal(b, &whole); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(fragment, &part); err != nil {
		return nil, err
	}
	if _, ok := whole["webhooks"]; ok {
		return nil, errors.New("openapi: the REST document has its own webhooks section")
	}
	whole["webhooks"] = part["webhooks"]
	components, _ := whole["components"].(map[string]any)
	if components == nil {
		components = map[string]any{}
		whole["components"] = components
	}
	schemas, _ := components["schemas"].(map[string]any)
	if schemas == nil {
		schemas = map[string]any{}
		components["schemas"] = schemas
	}
	for name, s := range part["components"].(map[string]any)["schemas"].(map[string]any) {
		if _, taken := schemas[name]; taken {
			return nil, fmt.Errorf("openapi: component schema %s is defined twice (REST and events)", name)
		}
		schemas[name] = s
	}
	return json.Marshal(whole)
}

func anys[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// serveOpenAPI answers GET /api/p/openapi.json (no token needed).
func serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	SetRoute(r.Context(), "GET "+Prefix+"openapi.json")
	_, b, err := OpenAPI()
	if err != nil {
		WriteError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(b)
}

// serveAsyncAPI answers GET /api/p/asyncapi.json (no token needed): the
// committed document, as is.
func serveAsyncAPI(w http.ResponseWriter, r *http.Request) {
	SetRoute(r.Context(), "GET "+Prefix+"asyncapi.json")
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(contract.AsyncAPIJSON)
}

// serveEventSchema answers GET /api/p/schemas/events/{type}.json (no token
// needed): the event type's JSON Schema.
func serveEventSchema(w http.ResponseWriter, r *http.Request) {
	SetRoute(r.Context(), "GET "+Prefix+"schemas/events/{file}")
	name, ok := strings.CutSuffix(r.PathValue("file"), ".json")
	b := contract.EventSchema(name)
	if !ok || b == nil {
		WriteProblem(w, r, http.StatusNotFound, "no event type "+quote(r.PathValue("file"))+": see "+Prefix+"asyncapi.json for the event types", nil)
		return
	}
	w.Header().Set("Content-Type", "application/schema+json")
	_, _ = w.Write(b)
}
