package rest

//go:generate go run ./openapigen

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/haulgraph/haulgraph/contract"
	"github.com/haulgraph/haulgraph/contract/eventschema"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/documents"
	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/domain/webhooks"
	"github.com/haulgraph/haulgraph/httpedge"
)

// openapiSource is the hand-maintained OpenAPI 3.1 description of every
// REST route; BuildOpenAPI completes it into openapi.json.
//
//go:embed openapi.yaml
var openapiSource []byte

// openapiJSON is the document the server serves, byte for byte: the
// committed file `go generate` writes (a test holds it equal to
// BuildOpenAPI's output).
//
//go:embed openapi.json
var openapiJSON []byte

var openapiDoc = sync.OnceValues(func() (*openapi3.T, error) {
	return openapi3.NewLoader().LoadFromData(openapiJSON)
})

// OpenAPI returns the served document, parsed and as served.
func OpenAPI() (*openapi3.T, []byte, error) {
	d, err := openapiDoc()
	return d, openapiJSON, err
}

// BuildOpenAPI writes the served document: the source, with the event
// catalogue's webhooks section and schemas merged in, its vocabularies
// filled from domain's lists (one source for validation, GraphQL enums and
// this document) and the headers every answer of the API carries.
func BuildOpenAPI() ([]byte, error) {
	merged, err := mergeWebhooks(openapiSource, contract.OpenAPIWebhooksJSON)
	if err != nil {
		return nil, err
	}
	doc, err := openapi3.NewLoader().LoadFromData(merged)
	if err != nil {
		return nil, err
	}
	enums := map[string][]any{
		"InvoiceType":            anys(reads.InvoiceTypes),
		"InvoiceStatus":          anys(reads.InvoiceStatuses),
		"StatementStatus":        anys(reads.VisibleStatementStatuses),
		"DriverType":             anys(domain.DriverTypes),
		"TrailerStatus":          anys(reads.TrailerStatuses),
		"LocationStatus":         anys(reads.LocationStatuses),
		"UserStatus":             anys(reads.UserStatuses),
		"LoadStatus":             anys(domain.LoadStatuses),
		"BillingStatus":          anys(domain.BillingStatuses),
		"EventType":              anys(domain.EventTypes),
		"WebhookSignatureScheme": anys(webhooks.SignatureSchemes),
		"ExportFormat":           anys(reads.ExportFormats),
	}
	for name, values := range enums {
		doc.Components.Schemas[name].Value.Enum = values
	}
	// Listed events carry the snapshot the catalogue publishes, which
	// admits the events earlier releases wrote.
	emitted := eventschema.OpenAPIPrefix + eventschema.DefLoad
	doc.Components.Schemas["EventEnvelope"].Value.Properties["data"].Value.Properties["load"] =
		&openapi3.SchemaRef{Ref: "#/components/schemas/" + emitted, Value: doc.Components.Schemas[emitted].Value}
	if err := addCacheDeclarations(doc); err != nil {
		return nil, err
	}
	addCommonHeaders(doc)
	addDomainBounds(doc)
	addUploadTypes(doc)
	addFormatBounds(doc)
	addTextRule(doc)
	b, err := doc.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// addCacheDeclarations declares, on every route that names the resources
// it reads (Route.Reads: the response cache answers it), what the cache
// adds: If-None-Match; on a GET, the validators and Cache-Status on its 200
// and a 304; on a POST search, Cache-Status on its 200 and a 412.
func addCacheDeclarations(doc *openapi3.T) error {
	every := Deps{Reads: &reads.Service{}, Documents: &documents.Service{}, Events: &eventlog.Log{},
		Exports: &reads.Exports{}, Webhooks: &webhooks.Service{}, Destinations: &webhooks.Service{}}
	header := func(name string) *openapi3.HeaderRef {
		return &openapi3.HeaderRef{Ref: "#/components/headers/" + name, Value: doc.Components.Headers[name].Value}
	}
	response := func(name string) *openapi3.ResponseRef {
		return &openapi3.ResponseRef{Ref: "#/components/responses/" + name, Value: doc.Components.Responses[name].Value}
	}
	for _, rt := range mountedRoutes(every) {
		if rt.Reads == 0 {
			continue
		}
		item := doc.Paths.Value(Prefix + "v1" + rt.Path)
		var op *openapi3.Operation
		if item != nil {
			op = item.GetOperation(rt.Method)
		}
		if op == nil || op.Responses.Status(http.StatusOK) == nil {
			return fmt.Errorf("openapi: the cacheable %s %s has no operation with a 200", rt.Method, rt.Path)
		}
		op.Parameters = append(op.Parameters, &openapi3.ParameterRef{Ref: "#/components/parameters/IfNoneMatch",
			Value: doc.Components.Parameters["IfNoneMatch"].Value})
		ok := op.Responses.Status(http.StatusOK).Value
		if ok.Headers == nil {
			ok.Headers = openapi3.Headers{}
		}
		ok.Headers["Cache-Status"] = header("CacheStatus")
		if rt.Method == http.MethodGet {
			ok.Headers["ETag"] = header("ETag")
			ok.Headers["Cache-Control"] = header("CacheControl")
			ok.Headers["Vary"] = header("Vary")
			op.Responses.Set("304", response("NotModified"))
		} else {
			op.Responses.Set("412", response("PreconditionFailed"))
		}
	}
	return nil
}

// addCommonHeaders declares on every answer under Prefix the RateLimit-*
// headers the limiter sets on each of them (components/headers), and on
// the token endpoint's answers, which its throttle also sets.
func addCommonHeaders(doc *openapi3.T) {
	seen := map[*openapi3.Response]bool{}
	paths := doc.Paths.InMatchingOrder()
	sort.Strings(paths)
	for _, path := range paths {
		if !strings.HasPrefix(path, Prefix) && !strings.HasPrefix(path, "/oauth/") {
			continue
		}
		for _, op := range doc.Paths.Value(path).Operations() {
			for _, ref := range op.Responses.Map() {
				r := ref.Value
				if seen[r] {
					continue
				}
				seen[r] = true
				if r.Headers == nil {
					r.Headers = openapi3.Headers{}
				}
				for _, h := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} {
					if r.Headers[h] == nil {
						name := strings.ReplaceAll(h, "-", "")
						r.Headers[h] = &openapi3.HeaderRef{Ref: "#/components/headers/" + name, Value: doc.Components.Headers[name].Value}
					}
				}
			}
		}
	}
}

// Lengths that a string's format fixes, and the ranges of integer formats
// (int64 values are counts kept within JavaScript's exact integers).
var (
	formatMaxLength = map[string]uint64{"uuid": domain.UUIDLength, "date": 10, "date-time": domain.MaxDateTimeLength}
	integerRange    = map[string][2]float64{
		"int32": {math.MinInt32, math.MaxInt32},
		"int64": {-(1<<53 - 1), 1<<53 - 1},
	}
)

// addFormatBounds states on every schema what its format already bounds: a
// uuid, date or date-time string's length, an integer format's range (a
// bound given in the source is kept).
func addFormatBounds(doc *openapi3.T) {
	seen := map[*openapi3.Schema]bool{}
	var walk func(ref *openapi3.SchemaRef)
	walk = func(ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		if s.Type.Includes(openapi3.TypeString) && s.MaxLength == nil {
			if n, ok := formatMaxLength[s.Format]; ok {
				s.MaxLength = &n
			}
		}
		if r, ok := integerRange[s.Format]; ok && s.Type.Includes(openapi3.TypeInteger) {
			if s.Min == nil {
				s.Min = &r[0]
			}
			if s.Max == nil {
				s.Max = &r[1]
			}
		}
		walk(s.Items)
		walk(s.Not)
		if s.AdditionalProperties.Schema != nil {
			walk(s.AdditionalProperties.Schema)
		}
		for _, list := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf, s.AllOf} {
			for _, r := range list {
				walk(r)
			}
		}
		for _, p := range s.Properties {
			walk(p)
		}
	}
	for _, s := range doc.Components.Schemas {
		walk(s)
	}
	for _, h := range doc.Components.Headers {
		walk(h.Value.Schema)
	}
	for _, p := range doc.Components.Parameters {
		walk(p.Value.Schema)
	}
	for _, r := range doc.Components.Responses {
		for _, h := range r.Value.Headers {
			walk(h.Value.Schema)
		}
	}
	for _, item := range doc.Paths.Map() {
		for _, p := range item.Parameters {
			walk(p.Value.Schema)
		}
		for _, op := range item.Operations() {
			for _, p := range op.Parameters {
				walk(p.Value.Schema)
			}
			if op.RequestBody != nil {
				for _, mt := range op.RequestBody.Value.Content {
					walk(mt.Schema)
				}
			}
			for _, r := range op.Responses.Map() {
				for _, h := range r.Value.Headers {
					walk(h.Value.Schema)
				}
				for _, mt := range r.Value.Content {
					walk(mt.Schema)
				}
			}
		}
	}
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
	httpedge.SetRoute(r.Context(), "GET "+Prefix+"openapi.json")
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(openapiJSON)
}

// serveAsyncAPI answers GET /api/p/asyncapi.json (no token needed): the
// committed document, as is.
func serveAsyncAPI(w http.ResponseWriter, r *http.Request) {
	httpedge.SetRoute(r.Context(), "GET "+Prefix+"asyncapi.json")
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(contract.AsyncAPIJSON)
}

// serveEventSchema answers GET /api/p/schemas/events/{type}.json (no token
// needed): the event type's JSON Schema.
func serveEventSchema(w http.ResponseWriter, r *http.Request) {
	httpedge.SetRoute(r.Context(), "GET "+Prefix+"schemas/events/{file}")
	name, ok := strings.CutSuffix(r.PathValue("file"), ".json")
	b := contract.EventSchema(name)
	if !ok || b == nil {
		WriteProblem(w, r, http.StatusNotFound, "no event type "+domain.Quote(r.PathValue("file"))+": see "+Prefix+"asyncapi.json for the event types", nil)
		return
	}
	w.Header().Set("Content-Type", "application/schema+json")
	_, _ = w.Write(b)
}
