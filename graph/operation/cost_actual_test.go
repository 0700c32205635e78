package operation

import (
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// responseKeysOf is the response keys of q's first operation.
func responseKeysOf(t testing.TB, q string) responseKeys {
	t.Helper()
	doc, err := parser.ParseQuery(&ast.Source{Input: q})
	if err != nil {
		t.Fatal(err)
	}
	return newWalker(doc, nil, testSchema).returned(doc.Operations[0].SelectionSet, testSchema.Query)
}

// TestActualCostCountsPricedObjectsOnly: the actual cost counts, by the
// rule of the requested cost, the objects returned under a root field, a
// list or a @priced field; money, totals, a statement's driver, scalars,
// Map values, braces inside strings and keys the operation did not select
// are free.
func TestActualCostCountsPricedObjectsOnly(t *testing.T) {
	t.Parallel()
	const statement = `{ s: settlementStatement(number: 1) { number driver { name } totals { grossIncome { amount } fuel { amount } }
		lineItems { title amount { amount } subLines { amount { amount } } } } }`
	const events = `{ events { nodes { ... on LoadEvent { data { load { stops { name location { name } } } diff { changes { kind } previousAttributes } } }
		...T } } } fragment T on TripEvent { data { trip { trailer { trailerNum } } } }`
	for _, c := range []struct {
		query, data string
		want        int
	}{
		{statement, ``, 0},
		{statement, `null`, 0},
		{statement, `{}`, 0},
		{statement, `{"s":null}`, 0},
		// The statement 1, two lines 2, three sub-lines 3.
		{statement, `{"s":{"number":1,"driver":{"name":"A {b}"},"totals":{"grossIncome":{"amount":1},"fuel":null},
			"lineItems":[{"title":"a \"quoted {\" brace","amount":{"amount":2},"subLines":[{"amount":{"amount":1}}]},
			{"title":"C:\\","amount":{"amount":3},"subLines":[{"amount":{"amount":1}},{"amount":{"amount":2}}]}]}}`, 6},
		// The connection 1, two events 2, two stops 2, one location 1
		// (@priced), one change 1, one trailer 1 (@priced); the loads, data,
		// diff, trip (the event's row) and the Map value are free.
		{events, `{"events":{"nodes":[
			{"data":{"load":{"stops":[{"name":"x","location":{"name":"y"}},{"name":"z","location":null}]},
				"diff":{"changes":[{"kind":"RateChanged"}],"previousAttributes":{"Rate":{"Amount":1},"List":[{},{}]}}}},
			{"data":{"trip":{"trailer":{"trailerNum":"T-1"}}}}]}}`, 8},
		// Keys not selected (malformed or foreign data) count nothing.
		{events, `{"other":{"a":[{},{}]},"events":{"edges":[{"node":{}}]}}`, 1},
	} {
		if got := actualCost([]byte(c.data), responseKeysOf(t, c.query)); got != c.want {
			t.Errorf("actualCost(%s) = %d, want %d", c.data, got, c.want)
		}
	}
}

// FuzzActualCost: whatever the bytes, reading them ends and counts no more
// objects than they hold.
func FuzzActualCost(f *testing.F) {
	keys := responseKeysOf(f, `{ loads { items { stops { location { name } } trips { trailer { trailerNum } } } } }`)
	for _, seed := range []string{`{"loads":{"items":[{"stops":[{"location":{}}]}]}}`, `{"loads":[`, `{"loads"`, `{,}`, `[}`, `{"a":}`, `{"loads":{"items":[:]}}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		braces := 0
		for _, b := range data {
			if b == '{' {
				braces++
			}
		}
		if n := actualCost(data, keys); n < 0 || n > braces {
			t.Fatalf("%q: %d objects of %d braces", data, n, braces)
		}
	})
}

// TestCostExtensionHasNoFieldHook: the cost extension no longer runs on
// every field of every response.
func TestCostExtensionHasNoFieldHook(t *testing.T) {
	t.Parallel()
	var ext any = &Cost{}
	if _, ok := ext.(graphql.FieldInterceptor); ok {
		t.Fatal("Cost is a graphql.FieldInterceptor: it hooks every field again")
	}
}
