package graph_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/graph/operation"
	"github.com/haulgraph/haulgraph/ratelimit"
	"github.com/haulgraph/haulgraph/resolvers"
	"github.com/haulgraph/haulgraph/storage"
)

type costJSON struct {
	Requested int `json:"requestedQueryCost"`
	Actual    int `json:"actualQueryCost"`
	Throttle  struct {
		Max       float64 `json:"maximumAvailable"`
		Available float64 `json:"currentlyAvailable"`
		Restore   float64 `json:"restoreRate"`
	} `json:"throttleStatus"`
}

func TestQueryCostReportedAndLimited(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 30)
	tok := w.token(t, "driver:read")
	out := gql(t, w.srv.URL, tok, searchQuery, map[string]any{"f": dateRange("2025-03-01T00:00:00Z", "2025-03-10T00:00:00Z"), "page": 0, "size": 100})
	var cost costJSON
	if err := json.Unmarshal(out.Extensions["cost"], &cost); err != nil {
		t.Fatalf("extensions.cost: %s", out.Extensions["cost"])
	}
	// Requested: 100 possible statements; actual: the 8 returned.
	if cost.Requested < 1000 || cost.Actual <= 0 || cost.Actual >= cost.Requested/5 {
		t.Errorf("cost %+v: requested should price 100 items, actual the 8 returned", cost)
	}
	// All but the actual cost is refunded; the clock runs, so the refill
	// during the request may add to it (up to the budget).
	if cost.Throttle.Max != operation.DefaultCostBudget || cost.Throttle.Restore != operation.DefaultCostRefill || cost.Throttle.Available < cost.Throttle.Max-float64(cost.Actual) || cost.Throttle.Available > cost.Throttle.Max {
		t.Errorf("throttle %+v (cost %+v)", cost.Throttle, cost)
	}

	// Items and three sets of edges of 100 statements with every field
	// exceed the limit (20000).
	edges := "edges { cursor node { " + statementFields + " } } "
	q := strings.Replace(searchQuery, "items {", edges+"e2: "+edges+"e3: "+edges+"items {", 1)
	res, out := do(t, w.srv.URL, tok, "application/json", map[string]any{"query": q, "variables": map[string]any{"f": dateRange("2025-03-01T00:00:00Z", "2025-03-10T00:00:00Z"), "page": 0, "size": 100}})
	if res.StatusCode != 200 || out.Code(0) != "COMPLEXITY_LIMIT_EXCEEDED" || out.Data["settlementStatements"] != nil {
		t.Errorf("over the cost limit: %d %+v", res.StatusCode, out)
	}
	res, _ = do(t, w.srv.URL, tok, "application/graphql-response+json", map[string]any{"query": q, "variables": map[string]any{"f": dateRange("2025-03-01T00:00:00Z", "2025-03-10T00:00:00Z"), "page": 0, "size": 100}})
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("graphql-response+json, over the limit: %d, want 400", res.StatusCode)
	}
}

// limitedServer serves a GraphQL handler with tight limits behind the real
// auth middleware of srv.
func limitedServer(t testing.TB, srv *apptest.Server, o app.GraphQLOptions) string {
	store := &storage.Reads{DB: srv.DB}
	h := app.NewGraphQL(&resolvers.Resolver{Reads: &reads.Service{Store: store}}, store, nil, o)
	ts := httptest.NewServer(srv.Auth.Middleware(h))
	t.Cleanup(ts.Close)
	return ts.URL
}

func TestDepthLimitAndThrottle(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 3)
	tok := w.token(t, allReadScopes...)
	u := limitedServer(t, w.srv, app.GraphQLOptions{MaxDepth: 4, MaxCost: 50})
	deep := `{ load(loadNumber: "L-100") { trips { trailer { fleet { name } } } } }` // 5 levels
	out := gql(t, u, tok, deep, nil)
	if out.Code(0) != "COMPLEXITY_LIMIT_EXCEEDED" || !strings.Contains(out.Errors[0].Message, "deep") || out.Data["load"] != nil {
		t.Errorf("depth 5 > 4: %+v", out)
	}
	// The same depth hidden in fragments counts too.
	out = gql(t, u, tok, `{ load(loadNumber: "L-100") { ...L } } fragment L on Load { trips { ...T } } fragment T on Trip { trailer { fleet { name } } }`, nil)
	if out.Code(0) != "COMPLEXITY_LIMIT_EXCEEDED" {
		t.Errorf("depth through fragments: %+v", out)
	}
	out = gql(t, u, tok, `{ trailers(first: 100) { items { trailerNum } } }`, nil) // 1 + 100×1
	if out.Code(0) != "COMPLEXITY_LIMIT_EXCEEDED" || !strings.Contains(out.Errors[0].Message, "costs 101") {
		t.Errorf("cost 101 > 50: %+v", out)
	}
	// The throttle: 60 points, almost no refill; a query is charged its
	// requested cost up front and refunded what it did not use.
	u = limitedServer(t, w.srv, app.GraphQLOptions{Throttle: operation.NewThrottle(ratelimit.New(ratelimit.PGStore{Buckets: &storage.RateLimits{DB: w.srv.DB}}, nil), 60, 0.001)})
	q := `{ trailers(first: 40) { items { trailerNum } } }`
	out = gql(t, u, tok, q, nil)
	var cost costJSON
	_ = json.Unmarshal(out.Extensions["cost"], &cost)
	if len(out.Errors) > 0 || cost.Requested != 41 || cost.Actual != 2 || cost.Throttle.Available != 58 {
		t.Fatalf("first: %+v %+v", out.Errors, cost)
	}
	res, out := do(t, u, tok, "application/json", map[string]any{"query": `{ trailers(first: 58) { items { trailerNum } } }`})
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" || out.Code(0) != "RATE_LIMITED" || out.Data != nil {
		t.Errorf("59 points of 58 available: %d Retry-After %q %+v", res.StatusCode, res.Header.Get("Retry-After"), out)
	}
}

func TestGraphQLOverHTTP(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 3)
	tok := w.token(t, allReadScopes...)
	// Parse and validation errors: 200 under application/json, 400 under graphql-response+json.
	for _, q := range []string{`{ trailers { `, `{ nope }`} {
		res, out := do(t, w.srv.URL, tok, "application/json", map[string]any{"query": q})
		if res.StatusCode != 200 || len(out.Errors) == 0 || out.Data != nil {
			t.Errorf("%q as application/json: %d %+v", q, res.StatusCode, out)
		}
		res, out = do(t, w.srv.URL, tok, "application/graphql-response+json", map[string]any{"query": q})
		if res.StatusCode != 400 || res.Header.Get("Content-Type") != "application/graphql-response+json" || len(out.Errors) == 0 {
			t.Errorf("%q as graphql-response+json: %d %s", q, res.StatusCode, res.Header.Get("Content-Type"))
		}
	}
	// GET runs queries.
	req, _ := http.NewRequest(http.MethodGet, w.srv.URL+"/graphql?query="+url.QueryEscape(`{ eventTypes }`), nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(b), `"eventTypes":["load.changed"`) {
		t.Errorf("GET: %d %s", res.StatusCode, b)
	}
	// Automatic persisted queries: hash alone is unknown, then registered, then served by hash.
	q := `{ trailers { total } }`
	sum := sha256.Sum256([]byte(q))
	ext := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hex.EncodeToString(sum[:])}}
	_, out := do(t, w.srv.URL, tok, "application/json", map[string]any{"extensions": ext})
	if out.Code(0) != "PERSISTED_QUERY_NOT_FOUND" {
		t.Errorf("unknown hash: %+v", out)
	}
	_, out = do(t, w.srv.URL, tok, "application/json", map[string]any{"query": q, "extensions": ext})
	if string(out.Data["trailers"]) != `{"total":1}` {
		t.Errorf("register: %+v", out)
	}
	_, out = do(t, w.srv.URL, tok, "application/json", map[string]any{"extensions": ext})
	if string(out.Data["trailers"]) != `{"total":1}` {
		t.Errorf("by hash: %+v", out)
	}
	// Introspection is on by default.
	_, out = do(t, w.srv.URL, tok, "application/json", map[string]any{"query": `{ __schema { queryType { name } } }`})
	if len(out.Errors) > 0 {
		t.Errorf("introspection: %+v", out.Errors)
	}
}

func TestIntrospectionCanBeTurnedOff(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 3)
	u := limitedServer(t, w.srv, app.GraphQLOptions{DisableIntrospection: true})
	res, out := do(t, u, w.token(t, "trailer:read"), "application/json", map[string]any{"query": `{ __schema { queryType { name } } }`})
	if res.StatusCode != 200 || out.Code(0) != "FORBIDDEN" || !strings.Contains(out.Errors[0].Message, "introspection") {
		t.Errorf("introspection off: %d %+v", res.StatusCode, out)
	}
}

// introspectionQuery is GraphiQL's standard introspection query.
const introspectionQuery = `query IntrospectionQuery { __schema { queryType { name } mutationType { name } subscriptionType { name }
	types { ...FullType } directives { name description locations args { ...InputValue } } } }
fragment FullType on __Type { kind name description
	fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
	inputFields { ...InputValue } interfaces { ...TypeRef } enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
	possibleTypes { ...TypeRef } }
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
fragment TypeRef on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } }`

func TestIntrospectionBounded(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 1)
	tok := w.token(t, "trailer:read")
	out := gql(t, w.srv.URL, tok, introspectionQuery, nil)
	if len(out.Errors) > 0 || !strings.Contains(string(out.Data["__schema"]), `"SettlementStatement"`) {
		t.Fatalf("standard introspection: %+v", out.Errors)
	}
	// Lists nested beyond the standard query only multiply the answer:
	// gqlparser's introspection-depth rule refuses them.
	out = gql(t, w.srv.URL, tok, `{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }`, nil)
	if out.Code(0) != "GRAPHQL_VALIDATION_FAILED" || out.Data != nil {
		t.Errorf("nested introspection: %+v", out)
	}
}
