package apptest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/graph/generated"
)

// TestIntrospectionOffNamesNothing: with introspection off no error names
// a type, field, argument, input field or enum value of the schema that the
// request did not name itself — not a required argument's name and type, not
// the input type a value was expected to be, not the enum a variable's value
// is not in. The errors stay where they were (code, position).
func TestIntrospectionOffNamesNothing(t *testing.T) {
	t.Parallel()
	e := &env{log: &syncBuffer{}}
	e.srv = apptest.Start(t, apptest.Options{Log: e.log, Configure: func(c *app.Config) { c.DisableIntrospection = true }})
	startToken(t, e)
	names := schemaNames()
	cases := []struct {
		query string
		vars  map[string]any
	}{
		{query: `{ load { id } }`},
		{query: `{ load(loadNumber: 1) { id } }`},
		{query: `{ load(loadNumbr:"1") { id } }`},
		{query: `{ load(loadNumber:"1") { idd } }`},
		{query: `{ load(loadNumber:"1") }`},
		{query: `{ load(loadNumber:"1") { ... on TripEvent { id } } }`},
		{query: `{ l: load(loadNumber:"1") { id } l: loads { pageInfo { hasNextPage } } }`},
		{query: `mutation { createLoad(input: {}) { id } }`},
		{query: `mutation { createLoad(input: {bogus: 1}) { id } }`},
		{query: `{ loads(filter: "x") { pageInfo { hasNextPage } } }`},
		{query: `{ loads(filter: {statuses: [Bookd]}) { pageInfo { hasNextPage } } }`},
		{query: `query($f: String) { loads(filter: $f) { pageInfo { hasNextPage } } }`},
		{query: `query($f: LoadFilter) { loads(filter: $f) { pageInfo { hasNextPage } } }`, vars: map[string]any{"f": map[string]any{"statuses": []any{"Bookd"}}}},
		{query: `query($f: LoadFilter) { loads(filter: $f) { pageInfo { hasNextPage } } }`, vars: map[string]any{"f": "x"}},
		{query: `mutation($i: CreateLoadInput!) { createLoad(input: $i) { id } }`, vars: map[string]any{"i": map[string]any{}}},
	}
	for _, c := range cases {
		res, b := e.send(t, hostile{method: "POST", path: "/graphql", body: gqlBody(c.query, c.vars)})
		var a struct {
			Errors []struct {
				Message    string         `json:"message"`
				Path       []any          `json:"path"`
				Extensions map[string]any `json:"extensions"`
			} `json:"errors"`
		}
		if err := json.Unmarshal(b, &a); err != nil || len(a.Errors) == 0 {
			t.Errorf("%s: status %d: %s", c.query, res.StatusCode, b)
			continue
		}
		if res.StatusCode != http.StatusOK && res.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("%s: status %d", c.query, res.StatusCode)
		}
		sent, _ := json.Marshal(c.vars)
		asked := c.query + string(sent)
		for _, er := range a.Errors {
			if er.Extensions["code"] != "GRAPHQL_VALIDATION_FAILED" {
				t.Errorf("%s: code %v: %s", c.query, er.Extensions["code"], er.Message)
			}
			said := er.Message + fmt.Sprint(er.Path)
			for _, w := range identifier.FindAllString(said, -1) {
				if names[w] && !regexp.MustCompile(`\b`+w+`\b`).MatchString(asked) {
					t.Errorf("%s: the error names %q: %s %v", c.query, w, er.Message, er.Path)
				}
			}
		}
	}
}

var identifier = regexp.MustCompile(`[_A-Za-z][_0-9A-Za-z]*`)

// schemaNames is every name the schema defines: types (built-in scalars
// included), fields, arguments, input fields and enum values.
func schemaNames() map[string]bool {
	s := generated.NewExecutableSchema(generated.Config{}).Schema()
	names := map[string]bool{}
	for name, def := range s.Types {
		if strings.HasPrefix(name, "__") {
			continue
		}
		names[name] = true
		for _, f := range def.Fields {
			names[f.Name] = true
			for _, a := range f.Arguments {
				names[a.Name] = true
			}
		}
		for _, v := range def.EnumValues {
			names[v.Name] = true
		}
	}
	return names
}
