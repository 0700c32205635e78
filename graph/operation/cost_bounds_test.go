package operation

import (
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// TestEveryUnpagedListHasABound: every list field of the schema's object
// types that takes no first/pageSize (documents, notes, line items,
// payments, diff changes, delivery attempts, trailer references, ...) is
// priced by a bound the domain holds it to, never by a guess: a query
// selecting it is charged for as many elements as it can return.
func TestEveryUnpagedListHasABound(t *testing.T) {
	t.Parallel()
	var lists []string
	for _, d := range testSchema.Types {
		if d.Kind != ast.Object || strings.HasPrefix(d.Name, "__") || strings.HasSuffix(d.Name, "Connection") {
			continue
		}
		for _, f := range d.Fields {
			el := testSchema.Types[f.Type.Name()]
			if f.Type.Elem == nil || el == nil || el.IsLeafType() || strings.HasPrefix(f.Name, "__") ||
				f.Arguments.ForName("first") != nil || f.Arguments.ForName("pageSize") != nil {
				continue
			}
			lists = append(lists, d.Name+"."+f.Name)
			if _, ok := listBounds[d.Name+"."+f.Name]; !ok {
				t.Errorf("%s.%s (%s) has no domain bound in listBounds", d.Name, f.Name, f.Type)
			}
		}
	}
	if len(lists) < 10 {
		t.Fatalf("found only %v", lists)
	}
	for field := range listBounds {
		typ, name, _ := strings.Cut(field, ".")
		if d := testSchema.Types[typ]; d == nil || d.Fields.ForName(name) == nil {
			t.Errorf("listBounds names %s, which the schema does not have", field)
		}
	}
}

// TestListsPricedByTheirBound: a list is charged its bound times what each
// element selects, so a page of 20 loads with their documents costs at
// least the 20 × 50 documents it may return. Each query must be valid:
// an unknown field is priced 0.
func TestListsPricedByTheirBound(t *testing.T) {
	t.Parallel()
	for q, least := range map[string]int{
		`{ loads(first: 20) { items { documents { id } } } }`:                 20 * listBounds["Load.documents"],
		`{ invoice(number: "INV-1") { lineItems { name } payments { id } } }`: listBounds["Invoice.lineItems"] + listBounds["Invoice.payments"],
		`{ webhooks { deliveries(first: 10) { attempts { statusCode } } } }`:  listBounds["Query.webhooks"] * 10 * listBounds["WebhookDelivery.attempts"],
	} {
		doc, err := parser.ParseQuery(&ast.Source{Input: q})
		if err != nil {
			t.Fatal(err)
		}
		w := newWalker(doc, nil, testSchema)
		if got := w.cost(doc.Operations[0].SelectionSet, testSchema.Query); got < least {
			t.Errorf("%s: priced %d, want at least %d", q, got, least)
		}
	}
}
