package transport

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	"github.com/vektah/gqlparser/v2/validator/rules"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/graph/operation"
	"github.com/haulgraph/haulgraph/respcache"
)

// CachedQueries answers query operations sent over plain HTTP (GET and
// POST, persisted queries included) from the response cache. It is the
// innermost response interceptor: the cost check before it and the cost
// report after it run for every request, from memory or not. An answer
// with errors, a deferred one, a mutation or a subscription is never
// stored; nor is an operation selecting a type no resource accounts for
// (queryResources).
type CachedQueries struct {
	Cache *respcache.Cache
	// Bounds, Validated and Rules are the server's own gates before a
	// document runs (its bounds, its validated documents, its validation
	// rules): Describe reads a conditional GET's document through them.
	Bounds    operation.DocumentBounds
	Validated graphql.Cache[*ast.QueryDocument]
	Rules     func() *rules.Rules
	MaxQuery  int64 // a GET's query string (the POST body limit)
	schema    *ast.Schema
	types     map[string]domain.Resources // typeResources of schema
}

var _ interface {
	graphql.HandlerExtension
	graphql.ResponseInterceptor
} = (*CachedQueries)(nil)

func (*CachedQueries) ExtensionName() string { return "ResponseCache" }

func (q *CachedQueries) Validate(es graphql.ExecutableSchema) error {
	q.schema = es.Schema()
	q.types = typeResources(q.schema)
	return nil
}

func (q *CachedQueries) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	note := respcache.NoteFrom(ctx)
	if note == nil || !graphql.HasOperationContext(ctx) {
		return next(ctx)
	}
	op := graphql.GetOperationContext(ctx)
	if op.Operation == nil || op.Operation.Operation != ast.Query || strings.Contains(op.RawQuery, "@defer") {
		return next(ctx)
	}
	rs, ok := q.resources(op.Doc, op.Operation)
	if !ok {
		return next(ctx)
	}
	rd, ok := q.Cache.Begin(ctx, note.Key(), rs)
	if !ok {
		note.Bypassed()
		return next(ctx)
	}
	var own *graphql.Response
	var stored bool
	a, hit := q.Cache.Get(rd, func() (*respcache.Answer, bool) {
		own = next(ctx)
		if own == nil {
			return nil, false
		}
		stored = len(own.Errors) == 0 && own.HasNext == nil && len(own.Data) > 0
		return &respcache.Answer{Body: bytes.Clone(own.Data), Status: http.StatusOK}, stored
	})
	note.Answered(rd, hit, stored)
	if own != nil || a == nil {
		return own
	}
	return &graphql.Response{Data: a.Body}
}

// Describe keys a GET for a conditional request before it runs: its
// document as the server would admit it (validated already, or within the
// bounds and valid, then kept as validated for the run that may follow). A
// persisted query sent by its hash alone cannot be described, and runs.
func (q *CachedQueries) Describe(r *http.Request, p *domain.Principal) (respcache.Key, domain.Resources, bool) {
	if q.schema == nil {
		return respcache.Key{}, 0, false
	}
	params, _, gerr := httpTransport{maxQuery: q.MaxQuery}.read(r)
	if gerr != nil || params.Query == "" {
		return respcache.Key{}, 0, false
	}
	ctx := r.Context()
	doc, ok := q.Validated.Get(ctx, params.Query)
	if !ok {
		if q.Bounds.MutateOperationParameters(ctx, params) != nil {
			return respcache.Key{}, 0, false
		}
		parsed, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: params.Query}, operation.ParserTokenLimit)
		if err != nil || len(validator.ValidateWithRules(q.schema, parsed, q.Rules())) > 0 {
			return respcache.Key{}, 0, false
		}
		q.Validated.Add(ctx, params.Query, parsed)
		doc = parsed
	}
	op := doc.Operations.ForName(params.OperationName)
	if op == nil || op.Operation != ast.Query {
		return respcache.Key{}, 0, false
	}
	rs, ok := q.resources(doc, op)
	return cacheKey(p, params), rs, ok
}

// cacheKey is a GraphQL request's key: the document (the SHA-256 of its
// text, which is also its persisted-query hash), the operation's name and
// the variables as sent, in canonical JSON.
func cacheKey(p *domain.Principal, params *graphql.RawParams) respcache.Key {
	doc := ""
	if params.Query != "" {
		sum := sha256.Sum256([]byte(params.Query))
		doc = hex.EncodeToString(sum[:])
	} else if pq, ok := params.Extensions["persistedQuery"].(map[string]any); ok {
		doc, _ = pq["sha256Hash"].(string)
	}
	vars := ""
	if len(params.Variables) > 0 {
		b, _ := json.Marshal(params.Variables) // keys sorted
		vars = string(b)
	}
	return respcache.NewKey(p, "graphql", doc, params.OperationName, vars)
}

// noteRequest marks a request of the plain HTTP transport cacheable. Its
// key is computed only once the operation is known to be a cacheable query,
// from the parameters as sent (the executor fills in a persisted query's
// text in params).
func noteRequest(r *http.Request, params *graphql.RawParams) *http.Request {
	p := domain.PrincipalFrom(r.Context())
	if p == nil {
		return r
	}
	sent := *params
	ctx, _ := respcache.WithNote(r.Context(), func() respcache.Key { return cacheKey(p, &sent) })
	return r.WithContext(ctx)
}

// resources are what an operation's answer is computed from: the
// resources of every type it selects (queryResources); ok is false when
// it selects one no resource accounts for.
func (q *CachedQueries) resources(doc *ast.QueryDocument, op *ast.OperationDefinition) (domain.Resources, bool) {
	var rs domain.Resources
	seen := map[string]bool{}
	var walk func(set ast.SelectionSet) bool
	walk = func(set ast.SelectionSet) bool {
		for _, sel := range set {
			switch s := sel.(type) {
			case *ast.Field:
				if s.Name == "__typename" {
					continue
				}
				if s.Definition == nil {
					return false // introspection (__schema, __type) and the unknown
				}
				r, ok := q.types[s.Definition.Type.Name()]
				if !ok {
					return false
				}
				rs |= r
				if !walk(s.SelectionSet) {
					return false
				}
			case *ast.InlineFragment:
				if !walk(s.SelectionSet) {
					return false
				}
			case *ast.FragmentSpread:
				if seen[s.Name] {
					continue
				}
				seen[s.Name] = true
				f := doc.Fragments.ForName(s.Name)
				if f == nil || !walk(f.SelectionSet) {
					return false
				}
			}
		}
		return true
	}
	if !walk(op.SelectionSet) || rs == 0 {
		return 0, false
	}
	return rs, true
}

// typeResources are the resources a field of each type of s reads: none
// for a scalar or an enum; for an object its queryResources, for an
// interface or a union those of every type it may be. A type that is
// missing (one of them not in queryResources) makes a selection of it
// uncacheable.
func typeResources(s *ast.Schema) map[string]domain.Resources {
	m := make(map[string]domain.Resources, len(s.Types))
	for name, t := range s.Types {
		if t.Kind != ast.Object && t.Kind != ast.Interface && t.Kind != ast.Union {
			m[name] = 0
			continue
		}
		r, ok := queryResources[name]
		for _, d := range s.GetPossibleTypes(t) {
			pr, known := queryResources[d.Name]
			r, ok = r|pr, ok && known
		}
		if ok {
			m[name] = r
		}
	}
	return m
}

// queryResources are the resources each object type's fields are read
// from: the entity's it shows (domain/reads). A type missing here makes an
// operation that selects it uncacheable: events and webhooks (their own
// freshness), documents (signed links that expire), Mutation and
// Subscription.
var queryResources = func() map[string]domain.Resources {
	m := map[string]domain.Resources{"Query": 0, "Money": 0, "Address": 0, "PageInfo": 0}
	for names, r := range map[string]domain.Resources{
		"Invoice InvoiceLineItem LineRate InvoicePayment": reads.InvoiceReads,
		"InvoiceLoad": reads.InvoiceLoadReads,
		"SettlementStatement StatementTotals StatementLineItem StatementSubLine SettlementStatementConnection SettlementStatementEdge": reads.StatementReads,
		"Trailer TrailerCapacity TrailerReference Note TrailerConnection TrailerEdge":                                                  reads.TrailerReads,
		"Location LocationNote LocationConnection LocationEdge":                                                                        reads.LocationReads,
		"User UserConnection UserEdge":           reads.UserReads,
		"Load Stop Trip LoadConnection LoadEdge": reads.LoadReads,
		"Customer Vendor Carrier Driver Fleet":   reads.PartyReads,
	} {
		for _, name := range strings.Fields(names) {
			m[name] = r
		}
	}
	return m
}()
