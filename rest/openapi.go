package rest

import (
	_ "embed"
	"net/http"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"

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
	doc, err := openapi3.NewLoader().LoadFromData(openapiYAML)
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
