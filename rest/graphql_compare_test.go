package rest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/testkit"
)

// REST and GraphQL answer through one read service: for the same item both
// must say the same thing, field for field (REST's PascalCase names against
// GraphQL's camelCase ones).
func TestRESTMatchesGraphQL(t *testing.T) {
	t.Parallel()
	f := newFixture(t, apptest.Options{})
	g := newGraphQLClient(t, f)
	from, to := f.seed.StatementFrom.String()+"T00:00:00Z", f.seed.StatementTo.String()+"T00:00:00Z"
	rest := func(method, path, body string) any {
		t.Helper()
		var v any
		res, b := f.call(t, method, path, f.all, body)
		ok(t, res, b, &v)
		return v
	}

	t.Run("invoice", func(t *testing.T) {
		for _, inv := range f.seed.Invoices {
			r := rest("GET", "/api/p/v1/invoices?id="+inv.ID.String(), "")
			q := g.query(t, `{ invoice(number: `+strconv.Quote(inv.Number)+`) `+g.selection("Invoice")+` }`)
			same(t, "invoice "+inv.Number, r, q["invoice"])
		}
	})
	t.Run("statement", func(t *testing.T) {
		for _, status := range reads.VisibleStatementStatuses {
			n := strconv.Itoa(int(f.seed.Statements[status]))
			r := rest("GET", "/api/p/v1/driver-settlement-statements/"+n, "")
			q := g.query(t, `{ settlementStatement(number: `+n+`) `+g.selection("SettlementStatement")+` }`)
			same(t, "statement "+n, r, q["settlementStatement"])
		}
	})
	t.Run("statement search", func(t *testing.T) {
		r := rest("POST", "/api/p/v1/driver-settlement-statements/search",
			`{"Page":2,"PageSize":5,"DriverType":"OWNER_OPERATOR","StatementDateRange":{"Start":"`+from+`","End":"`+to+`"}}`)
		q := g.query(t, `{ settlementStatements(page: 2, pageSize: 5, filter: {driverType: "OWNER_OPERATOR", statementDateRange: {start: "`+from+`", end: "`+to+`"}}) { page pageSize total items `+g.selection("SettlementStatement")+` } }`)
		same(t, "statement page", r, q["settlementStatements"])
	})
	t.Run("trailers", func(t *testing.T) {
		r := rest("GET", "/api/p/v1/trailers", "").([]any)
		q := g.query(t, `{ trailers(page: 0, pageSize: 100) { total items `+g.selection("Trailer")+` } }`)
		conn := q["trailers"].(map[string]any)
		if n, _ := conn["total"].(json.Number).Int64(); int(n) != len(r) {
			t.Fatalf("GraphQL counts %d trailers, REST lists %d", n, len(r))
		}
		same(t, "trailers", r[:min(100, len(r))], conn["items"])
	})
	t.Run("locations", func(t *testing.T) {
		r := rest("POST", "/api/p/v1/locations/search", `{"Page":1,"PageSize":7,"Status":["Active","Inactive"]}`)
		q := g.query(t, `{ locations(page: 1, pageSize: 7, filter: {status: ["Active", "Inactive"]}) { page pageSize total items `+g.selection("Location")+` } }`)
		same(t, "location page", r, q["locations"])
	})
	t.Run("users", func(t *testing.T) {
		r := rest("POST", "/api/p/v1/users/search", `{"Page":0,"PageSize":9,"Keyword":"a"}`)
		q := g.query(t, `{ users(page: 0, pageSize: 9, keyword: "a") { page pageSize total items `+g.selection("User")+` } }`)
		same(t, "user page", r, q["users"])
	})
	t.Run("load", func(t *testing.T) {
		r := rest("GET", "/api/p/v1/loads/"+f.seed.LoadWithTrips, "")
		q := g.query(t, `{ load(loadNumber: `+strconv.Quote(f.seed.LoadWithTrips)+`) `+g.selection("Load")+` }`)
		same(t, "load", r, q["load"])
	})
	t.Run("event types", func(t *testing.T) {
		r := rest("GET", "/api/p/v1/webhooks/event-types", "")
		q := g.query(t, `{ eventTypes }`)
		same(t, "event types", r, q["eventTypes"])
	})
}

// same compares a REST value with a GraphQL one: object keys match without
// regard to case, a REST field that is absent equals a GraphQL null, numbers
// compare as exact decimals and date-times as instants. Every REST field must
// exist in GraphQL; GraphQL's extra relations are not compared.
func same(t *testing.T, path string, r, g any) {
	t.Helper()
	switch rv := r.(type) {
	case map[string]any:
		gv, ok := g.(map[string]any)
		if !ok {
			t.Fatalf("%s: REST has an object, GraphQL %T (%v)", path, g, g)
		}
		keys := map[string]string{}
		for k := range gv {
			keys[strings.ToLower(k)] = k
		}
		for k, v := range rv {
			gk, found := keys[strings.ToLower(k)]
			if !found {
				t.Fatalf("%s.%s: a REST field GraphQL does not have", path, k)
			}
			same(t, path+"."+k, v, gv[gk])
		}
	case []any:
		gv, ok := g.([]any)
		if !ok || len(gv) != len(rv) {
			t.Fatalf("%s: REST has %d items, GraphQL %v", path, len(rv), g)
		}
		for i := range rv {
			same(t, fmt.Sprintf("%s[%d]", path, i), rv[i], gv[i])
		}
	case json.Number:
		a, err1 := decimal.NewFromString(rv.String())
		b, err2 := decimal.NewFromString(fmt.Sprint(g))
		if err1 != nil || err2 != nil || !a.Equal(b) {
			t.Fatalf("%s: REST %v, GraphQL %v", path, r, g)
		}
	case string:
		gs, _ := g.(string)
		if gs == rv {
			return
		}
		a, err1 := time.Parse(time.RFC3339Nano, rv)
		b, err2 := time.Parse(time.RFC3339Nano, gs)
		if err1 != nil || err2 != nil || !a.Equal(b) {
			t.Fatalf("%s: REST %q, GraphQL %v", path, rv, g)
		}
	default:
		if fmt.Sprint(r) != fmt.Sprint(g) {
			t.Fatalf("%s: REST %v, GraphQL %v", path, r, g)
		}
	}
}

// graphQLClient posts queries to /graphql with the fixture's token and builds
// full selection sets from the served schema (introspection), so that every
// field GraphQL has is fetched.
type graphQLClient struct {
	f     *fixture
	types map[string]introType
}

type introType struct {
	Name   string
	Kind   string
	Fields []struct {
		Name string
		Args []struct {
			Name string
			Type introRef
		}
		Type introRef
	}
}

type introRef struct {
	Kind   string
	Name   *string
	OfType *introRef
}

func (r introRef) named() (kind, name string) {
	for r.OfType != nil {
		r = *r.OfType
	}
	if r.Name != nil {
		name = *r.Name
	}
	return r.Kind, name
}

func newGraphQLClient(t *testing.T, f *fixture) *graphQLClient {
	g := &graphQLClient{f: f, types: map[string]introType{}}
	ref := "kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } }"
	data := g.query(t, `{ __schema { types { name kind fields { name args { name type { `+ref+` } } type { `+ref+` } } } } }`)
	raw, _ := json.Marshal(data["__schema"].(map[string]any)["types"])
	var types []introType
	if err := json.Unmarshal(raw, &types); err != nil {
		t.Fatal(err)
	}
	for _, ty := range types {
		g.types[ty.Name] = ty
	}
	return g
}

// selection is every scalar field of typ and of its objects, up to a depth
// that covers the REST shapes, leaving out fields that need arguments and
// GraphQL-only relations back up the graph.
func (g *graphQLClient) selection(typ string) string { return g.sel(typ, 4, []string{typ}) }

func (g *graphQLClient) sel(typ string, depth int, seen []string) string {
	var parts []string
	for _, fld := range g.types[typ].Fields {
		kind, name := fld.Type.named()
		required := slices.ContainsFunc(fld.Args, func(a struct {
			Name string
			Type introRef
		}) bool {
			return a.Type.Kind == "NON_NULL"
		})
		if required {
			continue
		}
		switch kind {
		case "SCALAR", "ENUM":
			parts = append(parts, fld.Name)
		case "OBJECT":
			if depth > 1 && !slices.Contains(seen, name) && !strings.HasSuffix(name, "Connection") {
				parts = append(parts, fld.Name+" "+g.sel(name, depth-1, append(slices.Clone(seen), name)))
			}
		}
	}
	return "{ " + strings.Join(parts, " ") + " }"
}

// query runs q and returns data, failing on any GraphQL error.
func (g *graphQLClient) query(t *testing.T, q string) map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"query": q})
	res, b := testkit.Request(t, "POST", g.f.srv.URL+"/graphql", map[string]string{
		"Authorization": "Bearer " + g.f.all, "Content-Type": "application/json", "Accept": "application/json",
	}, string(body))
	var out struct {
		Data   map[string]any `json:"data"`
		Errors []any          `json:"errors"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil || res.StatusCode != http.StatusOK || len(out.Errors) > 0 {
		t.Fatalf("GraphQL %s: %d %s", q, res.StatusCode, b)
	}
	return out.Data
}
