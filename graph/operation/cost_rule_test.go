package operation

import (
	"reflect"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/haulgraph/haulgraph/graph/generated"
)

// TestCostIsWork: what is fetched with its parent's row (money, totals, a
// statement's driver, an address, an event's load, a page's pageInfo)
// costs nothing of its own; each object of a root field, a list (by its
// bound or page size) or a @priced relation costs 1.
func TestCostIsWork(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		query string
		want  int
	}{
		// docs/graphql.md's dashboard query: the page 1, 100 statements
		// each 1 + 24 lines × (1 + 3 sub-lines).
		{`{ settlementStatements(filter: {}, page: 0, pageSize: 100) { items { number status statementDate driver { name type }
			totals { grossIncome { amount currency } netIncome { amount currency } deductions { amount } escrow { amount } fuel { amount } loadedMiles }
			lineItems { category title amount { amount currency } subLines { description quantity rate amount { amount currency } } } } } }`, 1 + 100*(1+24*(1+3))},
		// docs/graphql.md's three: 1 + 2 statements; the invoice 1 + 20
		// payments; the load 1 + 100 stops × (1 + a location) + 20 trips
		// × (1 + 4 drivers + a trailer).
		{`{ settlementStatements(filter: {}, page: 0, pageSize: 2) { total items { number driver { name } totals { grossIncome { amount } } } } }`, 3},
		{`{ invoice(number: "INV-1") { number total { amount } customer { name billingAddress { city } } payments { amount { amount } } } }`, 21},
		{`{ load(loadNumber: "LD-1") { rate { amount } stops { address { city } location { name } } trips { drivers { name } trailer { trailerNum } } } }`, 321},
		// A page of 100 loads with their stops (docs/graphql.md).
		{`{ loads(first: 100) { items { loadNumber rate { amount } stops { name address { city } } } } }`, 1 + 100*(1+100)},
		// Edges and items: each element 1, the node (the edge's row) and
		// pageInfo free.
		{`{ trailers(first: 10) { pageInfo { endCursor } edges { cursor node { trailerNum fleet { name } capacity { maxWeight } } } items { trailerNum } } }`, 1 + 10*(1+1)},
		// An event carries its load: free; the event 1, its stops 100.
		{`{ events(first: 5) { nodes { ... on LoadEvent { data { load { rate { amount } stops { name } } diff { changes { kind } } } } } } }`,
			1 + 5*(1+100+listBounds["EventDiff.changes"])},
		// A root field of a mutation; its row's money free.
		{`mutation { changeLoadStatus(loadNumber: "LD-1", status: Dispatched) { rate { amount } trips { carrier { name } } } }`, 1 + 20*(1+1)},
		// A paged list: each element 1 and what it selects.
		{`{ webhooks { deliveries(first: 10) { attempts { statusCode } } } }`, 100 * (1 + 10*(1+8))},
		// Introspection by the same rule: __schema 1, types 5 × (1 + fields 5).
		{`{ __schema { queryType { name } types { name fields { name type { name ofType { name } } } } } }`, 1 + 5*(1+5)},
	} {
		doc, err := parser.ParseQuery(&ast.Source{Input: c.query})
		if err != nil {
			t.Fatal(err)
		}
		o := doc.Operations[0]
		root := testSchema.Query
		if o.Operation == ast.Mutation {
			root = testSchema.Mutation
		}
		if got := newWalker(doc, nil, testSchema).cost(o.SelectionSet, root); got != c.want {
			t.Errorf("%s: priced %d, want %d", c.query, got, c.want)
		}
	}
}

// TestPricedMarksTheRelationsLoadedApart: @priced is on exactly the object
// fields (not lists, not root fields) that gqlgen resolves with a resolver
// of their own (a dataloader) instead of reading them from their parent's
// row, so a new relation cannot be left free by omission.
func TestPricedMarksTheRelationsLoadedApart(t *testing.T) {
	t.Parallel()
	resolved := map[string]bool{}
	root := reflect.TypeFor[generated.ResolverRoot]()
	for i := range root.NumMethod() {
		m := root.Method(i)
		def := testSchema.Types[m.Name]
		for j := range m.Type.Out(0).NumMethod() {
			if def == nil {
				t.Fatalf("ResolverRoot.%s names no type", m.Name)
			}
			name := m.Type.Out(0).Method(j).Name
			for _, f := range def.Fields {
				if strings.EqualFold(f.Name, name) {
					resolved[def.Name+"."+f.Name] = true
				}
			}
		}
	}
	marked := 0
	for _, d := range testSchema.Types {
		if d.Kind != ast.Object || d == testSchema.Query || d == testSchema.Mutation || d == testSchema.Subscription {
			continue
		}
		for _, f := range d.Fields {
			el := testSchema.Types[f.Type.Name()]
			relation := f.Type.Elem == nil && el != nil && !el.IsLeafType() && resolved[d.Name+"."+f.Name]
			isMarked := f.Directives.ForName("priced") != nil
			if isMarked {
				marked++
			}
			if relation != isMarked {
				t.Errorf("%s.%s: loaded by a resolver of its own %v, marked @priced %v", d.Name, f.Name, relation, isMarked)
			}
		}
	}
	if marked < 4 {
		t.Errorf("only %d fields are @priced", marked)
	}
}
